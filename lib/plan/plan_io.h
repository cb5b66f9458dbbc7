// Reading and writing plan files. Writing is atomic (a failed write leaves no partial plan);
// reading refuses anything that is not a valid plan of this format (ValidatePlan).
//
// The file (format 3, a container, so that the weights may pass protobuf's 2 GiB limit):
//   bytes 0-7    magic "\0IOSPLAN" (byte 0 is 0: no bare protobuf message starts so)
//   bytes 8-11   container version, little-endian (1)
//   bytes 12-15  reserved (0)
//   bytes 16-23  the body's size B, little-endian
//   bytes 24-55  the body's SHA-256
//   B bytes      the body: the plan::Plan message, whose weights carry their size, offset and
//                SHA-256 but not their bytes
//   zero padding to a multiple of 64, then the data section: each weight's bytes at its offset
//                (64-byte aligned, in weight order, zeros between), and nothing after the last.
// A plan moves between machines, and servers load plans they did not write: every byte is
// checked when it is read (the body against its digest, each weight against its own, padding
// for zeros, the file's size), and any difference is "plan is corrupted", never wrong outputs.
// PlanVerify::kSkip leaves the digests unchecked for trusted, huge plans (iosrun --no-verify).
// Plans of formats 1 and 2 (one bare message holding the weights) are still read, unchecked.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ir/tensor.h"
#include "iosplan.pb.h"
#include "util/status.h"

namespace ios {

// Serialises deterministically (the same plan gives the same bytes). The weights' bytes are
// moved out of `plan` while its body is serialised, and back before this returns; the weights'
// `bytes` and `offset` are set.
// PlanWeights::kStrip writes a weight-stripped plan (format 3.1, Plan.weights_stripped): the
// weights keep their size and SHA-256, and the file ends after the body.
// `weight_tensors`, for a plan built without its weights' bytes (PlanMetadata::weight_bytes
// false): weight w's bytes, written from (*weight_tensors)[w] (PlanWeightTensors' order).
enum class PlanWeights { kKeep, kStrip };
using WeightTensors = std::vector<const Tensor*>;
Status WritePlanFile(plan::Plan& plan, const std::string& path,
                     PlanWeights weights = PlanWeights::kKeep,
                     const WeightTensors* weight_tensors = nullptr);
inline Status WritePlanFile(plan::Plan&& plan, const std::string& path,
                            PlanWeights weights = PlanWeights::kKeep) {
  return WritePlanFile(plan, path, weights);
}
// The same file's bytes in memory (a server that keeps plans in a store).
StatusOr<std::string> SerializePlan(plan::Plan& plan, PlanWeights weights = PlanWeights::kKeep);

// Where an open plan's bytes are read from: its file or memory.
class PlanBytes {
 public:
  virtual ~PlanBytes() = default;
  virtual int64_t size() const = 0;
  virtual bool Read(int64_t offset, void* into, int64_t bytes) const = 0;
};

// InvalidInput "<path>: not an ios plan (truncated or corrupted)" for bytes that do not parse as
// a plan, and ValidatePlan's errors for a plan that is not valid. Every weight's bytes are in
// the returned message.
enum class PlanVerify { kCheck, kSkip };

StatusOr<plan::Plan> ReadPlanFile(const std::string& path, PlanVerify verify = PlanVerify::kCheck);

// A plan file opened for loading: its message, read and validated, whose weights' bytes stay in
// the file (format 3) until ReadWeight copies each, once, where it is needed (LoadPlanFile in
// plan_loader.h reads them straight into the graph's tensors). Formats 1 and 2 hold the bytes in
// the message; ReadWeight copies them from there. A weight-stripped plan's weights come from
// SetRebuiltWeights (compile/weight_rebuild.h rebuilds them from the model); until then ReadWeight
// refuses, naming the fix.
class PlanFile {
 public:
  static StatusOr<PlanFile> Open(const std::string& path, PlanVerify verify = PlanVerify::kCheck);
  // The same from a plan's bytes in memory; `source` names it in messages.
  static StatusOr<PlanFile> FromBytes(std::string bytes, const std::string& source,
                                      PlanVerify verify = PlanVerify::kCheck);

  const plan::Plan& plan() const { return plan_; }
  plan::Plan& mutable_plan() { return plan_; }
  const std::string& path() const { return path_; }
  bool weights_in_file() const { return data_start_ >= 0; }
  bool weights_stripped() const { return plan_.weights_stripped(); }
  // Weight `w`'s bytes (Weight.bytes of them) into `into`.
  Status ReadWeight(int w, void* into) const;
  // Frees what this file holds of weight `w`'s bytes (a rebuilt weight, or the message's copy in
  // formats 1 and 2): ReadWeight(w) cannot read it again.
  void ReleaseWeight(int w);
  // A stripped plan's weights, one per Weight in order, each already checked against its
  // SHA-256 and size.
  void SetRebuiltWeights(std::vector<Tensor> weights) { rebuilt_ = std::move(weights); }

 private:
  static StatusOr<PlanFile> OpenBytes(std::shared_ptr<const PlanBytes> bytes,
                                      const std::string& path, PlanVerify verify);

  plan::Plan plan_;
  std::string path_;
  std::shared_ptr<const PlanBytes> bytes_;  // the container's bytes, for ReadWeight
  int64_t data_start_ = -1;  // where the data section starts; -1: the bytes are in the message
  PlanVerify verify_ = PlanVerify::kCheck;
  std::vector<Tensor> rebuilt_;  // a stripped plan's weights, once rebuilt
};

}  // namespace ios

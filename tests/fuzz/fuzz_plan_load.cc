// Fuzz target: a plan file as a server would load one it did not write — opened, validated,
// converted to the runtime's objects (LoadPlanFile) and given a CPU session; a session whose
// arena is small also runs once on zero inputs. The file is opened without its digests checked
// (PlanVerify::kSkip, iosrun --no-verify): a hostile plan can carry correct digests, so the
// validation behind them is what must hold. The custom mutator parses the container, changes one
// field of the plan message (an op's attribute or inputs, a tensor's dims, a placement, a
// schedule index, a weight's offset...), and writes the container back with the new body's size
// and digest, so that the mutants pass the header checks and reach validation.
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "fuzz_scratch.h"
#include "iosplan.pb.h"
#include "plan/plan_loader.h"
#include "proto_mutator.h"
#include "runtime/cpu/cpu_session.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "util/sha256.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

// The container's layout (plan/plan_io.h): a 56-byte header (magic, version, reserved, body
// size, body SHA-256), the body, zeros to a multiple of 64, then the data section.
constexpr size_t kHeaderBytes = 56;
constexpr size_t kAlignment = 64;
constexpr int64_t kRunArenaLimit = 64 << 20;  // run sessions whose arena is at most this

size_t AlignUp(size_t value) { return (value + kAlignment - 1) / kAlignment * kAlignment; }

uint64_t ReadLittleEndian(const uint8_t* in) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | in[i];
  return value;
}

void LoadAndRun(const std::string& path) {
  ios::StatusOr<ios::PlanFile> file = ios::PlanFile::Open(path, ios::PlanVerify::kSkip);
  if (!file.ok()) return;
  ios::StatusOr<ios::LoadedPlan> loaded = ios::LoadPlanFile(std::move(*file), ios::CpuKernelCaps());
  if (!loaded.ok()) return;
  const int64_t arena = loaded->memory.arena_bytes;
  ios::CpuSessionOptions options;
  options.threads = 1;
  options.memory_limit_bytes = 256 << 20;
  ios::StatusOr<std::unique_ptr<ios::CpuSession>> session =
      ios::CpuSession::Create(std::move(*loaded), options);
  if (!session.ok() || arena > kRunArenaLimit) return;
  std::vector<ios::Tensor> inputs;
  for (ios::ValueId id : (*session)->graph().inputs) {
    const ios::Value& value = (*session)->graph().values[id];
    inputs.emplace_back(value.dtype, value.dims);
  }
  if ((*session)->SetInputs(inputs).ok()) (void)(*session)->Run();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ios::fuzz::QuietLogs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  LoadAndRun(ios::fuzz::WriteScratchFile("plan.iosplan", data, size));
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::mt19937_64 rng(seed);
  if (size > kHeaderBytes && rng() % 8 != 0) {
    const uint64_t body_size = ReadLittleEndian(data + 16);
    const size_t data_start = AlignUp(kHeaderBytes + body_size);
    ios::plan::Plan plan;
    if (body_size <= size - kHeaderBytes && data_start <= size &&
        plan.ParseFromArray(data + kHeaderBytes, static_cast<int>(body_size))) {
      for (int i = 0, n = 1 + static_cast<int>(rng() % 2); i < n; ++i)
        ios::fuzz::MutateProto(&plan, rng);
      const std::string body = plan.SerializeAsString();
      const std::string digest = ios::Sha256Bytes(body.data(), body.size());
      std::string out(reinterpret_cast<const char*>(data), 16);  // magic, version, reserved
      for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(body.size() >> (8 * i)));
      out += digest;
      out += body;
      out.resize(AlignUp(out.size()), '\0');
      out.append(reinterpret_cast<const char*>(data) + data_start, size - data_start);
      if (!body.empty() && out.size() <= max_size) {
        std::memcpy(data, out.data(), out.size());
        return out.size();
      }
    }
  }
  return LLVMFuzzerMutate(data, size, max_size);
}

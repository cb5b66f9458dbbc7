#include "plan/plan_io.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "plan/plan_format.h"
#include "plan/plan_validate.h"
#include "util/file_util.h"
#include "util/sha256.h"

namespace ios {
namespace {

// Byte 0 is 0, which no serialised protobuf message starts with (field number 0 does not
// exist), so a format 1 or 2 plan, a bare message, is told apart from the container.
constexpr char kMagic[8] = {'\0', 'I', 'O', 'S', 'P', 'L', 'A', 'N'};
constexpr uint32_t kContainerVersion = 1;
constexpr int64_t kHeaderBytes = 56;  // magic, container version, reserved, body size, digest
constexpr int64_t kDigestBytes = 32;
constexpr int64_t kDataAlignment = 64;

int64_t AlignUp(int64_t value) {
  return (value + kDataAlignment - 1) / kDataAlignment * kDataAlignment;
}

void PutLittleEndian(uint64_t value, int bytes, std::string* out) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

uint64_t GetLittleEndian(const unsigned char* in, int bytes) {
  uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) value = (value << 8) | in[i];
  return value;
}

Status NotAPlan(const std::string& path) {
  return InvalidInput(path + ": not an ios plan (truncated or corrupted)");
}

Status StrippedPlanNeedsItsModel(const std::string& path) {
  return InvalidInput(path +
                      ": a weight-stripped plan (iosc --strip-weights) has no weights; give the "
                      "model it was compiled from (iosrun --weights MODEL.onnx)");
}

Status Corrupted(const std::string& path, const std::string& what) {
  return InvalidInput(path + ": plan is corrupted: " + what +
                      " (iosrun --no-verify skips the checks, for plans you trust)");
}

// Protobuf accepts many byte strings (even random ones can parse as unknown fields), so a plan
// must also carry a format version, tensors and ops before it is validated in detail.
bool LooksLikeAPlan(const plan::Plan& plan) {
  return plan.format_major() != 0 && plan.tensors_size() > 0 && plan.ops_size() > 0;
}

// A plan file, reopened for each read so that an open plan holds no descriptor.
class FilePlanBytes : public PlanBytes {
 public:
  FilePlanBytes(std::string path, int64_t size) : path_(std::move(path)), size_(size) {}
  int64_t size() const override { return size_; }
  bool Read(int64_t offset, void* into, int64_t bytes) const override {
    if (bytes == 0) return true;
    std::FILE* file = std::fopen(path_.c_str(), "rb");
    if (file == nullptr) return false;
    const bool ok = fseeko(file, static_cast<off_t>(offset), SEEK_SET) == 0 &&
                    std::fread(into, 1, static_cast<size_t>(bytes), file) ==
                        static_cast<size_t>(bytes);
    std::fclose(file);
    return ok;
  }

 private:
  std::string path_;
  int64_t size_;
};

class MemoryPlanBytes : public PlanBytes {
 public:
  explicit MemoryPlanBytes(std::string bytes) : bytes_(std::move(bytes)) {}
  int64_t size() const override { return static_cast<int64_t>(bytes_.size()); }
  bool Read(int64_t offset, void* into, int64_t bytes) const override {
    if (offset < 0 || bytes < 0 || offset > size() || bytes > size() - offset) return false;
    if (bytes > 0) std::memcpy(into, bytes_.data() + offset, static_cast<size_t>(bytes));
    return true;
  }

 private:
  std::string bytes_;
};

// Writes the container through `put` (false when it fails). The weights' bytes leave the
// message while its body is serialised, each recording where it follows the body, and come back
// before this returns; with `from`, they are read from those tensors instead, the message holding
// none.
Status EmitContainer(plan::Plan& plan, PlanWeights weights, const WeightTensors* from,
                     const std::string& what,
                     const std::function<bool(const char*, size_t)>& put, bool* put_ok) {
  const bool strip = weights == PlanWeights::kStrip;
  if (from && from->size() != static_cast<size_t>(plan.weights_size()))
    return Internal(what + ": " + std::to_string(from->size()) + " weight tensors for " +
                    std::to_string(plan.weights_size()) + " weights");
  plan.set_weights_stripped(strip);
  std::vector<std::string> held(from ? 0 : static_cast<size_t>(plan.weights_size()));
  std::vector<std::pair<const char*, size_t>> data(static_cast<size_t>(plan.weights_size()));
  int64_t offset = 0;
  for (int w = 0; w < plan.weights_size(); ++w) {
    plan::Weight* weight = plan.mutable_weights(w);
    auto& [bytes, size] = data[static_cast<size_t>(w)];
    if (from) {
      const Tensor& tensor = *(*from)[static_cast<size_t>(w)];
      if (!weight->data().empty() || static_cast<int64_t>(tensor.num_bytes()) != weight->bytes())
        return Internal(what + ": weight " + std::to_string(w) + " holds " +
                        std::to_string(weight->data().size()) + " bytes and records " +
                        std::to_string(weight->bytes()) + ", its tensor has " +
                        std::to_string(tensor.num_bytes()));
      bytes = reinterpret_cast<const char*>(tensor.raw());
      size = tensor.num_bytes();
    } else {
      std::string& moved = held[static_cast<size_t>(w)];
      moved.swap(*weight->mutable_data());
      bytes = moved.data();
      size = moved.size();
    }
    weight->set_bytes(static_cast<int64_t>(size));
    weight->set_offset(strip ? 0 : offset);
    weight->set_sha256(Sha256Bytes(bytes, size));
    offset = AlignUp(offset + weight->bytes());
  }
  std::string body;
  bool serialised = false;
  {
    google::protobuf::io::StringOutputStream stream(&body);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);  // map fields in key order
    serialised = plan.SerializeToCodedStream(&coded) && !coded.HadError();
  }
  auto restore = [&]() {
    for (size_t w = 0; w < held.size(); ++w)
      held[w].swap(*plan.mutable_weights(static_cast<int>(w))->mutable_data());
  };
  if (!serialised) {
    restore();
    return Internal(what + ": cannot serialise the plan's body");
  }
  std::string header(kMagic, sizeof(kMagic));
  PutLittleEndian(kContainerVersion, 4, &header);
  PutLittleEndian(0, 4, &header);
  PutLittleEndian(body.size(), 8, &header);
  header += Sha256Bytes(body.data(), body.size());
  const int64_t data_start = AlignUp(kHeaderBytes + static_cast<int64_t>(body.size()));
  const std::string zeros(static_cast<size_t>(kDataAlignment), '\0');
  auto emit = [&]() {
    auto write = [&](const char* bytes, size_t size) { return size == 0 || put(bytes, size); };
    int64_t at = 0;
    auto pad_to = [&](int64_t target) {
      const bool ok = write(zeros.data(), static_cast<size_t>(target - at));
      at = target;
      return ok;
    };
    if (!write(header.data(), header.size()) || !write(body.data(), body.size())) return false;
    at = kHeaderBytes + static_cast<int64_t>(body.size());
    if (strip) return true;  // no data section
    if (!pad_to(data_start)) return false;
    for (int w = 0; w < plan.weights_size(); ++w) {
      const auto& [bytes, size] = data[static_cast<size_t>(w)];
      if (!pad_to(data_start + plan.weights(w).offset()) || !write(bytes, size)) return false;
      at += static_cast<int64_t>(size);
    }
    return true;
  };
  *put_ok = emit();
  restore();
  return Status::Ok();
}

}  // namespace

Status WritePlanFile(plan::Plan& plan, const std::string& path, PlanWeights weights,
                     const WeightTensors* weight_tensors) {
  Status emitted = Status::Ok();
  Status written = WriteFileAtomicallyWith(path, [&](std::FILE* file) {
    bool ok = false;
    emitted = EmitContainer(
        plan, weights, weight_tensors, path,
        [file](const char* bytes, size_t size) {
          return std::fwrite(bytes, 1, size, file) == size;
        },
        &ok);
    return emitted.ok() && ok;
  });
  IOS_RETURN_IF_ERROR(emitted);
  return written;
}

StatusOr<std::string> SerializePlan(plan::Plan& plan, PlanWeights weights) {
  std::string out;
  bool ok = false;
  IOS_RETURN_IF_ERROR(EmitContainer(
      plan, weights, nullptr, "the plan",
      [&out](const char* bytes, size_t size) {
        out.append(bytes, size);
        return true;
      },
      &ok));
  return out;
}

StatusOr<PlanFile> PlanFile::Open(const std::string& path, PlanVerify verify) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return IoError(path + ": cannot open: " + std::strerror(errno));
  const bool sought = std::fseek(file, 0, SEEK_END) == 0;
  const int64_t size = sought ? static_cast<int64_t>(ftello(file)) : -1;
  std::fclose(file);
  if (size < 0) return IoError(path + ": cannot seek");
  return OpenBytes(std::make_shared<FilePlanBytes>(path, size), path, verify);
}

StatusOr<PlanFile> PlanFile::FromBytes(std::string bytes, const std::string& source,
                                       PlanVerify verify) {
  return OpenBytes(std::make_shared<MemoryPlanBytes>(std::move(bytes)), source, verify);
}

StatusOr<PlanFile> PlanFile::OpenBytes(std::shared_ptr<const PlanBytes> bytes,
                                       const std::string& path, PlanVerify verify) {
  PlanFile opened;
  opened.path_ = path;
  opened.verify_ = verify;
  const int64_t file_size = bytes->size();
  unsigned char header[kHeaderBytes] = {};
  const int64_t got = std::min<int64_t>(file_size, kHeaderBytes);
  if (!bytes->Read(0, header, got)) return IoError(path + ": cannot read");
  if (got < static_cast<int64_t>(sizeof(kMagic)) ||
      std::memcmp(header, kMagic, sizeof(kMagic)) != 0) {
    // Formats 1 and 2: the whole file is one message, the weights inside it.
    std::string whole(static_cast<size_t>(file_size), '\0');
    if (!bytes->Read(0, whole.data(), file_size)) return IoError(path + ": cannot read");
    if (!opened.plan_.ParseFromString(whole) || !LooksLikeAPlan(opened.plan_))
      return NotAPlan(path);
    IOS_RETURN_IF_ERROR(ValidatePlan(opened.plan_, path));
    return opened;
  }
  if (got < kHeaderBytes) return NotAPlan(path);
  const uint64_t version = GetLittleEndian(header + 8, 4);
  if (version != kContainerVersion) {
    return InvalidInput(path + ": plan container version " + std::to_string(version) +
                        " is not one this build of ios reads (" +
                        std::to_string(kContainerVersion) + "); rebuild the plan with this iosc");
  }
  if (GetLittleEndian(header + 12, 4) != 0)
    return Corrupted(path, "its header's reserved bytes are not 0");
  const uint64_t body_size = GetLittleEndian(header + 16, 8);
  if (body_size == 0 || body_size > static_cast<uint64_t>(file_size - kHeaderBytes))
    return NotAPlan(path);
  std::string body(static_cast<size_t>(body_size), '\0');
  if (!bytes->Read(kHeaderBytes, body.data(), static_cast<int64_t>(body_size)))
    return NotAPlan(path);
  const bool check = verify == PlanVerify::kCheck;
  if (check && Sha256Bytes(body.data(), body.size()) !=
                   std::string(reinterpret_cast<const char*>(header + 24), kDigestBytes))
    return Corrupted(path, "its body does not match its SHA-256");
  if (!opened.plan_.ParseFromString(body) || !LooksLikeAPlan(opened.plan_)) return NotAPlan(path);
  if (opened.plan_.format_major() < 3) return NotAPlan(path);  // a container holds 3 and later
  if (opened.plan_.weights_stripped()) {
    // No data section: the file ends with the body, and no weight claims a place in it.
    if (file_size != kHeaderBytes + static_cast<int64_t>(body_size))
      return Corrupted(path, "a weight-stripped plan has " +
                                 std::to_string(file_size - kHeaderBytes -
                                                static_cast<int64_t>(body_size)) +
                                 " bytes after its body");
    for (int w = 0; w < opened.plan_.weights_size(); ++w) {
      const plan::Weight& weight = opened.plan_.weights(w);
      if (!weight.data().empty() || weight.offset() != 0 ||
          weight.sha256().size() != static_cast<size_t>(kDigestBytes))
        return Corrupted(path, "weight-stripped, but weight " + std::to_string(w) +
                                   " has bytes, an offset or no SHA-256");
    }
    IOS_RETURN_IF_ERROR(ValidatePlan(opened.plan_, path, WeightBytes::kInFile));
    return opened;
  }

  // Each weight's bytes must lie in the file, apart from the others, before anything is
  // allocated for them.
  opened.data_start_ = AlignUp(kHeaderBytes + static_cast<int64_t>(body_size));
  const int64_t data_size = file_size - opened.data_start_;
  int64_t end_of_previous = 0;
  for (int w = 0; w < opened.plan_.weights_size(); ++w) {
    const plan::Weight& weight = opened.plan_.weights(w);
    const int64_t offset = weight.offset(), size = weight.bytes();
    if (!weight.data().empty() || offset < end_of_previous || size < 0 || offset > data_size ||
        size > data_size - offset) {
      return InvalidInput(path + ": weight " + std::to_string(w) +
                          "'s bytes lie outside the file's data section (truncated or "
                          "corrupted)");
    }
    // Between weights: zeros only.
    if (check && offset > end_of_previous) {
      std::string gap(static_cast<size_t>(offset - end_of_previous), '\1');
      if (!bytes->Read(opened.data_start_ + end_of_previous, gap.data(),
                       static_cast<int64_t>(gap.size())) ||
          gap.find_first_not_of('\0') != std::string::npos)
        return Corrupted(path, "the padding before weight " + std::to_string(w) + " is not zero");
    }
    end_of_previous = offset + size;
  }
  if (data_size != end_of_previous)
    return Corrupted(path, "the file has " + std::to_string(data_size - end_of_previous) +
                               " bytes after its last weight");
  IOS_RETURN_IF_ERROR(ValidatePlan(opened.plan_, path, WeightBytes::kInFile));
  opened.bytes_ = std::move(bytes);
  return opened;
}

void PlanFile::ReleaseWeight(int w) {
  if (static_cast<size_t>(w) < rebuilt_.size()) rebuilt_[static_cast<size_t>(w)] = Tensor();
  if (w >= 0 && w < plan_.weights_size())
    std::string().swap(*plan_.mutable_weights(w)->mutable_data());
}

Status PlanFile::ReadWeight(int w, void* into) const {
  const plan::Weight& weight = plan_.weights(w);
  if (weights_stripped()) {
    if (rebuilt_.size() != static_cast<size_t>(plan_.weights_size()))
      return StrippedPlanNeedsItsModel(path_);
    const Tensor& rebuilt = rebuilt_[static_cast<size_t>(w)];
    if (static_cast<int64_t>(rebuilt.num_bytes()) != weight.bytes())
      return Internal(path_ + ": rebuilt weight " + std::to_string(w) + " has the wrong size");
    std::memcpy(into, rebuilt.raw(), rebuilt.num_bytes());
    return Status::Ok();
  }
  if (!weights_in_file()) {
    if (!weight.data().empty()) std::memcpy(into, weight.data().data(), weight.data().size());
    return Status::Ok();
  }
  if (!bytes_->Read(data_start_ + weight.offset(), into, weight.bytes())) {
    return IoError(path_ + ": cannot read weight " + std::to_string(w) + ": " +
                   std::strerror(errno));
  }
  if (verify_ == PlanVerify::kCheck &&
      Sha256Bytes(into, static_cast<size_t>(weight.bytes())) != weight.sha256()) {
    return Corrupted(path_, "weight " + std::to_string(w) + " ('" +
                                plan_.tensors(weight.tensor()).name() +
                                "') does not match its SHA-256");
  }
  return Status::Ok();
}

StatusOr<plan::Plan> ReadPlanFile(const std::string& path, PlanVerify verify) {
  IOS_ASSIGN_OR_RETURN(PlanFile file, PlanFile::Open(path, verify));
  if (file.weights_stripped()) return StrippedPlanNeedsItsModel(path);
  if (!file.weights_in_file()) return std::move(file.mutable_plan());
  plan::Plan& plan = file.mutable_plan();
  for (int w = 0; w < plan.weights_size(); ++w) {
    std::string* data = plan.mutable_weights(w)->mutable_data();
    data->resize(static_cast<size_t>(plan.weights(w).bytes()));
    IOS_RETURN_IF_ERROR(file.ReadWeight(w, data->data()));
  }
  return std::move(plan);
}

}  // namespace ios

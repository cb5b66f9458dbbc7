#include "plan/plan_io.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
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

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

bool ReadExactly(std::FILE* file, void* into, int64_t bytes) {
  return bytes == 0 ||
         std::fread(into, 1, static_cast<size_t>(bytes), file) == static_cast<size_t>(bytes);
}

// Protobuf accepts many byte strings (even random ones can parse as unknown fields), so a plan
// must also carry a format version, tensors and ops before it is validated in detail.
bool LooksLikeAPlan(const plan::Plan& plan) {
  return plan.format_major() != 0 && plan.tensors_size() > 0 && plan.ops_size() > 0;
}

// Format 1 and 2: the whole file is one message, the weights inside it.
StatusOr<plan::Plan> ReadBareMessage(const std::string& path) {
  IOS_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
  plan::Plan plan;
  if (!plan.ParseFromString(bytes) || !LooksLikeAPlan(plan)) return NotAPlan(path);
  return plan;
}

}  // namespace

Status WritePlanFile(plan::Plan& plan, const std::string& path, PlanWeights weights) {
  const bool strip = weights == PlanWeights::kStrip;
  plan.set_weights_stripped(strip);
  // The weights' bytes leave the message while its body is serialised; each weight records
  // where they follow it in the file.
  std::vector<std::string> data(static_cast<size_t>(plan.weights_size()));
  int64_t offset = 0;
  for (int w = 0; w < plan.weights_size(); ++w) {
    plan::Weight* weight = plan.mutable_weights(w);
    data[static_cast<size_t>(w)].swap(*weight->mutable_data());
    weight->set_bytes(static_cast<int64_t>(data[static_cast<size_t>(w)].size()));
    weight->set_offset(strip ? 0 : offset);
    weight->set_sha256(
        Sha256Bytes(data[static_cast<size_t>(w)].data(), data[static_cast<size_t>(w)].size()));
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
    for (int w = 0; w < plan.weights_size(); ++w)
      data[static_cast<size_t>(w)].swap(*plan.mutable_weights(w)->mutable_data());
  };
  if (!serialised) {
    restore();
    return Internal(path + ": cannot serialise the plan's body");
  }
  std::string header(kMagic, sizeof(kMagic));
  PutLittleEndian(kContainerVersion, 4, &header);
  PutLittleEndian(0, 4, &header);
  PutLittleEndian(body.size(), 8, &header);
  header += Sha256Bytes(body.data(), body.size());
  const int64_t data_start = AlignUp(kHeaderBytes + static_cast<int64_t>(body.size()));
  Status written = WriteFileAtomicallyWith(path, [&](std::FILE* file) {
    const std::string zeros(static_cast<size_t>(kDataAlignment), '\0');
    auto put = [&](const void* bytes, size_t size) {
      return size == 0 || std::fwrite(bytes, 1, size, file) == size;
    };
    int64_t at = 0;
    auto pad_to = [&](int64_t target) {
      const bool ok = put(zeros.data(), static_cast<size_t>(target - at));
      at = target;
      return ok;
    };
    if (!put(header.data(), header.size()) || !put(body.data(), body.size())) return false;
    at = kHeaderBytes + static_cast<int64_t>(body.size());
    if (strip) return true;  // no data section
    if (!pad_to(data_start)) return false;
    for (int w = 0; w < plan.weights_size(); ++w) {
      const std::string& bytes = data[static_cast<size_t>(w)];
      if (!pad_to(data_start + plan.weights(w).offset()) || !put(bytes.data(), bytes.size()))
        return false;
      at += static_cast<int64_t>(bytes.size());
    }
    return true;
  });
  restore();
  return written;
}

StatusOr<PlanFile> PlanFile::Open(const std::string& path, PlanVerify verify) {
  PlanFile opened;
  opened.path_ = path;
  opened.verify_ = verify;
  File file(std::fopen(path.c_str(), "rb"));
  if (!file) return IoError(path + ": cannot open: " + std::strerror(errno));
  unsigned char header[kHeaderBytes] = {};
  const size_t got = std::fread(header, 1, sizeof(header), file.get());
  if (got < sizeof(kMagic) || std::memcmp(header, kMagic, sizeof(kMagic)) != 0) {
    file.reset();
    IOS_ASSIGN_OR_RETURN(opened.plan_, ReadBareMessage(path));
    IOS_RETURN_IF_ERROR(ValidatePlan(opened.plan_, path));
    return opened;
  }
  if (got < sizeof(header)) return NotAPlan(path);
  if (std::fseek(file.get(), 0, SEEK_END) != 0) return IoError(path + ": cannot seek");
  const int64_t file_size = static_cast<int64_t>(ftello(file.get()));
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
  if (std::fseek(file.get(), kHeaderBytes, SEEK_SET) != 0 ||
      !ReadExactly(file.get(), body.data(), static_cast<int64_t>(body_size)))
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
      if (!weight.data().empty() || weight.offset() != 0 || weight.sha256().size() != static_cast<size_t>(kDigestBytes))
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
    const int64_t offset = weight.offset(), bytes = weight.bytes();
    if (!weight.data().empty() || offset < end_of_previous || bytes < 0 || offset > data_size ||
        bytes > data_size - offset) {
      return InvalidInput(path + ": weight " + std::to_string(w) +
                          "'s bytes lie outside the file's data section (truncated or "
                          "corrupted)");
    }
    // Between weights: zeros only.
    if (check && offset > end_of_previous) {
      std::string gap(static_cast<size_t>(offset - end_of_previous), '\1');
      if (fseeko(file.get(), static_cast<off_t>(opened.data_start_ + end_of_previous), SEEK_SET) !=
              0 ||
          !ReadExactly(file.get(), gap.data(), static_cast<int64_t>(gap.size())) ||
          gap.find_first_not_of('\0') != std::string::npos)
        return Corrupted(path, "the padding before weight " + std::to_string(w) + " is not zero");
    }
    end_of_previous = offset + bytes;
  }
  if (data_size != end_of_previous)
    return Corrupted(path, "the file has " + std::to_string(data_size - end_of_previous) +
                               " bytes after its last weight");
  IOS_RETURN_IF_ERROR(ValidatePlan(opened.plan_, path, WeightBytes::kInFile));
  return opened;
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
  File file(std::fopen(path_.c_str(), "rb"));
  if (!file ||
      fseeko(file.get(), static_cast<off_t>(data_start_ + weight.offset()), SEEK_SET) != 0 ||
      !ReadExactly(file.get(), into, weight.bytes())) {
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

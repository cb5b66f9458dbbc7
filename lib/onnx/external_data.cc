#include "onnx/external_data.h"

#include <sys/types.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace ios {
namespace {

namespace fs = std::filesystem;

StatusOr<int64_t> NonNegativeInteger(const std::string& text, const std::string& key,
                                     const std::string& what) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 18)
    return InvalidInput(what + ": external data " + key + " '" + text +
                        "' is not a non-negative integer");
  return static_cast<int64_t>(std::stoll(text));
}

bool IsInside(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i) {
    if (o->empty()) continue;  // a trailing separator
    if (i == inner.end() || *i != *o) return false;
  }
  return true;
}

}  // namespace

StatusOr<ExternalDataRef> ParseExternalDataRef(const onnx::TensorProto& proto,
                                               const std::string& what) {
  ExternalDataRef ref;
  bool has_location = false;
  for (const auto& entry : proto.external_data()) {
    if (entry.key() == "location") {
      ref.location = entry.value();
      has_location = true;
    } else if (entry.key() == "offset") {
      IOS_ASSIGN_OR_RETURN(ref.offset, NonNegativeInteger(entry.value(), "offset", what));
    } else if (entry.key() == "length") {
      IOS_ASSIGN_OR_RETURN(ref.length, NonNegativeInteger(entry.value(), "length", what));
    }
  }
  if (!has_location || ref.location.empty())
    return InvalidInput(what + ": its data is external, but no location names the file");
  return ref;
}

ExternalDataReader::ExternalDataReader(std::string model_dir) : model_dir_(std::move(model_dir)) {}

ExternalDataReader::~ExternalDataReader() {
  for (auto& [location, open] : open_)
    if (open.file != nullptr) std::fclose(open.file);
}

StatusOr<std::string> ExternalDataReader::Resolve(const std::string& location,
                                                  const std::string& what) const {
  if (location.empty()) return InvalidInput(what + ": an empty external data location");
  const fs::path relative(location);
  auto refuse = [&](const std::string& why) {
    return InvalidInput(what + ": external data location '" + location + "' " + why +
                        "; external data must lie in the model's folder");
  };
  if (relative.is_absolute() || location.front() == '/' || location.front() == '\\')
    return refuse("is an absolute path");
  for (const fs::path& part : relative)
    if (part == "..") return refuse("climbs out of the model's folder ('..')");
  const fs::path base = fs::path(model_dir_.empty() ? "." : model_dir_);
  const fs::path joined = base / relative;
  // Symbolic links are followed: the file they reach must still be inside the folder.
  std::error_code error;
  const fs::path real_base = fs::weakly_canonical(base, error);
  const fs::path real_file = fs::weakly_canonical(joined, error);
  if (!error && !IsInside(real_file, real_base))
    return refuse("resolves to " + real_file.string() + ", outside " + real_base.string());
  return joined.string();
}

Status ExternalDataReader::Check(const ExternalDataRef& ref, int64_t bytes,
                                 const std::string& what) {
  auto found = open_.find(ref.location);
  if (found == open_.end()) {
    IOS_ASSIGN_OR_RETURN(std::string path, Resolve(ref.location, what));
    OpenFile open;
    open.path = path;
    std::error_code error;
    if (!fs::is_regular_file(path, error)) {
      return InvalidInput(what + ": its external data file " + path + " is missing" +
                          (fs::exists(path, error) ? " (not a regular file)" : "") +
                          "; keep the model's .data file(s) beside it");
    }
    open.file = std::fopen(path.c_str(), "rb");
    if (open.file == nullptr)
      return IoError(what + ": cannot open its external data file " + path + ": " +
                     std::strerror(errno));
    open.size = static_cast<int64_t>(fs::file_size(path, error));
    if (error) {
      std::fclose(open.file);
      return IoError(what + ": cannot size " + path + ": " + error.message());
    }
    found = open_.emplace(ref.location, open).first;
  }
  const OpenFile& open = found->second;
  if (ref.length >= 0 && ref.length != bytes) {
    return InvalidInput(what + ": its external data length is " + std::to_string(ref.length) +
                        " bytes, but its type and dims need " + std::to_string(bytes));
  }
  if (ref.offset > open.size || bytes > open.size - ref.offset) {
    return InvalidInput(what + ": its external data (" + std::to_string(bytes) +
                        " bytes at offset " + std::to_string(ref.offset) +
                        ") runs past the end of " + open.path + " (" + std::to_string(open.size) +
                        " bytes)");
  }
  return Status::Ok();
}

Status ExternalDataReader::Read(const ExternalDataRef& ref, int64_t bytes, void* destination,
                                const std::string& what) {
  IOS_RETURN_IF_ERROR(Check(ref, bytes, what));
  const OpenFile& open = open_.at(ref.location);
  if (bytes == 0) return Status::Ok();
  if (fseeko(open.file, static_cast<off_t>(ref.offset), SEEK_SET) != 0 ||
      std::fread(destination, 1, static_cast<size_t>(bytes), open.file) !=
          static_cast<size_t>(bytes)) {
    return IoError(what + ": cannot read " + std::to_string(bytes) + " bytes at offset " +
                   std::to_string(ref.offset) + " of " + open.path + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

}  // namespace ios

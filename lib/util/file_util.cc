#include "util/file_util.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace ios {

StatusOr<std::string> ReadFileToString(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return IoError(path + ": cannot open: " + std::strerror(errno));
  // Read straight into one string of the file's size: a stringstream would hold the bytes
  // twice (and up to twice over in its growing buffer) before its copy came out.
  std::error_code error;
  const uintmax_t size = std::filesystem::is_regular_file(path, error)
                             ? std::filesystem::file_size(path, error)
                             : 0;
  std::string bytes;
  if (!error && size > 0) {
    bytes.resize(static_cast<size_t>(size));
    in.read(bytes.data(), static_cast<std::streamsize>(size));
    if (in.bad()) return IoError(path + ": read failed");
    bytes.resize(static_cast<size_t>(in.gcount()));
    if (in.gcount() < static_cast<std::streamsize>(size)) return bytes;  // it shrank meanwhile
  }
  // Whatever is left (a file that grew, or a stream whose size the file system does not know).
  std::ostringstream rest;
  if (in.peek() != std::ifstream::traits_type::eof()) rest << in.rdbuf();
  if (in.bad()) return IoError(path + ": read failed");
  bytes += rest.str();
  return bytes;
}

Status WriteFileAtomically(const std::string& path, const std::string& contents) {
  return WriteFileAtomicallyWith(path, [&](std::FILE* file) {
    return std::fwrite(contents.data(), 1, contents.size(), file) == contents.size();
  });
}

Status WriteFileAtomicallyWith(const std::string& path,
                               const std::function<bool(std::FILE*)>& write) {
  // The temporary file sits next to the target so that rename() stays within one file system.
  std::string temp = path + ".tmp." + std::to_string(::getpid());
  FILE* file = std::fopen(temp.c_str(), "wb");
  if (file == nullptr) return IoError(path + ": cannot write: " + std::strerror(errno));
  errno = 0;
  bool ok = write(file);
  int saved_errno = errno;
  ok = (std::fflush(file) == 0) && ok;
  ok = (::fsync(::fileno(file)) == 0) && ok;
  if (!ok && saved_errno == 0) saved_errno = errno;
  ok = (std::fclose(file) == 0) && ok;
  if (!ok) {
    std::remove(temp.c_str());
    return IoError(path + ": write failed: " + std::strerror(saved_errno));
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    saved_errno = errno;
    std::remove(temp.c_str());
    return IoError(path + ": cannot replace: " + std::strerror(saved_errno));
  }
  return Status::Ok();
}

bool IsSameFile(const std::string& a, const std::string& b) {
  std::error_code error;
  const bool same = std::filesystem::equivalent(a, b, error);
  return !error && same;
}

Status CheckOutputIsNotInput(const std::string& input, const std::string& output,
                             const std::string& flag) {
  if (output.empty() || input.empty() || !IsSameFile(input, output)) return Status::Ok();
  return InvalidInput(output + ": " + flag + " names the input " + input +
                      "; writing it would destroy it");
}

}  // namespace ios

#include "onnx/tensor_files.h"

#include <sys/stat.h>

#include <cstdio>

#include "onnx/tensor_proto.h"

namespace ios {
namespace {

std::string NumberedPath(const std::string& dir, const std::string& prefix, size_t i) {
  return dir + "/" + prefix + "_" + std::to_string(i) + ".pb";
}

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

StatusOr<std::vector<Tensor>> ReadNumberedTensors(const std::string& dir,
                                                  const std::string& prefix) {
  std::vector<Tensor> tensors;
  for (size_t i = 0; FileExists(NumberedPath(dir, prefix, i)); ++i) {
    IOS_ASSIGN_OR_RETURN(Tensor t, ReadTensorFile(NumberedPath(dir, prefix, i)));
    tensors.push_back(std::move(t));
  }
  if (tensors.empty()) return InvalidInput(dir + ": no " + prefix + "_0.pb in this folder");
  return tensors;
}

Status WriteNumberedTensors(const std::string& dir, const std::string& prefix,
                            const std::vector<Tensor>& tensors,
                            const std::vector<std::string>& names) {
  for (size_t i = 0; i < tensors.size(); ++i)
    IOS_RETURN_IF_ERROR(WriteTensorFile(tensors[i], names[i], NumberedPath(dir, prefix, i)));
  return Status::Ok();
}

}  // namespace ios

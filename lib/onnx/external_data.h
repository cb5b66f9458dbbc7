// ONNX external tensor data (the ONNX IR's "External Tensor Data"; what onnx.save(...,
// save_as_external_data=True) and torch.onnx.export(..., dynamo=True) write): a TensorProto
// whose data_location is EXTERNAL keeps its bytes in another file, named by its external_data
// entries: `location` (a path relative to the model's folder), `offset` and `length` in bytes
// (`checksum` and unknown keys are ignored). Any number of files may be used.
//
// Safety: a location must stay inside the model's folder. An absolute path, a `..` component,
// or a path that resolves outside the folder through a symbolic link is refused, as onnx itself
// refuses them, since a model file is often downloaded.
//
// Each tensor's bytes are read from its file straight into its own buffer, once: a model whose
// weights pass 2 GiB (the limit of one protobuf, the reason the format exists) is never held
// twice. Files stay open across tensors.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

#include "util/status.h"

namespace ios {

struct ExternalDataRef {
  std::string location;  // as written in the model
  int64_t offset = 0;
  int64_t length = -1;  // -1: not given (the tensor's size)
};

// The tensor's external_data entries, checked (a location; offsets and lengths non-negative
// integers). `what` names the tensor.
StatusOr<ExternalDataRef> ParseExternalDataRef(const onnx::TensorProto& proto,
                                               const std::string& what);

class ExternalDataReader {
 public:
  // `model_dir`: the folder the locations are relative to (the model file's folder).
  explicit ExternalDataReader(std::string model_dir);
  ~ExternalDataReader();
  ExternalDataReader(const ExternalDataReader&) = delete;
  ExternalDataReader& operator=(const ExternalDataReader&) = delete;

  // The file `location` names, or InvalidInput when it leaves the model's folder.
  StatusOr<std::string> Resolve(const std::string& location, const std::string& what) const;

  // Checks that the file holds `bytes` bytes at ref.offset (and that ref.length, when given,
  // says so), without reading them: callers check before they allocate.
  Status Check(const ExternalDataRef& ref, int64_t bytes, const std::string& what);
  // Check, then reads the bytes into `destination`.
  Status Read(const ExternalDataRef& ref, int64_t bytes, void* destination,
              const std::string& what);

 private:
  struct OpenFile {
    std::string path;
    FILE* file = nullptr;
    int64_t size = 0;
  };
  std::string model_dir_;
  std::map<std::string, OpenFile> open_;  // by location
};

}  // namespace ios

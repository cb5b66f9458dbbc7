#include "runtime/cuda/cuda_pointer.h"

#include "runtime/cuda/cuda_check.h"

namespace ios {

Status CheckDeviceBuffer(const cudaPointerAttributes& attributes, int device,
                         const std::string& what) {
  switch (attributes.type) {
    case cudaMemoryTypeDevice:
      if (attributes.device == device) return Status::Ok();
      return InvalidInput(what + " is memory on cuda:" + std::to_string(attributes.device) +
                          ", and the session runs on cuda:" + std::to_string(device));
    case cudaMemoryTypeManaged:
    case cudaMemoryTypeHost:
      return Status::Ok();
    case cudaMemoryTypeUnregistered:
    default:
      return InvalidInput(what +
                          " is not device memory (ordinary host memory: pass it to Run, or "
                          "page-lock it with cudaHostRegister)");
  }
}

Status CheckDevicePointer(const void* pointer, int device, const std::string& what) {
  cudaPointerAttributes attributes{};
  IOS_CUDA_RETURN_IF_ERROR(cudaPointerGetAttributes(&attributes, pointer));
  return CheckDeviceBuffer(attributes, device, what);
}

}  // namespace ios

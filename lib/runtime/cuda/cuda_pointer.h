// Whether a caller's buffer can feed or take a session's tensor on the device without passing
// through the host: the rule that ios::Session::RunOnDevice applies to every pointer. Pure host
// logic over what cudaPointerGetAttributes reports, so that it is tested without a device.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "util/status.h"

namespace ios {

// Accepted: device memory on `device`, managed memory, and page-locked host memory (mapped into
// the device's address space). Refused with InvalidInput naming `what`: ordinary (pageable)
// host memory, and device memory on another device.
Status CheckDeviceBuffer(const cudaPointerAttributes& attributes, int device,
                         const std::string& what);

// cudaPointerGetAttributes on `pointer`, then CheckDeviceBuffer.
Status CheckDevicePointer(const void* pointer, int device, const std::string& what);

}  // namespace ios

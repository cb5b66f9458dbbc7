// The CUDA backend's kernel table (cuda_kernel_table.cc), which every build has: the compile
// pipeline plans a GPU plan's memory with its capabilities, and iosc --list-ops shows its ops,
// whether or not this build can run them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ops/kernel_caps.h"
#include "util/status.h"

namespace ios {

class CudaKernel;          // cuda_kernel.h
struct CudaKernelContext;  // cuda_kernel.h

using CudaKernelOr = StatusOr<std::unique_ptr<CudaKernel>>;
// A factory needs no device: it only checks the node and plans the launch.
using CudaKernelFactory = CudaKernelOr (*)(const CudaKernelContext&);

struct CudaKernelEntry {
  const char* op_type;
  CudaKernelFactory factory;  // null where this build has no CUDA backend
  KernelCaps caps = {};
};

// Null when the CUDA backend has no kernel for the op.
const CudaKernelEntry* FindCudaKernelEntry(const std::string& op_type);
// True when the CUDA backend has a kernel for the op type (some nodes may still be refused by
// CreateCudaKernel for their dtype or attributes).
bool CudaSupportsOp(const std::string& op_type);
std::vector<std::string> CudaSupportedOps();
const KernelCapsTable& CudaKernelCaps();

}  // namespace ios

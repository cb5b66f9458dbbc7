// Which kernels each backend has for an op: the op case tests' only questions to the backends'
// kernel tables, in one place.
#pragma once

#include <string>

#include "kernels/reference/reference_kernels.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#ifdef IOS_HAVE_CUDA
#include "runtime/cuda/kernels/cuda_kernel.h"
#endif

namespace ios::op_cases {

inline bool HasReferenceKernel(const std::string& op) { return FindReferenceKernel(op) != nullptr; }

// The CPU backend runs the reference kernel for an op without a kernel of its own.
inline bool CpuHasOwnKernel(const std::string& op) { return HasFastCpuKernel(op); }

#ifdef IOS_HAVE_CUDA
inline bool CudaHasKernel(const std::string& op) { return CudaSupportsOp(op); }
#endif

}  // namespace ios::op_cases

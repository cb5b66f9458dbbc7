// Which kernels each backend has for an op: the op case tests' only questions to the backends'
// kernel tables (ops/kernel_caps.h), in one place. Both tables are in every build.
#pragma once

#include <string>

#include "kernels/reference/reference_kernels.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "runtime/cuda/kernels/cuda_kernel_table.h"

namespace ios::op_cases {

inline bool HasReferenceKernel(const std::string& op) { return FindReferenceKernel(op) != nullptr; }

// The CPU backend runs the reference kernel for an op without a kernel of its own.
inline bool CpuHasOwnKernel(const std::string& op) { return CpuKernelCaps().Find(op) != nullptr; }

inline bool CudaHasKernel(const std::string& op) { return CudaKernelCaps().Find(op) != nullptr; }

}  // namespace ios::op_cases

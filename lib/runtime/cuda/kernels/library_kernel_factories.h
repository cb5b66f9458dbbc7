// Factories of the kernels served by cuDNN and cuBLAS, one per file (conv_cuda.cc,
// conv_transpose_cuda.cc, pool_cuda.cc, gemm_cuda.cc, matmul_cuda.cc), listed in
// cuda_kernel_table.cc.
#pragma once

#include <memory>
#include <string>

#include "runtime/cuda/kernels/cuda_kernel.h"

namespace ios {

StatusOr<std::unique_ptr<CudaKernel>> CreateConvCudaKernel(const CudaKernelContext& context);
// cudnnConvolutionBackwardData (conv_transpose_descriptors.h).
StatusOr<std::unique_ptr<CudaKernel>> CreateConvTransposeCudaKernel(
    const CudaKernelContext& context);
// MaxPool, AveragePool, GlobalMaxPool, GlobalAveragePool.
StatusOr<std::unique_ptr<CudaKernel>> CreatePoolCudaKernel(const CudaKernelContext& context);
StatusOr<std::unique_ptr<CudaKernel>> CreateGemmCudaKernel(const CudaKernelContext& context);
StatusOr<std::unique_ptr<CudaKernel>> CreateMatMulCudaKernel(const CudaKernelContext& context);

// Splits a kernel's workspace: a 256-byte aligned region of `bytes` for the kernel's own use
// (a cropped output, see cudnn_descriptors.h), then the library's workspace.
inline size_t AlignWorkspace(size_t bytes) { return (bytes + 255) / 256 * 256; }

// The own region of a conv-like kernel whose output is cropped out of cuDNN's full float32
// output (`full_output`): room for that output; 0 when nothing is cropped.
inline size_t CropWorkspaceBytes(const Dims& full_output, bool cropped) {
  return cropped ? AlignWorkspace(static_cast<size_t>(NumElements(full_output)) * sizeof(float))
                 : 0;
}

// Internal, naming the kernel (`label`), when the stream's workspace cannot hold `needed` bytes.
inline Status CheckStreamWorkspace(const std::string& label, const CudaStreamContext& stream,
                                   size_t needed) {
  if (stream.workspace_bytes >= needed && (needed == 0 || stream.workspace != nullptr))
    return Status::Ok();
  return Internal(label + "needs " + std::to_string(needed) +
                  " bytes of workspace, the stream has " + std::to_string(stream.workspace_bytes));
}

}  // namespace ios

// The CUDA kernels served by cuDNN and cuBLAS, listed for the kernel table (cuda_kernel.h).
#include "runtime/cuda/kernels/library_kernel_factories.h"

namespace ios {

void AddLibraryCudaKernels(std::vector<CudaKernelEntry>& table) {
  table.push_back({"Conv", CreateConvCudaKernel});
  table.push_back({"ConvTranspose", CreateConvTransposeCudaKernel});
  table.push_back({"MaxPool", CreatePoolCudaKernel});
  table.push_back({"AveragePool", CreatePoolCudaKernel});
  table.push_back({"GlobalMaxPool", CreatePoolCudaKernel});
  table.push_back({"GlobalAveragePool", CreatePoolCudaKernel});
  table.push_back({"Gemm", CreateGemmCudaKernel});
  table.push_back({"MatMul", CreateMatMulCudaKernel});
}

}  // namespace ios

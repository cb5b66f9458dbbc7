// The CUDA kernels served by cuDNN and cuBLAS, listed for the kernel table (cuda_kernel.h).
#include "runtime/cuda/cuda_kernel.h"

namespace ios {

void AddLibraryCudaKernels(std::vector<CudaKernelEntry>& table) { (void)table; }

}  // namespace ios

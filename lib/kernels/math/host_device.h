// IOS_HD marks math that both the CUDA kernels and the CPU code (and its tests) execute.
#pragma once

#if defined(__CUDACC__)
#define IOS_HD __host__ __device__ __forceinline__
#else
#define IOS_HD inline
#endif

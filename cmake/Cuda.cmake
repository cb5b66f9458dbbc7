# The CUDA backend builds when nvcc is found (AUTO) or when asked (ON). The toolkit is looked for
# on PATH and in its default install location.
set(IOS_HAVE_CUDA OFF)
if(NOT IOS_ENABLE_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    find_program(IOS_NVCC nvcc HINTS /usr/local/cuda/bin)
    if(IOS_NVCC)
      set(CMAKE_CUDA_COMPILER ${IOS_NVCC})
    endif()
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # The GPU architectures ios ships code for, in one place. CUDA 13 compiles for sm_75 and newer
    # only (Volta, sm_70, was dropped in CUDA 13), so the list starts at Turing. Native code
    # ("-real") for Turing, Ampere (A100; A10/A40/RTX 30), Ada (L4/L40), Hopper (H100/H200),
    # Blackwell datacenter (B200/GB200, sm_100; sm_103 runs it too), Thor (sm_110) and Blackwell
    # consumer/workstation (RTX 50/PRO, sm_120; sm_121 runs it too): a cubin runs on its major
    # version's later minors. PTX of the newest ("120-virtual") lets a GPU after these JIT it.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 75-real 80-real 86-real 89-real 90-real 100-real 110-real
                                   120-real 120-virtual)
    endif()
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    find_library(IOS_CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda/lib64
                 REQUIRED)
    find_path(IOS_CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS} REQUIRED)
    set(IOS_HAVE_CUDA ON)
    message(STATUS "ios: CUDA backend ON (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, "
                   "architectures ${CMAKE_CUDA_ARCHITECTURES}, cuDNN ${IOS_CUDNN_LIBRARY})")
  elseif(IOS_ENABLE_CUDA STREQUAL "ON")
    message(FATAL_ERROR "IOS_ENABLE_CUDA=ON but no CUDA compiler was found "
                        "(looked on PATH and in /usr/local/cuda/bin)")
  else()
    message(STATUS "ios: CUDA backend OFF (no nvcc found)")
  endif()
endif()
# Recorded in the cache for scripts (scripts/demo.sh picks the GPU only when this is ON).
set(IOS_CUDA_BACKEND ${IOS_HAVE_CUDA} CACHE INTERNAL "ios builds the CUDA backend")

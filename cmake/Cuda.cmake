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
    # only (Volta, sm_70, was dropped in CUDA 13), so the list starts at Turing. 90 also embeds PTX
    # (see CMAKE_CUDA_ARCHITECTURES "-real"/"-virtual") so that newer GPUs can JIT it.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 75-real 80-real 86-real 89-real 90)
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

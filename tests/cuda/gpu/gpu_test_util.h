// For tests that need a CUDA device: skip, with the reason, when there is none.
#pragma once

#include <gtest/gtest.h>

#include "runtime/cuda/cuda_device.h"

#define IOS_SKIP_WITHOUT_GPU()                                             \
  do {                                                                     \
    auto ios_device_ = ::ios::QueryCudaDevice(0);                          \
    if (!ios_device_.ok()) GTEST_SKIP() << ios_device_.status().message(); \
  } while (0)

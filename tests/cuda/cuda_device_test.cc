#include "runtime/cuda/cuda_device.h"

#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <gtest/gtest.h>

namespace ios {
namespace {

// Runs on every machine: with no device (this project's machines) the query fails cleanly with
// the CUDA error text; with one, device 0 is described and an ordinal past the last is refused.
TEST(CudaDeviceTest, QueryFailsCleanlyWithoutADeviceAndRefusesABadOrdinal) {
  int count = 0;
  const bool have_device = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  auto info = QueryCudaDevice(0);
  if (!have_device) {
    ASSERT_FALSE(info.ok());
    EXPECT_EQ(info.status().message().rfind("no CUDA device", 0), 0u) << info.status().message();
    EXPECT_NE(info.status().message().find("cuda"), std::string::npos) << info.status().message();
  } else {
    EXPECT_TRUE(info.ok()) << info.status().message();
  }
  auto past_last = QueryCudaDevice(count + 7);
  ASSERT_FALSE(past_last.ok());
  EXPECT_EQ(past_last.status().message().rfind("no CUDA device", 0), 0u);
}

TEST(CudaDeviceTest, CudnnReportsAVersionWithoutADevice) { EXPECT_GE(cudnnGetVersion(), 90000u); }

}  // namespace
}  // namespace ios

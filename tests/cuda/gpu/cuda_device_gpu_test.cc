#include <gtest/gtest.h>

#include "gpu_test_util.h"

namespace ios {
namespace {

TEST(CudaDeviceGpuTest, DescribesDeviceZero) {
  IOS_SKIP_WITHOUT_GPU();
  auto info = QueryCudaDevice(0);
  ASSERT_TRUE(info.ok());
  EXPECT_FALSE(info->name.empty());
  EXPECT_GE(info->compute_major, 7);
  EXPECT_GT(info->multiprocessors, 0);
  EXPECT_GT(info->cudnn_version, 0u);
}

}  // namespace
}  // namespace ios

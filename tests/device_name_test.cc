#include "util/device_name.h"

#include <gtest/gtest.h>

namespace ios {
namespace {

TEST(DeviceNameTest, CudaDevicesAreCudaOrdinalOrBoth) {
  EXPECT_EQ(CudaOrdinalOf("0"), 0);
  EXPECT_EQ(CudaOrdinalOf("3"), 3);
  EXPECT_EQ(CudaOrdinalOf("cuda"), 0);
  EXPECT_EQ(CudaOrdinalOf("cuda:2"), 2);
  EXPECT_EQ(CudaOrdinalOf("999999"), 999999);
}

TEST(DeviceNameTest, EverythingElseIsNotACudaDevice) {
  for (const char* device : {"cpu", "sim:V100", "", "cuda:", "cuda:x", "-1", "1.5", "gpu", "0 ",
                             "cuda0", "9999999", "99999999999999999999"})
    EXPECT_EQ(CudaOrdinalOf(device), -1) << "'" << device << "'";
}

}  // namespace
}  // namespace ios

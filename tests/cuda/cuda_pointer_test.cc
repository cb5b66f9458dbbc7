// The rule for the caller's device buffers (ios::Session::RunOnDevice), over the attributes
// that cudaPointerGetAttributes reports: needs no device.
#include "runtime/cuda/cuda_pointer.h"

#include <gtest/gtest.h>

#include <vector>

namespace ios {
namespace {

cudaPointerAttributes Attributes(cudaMemoryType type, int device) {
  cudaPointerAttributes attributes{};
  attributes.type = type;
  attributes.device = device;
  return attributes;
}

TEST(CudaPointerTest, DeviceMemoryOnTheSessionsGpuManagedAndPinnedHostMemoryAreAccepted) {
  EXPECT_TRUE(CheckDeviceBuffer(Attributes(cudaMemoryTypeDevice, 1), 1, "input 'x'").ok());
  EXPECT_TRUE(CheckDeviceBuffer(Attributes(cudaMemoryTypeManaged, 0), 1, "input 'x'").ok());
  EXPECT_TRUE(CheckDeviceBuffer(Attributes(cudaMemoryTypeHost, 0), 1, "input 'x'").ok());
}

TEST(CudaPointerTest, AnotherGpusMemoryIsRefusedNamingBothDevices) {
  Status status = CheckDeviceBuffer(Attributes(cudaMemoryTypeDevice, 0), 1, "output 'y'");
  EXPECT_EQ(status.code(), StatusCode::kInvalidInput);
  EXPECT_NE(status.message().find("output 'y' is memory on cuda:0"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("runs on cuda:1"), std::string::npos) << status.message();
}

TEST(CudaPointerTest, PageableHostMemoryIsRefusedWithTheWayOut) {
  Status status = CheckDeviceBuffer(Attributes(cudaMemoryTypeUnregistered, 0), 0, "input 'x'");
  EXPECT_EQ(status.code(), StatusCode::kInvalidInput);
  EXPECT_NE(status.message().find("input 'x' is not device memory"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("Run"), std::string::npos);
}

TEST(CudaPointerTest, WithoutADeviceTheQueryFailsCleanly) {
  // On a machine without a GPU (or with one), a host vector's pointer is never device memory.
  std::vector<float> host(4);
  Status status = CheckDevicePointer(host.data(), 0, "input 'x'");
  EXPECT_FALSE(status.ok());
}

}  // namespace
}  // namespace ios

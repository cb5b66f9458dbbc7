#include "runtime/cuda/cuda_fingerprint.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace ios {
namespace {

CudaDeviceInfo A100() {
  CudaDeviceInfo info;
  info.name = "NVIDIA A100-SXM4-40GB";
  info.compute_major = 8;
  info.compute_minor = 0;
  info.multiprocessors = 108;
  info.driver_version = 13000;
  info.runtime_version = 13000;
  info.cudnn_version = 91000;
  return info;
}

bool AnyContains(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& line) { return line.find(text) != std::string::npos; });
}

TEST(CudaFingerprintTest, CarriesEveryFieldOfTheDevice) {
  plan::DeviceFingerprint fingerprint = CudaFingerprint(A100());
  EXPECT_EQ(fingerprint.kind(), "cuda");
  EXPECT_EQ(fingerprint.gpu_name(), "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(fingerprint.compute_major(), 8);
  EXPECT_EQ(fingerprint.compute_minor(), 0);
  EXPECT_EQ(fingerprint.multiprocessors(), 108);
  EXPECT_EQ(fingerprint.driver_version(), 13000);
  EXPECT_EQ(fingerprint.runtime_version(), 13000);
  EXPECT_EQ(fingerprint.cudnn_version(), 91000);
}

TEST(CudaFingerprintTest, FormatsVersions) {
  EXPECT_EQ(FormatCudaVersion(13000), "13.0");
  EXPECT_EQ(FormatCudaVersion(12080), "12.8");
  EXPECT_EQ(FormatCudnnVersion(91000), "9.10.0");
  EXPECT_EQ(FormatCudnnVersion(90102), "9.1.2");
  EXPECT_EQ(FormatCudnnVersion(8902), "8.9.2");
}

TEST(CudaFingerprintTest, SameDeviceGivesNoWarning) {
  std::vector<std::string> warnings;
  plan::DeviceFingerprint here = CudaFingerprint(A100());
  EXPECT_TRUE(CheckCudaFingerprint(here, here, false, &warnings).ok());
  EXPECT_TRUE(warnings.empty());
}

TEST(CudaFingerprintTest, RefusesAnotherComputeCapabilityUnlessForced) {
  CudaDeviceInfo h100 = A100();
  h100.name = "NVIDIA H100 80GB HBM3";
  h100.compute_major = 9;
  h100.multiprocessors = 132;
  std::vector<std::string> warnings;
  Status refused =
      CheckCudaFingerprint(CudaFingerprint(A100()), CudaFingerprint(h100), false, &warnings);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.code(), StatusCode::kInvalidInput);
  EXPECT_NE(refused.message().find("sm_80"), std::string::npos) << refused.message();
  EXPECT_NE(refused.message().find("sm_90"), std::string::npos) << refused.message();
  EXPECT_NE(refused.message().find("--force"), std::string::npos) << refused.message();

  warnings.clear();
  EXPECT_TRUE(
      CheckCudaFingerprint(CudaFingerprint(A100()), CudaFingerprint(h100), true, &warnings).ok());
  EXPECT_TRUE(AnyContains(warnings, "(--force)"));
  EXPECT_TRUE(AnyContains(warnings, "108 SMs, this GPU has 132"));
}

TEST(CudaFingerprintTest, WarnsOnModelAndVersionDifferences) {
  CudaDeviceInfo other = A100();
  other.name = "NVIDIA A100 80GB PCIe";
  other.driver_version = 13010;
  other.runtime_version = 12080;
  other.cudnn_version = 90102;
  std::vector<std::string> warnings;
  ASSERT_TRUE(
      CheckCudaFingerprint(CudaFingerprint(A100()), CudaFingerprint(other), false, &warnings).ok());
  EXPECT_EQ(warnings.size(), 4u);
  EXPECT_TRUE(AnyContains(warnings, "NVIDIA A100 80GB PCIe"));
  EXPECT_TRUE(AnyContains(warnings, "driver 13.0, this machine has 13.1"));
  EXPECT_TRUE(AnyContains(warnings, "runtime 13.0, iosrun uses 12.8"));
  EXPECT_TRUE(AnyContains(warnings, "cuDNN 9.10.0, iosrun uses 9.1.2"));
}

TEST(CudaFingerprintTest, RefusesACpuPlanUnlessForced) {
  plan::DeviceFingerprint cpu;
  cpu.set_kind("cpu");
  cpu.set_cpu_model("Some CPU");
  std::vector<std::string> warnings;
  Status refused = CheckCudaFingerprint(cpu, CudaFingerprint(A100()), false, &warnings);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("iosc MODEL --device N"), std::string::npos);
  EXPECT_TRUE(CheckCudaFingerprint(cpu, CudaFingerprint(A100()), true, &warnings).ok());
  EXPECT_TRUE(AnyContains(warnings, "(--force)"));
}

TEST(CudaFingerprintTest, AcceptsASimPlanWithAWarning) {
  plan::DeviceFingerprint sim;
  sim.set_kind("sim");
  sim.set_sim_model("A100");
  std::vector<std::string> warnings;
  EXPECT_TRUE(CheckCudaFingerprint(sim, CudaFingerprint(A100()), false, &warnings).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("analytic model A100"), std::string::npos) << warnings[0];
}

TEST(CudaFingerprintTest, RefusesAnUnknownKindUnlessForced) {
  plan::DeviceFingerprint unknown;
  unknown.set_kind("tpu");
  std::vector<std::string> warnings;
  EXPECT_FALSE(CheckCudaFingerprint(unknown, CudaFingerprint(A100()), false, &warnings).ok());
  EXPECT_TRUE(CheckCudaFingerprint(unknown, CudaFingerprint(A100()), true, &warnings).ok());
}

}  // namespace
}  // namespace ios

#include "runtime/cuda/cuda_check.h"

#include <gtest/gtest.h>

namespace ios {
namespace {

// The fused conv falls back to separate calls when cuDNN declines it; cuDNN 9 declines with
// sub-codes of CUDNN_STATUS_NOT_SUPPORTED, which an exact comparison would miss.
TEST(CudaCheckTest, EveryNotSupportedSubCodeIsNotSupported) {
  EXPECT_TRUE(IsCudnnNotSupported(CUDNN_STATUS_NOT_SUPPORTED));
  for (int code = CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN;
       code <= CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE; ++code) {
    EXPECT_TRUE(IsCudnnNotSupported(static_cast<cudnnStatus_t>(code))) << code;
  }
  EXPECT_TRUE(IsCudnnNotSupported(CUDNN_STATUS_NOT_SUPPORTED_SHAPE));
  EXPECT_TRUE(IsCudnnNotSupported(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT));
}

TEST(CudaCheckTest, OtherStatusesAreNotNotSupported) {
  for (cudnnStatus_t status :
       {CUDNN_STATUS_SUCCESS, CUDNN_STATUS_BAD_PARAM, CUDNN_STATUS_BAD_PARAM_NULL_POINTER,
        CUDNN_STATUS_INTERNAL_ERROR, CUDNN_STATUS_EXECUTION_FAILED, CUDNN_STATUS_NOT_INITIALIZED}) {
    EXPECT_FALSE(IsCudnnNotSupported(status)) << cudnnGetErrorString(status);
  }
}

TEST(CudaCheckTest, StatusesNameTheCallAndPlace) {
  Status ok = CudnnStatus(CUDNN_STATUS_SUCCESS, "cudnnX()", "f.cc", 3);
  EXPECT_TRUE(ok.ok());
  Status bad = CudnnStatus(CUDNN_STATUS_NOT_SUPPORTED_SHAPE, "cudnnX()", "f.cc", 3);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("cudnnX() failed at f.cc:3"), std::string::npos) << bad.message();
}

}  // namespace
}  // namespace ios

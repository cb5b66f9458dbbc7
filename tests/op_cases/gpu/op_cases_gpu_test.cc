// Every case of the op case table whose op the CUDA backend has a kernel for, run on the device
// (own_kernel_gpu_check.h: outputs poisoned first, the kernel enqueued on a stream) against the
// reference kernel within the case's tolerance. A case the table marks NotOnCuda must be refused
// as Unsupported instead. Creating the kernel needs no device; the run skips without one.
#include <gtest/gtest.h>

#include <vector>

#include "../../cuda/gpu/own_kernel_gpu_check.h"
#include "../backend_kernels.h"
#include "../op_case.h"

namespace ios::op_cases {
namespace {

class OpCaseGpuTest : public ::testing::TestWithParam<size_t> {};

TEST_P(OpCaseGpuTest, MatchesTheReference) {
  const OpCase& c = OpCases()[GetParam()];
  testing::OneNodeGraph node = BuildCase<testing::OneNodeGraph>(GetParam());
  if (!c.node.not_on_cuda().empty()) {
    SCOPED_TRACE("refused: " + c.node.not_on_cuda());
    testing::KernelOr kernel = testing::CreateKernel(node);
    ASSERT_FALSE(kernel.ok()) << "the CUDA backend runs it now: remove NotOnCuda from the case";
    EXPECT_EQ(kernel.status().code(), StatusCode::kUnsupported) << kernel.status().message();
    return;
  }
  // The convolutions ask cuDNN for an algorithm while they are created.
  const bool needs_cudnn = c.op == "Conv" || c.op == "ConvTranspose";
  testing::CheckOnGpu(node, c.tolerance, testing::Options(false, -1, needs_cudnn));
}

std::vector<size_t> CasesWithCudaKernels() {
  std::vector<size_t> indices;
  for (size_t i = 0; i < OpCases().size(); ++i)
    if (CudaHasKernel(OpCases()[i].op)) indices.push_back(i);
  return indices;
}

INSTANTIATE_TEST_SUITE_P(Table, OpCaseGpuTest, ::testing::ValuesIn(CasesWithCudaKernels()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return CaseName(info.param);
                         });

}  // namespace
}  // namespace ios::op_cases

// Every case of the op case table through the CPU backend (CreateCpuKernel, threads 1 and 2:
// cpu_kernel_case.h) against the reference kernel, within the case's tolerance. An op with a
// kernel of its own must run it, not the reference fallback.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "../cpu_kernel_case.h"
#include "backend_kernels.h"
#include "op_case.h"

namespace ios::op_cases {
namespace {

class OpCaseCpuTest : public ::testing::TestWithParam<size_t> {};

TEST_P(OpCaseCpuTest, MatchesTheReference) {
  const OpCase& c = OpCases()[GetParam()];
  cpu_testing::OneNodeCase node = BuildCase<cpu_testing::OneNodeCase>(GetParam());
  node.Check(c.tolerance, /*expect_fast=*/CpuHasOwnKernel(c.op));
}

std::vector<size_t> AllCases() {
  std::vector<size_t> indices(OpCases().size());
  std::iota(indices.begin(), indices.end(), size_t{0});
  return indices;
}

INSTANTIATE_TEST_SUITE_P(Table, OpCaseCpuTest, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return CaseName(info.param);
                         });

}  // namespace
}  // namespace ios::op_cases

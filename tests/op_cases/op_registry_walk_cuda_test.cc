// Walks the op registry for the CUDA backend's kernel table (in every build; no device needed):
// every op has a CUDA kernel or is in the one list below of ops the backend lacks on purpose,
// with the reason. A listed op that gains a kernel fails too, so that the list only shrinks.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "backend_kernels.h"
#include "ops/op_registry.h"

namespace ios::op_cases {
namespace {

const std::map<std::string, std::string>& OpsWithoutCudaKernels() {
  static const std::map<std::string, std::string> ops = {
      // docs/operators.md: a plan is compiled for fixed input shapes, so compiling folds them
      // into constants; one left reads a value computed at run time, which the reference kernel
      // computes on the CPU.
      {"Shape", "only makes a shape; folded when compiling"},
      {"Constant", "only makes a constant; folded when compiling"},
      {"ConstantOfShape", "only makes a constant; folded when compiling"},
      {"Range", "only makes a constant; folded when compiling"},
      // docs/architecture.md: exporters' idioms on values that fold once the input shape is
      // fixed (Swin's window padding and attention mask).
      {"Mod", "exporters' shape arithmetic; folded when compiling"},
      {"ScatterND", "exporters' x[a:b] = v on constants; folded when compiling"},
  };
  return ops;
}

TEST(OpRegistryWalkCudaTest, EveryOpHasACudaKernelOrIsListed) {
  const std::map<std::string, std::string>& lacking = OpsWithoutCudaKernels();
  for (const std::string& op : OpRegistry::Global().OpTypes()) {
    const auto listed = lacking.find(op);
    if (listed == lacking.end()) {
      EXPECT_TRUE(CudaHasKernel(op)) << op << " has no CUDA kernel";
    } else {
      EXPECT_FALSE(CudaHasKernel(op))
          << op << " has a CUDA kernel now: remove it from OpsWithoutCudaKernels (it said: "
          << listed->second << ")";
    }
  }
}

TEST(OpRegistryWalkCudaTest, TheListNamesRegisteredOps) {
  for (const auto& [op, reason] : OpsWithoutCudaKernels())
    EXPECT_NE(OpRegistry::Global().Find(op), nullptr) << op << " (" << reason << ")";
}

}  // namespace
}  // namespace ios::op_cases

// Walks the op registry: every op has a case in the op case table and a kernel on the CPU (its
// own or the reference kernel, which the CPU backend falls back to), and every case names a
// registered op. The CUDA backend's walk is cuda/op_registry_walk_cuda_test.cc.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "backend_kernels.h"
#include "op_case.h"
#include "ops/op_registry.h"

namespace ios::op_cases {
namespace {

std::set<std::string> OpsWithCases() {
  std::set<std::string> ops;
  for (const OpCase& c : OpCases()) ops.insert(c.op);
  return ops;
}

TEST(OpRegistryWalkTest, EveryOpHasACase) {
  const std::set<std::string> covered = OpsWithCases();
  const std::vector<std::string> ops = OpRegistry::Global().OpTypes();
  ASSERT_FALSE(ops.empty());
  for (const std::string& op : ops)
    EXPECT_EQ(covered.count(op), 1u) << op << " has no case in tests/op_cases/op_case_table.cc";
}

TEST(OpRegistryWalkTest, EveryCaseNamesARegisteredOp) {
  for (const std::string& op : OpsWithCases())
    EXPECT_NE(OpRegistry::Global().Find(op), nullptr)
        << "the op case table has cases of " << op << ", which the op registry lacks";
}

TEST(OpRegistryWalkTest, EveryOpHasAReferenceKernel) {
  // The reference kernels are the oracle of every backend and the CPU backend's fallback, so
  // this is also "every op has a kernel on the CPU".
  for (const std::string& op : OpRegistry::Global().OpTypes())
    EXPECT_TRUE(HasReferenceKernel(op)) << op << " has no reference kernel";
}

}  // namespace
}  // namespace ios::op_cases

// Helpers for the kernel math tests (tests/kernel_math_*_test.cc): they run the IOS_HD math of
// lib/kernels/math on the host, as plain loops, and compare it with the reference kernels (the
// oracle) on random shapes drawn from a fixed seed.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/tensor.h"
#include "kernels/reference/reference_kernels.h"
#include "random_tensor.h"
#include "tensor_compare.h"

namespace ios::testing {

inline int64_t RandomInt(std::mt19937& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// A shape that broadcasts to `full`: some dims set to 1, maybe fewer leading dims.
inline Dims BroadcastableFrom(std::mt19937& rng, const Dims& full) {
  Dims dims(full.begin() + RandomInt(rng, 0, static_cast<int64_t>(full.size())), full.end());
  for (int64_t& d : dims)
    if (RandomInt(rng, 0, 2) == 0) d = 1;
  return dims;
}

// Rank in [min_rank, max_rank], each dim in [1, max_dim].
inline Dims RandomDims(std::mt19937& rng, int64_t min_rank, int64_t max_rank, int64_t max_dim) {
  Dims dims(RandomInt(rng, min_rank, max_rank));
  for (int64_t& d : dims) d = RandomInt(rng, 1, max_dim);
  return dims;
}

inline Node MakeNode(const std::string& op_type, int64_t opset, AttributeMap attrs = {}) {
  Node node;
  node.name = op_type + "_math_test";
  node.op_type = op_type;
  node.opset = opset;
  node.attrs = std::move(attrs);
  return node;
}

// The reference kernel's outputs (a null input is an omitted one).
inline std::vector<Tensor> Reference(const Node& node, const std::vector<const Tensor*>& inputs,
                                     size_t outputs = 1) {
  std::vector<Tensor> result(outputs);
  Status status = EvaluateReference(node, inputs, &result);
  EXPECT_TRUE(status.ok()) << status.message();
  return result;
}

}  // namespace ios::testing

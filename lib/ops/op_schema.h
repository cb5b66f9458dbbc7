// What ios knows about one ONNX op: how to check its attributes, infer its output types and
// estimate its cost. Each op category has its own file that fills these in (conv.cc, pool.cc,
// ...); op_registry.cc registers them all explicitly.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/tensor.h"
#include "util/status.h"

namespace ios {

struct TensorType {
  DType dtype = DType::kUndefined;
  Dims dims;
};

// One input as shape inference sees it. `constant` is set when the value is an initializer or
// has been folded, which ops such as Reshape, Slice and Pad need to infer their output.
struct InferInput {
  bool present = false;  // false for an omitted optional input
  TensorType type;
  const Tensor* constant = nullptr;
};

struct OpCost {
  double flops = 0;        // multiply-adds count as 2
  double bytes_moved = 0;  // bytes read (inputs, weights) plus bytes written
};

// What the schedule's unit formation (sched/units.h) sees in an op: the paper's unit kinds.
enum class OpRole {
  kOther,
  kPool,    // a window or global pool: a unit of its own kind
  kSum,     // Add and Sum: an aggregation that folds into its only reader's unit
  kConcat,  // an aggregation that joins its inputs
};

struct OpSchema {
  std::string op_type;
  int min_inputs = 1;
  int max_inputs = 1;  // -1 for variadic
  int min_outputs = 1;
  int max_outputs = 1;  // -1 for variadic
  // Validates attributes and input types and computes one TensorType per node output.
  // Errors describe the problem; the caller adds the file, node and op.
  std::function<Status(const Node& node, const std::vector<InferInput>& inputs,
                       std::vector<TensorType>* outputs)>
      infer;
  // FLOPs and bytes for the node once its types are known.
  std::function<OpCost(const Node& node, const std::vector<TensorType>& inputs,
                       const std::vector<TensorType>& outputs)>
      cost;
  OpRole role = OpRole::kOther;
};

}  // namespace ios

// The single registry of ops ios supports. Registration is explicit (RegisterXxxOps below),
// never static self-registration, so a static link cannot drop an op silently.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ops/op_schema.h"

namespace ios {

class OpRegistry {
 public:
  // The registry with every built-in op.
  static const OpRegistry& Global();

  void Register(OpSchema schema);
  // Null when ios does not support the op.
  const OpSchema* Find(const std::string& op_type) const;
  std::vector<std::string> OpTypes() const;

 private:
  std::map<std::string, OpSchema> schemas_;
};

// Infers the output types of `node` from the current state of `graph` and stores them in the
// output values. The error names the file, node, op and opset.
Status InferNode(Graph& graph, NodeId node);
// Cost of a node whose value types are known.
OpCost NodeCost(const Graph& graph, NodeId node);

// Per-category registration functions, one per file in lib/ops/.
void RegisterConvOps(OpRegistry& registry);           // Conv, ConvTranspose
void RegisterNormalizationOps(OpRegistry& registry);  // BatchNormalization, LayerNormalization
void RegisterActivationOps(OpRegistry& registry);     // Relu, LeakyRelu, Clip, Gelu, Erf, ...
void RegisterElementwiseOps(OpRegistry& registry);    // Add, Sub, Mul, Div, Sum, Equal, Where, ...
void RegisterPoolOps(OpRegistry& registry);           // MaxPool, AveragePool, Global*Pool
void RegisterTensorOps(OpRegistry& registry);      // Concat, Split, Slice, Reshape, Transpose, ...
void RegisterDepthSpaceOps(OpRegistry& registry);  // DepthToSpace, SpaceToDepth
void RegisterMatmulOps(OpRegistry& registry);      // Gemm, MatMul
void RegisterMiscOps(OpRegistry& registry);        // Softmax, Identity, Dropout, Constant, ...
void RegisterReductionOps(OpRegistry& registry);   // ReduceMean, ReduceSum, ..., ArgMax, ArgMin
void RegisterResizeOps(OpRegistry& registry);      // Resize, Upsample
void RegisterScatterOps(OpRegistry& registry);     // ScatterND

}  // namespace ios

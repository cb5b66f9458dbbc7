// DepthToSpace (DCR and CRD modes) and SpaceToDepth (DCR, and CRD from opset 28): pixel shuffle
// and its inverse, pure data movement. ParseDepthSpace (ops/op_params.h) checks the node and
// gives the output dims for every backend.
#include <vector>

#include "ops/op_params.h"
#include "ops/op_registry.h"
#include "ops/op_util.h"

namespace ios {
namespace {

Status InferDepthSpace(const Node& node, const std::vector<InferInput>& inputs,
                       std::vector<TensorType>* outputs) {
  IOS_ASSIGN_OR_RETURN(DepthSpaceParams params, ParseDepthSpace(node, inputs[0].type.dims));
  (*outputs)[0] = TensorType{inputs[0].type.dtype, params.out_dims};
  return Status::Ok();
}

}  // namespace

void RegisterDepthSpaceOps(OpRegistry& registry) {
  const CostFn copy = MakeElementwiseCost(0);
  RegisterOp(registry, OpSchema{"DepthToSpace", 1, 1, 1, 1, InferDepthSpace, copy});
  RegisterOp(registry, OpSchema{"SpaceToDepth", 1, 1, 1, 1, InferDepthSpace, copy});
}

}  // namespace ios

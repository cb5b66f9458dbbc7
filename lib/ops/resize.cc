// Resize (opsets 10, 11, 13, 18, 19) and Upsample (7, 9): output shapes from the constant
// scales or sizes (ops/resize_params.h), and cost.
#include <string>
#include <vector>

#include "ops/op_registry.h"
#include "ops/op_util.h"
#include "ops/resize_params.h"

namespace ios {
namespace {

Status InferResize(const Node& node, const std::vector<InferInput>& inputs,
                   std::vector<TensorType>* outputs) {
  std::vector<TensorType> types;
  std::vector<const Tensor*> constants;
  for (const InferInput& input : inputs) {
    types.push_back(input.present ? input.type : TensorType{});
    constants.push_back(input.present ? input.constant : nullptr);
  }
  IOS_ASSIGN_OR_RETURN(ResizeParams params, ParseResize(NodeInputs{node, types, constants}));
  (*outputs)[0] = TensorType{inputs[0].type.dtype, params.out_dims};
  return Status::Ok();
}

// Each output element sums the product of its axes' taps: 1 per axis for nearest (a copy), 2
// for linear, 4 for cubic, over the axes whose length changes; a multiply-add per tap. Costs
// never read constant values, so an axis counts as resized when its length changes.
OpCost ResizeCost(const Node& node, const std::vector<TensorType>& inputs,
                  const std::vector<TensorType>& outputs) {
  const StatusOr<std::string> mode_attr = node.attrs.GetString("mode", "nearest");
  const std::string mode = mode_attr.ok() ? mode_attr.value() : "nearest";
  const double taps_per_axis = mode == "cubic" ? 4 : (mode == "linear" ? 2 : 0);
  double taps = 1;
  const Dims& in = inputs[0].dims;
  const Dims& out = outputs[0].dims;
  for (size_t d = 0; d < in.size() && d < out.size(); ++d)
    if (in[d] != out[d]) taps *= taps_per_axis;
  return PerOutputElementCost(inputs, outputs, taps_per_axis == 0 ? 0 : 2 * taps);
}

}  // namespace

void RegisterResizeOps(OpRegistry& registry) {
  // Which of the optional inputs a node needs depends on its opset; ParseResize checks it.
  RegisterOp(registry, OpSchema{"Resize", 1, 4, 1, 1, InferResize, ResizeCost});
  RegisterOp(registry, OpSchema{"Upsample", 1, 2, 1, 1, InferResize, ResizeCost});
}

}  // namespace ios

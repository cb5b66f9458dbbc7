// MaxPool, AveragePool and the global pools: attribute checks, output shapes and cost.
#include <string>
#include <vector>

#include "ops/op_registry.h"
#include "ops/op_util.h"

namespace ios {
namespace {

// A 0/1 flag attribute.
StatusOr<bool> ReadFlag(const Node& node, const std::string& name) {
  IOS_ASSIGN_OR_RETURN(int64_t value, node.attrs.GetInt(name, 0));
  if (value != 0 && value != 1) {
    return InvalidInput("attribute '" + name + "' is " + std::to_string(value) +
                        "; expected 0 or 1");
  }
  return value == 1;
}

// Shared by MaxPool and AveragePool: reads the window, checks it and sets output 0.
Status InferWindowPool(const Node& node, const std::vector<InferInput>& inputs,
                       std::vector<TensorType>* outputs) {
  const Dims& x = inputs[0].type.dims;
  if (x.size() < 3) {
    return InvalidInput("input X has shape " + DimsToString(x) +
                        "; expected at least 3 dims (N, C, spatial...)");
  }
  if (!node.attrs.Has("kernel_shape")) return InvalidInput("attribute 'kernel_shape' is required");
  IOS_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, node.attrs.GetInts("kernel_shape", {}));
  IOS_ASSIGN_OR_RETURN(WindowParams params, ReadWindowParams(node, kernel));
  IOS_ASSIGN_OR_RETURN(bool ceil_mode, ReadFlag(node, "ceil_mode"));
  const size_t n = kernel.size();
  if (params.auto_pad == "NOTSET") {
    // onnxruntime rejects these: a window could lie entirely in the padding.
    for (size_t i = 0; i < 2 * n; ++i) {
      if (params.pads[i] >= kernel[i % n]) {
        return InvalidInput("pads " + DimsToString(params.pads) +
                            " must be smaller than kernel_shape " + DimsToString(kernel));
      }
    }
  } else if (params.auto_pad != "VALID") {
    for (int64_t d : params.dilations) {
      if (d != 1) {
        // onnxruntime computes the SAME padding from the undilated kernel and gets a different
        // output size than the ONNX spec's ceil(in / stride).
        return Unsupported("auto_pad " + params.auto_pad + " with dilations " +
                           DimsToString(params.dilations) + " is not supported");
      }
    }
  }
  IOS_ASSIGN_OR_RETURN(Dims spatial,
                       WindowOutputDims(Dims(x.begin() + 2, x.end()), ceil_mode, &params));
  Dims out = {x[0], x[1]};
  out.insert(out.end(), spatial.begin(), spatial.end());
  (*outputs)[0] = TensorType{inputs[0].type.dtype, out};
  return Status::Ok();
}

Status InferMaxPool(const Node& node, const std::vector<InferInput>& inputs,
                    std::vector<TensorType>* outputs) {
  if (node.outputs.size() > 1 && node.outputs[1] != kNoValue) {
    return Unsupported("the second output 'Indices' of MaxPool is not supported");
  }
  IOS_RETURN_IF_ERROR(ReadFlag(node, "storage_order").status());
  return InferWindowPool(node, inputs, outputs);
}

Status InferAveragePool(const Node& node, const std::vector<InferInput>& inputs,
                        std::vector<TensorType>* outputs) {
  IOS_RETURN_IF_ERROR(ReadFlag(node, "count_include_pad").status());
  return InferWindowPool(node, inputs, outputs);
}

// One op per window element for every output.
OpCost WindowPoolCost(const Node& node, const std::vector<TensorType>& inputs,
                      const std::vector<TensorType>& outputs) {
  auto kernel = node.attrs.GetInts("kernel_shape", {});
  // In double: the attribute's values, each checked alone, may not multiply within int64.
  double window = 1;
  if (kernel.ok())
    for (int64_t k : kernel.value()) window *= static_cast<double>(k);
  return PerOutputElementCost(inputs, outputs, window);
}

Status InferGlobalPool(const Node& node, const std::vector<InferInput>& inputs,
                       std::vector<TensorType>* outputs) {
  const Dims& x = inputs[0].type.dims;
  if (x.size() < 3) {
    return InvalidInput("input X has shape " + DimsToString(x) +
                        "; expected at least 3 dims (N, C, spatial...)");
  }
  Dims out(x.size(), 1);
  out[0] = x[0];
  out[1] = x[1];
  (*outputs)[0] = TensorType{inputs[0].type.dtype, out};
  return Status::Ok();
}

// The window is the whole spatial extent: one op per input element.
OpCost GlobalPoolCost(const Node& node, const std::vector<TensorType>& inputs,
                      const std::vector<TensorType>& outputs) {
  OpCost cost;
  cost.flops = static_cast<double>(NumElements(inputs[0].dims));
  cost.bytes_moved = BytesMoved(inputs, outputs);
  return cost;
}

}  // namespace

void RegisterPoolOps(OpRegistry& registry) {
  // MaxPool declares 2 outputs so that Indices gets a clear Unsupported message.
  RegisterOp(registry,
             OpSchema{"MaxPool", 1, 1, 1, 2, InferMaxPool, WindowPoolCost, OpRole::kPool});
  RegisterOp(registry,
             OpSchema{"AveragePool", 1, 1, 1, 1, InferAveragePool, WindowPoolCost, OpRole::kPool});
  RegisterOp(registry, OpSchema{"GlobalAveragePool", 1, 1, 1, 1, InferGlobalPool, GlobalPoolCost,
                                OpRole::kPool});
  RegisterOp(registry,
             OpSchema{"GlobalMaxPool", 1, 1, 1, 1, InferGlobalPool, GlobalPoolCost, OpRole::kPool});
}

}  // namespace ios

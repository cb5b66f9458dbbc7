// Helpers shared by the op schemas in lib/ops: broadcasting, axis normalisation, reading int
// lists that moved from attributes to inputs across opsets, conv/pool window arithmetic and
// the common cost formulas.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/op_registry.h"
#include "ops/op_schema.h"
#include "util/checked_int.h"

namespace ios {

using InferFn = decltype(OpSchema::infer);
using CostFn = decltype(OpSchema::cost);

// Registers `schema` with its infer function wrapped so that an omitted required input (one of
// the first min_inputs) is reported before the op's own checks run.
void RegisterOp(OpRegistry& registry, OpSchema schema);

// ---- Inputs ------------------------------------------------------------------------------------

// Input `index` when the node has it and it is not omitted; null otherwise.
const InferInput* OptionalInput(const std::vector<InferInput>& inputs, size_t index);

// The error for an input whose value (not just its shape) is needed to infer the output.
Status NonConstantInput(const std::string& input_name);

// An int list that may be absent (an omitted optional input or attribute).
struct IntList {
  bool present = false;
  std::vector<int64_t> values;
};

// The values of constant input `index` as int64. Absent when the input is omitted;
// Unsupported when it is present but not constant.
StatusOr<IntList> IntsFromInput(const std::vector<InferInput>& inputs, size_t index,
                                const std::string& input_name);

// An int list that opsets before `input_since` carry as attribute `name` and later opsets as
// the optional constant input `index` (Squeeze axes, Split split, Slice starts, ...). Using
// the attribute in a new opset, or the input in an old one, is an error that says which.
StatusOr<IntList> IntsFromAttrOrInput(const Node& node, const std::vector<InferInput>& inputs,
                                      const std::string& name, size_t index, int64_t input_since);

// ---- Axes and dims -----------------------------------------------------------------------------

// Maps axis in [-rank, rank) to [0, rank); InvalidInput naming `what` otherwise.
StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t rank, const std::string& what);
// Normalises every axis and rejects duplicates.
StatusOr<std::vector<int64_t>> NormalizeAxes(const std::vector<int64_t>& axes, int64_t rank,
                                             const std::string& what);

// Numpy (multidirectional) broadcasting of two shapes.
StatusOr<Dims> BroadcastDims(const Dims& a, const Dims& b);
// Broadcasts every present input.
StatusOr<Dims> BroadcastInputs(const std::vector<InferInput>& inputs);

// InvalidInput unless the input has exactly `rank` dims.
Status CheckRank(const InferInput& input, const std::string& input_name, int64_t rank);
// InvalidInput unless every present input has the same dtype as input 0.
Status CheckSameDType(const std::vector<InferInput>& inputs);

// ---- Conv / pool windows -----------------------------------------------------------------------

// Window geometry of a conv or pool over `kernel.size()` spatial axes.
struct WindowParams {
  std::vector<int64_t> kernel;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads;  // ONNX order: the begin of every axis, then the end of every axis
  std::string auto_pad = "NOTSET";
};

// Reads strides, dilations, pads and auto_pad for the given kernel and validates them
// (positive strides and dilations, non-negative pads, list lengths, known auto_pad).
StatusOr<WindowParams> ReadWindowParams(const Node& node, const std::vector<int64_t>& kernel);

// Output length of one spatial axis for explicit pads. With ceil_mode the last window must
// start inside the input or the left padding, as in onnxruntime. Marked as overflowed when a
// step of the arithmetic does not fit in int64 (a hostile input length or pad).
CheckedInt64 WindowOutputSize(int64_t in, int64_t kernel, int64_t stride, int64_t dilation,
                              int64_t pad_begin, int64_t pad_end, bool ceil_mode);

// Output spatial dims for input spatial dims `in`. Resolves auto_pad into params->pads.
// InvalidInput when the (dilated) kernel does not fit in the padded input, or when the
// arithmetic overflows int64.
StatusOr<Dims> WindowOutputDims(const Dims& in, bool ceil_mode, WindowParams* params);

// ---- Cost --------------------------------------------------------------------------------------

// Bytes of one tensor; 0 for an omitted one (kUndefined dtype).
double TensorBytes(const TensorType& type);
// Bytes of every present input plus every output.
double BytesMoved(const std::vector<TensorType>& inputs, const std::vector<TensorType>& outputs);
// `flops_per_element` times the elements of output 0, plus BytesMoved.
OpCost PerOutputElementCost(const std::vector<TensorType>& inputs,
                            const std::vector<TensorType>& outputs, double flops_per_element);
// A cost function doing `flops_per_element` ops per output element: 0 for ops that only move
// data, 1 for elementwise ops.
CostFn MakeElementwiseCost(double flops_per_element);

}  // namespace ios

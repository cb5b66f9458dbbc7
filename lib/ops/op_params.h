// The parameters of the data-movement (DepthToSpace and SpaceToDepth among them), softmax and
// GELU ops, read from a node's attributes and constant inputs and checked once, for every
// backend's kernel factory (CPU and CUDA). Each parser returns a plain struct; InvalidInput for a
// malformed node, Unsupported when a value it needs is only known at run time (a backend then falls
// back or refuses).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/tensor.h"
#include "kernels/math/cast_math.h"
#include "kernels/math/elementwise_math.h"
#include "kernels/math/tensor_math.h"
#include "ops/op_schema.h"
#include "util/status.h"

namespace ios {

// A node's inputs as a kernel factory sees them: a type and a constant (or null) per slot.
struct NodeInputs {
  const Node& node;
  const std::vector<TensorType>& types;
  const std::vector<const Tensor*>& constants;

  // True when the node has input `index` and it is not omitted.
  bool Present(size_t index) const;
  // The constant value of input `index`, or null (absent or computed at run time).
  const Tensor* Constant(size_t index) const;
};

// InvalidInput unless the dims a factory computed are those the plan carries.
Status CheckPlannedOutput(const Dims& computed, const Dims& planned);

// Concat or Split along `axis`: `outer` blocks (the product of the dims before the axis), each
// holding `whole` elements of the joined tensor and parts[i] elements of part i.
struct AxisParts {
  int64_t axis = 0;
  int64_t outer = 1;
  int64_t whole = 0;
  std::vector<int64_t> parts;
};

// Concat of the inputs into `out` (the planned output dims).
StatusOr<AxisParts> ParseConcat(const NodeInputs& inputs, const Dims& out);
// Split of input 0 into `outputs` (the output types already carry the split sizes).
StatusOr<AxisParts> ParseSplit(const NodeInputs& inputs, const std::vector<TensorType>& outputs);

// Slice of input 0: output index i of dim d reads input index begin[d] + i * step[d].
struct SliceParams {
  Dims begin;
  Dims step;
  Dims out_dims;
};

// Starts/ends/axes/steps from the attributes (opset < 10) or the constant inputs 1-4.
StatusOr<SliceParams> ParseSlice(const NodeInputs& inputs);

// Transpose of input 0: output dim d is input dim perm[d] (reversed when perm is absent).
struct TransposeParams {
  Dims perm;
  Dims out_dims;
};

StatusOr<TransposeParams> ParseTranspose(const Node& node, const Dims& in);

// DepthToSpace and SpaceToDepth of a 4-D input: a transpose of the input read as six dims, as
// ONNX defines both (reshape, transpose, reshape): output element i of the transposed `view`
// (its dim d is view dim perm[d]) is output element i of the op.
//   DepthToSpace DCR: view [N, b, b, C/b², H, W], perm [0, 3, 4, 1, 5, 2]
//   DepthToSpace CRD: view [N, C/b², b, b, H, W], perm [0, 1, 4, 2, 5, 3]
//   SpaceToDepth DCR: view [N, C, H/b, b, W/b, b], perm [0, 3, 5, 1, 2, 4]
//   SpaceToDepth CRD: the same view, perm [0, 1, 3, 5, 2, 4] (the `mode` attribute: opset 28)
struct DepthSpaceParams {
  Dims view;
  Dims perm;
  Dims out_dims;  // [N, C/b², H·b, W·b] or [N, C·b², H/b, W/b]
};

// InvalidInput for a rank other than 4, a missing or non-positive blocksize, a channel count
// (DepthToSpace) or height/width (SpaceToDepth) the block does not divide, an unknown mode, a
// SpaceToDepth mode before opset 28, or output dims that overflow.
StatusOr<DepthSpaceParams> ParseDepthSpace(const Node& node, const Dims& in);

// Pad of input 0: `begin` elements before each dim (negative crops), giving out_dims.
struct PadParams {
  PadMode mode = PadMode::kConstant;
  Dims begin;
  Dims out_dims;
  // Opset < 11: the pad value is the float attribute `value` (0 when absent).
  bool value_from_attribute = false;
  float attribute_value = 0.f;
  // Opset >= 11: the pad value is the one-element input 2 when present (0 otherwise);
  // value_constant is its value when it is a constant.
  bool value_from_input = false;
  const Tensor* value_constant = nullptr;
};

// Mode, pads and axes from the attributes (opset < 11) or the constant inputs 1 and 3.
StatusOr<PadParams> ParsePad(const NodeInputs& inputs);

// The element type the kernels load and store for `dtype` (kernels/math/cast_math.h: Cast, the
// comparisons, Where); false for a dtype they do not handle.
bool CastTypeOf(DType dtype, CastType* type);

// A binary elementwise op: Add, Sub, Mul, Div, Pow, PRelu, or the variadic Sum, Mean, Max and
// Min (their inputs folded left to right; one input is a copy; a Mean's sum is then divided by
// the input count).
struct BinaryElementwise {
  BinaryOpKind op = BinaryOpKind::kAdd;
  bool variadic = false;
  bool mean = false;
};

// Internal when `op_type` is not one of them.
StatusOr<BinaryElementwise> BinaryElementwiseOf(const std::string& op_type);
// InvalidInput unless there are two inputs (at least one when variadic) and an output, and the
// inputs broadcast to the output (for PRelu: the slope to the input's own shape).
Status CheckBinaryElementwise(const BinaryElementwise& op, const std::vector<TensorType>& inputs,
                              const std::vector<TensorType>& outputs);

// Softmax's axis: in [0, rank), or rank with coerce_2d (before opset 13 the input is coerced
// to 2-D at the axis, default 1; since then it is normalised along the axis, default -1).
struct SoftmaxAxis {
  int64_t axis = 0;
  bool coerce_2d = false;
};

StatusOr<SoftmaxAxis> ParseSoftmaxAxis(const Node& node, int64_t rank);

// Gelu's `approximate` attribute: "none" (the default, the erf form) or "tanh"; InvalidInput
// for anything else.
StatusOr<GeluApproximation> ParseGeluApproximation(const Node& node);

}  // namespace ios

// Reference Softmax and LogSoftmax.
#include <cmath>
#include <vector>

#include "kernels/reference/reference_kernel_table.h"
#include "kernels/reference/reference_util.h"
#include "ops/op_params.h"

namespace ios {
namespace {

// Softmax and (with `log_softmax`) LogSoftmax. Before opset 13 the input is coerced to 2-D at
// `axis` (default 1) and each row is normalised; since opset 13 it normalises along `axis`
// (default -1). Subtracting the maximum keeps exp() from overflowing; LogSoftmax is
// x - max - log(sum of exp(x - max)).
Status SoftmaxKernel(bool log_softmax, const Node& node, const std::vector<const Tensor*>& inputs,
                     std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  // The axis as the op registry reads it (ops/op_params.h), for every backend alike.
  StatusOr<SoftmaxAxis> parsed = ParseSoftmaxAxis(node, x.rank());
  if (!parsed.ok())
    return Status(parsed.status().code(), NodeLabel(node) + parsed.status().message());
  const bool coerce_2d = parsed->coerce_2d;
  const int64_t axis = parsed->axis;  // == rank before opset 13: every element its own row
  const Dims& dims = x.dims();
  const int64_t outer = NumElements(Dims(dims.begin(), dims.begin() + axis));
  int64_t length = 0;
  int64_t inner = 1;
  if (coerce_2d) {
    length = NumElements(Dims(dims.begin() + axis, dims.end()));
  } else {
    length = dims[axis];
    inner = NumElements(Dims(dims.begin() + axis + 1, dims.end()));
  }

  return DispatchFloat(x.dtype(), node.op_type, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    Tensor y(x.dtype(), dims);
    const T* xd = x.data<T>();
    T* yd = y.data<T>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t base = o * length * inner + i;
        double max_value = -INFINITY;
        for (int64_t j = 0; j < length; ++j)
          max_value = std::fmax(max_value, static_cast<double>(xd[base + j * inner]));
        double sum = 0.0;
        for (int64_t j = 0; j < length; ++j)
          sum += std::exp(static_cast<double>(xd[base + j * inner]) - max_value);
        for (int64_t j = 0; j < length; ++j) {
          const double shifted = static_cast<double>(xd[base + j * inner]) - max_value;
          yd[base + j * inner] =
              static_cast<T>(log_softmax ? shifted - std::log(sum) : std::exp(shifted) / sum);
        }
      }
    }
    (*outputs)[0] = std::move(y);
    return Status::Ok();
  });
}

}  // namespace

void AddMiscReferenceKernels(ReferenceKernelTable& table) {
  table["Softmax"] = [](const Node& node, const std::vector<const Tensor*>& inputs,
                        std::vector<Tensor>* outputs) {
    return SoftmaxKernel(false, node, inputs, outputs);
  };
  table["LogSoftmax"] = [](const Node& node, const std::vector<const Tensor*>& inputs,
                           std::vector<Tensor>* outputs) {
    return SoftmaxKernel(true, node, inputs, outputs);
  };
}

}  // namespace ios

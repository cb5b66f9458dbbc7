// Reference Softmax and ReduceMean.
#include <cmath>
#include <vector>

#include "kernels/reference/reference_kernel_table.h"
#include "kernels/reference/reference_util.h"

namespace ios {
namespace {

// Softmax. Before opset 13 the input is coerced to 2-D at `axis` (default 1) and each row is
// normalised; since opset 13 it normalises along `axis` (default -1). Subtracting the maximum
// keeps exp() from overflowing.
Status SoftmaxKernel(const Node& node, const std::vector<const Tensor*>& inputs,
                     std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  const bool coerce_2d = OpsetBefore(node, 13);
  IOS_ASSIGN_OR_RETURN(int64_t axis_attr, node.attrs.GetInt("axis", coerce_2d ? 1 : -1));
  if (x.rank() < 1) return InvalidInput(NodeLabel(node) + "input must have rank >= 1");
  int64_t axis = 0;
  if (coerce_2d && axis_attr == x.rank()) {
    axis = x.rank();  // every element in its own row
  } else {
    IOS_ASSIGN_OR_RETURN(axis, NormalizeAxis(node, axis_attr, x.rank()));
  }
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
        for (int64_t j = 0; j < length; ++j)
          yd[base + j * inner] =
              static_cast<T>(std::exp(static_cast<double>(xd[base + j * inner]) - max_value) / sum);
      }
    }
    (*outputs)[0] = std::move(y);
    return Status::Ok();
  });
}

// ReduceMean over `axes` (attribute before opset 18, optional input since); no axes means all
// of them, unless noop_with_empty_axes=1 (opset 18) makes it the identity. Integer means
// truncate toward zero.
Status ReduceMeanKernel(const Node& node, const std::vector<const Tensor*>& inputs,
                        std::vector<Tensor>* outputs) {
  IOS_RETURN_IF_ERROR(RequireInput(node, inputs, 0));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& x = *inputs[0];
  IOS_ASSIGN_OR_RETURN(int64_t keepdims, node.attrs.GetInt("keepdims", 1));
  IOS_ASSIGN_OR_RETURN(int64_t noop_with_empty_axes, node.attrs.GetInt("noop_with_empty_axes", 0));
  std::vector<int64_t> axes;
  if (OpsetBefore(node, 18)) {
    IOS_ASSIGN_OR_RETURN(axes, node.attrs.GetInts("axes", {}));
  } else if (const Tensor* t = OptionalInput(inputs, 1)) {
    IOS_ASSIGN_OR_RETURN(axes, ReadIntsInput(node, *t, "axes"));
  }
  if (axes.empty() && noop_with_empty_axes != 0) {
    (*outputs)[0] = x;
    return Status::Ok();
  }
  std::vector<bool> reduced(x.rank(), axes.empty());
  for (int64_t a : axes) {
    IOS_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(node, a, x.rank()));
    reduced[axis] = true;
  }
  Dims out_dims;
  Dims kept_dims(x.rank());  // the output index space with reduced dimensions set to 1
  for (int64_t d = 0; d < x.rank(); ++d) {
    kept_dims[d] = reduced[d] ? 1 : x.dims()[d];
    if (!reduced[d] || keepdims != 0) out_dims.push_back(kept_dims[d]);
  }
  const int64_t out_count = NumElements(kept_dims);
  const int64_t group = out_count == 0 ? 0 : x.num_elements() / out_count;
  const Dims kept_strides = RowMajorStrides(kept_dims);

  return DispatchNumeric(x.dtype(), node.op_type, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    std::vector<double> sums(static_cast<size_t>(out_count), 0.0);
    int64_t in_offset = 0;
    ForEachIndex(x.dims(), [&](const Dims& index) {
      int64_t out_offset = 0;
      for (int64_t d = 0; d < x.rank(); ++d)
        if (!reduced[d]) out_offset += index[d] * kept_strides[d];
      sums[out_offset] += static_cast<double>(x.data<T>()[in_offset++]);
    });
    Tensor y(x.dtype(), out_dims);
    for (int64_t i = 0; i < out_count; ++i) {
      // ONNX gives NaN for the mean of nothing (a reduced dimension of size 0).
      const double mean = group > 0 ? sums[i] / static_cast<double>(group) : NAN;
      y.data<T>()[i] = ConvertElement<T>(mean);
    }
    (*outputs)[0] = std::move(y);
    return Status::Ok();
  });
}

}  // namespace

void AddMiscReferenceKernels(ReferenceKernelTable& table) {
  table["Softmax"] = SoftmaxKernel;
  table["ReduceMean"] = ReduceMeanKernel;
}

}  // namespace ios

// Reference ScatterND: data copied, then each index tuple's slice replaced by, or combined
// (add, mul, max, min) with, its updates, in the order of the indices.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/reference/reference_kernel_table.h"
#include "kernels/reference/reference_util.h"

namespace ios {
namespace {

enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

StatusOr<Reduction> ParseReduction(const Node& node) {
  IOS_ASSIGN_OR_RETURN(std::string name, node.attrs.GetString("reduction", "none"));
  if (name == "none") return Reduction::kNone;
  if (name == "add") return Reduction::kAdd;
  if (name == "mul") return Reduction::kMul;
  if (name == "max") return Reduction::kMax;
  if (name == "min") return Reduction::kMin;
  return InvalidInput(NodeLabel(node) + "unknown reduction '" + name + "'");
}

// The element offset in data of every index tuple (the last dim of indices), each checked
// against data's dims; negative indices count from the end.
StatusOr<std::vector<int64_t>> SliceOffsets(const Node& node, const Dims& data,
                                            const Tensor& indices) {
  IOS_ASSIGN_OR_RETURN(std::vector<int64_t> values, ReadIntsInput(node, indices, "indices"));
  const int64_t k = indices.dims().back();
  Dims strides(data.size(), 1);
  for (int64_t d = static_cast<int64_t>(data.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * data[d + 1];
  std::vector<int64_t> offsets;
  const int64_t tuples = k > 0 ? static_cast<int64_t>(values.size()) / k : 0;
  offsets.reserve(static_cast<size_t>(tuples));
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t offset = 0;
    for (int64_t d = 0; d < k; ++d) {
      int64_t i = values[t * k + d];
      if (i < -data[d] || i >= data[d])
        return InvalidInput(NodeLabel(node) + "index " + std::to_string(i) +
                            " is out of range for dimension " + std::to_string(d) + " of length " +
                            std::to_string(data[d]));
      if (i < 0) i += data[d];
      offset += i * strides[d];
    }
    offsets.push_back(offset);
  }
  return offsets;
}

Status ScatterNDKernel(const Node& node, const std::vector<const Tensor*>& inputs,
                       std::vector<Tensor>* outputs) {
  for (size_t i = 0; i < 3; ++i) IOS_RETURN_IF_ERROR(RequireInput(node, inputs, i));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const Tensor& data = *inputs[0];
  const Tensor& indices = *inputs[1];
  const Tensor& updates = *inputs[2];
  IOS_ASSIGN_OR_RETURN(Reduction reduction, ParseReduction(node));
  if (updates.dtype() != data.dtype())
    return InvalidInput(NodeLabel(node) + "updates and data must share one element type");
  if (data.rank() < 1 || indices.rank() < 1)
    return InvalidInput(NodeLabel(node) + "data and indices must have rank >= 1");
  const int64_t k = indices.dims().back();
  if (k < 1 || k > data.rank())
    return InvalidInput(NodeLabel(node) + "indices' last dimension " + std::to_string(k) +
                        " must be between 1 and data's rank " + std::to_string(data.rank()));
  Dims expected(indices.dims().begin(), indices.dims().end() - 1);
  expected.insert(expected.end(), data.dims().begin() + k, data.dims().end());
  if (updates.dims() != expected)
    return InvalidInput(NodeLabel(node) + "updates have shape " + DimsToString(updates.dims()) +
                        ", expected " + DimsToString(expected));
  const int64_t slice = NumElements(Dims(data.dims().begin() + k, data.dims().end()));
  IOS_ASSIGN_OR_RETURN(std::vector<int64_t> offsets, SliceOffsets(node, data.dims(), indices));
  Tensor out = data;
  if (reduction == Reduction::kNone) {
    if (!IsCopyableDType(data.dtype()))
      return Unsupported(NodeLabel(node) + "element type " + DTypeName(data.dtype()) +
                         " is not supported");
    const size_t bytes = static_cast<size_t>(slice) * DTypeSize(data.dtype());
    for (size_t t = 0; t < offsets.size(); ++t) {
      if (bytes == 0) break;
      std::memcpy(out.raw() + offsets[t] * DTypeSize(data.dtype()),
                  updates.raw() + static_cast<int64_t>(t) * static_cast<int64_t>(bytes), bytes);
    }
    (*outputs)[0] = std::move(out);
    return Status::Ok();
  }
  return DispatchNumeric(data.dtype(), node.op_type, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    T* od = out.data<T>();
    const T* ud = updates.data<T>();
    for (size_t t = 0; t < offsets.size(); ++t) {
      for (int64_t e = 0; e < slice; ++e) {
        T& o = od[offsets[t] + e];
        const T u = ud[static_cast<int64_t>(t) * slice + e];
        switch (reduction) {
          case Reduction::kAdd:
            o = static_cast<T>(o + u);
            break;
          case Reduction::kMul:
            o = static_cast<T>(o * u);
            break;
          case Reduction::kMax:
            o = std::max(o, u);
            break;
          case Reduction::kMin:
            o = std::min(o, u);
            break;
          case Reduction::kNone:
            o = u;
            break;
        }
      }
    }
    (*outputs)[0] = std::move(out);
    return Status::Ok();
  });
}

}  // namespace

void AddScatterReferenceKernels(ReferenceKernelTable& table) {
  table["ScatterND"] = ScatterNDKernel;
}

}  // namespace ios

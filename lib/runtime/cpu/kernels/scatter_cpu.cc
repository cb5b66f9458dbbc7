// ScatterND: the data copied to the output (skipped when the memory plan puts the output over
// it), then each index tuple's slice replaced by its updates (reduction "none", any element type)
// or combined with them (add, mul, max, min on float32), in the order of the indices, as the
// reference does. Constant indices are resolved to offsets once; run-time ones at every run, an
// index out of range then being the reference's InvalidInput error.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "runtime/cpu/kernels/cpu_kernel_factories.h"
#include "runtime/cpu/cpu_threading.h"

namespace ios {
namespace {

enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

class ScatterNDCpuKernel : public CpuKernel {
 public:
  ScatterNDCpuKernel(std::string label, Dims data, DType dtype, DType index_dtype, int64_t k,
                     int64_t tuples, Reduction reduction)
      : label_(std::move(label)), data_(std::move(data)), dtype_(dtype),
        index_dtype_(index_dtype), k_(k), tuples_(tuples), reduction_(reduction) {
    slice_ = NumElements(Dims(data_.begin() + k_, data_.end()));
    strides_ = RowMajorStrides(data_);
  }

  // Resolves constant indices once.
  Status Prepare(const Tensor* indices) {
    if (indices == nullptr) return Status::Ok();
    std::vector<int64_t> offsets;
    IOS_RETURN_IF_ERROR(Offsets(indices->raw(), &offsets));
    constant_offsets_ = std::move(offsets);
    return Status::Ok();
  }

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    const size_t element = DTypeSize(dtype_);
    const size_t bytes = static_cast<size_t>(NumElements(data_)) * element;
    if (outputs[0] != inputs[0]) ParallelCopy(outputs[0], inputs[0], bytes, threads);
    std::vector<int64_t> run_offsets;
    const std::vector<int64_t>* offsets = &run_offsets;
    if (constant_offsets_) {
      offsets = &*constant_offsets_;
    } else {
      IOS_RETURN_IF_ERROR(Offsets(inputs[1], &run_offsets));
    }
    auto* out = static_cast<uint8_t*>(outputs[0]);
    const auto* updates = static_cast<const uint8_t*>(inputs[2]);
    const size_t slice_bytes = static_cast<size_t>(slice_) * element;
    for (size_t t = 0; t < offsets->size(); ++t) {
      uint8_t* to = out + static_cast<size_t>((*offsets)[t]) * element;
      const uint8_t* from = updates + t * slice_bytes;
      if (reduction_ == Reduction::kNone) {
        std::memcpy(to, from, slice_bytes);
        continue;
      }
      float* o = reinterpret_cast<float*>(to);
      const float* u = reinterpret_cast<const float*>(from);
      for (int64_t e = 0; e < slice_; ++e) {
        switch (reduction_) {
          case Reduction::kAdd: o[e] = o[e] + u[e]; break;
          case Reduction::kMul: o[e] = o[e] * u[e]; break;
          case Reduction::kMax: o[e] = std::max(o[e], u[e]); break;
          case Reduction::kMin: o[e] = std::min(o[e], u[e]); break;
          case Reduction::kNone: break;
        }
      }
    }
    return Status::Ok();
  }

 private:
  // The element offset in data of every index tuple; negative indices count from the end.
  Status Offsets(const void* indices, std::vector<int64_t>* offsets) const {
    offsets->resize(static_cast<size_t>(tuples_));
    for (int64_t t = 0; t < tuples_; ++t) {
      int64_t offset = 0;
      for (int64_t d = 0; d < k_; ++d) {
        const int64_t at = t * k_ + d;
        int64_t i = index_dtype_ == DType::kInt64 ? static_cast<const int64_t*>(indices)[at]
                                                  : static_cast<const int32_t*>(indices)[at];
        if (i < -data_[d] || i >= data_[d])
          return InvalidInput(label_ + ": index " + std::to_string(i) +
                              " is out of range for dimension " + std::to_string(d) +
                              " of length " + std::to_string(data_[d]));
        if (i < 0) i += data_[d];
        offset += i * strides_[d];
      }
      (*offsets)[static_cast<size_t>(t)] = offset;
    }
    return Status::Ok();
  }

  std::string label_;
  Dims data_;
  DType dtype_;
  DType index_dtype_;
  int64_t k_;
  int64_t tuples_;
  Reduction reduction_;
  int64_t slice_ = 0;
  Dims strides_;
  std::optional<std::vector<int64_t>> constant_offsets_;
};

}  // namespace

StatusOr<std::unique_ptr<CpuKernel>> CreateScatterNDCpuKernel(const CpuKernelContext& context) {
  const Node& node = *context.node;
  if (context.input_types.size() != 3 || context.output_types.empty())
    return InvalidInput("needs data, indices, updates and an output");
  const TensorType& data = context.input_types[0];
  const TensorType& indices = context.input_types[1];
  const TensorType& updates = context.input_types[2];
  IOS_ASSIGN_OR_RETURN(std::string name, node.attrs.GetString("reduction", "none"));
  Reduction reduction;
  if (name == "none") reduction = Reduction::kNone;
  else if (name == "add") reduction = Reduction::kAdd;
  else if (name == "mul") reduction = Reduction::kMul;
  else if (name == "max") reduction = Reduction::kMax;
  else if (name == "min") reduction = Reduction::kMin;
  else return std::unique_ptr<CpuKernel>();  // the reference reports it
  if (updates.dtype != data.dtype || context.output_types[0].dtype != data.dtype ||
      context.output_types[0].dims != data.dims || DTypeSize(data.dtype) == 0 ||
      (indices.dtype != DType::kInt64 && indices.dtype != DType::kInt32) || data.dims.empty() ||
      indices.dims.empty() || (reduction != Reduction::kNone && data.dtype != DType::kFloat32))
    return std::unique_ptr<CpuKernel>();  // the reference runs it, or reports what is wrong
  const int64_t k = indices.dims.back();
  if (k < 1 || k > static_cast<int64_t>(data.dims.size()))
    return InvalidInput("indices' last dimension " + std::to_string(k) +
                        " must be between 1 and data's rank");
  Dims expected(indices.dims.begin(), indices.dims.end() - 1);
  expected.insert(expected.end(), data.dims.begin() + k, data.dims.end());
  if (updates.dims != expected)
    return InvalidInput("updates have shape " + DimsToString(updates.dims) + ", expected " +
                        DimsToString(expected));
  const int64_t tuples = NumElements(Dims(indices.dims.begin(), indices.dims.end() - 1));
  auto kernel = std::make_unique<ScatterNDCpuKernel>("ScatterND '" + node.name + "'", data.dims,
                                                     data.dtype, indices.dtype, k, tuples,
                                                     reduction);
  IOS_RETURN_IF_ERROR(kernel->Prepare(context.constants.size() > 1 ? context.constants[1] : nullptr));
  return std::unique_ptr<CpuKernel>(std::move(kernel));
}

}  // namespace ios

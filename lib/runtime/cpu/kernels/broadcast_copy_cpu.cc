// Expand (numpy broadcasting of one input to a shape) and Tile (repeats per dim): copies of any
// element type. Expand is walked as broadcast_walk_cpu.h plans it, with the layouts the tensors
// are stored in; Tile copies row-major rows, each from the input row its index maps to (the
// innermost dim's repeats as whole-row copies).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ops/op_params.h"
#include "ops/op_util.h"
#include "runtime/cpu/kernels/broadcast_walk_cpu.h"
#include "runtime/cpu/kernels/cpu_kernel_factories.h"
#include "runtime/cpu/cpu_threading.h"
#include "runtime/cpu/kernels/cpu_vector_clones.h"

namespace ios {
namespace {

using CopyWalk = BroadcastWalk<1>;

template <typename T>
IOS_ALWAYS_INLINE void ExpandUnits(const CopyWalk& walk, const WalkSplit& split, const void* in,
                                   void* out, int64_t begin, int64_t end) {
  const T* x = static_cast<const T*>(in);
  T* y = static_cast<T*>(out);
  const int64_t step = walk.strides[0].back();
  WalkUnits(walk, split, begin, end,
            [&](const std::array<int64_t, 1>& at, int64_t out_at, int64_t count)
                __attribute__((always_inline)) {
                  const T* xs = x + at[0];
                  T* ys = y + out_at;
                  if (step == 1) {
                    std::memcpy(ys, xs, static_cast<size_t>(count) * sizeof(T));
                  } else if (step == 0) {
                    const T value = xs[0];
                    for (int64_t i = 0; i < count; ++i) ys[i] = value;
                  } else {
                    for (int64_t i = 0; i < count; ++i) ys[i] = xs[i * step];
                  }
                });
}

#define IOS_EXPAND_UNITS(Name, T)                                                             \
  IOS_VECTOR_CLONES void Name(const CopyWalk& walk, const WalkSplit& split, const void* in,   \
                              void* out, int64_t begin, int64_t end) {                        \
    ExpandUnits<T>(walk, split, in, out, begin, end);                                         \
  }
IOS_EXPAND_UNITS(ExpandUnits1, uint8_t)
IOS_EXPAND_UNITS(ExpandUnits2, uint16_t)
IOS_EXPAND_UNITS(ExpandUnits4, uint32_t)
IOS_EXPAND_UNITS(ExpandUnits8, uint64_t)
#undef IOS_EXPAND_UNITS

using ExpandUnitsFn = void (*)(const CopyWalk&, const WalkSplit&, const void*, void*, int64_t,
                               int64_t);

class ExpandCpuKernel : public CpuKernel {
 public:
  ExpandCpuKernel(ExpandUnitsFn units, CopyWalk walk) : units_(units), walk_(std::move(walk)) {}

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    const WalkSplit split = SplitWalk(walk_, threads);
    RunWalk(walk_, split, [&](int64_t begin, int64_t end) {
      units_(walk_, split, inputs[0], outputs[0], begin, end);
    });
    return Status::Ok();
  }

 private:
  ExpandUnitsFn units_;
  CopyWalk walk_;
};

// Tile: output row r (all dims but the last) reads input row (r's index mod the input's dims);
// the last dim's repeats copy that row again.
class TileCpuKernel : public CpuKernel {
 public:
  TileCpuKernel(Dims in, Dims out, size_t element) : in_(std::move(in)), out_(std::move(out)),
                                                     element_(element) {}

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    const auto* x = static_cast<const uint8_t*>(inputs[0]);
    auto* y = static_cast<uint8_t*>(outputs[0]);
    const size_t rank = out_.size();
    const size_t in_row = static_cast<size_t>(in_.back()) * element_;
    const int64_t repeats = in_.back() == 0 ? 0 : out_.back() / in_.back();
    const size_t out_row = in_row * static_cast<size_t>(repeats);
    int64_t rows = 1;
    for (size_t d = 0; d + 1 < rank; ++d) rows *= out_[d];
    if (in_row == 0 || rows == 0) return Status::Ok();
    const Dims in_strides = RowMajorStrides(in_);
    ParallelFor(rows, ThreadsForWork(threads, rows * out_.back()), [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        int64_t rest = row;
        int64_t in_offset = 0;
        for (size_t d = rank - 1; d-- > 0;) {
          in_offset += (rest % out_[d]) % in_[d] * in_strides[d];
          rest /= out_[d];
        }
        const uint8_t* src = x + static_cast<size_t>(in_offset) * element_;
        uint8_t* dst = y + static_cast<size_t>(row) * out_row;
        for (int64_t r = 0; r < repeats; ++r) std::memcpy(dst + r * in_row, src, in_row);
      }
    });
    return Status::Ok();
  }

 private:
  Dims in_;
  Dims out_;
  size_t element_;
};

}  // namespace

StatusOr<std::unique_ptr<CpuKernel>> CreateExpandCpuKernel(const CpuKernelContext& context) {
  if (context.input_types.empty() || context.output_types.empty())
    return InvalidInput("needs an input and an output");
  const TensorType& x = context.input_types[0];
  const TensorType& y = context.output_types[0];
  if (x.dtype != y.dtype) return InvalidInput("the output's type differs from the input's");
  IOS_ASSIGN_OR_RETURN(Dims expected, BroadcastDims(x.dims, y.dims));
  IOS_RETURN_IF_ERROR(CheckPlannedOutput(expected, y.dims));
  ExpandUnitsFn units = nullptr;
  switch (DTypeSize(x.dtype)) {
    case 1: units = ExpandUnits1; break;
    case 2: units = ExpandUnits2; break;
    case 4: units = ExpandUnits4; break;
    case 8: units = ExpandUnits8; break;
    default: return std::unique_ptr<CpuKernel>();
  }
  if (context.any_channels_blocked() || context.batch_strides.any())
    return Internal("Expand '" + context.node->name +
                    "': its CPU kernel takes no blocked tensors or strided views");
  const StridedDims in = StoredDims(x.dims, context.input_layout(0));
  const StridedDims out = StoredDims(y.dims, context.output_layout(0));
  return std::unique_ptr<CpuKernel>(new ExpandCpuKernel(units, PlanBroadcastWalk<1>(out, {in})));
}

StatusOr<std::unique_ptr<CpuKernel>> CreateTileCpuKernel(const CpuKernelContext& context) {
  if (context.input_types.empty() || context.output_types.empty())
    return InvalidInput("needs an input and an output");
  const TensorType& x = context.input_types[0];
  const TensorType& y = context.output_types[0];
  if (x.dtype != y.dtype || x.dims.size() != y.dims.size() || x.dims.empty())
    return std::unique_ptr<CpuKernel>();  // a scalar, or what the reference reports
  for (size_t d = 0; d < x.dims.size(); ++d)
    if (x.dims[d] == 0 ? y.dims[d] != 0 : y.dims[d] % x.dims[d] != 0)
      return InvalidInput("output " + DimsToString(y.dims) + " is not a tiling of input " +
                          DimsToString(x.dims));
  if (DTypeSize(x.dtype) == 0) return std::unique_ptr<CpuKernel>();
  return std::unique_ptr<CpuKernel>(new TileCpuKernel(x.dims, y.dims, DTypeSize(x.dtype)));
}

}  // namespace ios

// Cast between float32, float64, float16, int64, int32, int8, uint8 and bool: one pass of the
// CUDA kernel's per-element math (kernels/math/cast_math.h, which reproduces the reference's
// conversions exactly), instantiated per (from, to) pair so that its type switches fold away and
// the common pairs vectorise. Any layout: input and output are stored alike.
#include <cstdint>
#include <vector>

#include "kernels/math/cast_math.h"
#include "ops/op_params.h"
#include "runtime/cpu/kernels/cpu_kernel_factories.h"
#include "runtime/cpu/cpu_threading.h"

namespace ios {
namespace {

template <CastType kFrom, CastType kTo>
void CastRange(const void* in, void* out, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i) CastElement(kFrom, in, kTo, out, i);
}

using CastRangeFn = void (*)(const void*, void*, int64_t, int64_t);

template <CastType kFrom>
CastRangeFn CastRangeTo(CastType to) {
  switch (to) {
    case CastType::kFloat32: return CastRange<kFrom, CastType::kFloat32>;
    case CastType::kFloat64: return CastRange<kFrom, CastType::kFloat64>;
    case CastType::kFloat16: return CastRange<kFrom, CastType::kFloat16>;
    case CastType::kInt64: return CastRange<kFrom, CastType::kInt64>;
    case CastType::kInt32: return CastRange<kFrom, CastType::kInt32>;
    case CastType::kInt8: return CastRange<kFrom, CastType::kInt8>;
    case CastType::kUint8: return CastRange<kFrom, CastType::kUint8>;
    case CastType::kBool: return CastRange<kFrom, CastType::kBool>;
  }
  return nullptr;
}

CastRangeFn CastRangeFor(CastType from, CastType to) {
  switch (from) {
    case CastType::kFloat32: return CastRangeTo<CastType::kFloat32>(to);
    case CastType::kFloat64: return CastRangeTo<CastType::kFloat64>(to);
    case CastType::kFloat16: return CastRangeTo<CastType::kFloat16>(to);
    case CastType::kInt64: return CastRangeTo<CastType::kInt64>(to);
    case CastType::kInt32: return CastRangeTo<CastType::kInt32>(to);
    case CastType::kInt8: return CastRangeTo<CastType::kInt8>(to);
    case CastType::kUint8: return CastRangeTo<CastType::kUint8>(to);
    case CastType::kBool: return CastRangeTo<CastType::kBool>(to);
  }
  return nullptr;
}

class CastCpuKernel : public CpuKernel {
 public:
  CastCpuKernel(CastRangeFn range, int64_t count) : range_(range), count_(count) {}

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    ParallelFor(count_, ThreadsForWork(threads, count_),
                [&](int64_t begin, int64_t end) { range_(inputs[0], outputs[0], begin, end); });
    return Status::Ok();
  }

 private:
  CastRangeFn range_;
  int64_t count_;
};

}  // namespace

StatusOr<std::unique_ptr<CpuKernel>> CreateCastCpuKernel(const CpuKernelContext& context) {
  if (context.input_types.empty() || context.output_types.empty())
    return InvalidInput("needs an input and an output");
  const TensorType& x = context.input_types[0];
  const TensorType& y = context.output_types[0];
  if (x.dims != y.dims) return InvalidInput("the output's shape differs from the input's");
  CastType from, to;
  if (!CastTypeOf(x.dtype, &from) || !CastTypeOf(y.dtype, &to))
    return std::unique_ptr<CpuKernel>();  // the reference reports it
  return std::unique_ptr<CpuKernel>(new CastCpuKernel(CastRangeFor(from, to), NumElements(x.dims)));
}

}  // namespace ios

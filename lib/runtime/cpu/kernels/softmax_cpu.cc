// Softmax and LogSoftmax on float32. Before opset 13 the input is coerced to 2-D at `axis`
// (default 1) and each row normalised; since opset 13 it is normalised along `axis` (default
// -1). The maximum is subtracted before exp() as in the reference; LogSoftmax writes
// (x - max) - log(sum).
//
// Each group of softmaxes that share their inner position runs as loops along the contiguous
// index, cloned per vector width (cpu_vector_clones.h): along the axis itself when it is the
// innermost (inner = 1: a row of classes), across the inner positions otherwise (a softmax over
// the channels of NCHW: every pixel's channels at once, one pass over the axis per step), with
// exp by ExpPoly (kernels/math/exp_math.h, within 2 ulp) and the sums in float. Per element
// calls of double exp, the earlier loop, took 36 us for 8 rows of 1000 classes against
// onnxruntime's 4.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/math/exp_math.h"
#include "kernels/math/reduction_math.h"
#include "ops/op_params.h"
#include "runtime/cpu/kernels/cpu_kernel_factories.h"
#include "runtime/cpu/cpu_threading.h"
#include "runtime/cpu/kernels/cpu_vector_clones.h"

namespace ios {
namespace {

// A row's maximum and sum in kLanes interleaved partial results: one FP chain (a plain loop's)
// does not vectorise without reassociation, which the compiler may not do on its own.
constexpr int kLanes = 16;

IOS_ALWAYS_INLINE float RowMax(const float* __restrict x, int64_t length) {
  float lanes[kLanes];
  for (int l = 0; l < kLanes; ++l) lanes[l] = -INFINITY;
  int64_t j = 0;
  for (; j + kLanes <= length; j += kLanes)
    for (int l = 0; l < kLanes; ++l) lanes[l] = x[j + l] > lanes[l] ? x[j + l] : lanes[l];
  float max_value = -INFINITY;
  for (int l = 0; l < kLanes; ++l) max_value = lanes[l] > max_value ? lanes[l] : max_value;
  for (; j < length; ++j) max_value = x[j] > max_value ? x[j] : max_value;
  return max_value;
}

// exp(x - shift) into y (when `keep`) and its sum.
IOS_ALWAYS_INLINE float RowExpSum(const float* __restrict x, float shift, bool keep,
                                  float* __restrict y, int64_t length) {
  float lanes[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= length; j += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      const float e = ExpPoly(x[j + l] - shift);
      if (keep) y[j + l] = e;
      lanes[l] += e;
    }
  }
  float sum = 0.f;
  for (int l = 0; l < kLanes; ++l) sum += lanes[l];
  for (; j < length; ++j) {
    const float e = ExpPoly(x[j] - shift);
    if (keep) y[j] = e;
    sum += e;
  }
  return sum;
}

// One softmax along a contiguous row of `length` values.
IOS_ALWAYS_INLINE void SoftmaxRow(bool log_softmax, const float* __restrict x, float* __restrict y,
                                  int64_t length) {
  const float max_value = RowMax(x, length);
  if (log_softmax) {
    const float sum = RowExpSum(x, max_value, /*keep=*/false, y, length);
    // (x - max) - log(sum), not x - (max + log(sum)): beside a large max the sum of the two
    // rounds to the max's ulp (2.4e-4 off at 1e4, ONNX's test_logsoftmax_large_number).
    const float log_sum = std::log(sum);
    for (int64_t j = 0; j < length; ++j) y[j] = (x[j] - max_value) - log_sum;
    return;
  }
  const float sum = RowExpSum(x, max_value, /*keep=*/true, y, length);
  const float scale = 1.f / sum;
  for (int64_t j = 0; j < length; ++j) y[j] *= scale;
}

// The softmaxes of `count` neighbouring inner positions at once: element j of position i is at
// j * inner + i. `work` holds 2 * count floats (the maxima and the sums).
IOS_ALWAYS_INLINE void SoftmaxAcross(bool log_softmax, const float* __restrict x,
                                     float* __restrict y, int64_t length, int64_t inner,
                                     int64_t count, float* __restrict work) {
  float* __restrict max_value = work;
  float* __restrict sum = work + count;
  for (int64_t i = 0; i < count; ++i) {
    max_value[i] = -INFINITY;
    sum[i] = 0.f;
  }
  for (int64_t j = 0; j < length; ++j) {
    const float* xs = x + j * inner;
    for (int64_t i = 0; i < count; ++i) max_value[i] = xs[i] > max_value[i] ? xs[i] : max_value[i];
  }
  for (int64_t j = 0; j < length; ++j) {
    const float* xs = x + j * inner;
    float* ys = y + j * inner;
    for (int64_t i = 0; i < count; ++i) {
      const float e = ExpPoly(xs[i] - max_value[i]);
      if (!log_softmax) ys[i] = e;
      sum[i] += e;
    }
  }
  if (log_softmax) {
    for (int64_t i = 0; i < count; ++i) sum[i] = std::log(sum[i]);
    for (int64_t j = 0; j < length; ++j) {
      const float* xs = x + j * inner;
      float* ys = y + j * inner;
      for (int64_t i = 0; i < count; ++i) ys[i] = (xs[i] - max_value[i]) - sum[i];
    }
    return;
  }
  for (int64_t i = 0; i < count; ++i) sum[i] = 1.f / sum[i];
  for (int64_t j = 0; j < length; ++j) {
    float* ys = y + j * inner;
    for (int64_t i = 0; i < count; ++i) ys[i] *= sum[i];
  }
}

// Inner positions handled at once by SoftmaxAcross: enough for whole vectors, few enough that
// a block of rows stays in the cache between the passes.
constexpr int64_t kAcrossBlock = 256;

// Units [begin, end): rows (inner = 1), or blocks of kAcrossBlock inner positions of an outer
// index. One thread's share, cloned per vector width.
IOS_VECTOR_CLONES void SoftmaxUnits(bool log_softmax, const float* x, float* y, int64_t length,
                                    int64_t inner, int64_t begin, int64_t end) {
  if (inner == 1) {
    for (int64_t row = begin; row < end; ++row)
      SoftmaxRow(log_softmax, x + row * length, y + row * length, length);
    return;
  }
  float work[2 * kAcrossBlock];
  const int64_t blocks = (inner + kAcrossBlock - 1) / kAcrossBlock;
  for (int64_t unit = begin; unit < end; ++unit) {
    const int64_t outer = unit / blocks;
    const int64_t first = (unit % blocks) * kAcrossBlock;
    const int64_t count = std::min(kAcrossBlock, inner - first);
    const int64_t base = outer * length * inner + first;
    SoftmaxAcross(log_softmax, x + base, y + base, length, inner, count, work);
  }
}

class SoftmaxCpuKernel : public CpuKernel {
 public:
  SoftmaxCpuKernel(bool log_softmax, int64_t outer, int64_t length, int64_t inner)
      : log_softmax_(log_softmax), outer_(outer), length_(length), inner_(inner) {}

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    const float* x = static_cast<const float*>(inputs[0]);
    float* y = static_cast<float*>(outputs[0]);
    const int64_t units =
        inner_ == 1 ? outer_ : outer_ * ((inner_ + kAcrossBlock - 1) / kAcrossBlock);
    ParallelFor(units, ThreadsForWork(threads, outer_ * length_ * inner_),
                [&](int64_t begin, int64_t end) {
                  SoftmaxUnits(log_softmax_, x, y, length_, inner_, begin, end);
                });
    return Status::Ok();
  }

 private:
  bool log_softmax_;
  int64_t outer_;
  int64_t length_;
  int64_t inner_;
};

}  // namespace

StatusOr<std::unique_ptr<CpuKernel>> CreateSoftmaxCpuKernel(const CpuKernelContext& context) {
  const Node& node = *context.node;
  if (context.input_types.empty() || context.output_types.empty())
    return InvalidInput("needs an input and an output");
  const TensorType& x = context.input_types[0];
  if (x.dtype != DType::kFloat32) return std::unique_ptr<CpuKernel>();  // the reference
  IOS_ASSIGN_OR_RETURN(SoftmaxAxis axis,
                       ParseSoftmaxAxis(node, static_cast<int64_t>(x.dims.size())));
  const SoftmaxShape shape = MakeSoftmaxShape(x.dims, axis.axis, axis.coerce_2d);
  const bool log_softmax = node.op_type == "LogSoftmax";
  return std::unique_ptr<CpuKernel>(
      new SoftmaxCpuKernel(log_softmax, shape.outer, shape.length, shape.inner));
}

}  // namespace ios

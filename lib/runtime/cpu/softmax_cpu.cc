// Softmax and LogSoftmax on float32. Before opset 13 the input is coerced to 2-D at `axis`
// (default 1) and each row normalised; since opset 13 it is normalised along `axis` (default
// -1). The maximum is subtracted before exp() as in the reference; sums accumulate in double.
// LogSoftmax writes (x - max) - log(sum).
#include <cmath>
#include <string>
#include <vector>

#include "kernels/math/reduction_math.h"
#include "ops/op_params.h"
#include "runtime/cpu/cpu_kernel_factories.h"
#include "runtime/cpu/cpu_threading.h"

namespace ios {
namespace {

class SoftmaxCpuKernel : public CpuKernel {
 public:
  SoftmaxCpuKernel(bool log_softmax, int64_t outer, int64_t length, int64_t inner)
      : log_softmax_(log_softmax), outer_(outer), length_(length), inner_(inner) {}

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    const float* x = static_cast<const float*>(inputs[0]);
    float* y = static_cast<float*>(outputs[0]);
    const int64_t length = length_;
    const int64_t inner = inner_;
    const int64_t groups = outer_ * inner;  // one softmax per (outer, inner) pair
    ParallelFor(groups, ThreadsForWork(threads, groups * length), [&](int64_t begin, int64_t end) {
      for (int64_t g = begin; g < end; ++g) {
        const int64_t base = (g / inner) * length * inner + g % inner;
        const float* xs = x + base;
        float* ys = y + base;
        float max_value = -INFINITY;
        for (int64_t j = 0; j < length; ++j) max_value = std::fmax(max_value, xs[j * inner]);
        double sum = 0.0;
        if (log_softmax_) {
          for (int64_t j = 0; j < length; ++j) sum += std::exp(xs[j * inner] - max_value);
          // (x - max) - log(sum), not x - (max + log(sum)): beside a large max the sum of the
          // two rounds to the max's ulp (2.4e-4 off at 1e4, ONNX's test_logsoftmax_large_number).
          const float log_sum = static_cast<float>(std::log(sum));
          for (int64_t j = 0; j < length; ++j) ys[j * inner] = (xs[j * inner] - max_value) - log_sum;
          continue;
        }
        for (int64_t j = 0; j < length; ++j) {
          const float e = std::exp(xs[j * inner] - max_value);
          ys[j * inner] = e;
          sum += e;
        }
        const float scale = static_cast<float>(1.0 / sum);
        for (int64_t j = 0; j < length; ++j) ys[j * inner] *= scale;
      }
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

// Erf on float32: one pass of ApplyUnary (kernels/math/elementwise_math.h, the math the CUDA
// kernel runs too). oneDNN 2.6 has no erf eltwise. The other unary math ops (Neg, Sqrt, Exp, ...)
// still run the reference kernel on the CPU; each would be one more table entry here.
#include <string>

#include "kernels/math/elementwise_math.h"
#include "runtime/cpu/cpu_kernel_factories.h"
#include "runtime/cpu/cpu_threading.h"

namespace ios {
namespace {

template <UnaryOpKind kOp>
void MapUnary(const float* in, float* out, int64_t count) {
  for (int64_t i = 0; i < count; ++i) out[i] = ApplyUnary(kOp, in[i]);
}

class ErfCpuKernel : public CpuKernel {
 public:
  explicit ErfCpuKernel(int64_t count) : count_(count) {}

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    const float* x = static_cast<const float*>(inputs[0]);
    float* y = static_cast<float*>(outputs[0]);
    ParallelFor(count_, ThreadsForWork(threads, count_), [&](int64_t begin, int64_t end) {
      MapUnary<UnaryOpKind::kErf>(x + begin, y + begin, end - begin);
    });
    return Status::Ok();
  }

 private:
  int64_t count_;
};

}  // namespace

StatusOr<std::unique_ptr<CpuKernel>> CreateErfCpuKernel(const CpuKernelContext& context) {
  IOS_ASSIGN_OR_RETURN(bool float32, IsFloat32Elementwise(context));
  if (!float32) return std::unique_ptr<CpuKernel>();  // the reference
  const TensorType& x = context.input_types[0];
  return std::unique_ptr<CpuKernel>(new ErfCpuKernel(NumElements(x.dims)));
}

}  // namespace ios

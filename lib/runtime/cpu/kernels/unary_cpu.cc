// Unary math on float32 (Abs, Neg, Sqrt, Exp, Log, Reciprocal, Floor, Ceil, Erf) and Not on
// bools: one pass over the bytes, so any layout, input and output stored alike. Each is a loop
// cloned per vector width: Abs, Neg, Sqrt, Reciprocal, Floor and Ceil of ApplyUnary
// (kernels/math/elementwise_math.h, the math the CUDA kernels run), one or two vector
// instructions per vector (sqrtf needs -fno-math-errno, which the CPU backend builds with); Log
// of glibc's vector expf and logf (vector_libm_cpu.h); Erf of ErfPoly (erf_math.h, within 2.5
// ulp). On one thread, over 200K values: Exp 39 us through glibc's vector expf, 48 through
// ExpPoly, 29 through oneDNN's eltwise exp, which gives inf for NaN (onnxruntime 20); Erf 94 us
// through ErfPoly, 1.7 ms through libm's scalar erff (onnxruntime 62).
#include <iterator>
#include <optional>
#include <string>

#include "kernels/math/compare_math.h"
#include "kernels/math/elementwise_math.h"
#include "kernels/math/erf_math.h"
#include "runtime/cpu/kernels/cpu_kernel_factories.h"
#include "runtime/cpu/cpu_threading.h"
#include "runtime/cpu/kernels/cpu_vector_clones.h"
#include "runtime/cpu/kernels/vector_libm_cpu.h"

namespace ios {
namespace {

template <UnaryOpKind kOp>
IOS_ALWAYS_INLINE void MapUnary(const float* in, float* out, int64_t count) {
  for (int64_t i = 0; i < count; ++i) out[i] = ApplyUnary(kOp, in[i]);
}

// Erf: the polynomial that vectorises (erf_math.h).
IOS_ALWAYS_INLINE void MapErf(const float* in, float* out, int64_t count) {
  for (int64_t i = 0; i < count; ++i) out[i] = ErfPoly(in[i]);
}

// Each named kind's own loop (kUnaryOpNames), so that a kind added there has one here too.
template <size_t kIndex = 0>
IOS_ALWAYS_INLINE void MapNamedUnary(UnaryOpKind op, const float* in, float* out, int64_t count) {
  if constexpr (kIndex < std::size(kUnaryOpNames)) {
    constexpr UnaryOpKind kKind = kUnaryOpNames[kIndex].kind;
    if (op == kKind) return MapUnary<kKind>(in, out, count);
    MapNamedUnary<kIndex + 1>(op, in, out, count);
  }
}

// One thread's share, cloned per vector width (cpu_vector_clones.h). The Gelus, which have no
// name there, run gelu_cpu.cc.
IOS_VECTOR_CLONES void MapUnaryKind(UnaryOpKind op, const float* in, float* out, int64_t count) {
  if (op == UnaryOpKind::kErf) return MapErf(in, out, count);
  MapNamedUnary(op, in, out, count);
}

IOS_VECTOR_CLONES void MapNot(const uint8_t* in, uint8_t* out, int64_t count) {
  for (int64_t i = 0; i < count; ++i) out[i] = ApplyNot(in[i]);
}

class UnaryCpuKernel : public CpuKernel {
 public:
  UnaryCpuKernel(UnaryOpKind op, int64_t count) : op_(op), count_(count) {}

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    const float* x = static_cast<const float*>(inputs[0]);
    float* y = static_cast<float*>(outputs[0]);
    ParallelFor(count_, ThreadsForWork(threads, count_), [&](int64_t begin, int64_t end) {
      MapUnaryKind(op_, x + begin, y + begin, end - begin);
    });
    return Status::Ok();
  }

 private:
  UnaryOpKind op_;
  int64_t count_;
};

class NotCpuKernel : public CpuKernel {
 public:
  explicit NotCpuKernel(int64_t count) : count_(count) {}

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    const uint8_t* x = static_cast<const uint8_t*>(inputs[0]);
    uint8_t* y = static_cast<uint8_t*>(outputs[0]);
    ParallelFor(count_, ThreadsForWork(threads, count_),
                [&](int64_t begin, int64_t end) { MapNot(x + begin, y + begin, end - begin); });
    return Status::Ok();
  }

 private:
  int64_t count_;
};

std::optional<UnaryOpKind> UnaryOpOf(const std::string& op_type) {
  for (const UnaryOpName& entry : kUnaryOpNames)
    if (op_type == entry.op_type) return entry.kind;
  return std::nullopt;
}

}  // namespace

StatusOr<std::unique_ptr<CpuKernel>> CreateUnaryCpuKernel(const CpuKernelContext& context) {
  const Node& node = *context.node;
  if (node.op_type == "Not") {
    if (context.input_types.empty() || context.output_types.empty() ||
        context.input_types[0].dtype != DType::kBool ||
        context.output_types[0].dims != context.input_types[0].dims)
      return std::unique_ptr<CpuKernel>();  // the reference reports it
    return std::unique_ptr<CpuKernel>(new NotCpuKernel(NumElements(context.input_types[0].dims)));
  }
  const std::optional<UnaryOpKind> op = UnaryOpOf(node.op_type);
  if (!op) return Internal("not a unary math op: " + node.op_type);
  IOS_ASSIGN_OR_RETURN(bool float32, IsFloat32Elementwise(context));
  if (!float32) return std::unique_ptr<CpuKernel>();  // the reference
  const int64_t count = NumElements(context.input_types[0].dims);
  return std::unique_ptr<CpuKernel>(new UnaryCpuKernel(*op, count));
}

}  // namespace ios

// Gelu on float32 through oneDNN's eltwise primitive: gelu_erf for approximate="none",
// gelu_tanh for approximate="tanh" (the same formulas as kernels/math/gelu_math.h). The tensor
// is one flat 1-D memory, so any shape works.
#include <memory>
#include <string>
#include <unordered_map>

#include "ops/op_params.h"
#include "runtime/cpu/kernels/cpu_kernel_factories.h"
#include "runtime/cpu/kernels/dnnl_common.h"

namespace ios {
namespace {

class GeluCpuKernel : public CpuKernel {
 public:
  GeluCpuKernel(std::string label, dnnl::algorithm algorithm, int64_t count, dnnl::engine engine)
      : label_(std::move(label)),
        algorithm_(algorithm),
        count_(count),
        engine_(std::move(engine)),
        md_(PlainF32({count})) {}

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    if (count_ == 0) return Status::Ok();
    if (inputs.empty() || inputs[0] == nullptr || outputs.empty() || outputs[0] == nullptr)
      return Internal(label_ + ": missing input or output buffer");
    threads = ThreadsForWork(threads, count_);
    IOS_ASSIGN_OR_RETURN(Variant * v, GetVariant(threads));
    ScopedOmpThreads scope(threads);
    return CatchDnnl(label_, [&]() -> Status {
      dnnl::stream stream(engine_);
      v->primitive.execute(stream, {{DNNL_ARG_SRC, WrapMemory(md_, engine_, inputs[0])},
                                    {DNNL_ARG_DST, WrapMemory(md_, engine_, outputs[0])}});
      stream.wait();
      return Status::Ok();
    });
  }

  // Creates the single-thread primitive, so that an unsupported case fails at creation.
  Status Prepare() { return GetVariant(1).status(); }

 private:
  struct Variant {
    dnnl::eltwise_forward primitive;
  };

  StatusOr<Variant*> GetVariant(int threads) {
    return variants_.Get(threads, [&]() -> StatusOr<std::unique_ptr<Variant>> {
      auto v = std::make_unique<Variant>();
      IOS_RETURN_IF_ERROR(CatchDnnl(label_, [&]() -> Status {
        dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, algorithm_, md_);
        v->primitive = dnnl::eltwise_forward(dnnl::eltwise_forward::primitive_desc(desc, engine_));
        return Status::Ok();
      }));
      return v;
    });
  }

  std::string label_;
  dnnl::algorithm algorithm_;
  int64_t count_;
  dnnl::engine engine_;
  dnnl::memory::desc md_;
  VariantsByThreads<Variant> variants_;
};

}  // namespace

StatusOr<std::unique_ptr<CpuKernel>> CreateGeluCpuKernel(const CpuKernelContext& context) {
  const Node& node = *context.node;
  IOS_ASSIGN_OR_RETURN(bool float32, IsFloat32Elementwise(context));
  if (!float32) return std::unique_ptr<CpuKernel>();  // the reference
  const TensorType& x = context.input_types[0];
  IOS_ASSIGN_OR_RETURN(GeluApproximation approximation, ParseGeluApproximation(node));
  IOS_ASSIGN_OR_RETURN(dnnl::engine engine, CpuEngine());
  const dnnl::algorithm algorithm = approximation == GeluApproximation::kTanh
                                        ? dnnl::algorithm::eltwise_gelu_tanh
                                        : dnnl::algorithm::eltwise_gelu_erf;
  auto kernel = std::make_unique<GeluCpuKernel>(node.op_type + " '" + node.name + "'", algorithm,
                                                NumElements(x.dims), engine);
  IOS_RETURN_IF_ERROR(kernel->Prepare());
  return std::unique_ptr<CpuKernel>(std::move(kernel));
}

}  // namespace ios

#include "runtime/cpu/kernels/layout_adapter_cpu.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/cpu/cpu_threading.h"
#include "runtime/cpu/kernels/dnnl_common.h"

namespace ios {

struct LayoutReorderCpu::Impl {
  struct Variant {
    dnnl::reorder reorder;
  };
  dnnl::engine engine;
  dnnl::memory::desc src;
  dnnl::memory::desc dst;
  int64_t elements = 0;
  VariantsByThreads<Variant> variants;
};

LayoutReorderCpu::LayoutReorderCpu(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LayoutReorderCpu::~LayoutReorderCpu() = default;

StatusOr<std::unique_ptr<LayoutReorderCpu>> LayoutReorderCpu::Create(const Dims& dims,
                                                                     Layout from, Layout to) {
  IOS_ASSIGN_OR_RETURN(dnnl::engine engine, CpuEngine());
  auto impl = std::make_unique<Impl>();
  impl->engine = engine;
  impl->elements = NumElements(dims);
  IOS_RETURN_IF_ERROR(CatchDnnl("layout reorder " + DimsToString(dims), [&]() -> Status {
    impl->src = LayoutF32(dims, from);
    impl->dst = LayoutF32(dims, to);
    return Status::Ok();
  }));
  return std::unique_ptr<LayoutReorderCpu>(new LayoutReorderCpu(std::move(impl)));
}

int64_t LayoutReorderCpu::bytes() const {
  return impl_->elements * static_cast<int64_t>(sizeof(float));
}

Status LayoutReorderCpu::Run(const void* src, void* dst, int threads) {
  Impl& impl = *impl_;
  if (impl.elements == 0) return Status::Ok();
  threads = ThreadsForWork(threads, impl.elements);
  const std::string label = "layout reorder";
  IOS_ASSIGN_OR_RETURN(
      Impl::Variant * v,
      impl.variants.Get(threads, [&]() -> StatusOr<std::unique_ptr<Impl::Variant>> {
        std::unique_ptr<Impl::Variant> made;
        IOS_RETURN_IF_ERROR(CatchDnnl(label, [&]() -> Status {
          made.reset(new Impl::Variant{dnnl::reorder(
              dnnl::reorder::primitive_desc(impl.engine, impl.src, impl.engine, impl.dst))});
          return Status::Ok();
        }));
        return made;
      }));
  ScopedOmpThreads scope(threads);
  return CatchDnnl(label, [&]() -> Status {
    dnnl::stream stream(impl.engine);
    dnnl::memory from = WrapMemory(impl.src, impl.engine, src);
    dnnl::memory to = WrapMemory(impl.dst, impl.engine, dst);
    v->reorder.execute(stream, from, to);
    stream.wait();
    return Status::Ok();
  });
}

CpuKernelContext RowMajorContext(const CpuKernelContext& context) {
  CpuKernelContext plain = context;
  plain.input_layouts.assign(context.input_types.size(), Layout::kRowMajor);
  plain.output_layouts.assign(context.output_types.size(), Layout::kRowMajor);
  return plain;
}

namespace {

// Scratch slots past the ones kernels use themselves (cpu_threading.h).
constexpr int kFirstAdapterSlot = kScratchSlots;

class LayoutAdapterCpuKernel : public CpuKernel {
 public:
  LayoutAdapterCpuKernel(std::unique_ptr<CpuKernel> inner,
                         std::vector<std::unique_ptr<LayoutReorderCpu>> inputs,
                         std::vector<std::unique_ptr<LayoutReorderCpu>> outputs)
      : inner_(std::move(inner)), inputs_(std::move(inputs)), outputs_(std::move(outputs)) {}

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    if (inputs.size() != inputs_.size() || outputs.size() != outputs_.size())
      return Internal("layout adapter: expected " + std::to_string(inputs_.size()) +
                      " inputs and " + std::to_string(outputs_.size()) + " outputs");
    std::vector<const void*> plain_inputs = inputs;
    std::vector<void*> plain_outputs = outputs;
    int slot = kFirstAdapterSlot;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs_[i] || inputs[i] == nullptr) continue;
      void* buffer = ScratchFor(*inputs_[i], slot++);
      if (buffer == nullptr) return Internal("layout adapter: out of memory");
      IOS_RETURN_IF_ERROR(inputs_[i]->Run(inputs[i], buffer, threads));
      plain_inputs[i] = buffer;
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (!outputs_[i] || outputs[i] == nullptr) continue;
      plain_outputs[i] = ScratchFor(*outputs_[i], slot++);
      if (plain_outputs[i] == nullptr) return Internal("layout adapter: out of memory");
    }
    IOS_RETURN_IF_ERROR(inner_->Run(plain_inputs, plain_outputs, threads));
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (!outputs_[i] || outputs[i] == nullptr) continue;
      IOS_RETURN_IF_ERROR(outputs_[i]->Run(plain_outputs[i], outputs[i], threads));
    }
    return Status::Ok();
  }

  // Constants are never reordered (they stay row-major): the inner kernel reads them.
  bool CopiedConstantInput(size_t input) const override {
    return input < inputs_.size() && !inputs_[input] && inner_->CopiedConstantInput(input);
  }

  const CpuKernel& inner() const { return *inner_; }

 private:
  static void* ScratchFor(const LayoutReorderCpu& reorder, int slot) {
    return ThreadScratch(slot, static_cast<size_t>(reorder.bytes()));
  }

  std::unique_ptr<CpuKernel> inner_;
  std::vector<std::unique_ptr<LayoutReorderCpu>> inputs_;   // stored layout -> row-major, or null
  std::vector<std::unique_ptr<LayoutReorderCpu>> outputs_;  // row-major -> stored layout, or null
};

// The reorder of a tensor stored in `layout` to or from row-major, or null when its bytes are
// row-major already.
StatusOr<std::unique_ptr<LayoutReorderCpu>> ReorderFor(const TensorType& type, Layout layout,
                                                       bool to_row_major) {
  if (layout == Layout::kRowMajor) return std::unique_ptr<LayoutReorderCpu>();
  if (layout == Layout::kChannelsBlocked8) {
    if (type.dtype != DType::kFloat32 || !HasChannelsBlocked8Form(type.dims))
      return Internal("a " + DTypeName(type.dtype) + DimsToString(type.dims) +
                      " tensor cannot be channels-blocked-8");
  } else if (ChannelsLastIsRowMajor(type.dims)) {
    return std::unique_ptr<LayoutReorderCpu>();
  } else if (type.dtype != DType::kFloat32 || !HasChannelsLastForm(type.dims)) {
    return Internal("a " + DTypeName(type.dtype) + DimsToString(type.dims) +
                    " tensor cannot be channels-last");
  }
  return to_row_major ? LayoutReorderCpu::Create(type.dims, layout, Layout::kRowMajor)
                      : LayoutReorderCpu::Create(type.dims, Layout::kRowMajor, layout);
}

}  // namespace

StatusOr<std::unique_ptr<CpuKernel>> WrapInLayoutAdapter(std::unique_ptr<CpuKernel> inner,
                                                         const CpuKernelContext& context) {
  std::vector<std::unique_ptr<LayoutReorderCpu>> inputs(context.input_types.size());
  std::vector<std::unique_ptr<LayoutReorderCpu>> outputs(context.output_types.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    // Constants are row-major and read where they live.
    if (i < context.constants.size() && context.constants[i] != nullptr) continue;
    IOS_ASSIGN_OR_RETURN(inputs[i], ReorderFor(context.input_types[i], context.input_layout(i),
                                               /*to_row_major=*/true));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    IOS_ASSIGN_OR_RETURN(outputs[i], ReorderFor(context.output_types[i],
                                                context.output_layout(i), /*to_row_major=*/false));
  }
  return std::unique_ptr<CpuKernel>(
      new LayoutAdapterCpuKernel(std::move(inner), std::move(inputs), std::move(outputs)));
}

const CpuKernel* LayoutAdapterInner(const CpuKernel& kernel) {
  const auto* adapter = dynamic_cast<const LayoutAdapterCpuKernel*>(&kernel);
  return adapter == nullptr ? nullptr : &adapter->inner();
}

}  // namespace ios

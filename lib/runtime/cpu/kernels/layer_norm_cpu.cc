// LayerNormalization on float32 through oneDNN's layer_normalization primitive, which normalises
// the last dim of a 2-D [rows, row_size] view of X (the dims from the axis on, flattened). Scale
// and B go in as its scale and shift; a Scale or B that broadcasts to the row (a [C, 1, 1] scale
// of an axis-1 node, say) is expanded to a full row once at creation when it is a constant, and
// otherwise left to the reference kernel. When the node's Mean or InvStdDev outputs exist, the
// primitive runs in training mode, which writes the rows' mean and variance; the variance
// becomes 1 / sqrt(variance + epsilon) (LayerNormInvStdDev, kernels/math/reduction_math.h).
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ops/layer_norm_params.h"
#include "runtime/cpu/kernels/cpu_kernel_factories.h"
#include "runtime/cpu/kernels/dnnl_common.h"

namespace ios {
namespace {

using dnnl::memory;

// One of Scale and B as the kernel reads it: the input buffer, or a row expanded at creation.
struct RowParam {
  bool present = false;
  std::optional<std::vector<float>> expanded;
};

class LayerNormCpuKernel : public CpuKernel {
 public:
  LayerNormCpuKernel(std::string label, const LayerNormParams& params, RowParam scale,
                     RowParam bias, bool stats, dnnl::engine engine)
      : label_(std::move(label)),
        epsilon_(params.epsilon),
        shape_(params.shape),
        scale_(std::move(scale)),
        bias_(std::move(bias)),
        stats_(stats),
        engine_(std::move(engine)),
        data_md_(PlainF32({shape_.rows, shape_.row_size})),
        row_md_(PlainF32({shape_.row_size})),
        stats_md_(PlainF32({shape_.rows})) {}

  // Creates the single-thread primitive, so that an unsupported case fails at creation.
  Status Prepare() { return GetVariant(1).status(); }

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    if (inputs.size() < 2 || inputs[0] == nullptr || outputs.empty() || outputs[0] == nullptr ||
        (!scale_.expanded && inputs[1] == nullptr) ||
        (bias_.present && !bias_.expanded && (inputs.size() < 3 || inputs[2] == nullptr)))
      return Internal(label_ + ": missing input or output buffer");
    threads = ThreadsForWork(threads, shape_.rows * shape_.row_size);
    IOS_ASSIGN_OR_RETURN(Variant * v, GetVariant(threads));
    auto output = [&](size_t i) -> float* {
      return i < outputs.size() ? static_cast<float*>(outputs[i]) : nullptr;
    };
    float* mean = output(1);
    float* inv_std_dev = output(2);
    ScopedOmpThreads scope(threads);
    return CatchDnnl(label_, [&]() -> Status {
      dnnl::stream stream(engine_);
      std::unordered_map<int, memory> args;
      args[DNNL_ARG_SRC] = WrapMemory(data_md_, engine_, inputs[0]);
      args[DNNL_ARG_DST] = WrapMemory(data_md_, engine_, outputs[0]);
      args[DNNL_ARG_SCALE] =
          WrapMemory(row_md_, engine_, scale_.expanded ? scale_.expanded->data() : inputs[1]);
      if (bias_.present)
        args[DNNL_ARG_SHIFT] =
            WrapMemory(row_md_, engine_, bias_.expanded ? bias_.expanded->data() : inputs[2]);
      if (stats_) {
        // An omitted statistic goes to scratch: training mode writes both.
        const size_t bytes = static_cast<size_t>(shape_.rows) * sizeof(float);
        if (mean == nullptr) mean = static_cast<float*>(ThreadScratch(0, bytes));
        if (inv_std_dev == nullptr) inv_std_dev = static_cast<float*>(ThreadScratch(1, bytes));
        if (mean == nullptr || inv_std_dev == nullptr) return Internal(label_ + ": out of memory");
        args[DNNL_ARG_MEAN] = WrapMemory(stats_md_, engine_, mean);
        args[DNNL_ARG_VARIANCE] = WrapMemory(stats_md_, engine_, inv_std_dev);
      }
      v->primitive.execute(stream, args);
      stream.wait();
      if (stats_) {
        for (int64_t r = 0; r < shape_.rows; ++r)
          inv_std_dev[r] = LayerNormInvStdDev(inv_std_dev[r], epsilon_);
      }
      return Status::Ok();
    });
  }

 private:
  struct Variant {
    dnnl::layer_normalization_forward primitive;
  };

  StatusOr<Variant*> GetVariant(int threads) {
    return variants_.Get(threads, [&]() -> StatusOr<std::unique_ptr<Variant>> {
      auto v = std::make_unique<Variant>();
      IOS_RETURN_IF_ERROR(CatchDnnl(label_, [&]() -> Status {
        auto flags = dnnl::normalization_flags::use_scale;
        if (bias_.present) flags |= dnnl::normalization_flags::use_shift;
        const auto kind =
            stats_ ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference;
        dnnl::layer_normalization_forward::desc desc(kind, data_md_, epsilon_, flags);
        v->primitive = dnnl::layer_normalization_forward(
            dnnl::layer_normalization_forward::primitive_desc(desc, engine_));
        return Status::Ok();
      }));
      return v;
    });
  }

  std::string label_;
  float epsilon_;
  LayerNormShape shape_;
  RowParam scale_;
  RowParam bias_;
  bool stats_;
  dnnl::engine engine_;
  memory::desc data_md_;
  memory::desc row_md_;
  memory::desc stats_md_;
  VariantsByThreads<Variant> variants_;
};

// Scale or B (input `index`) as the kernel will read it; nullopt when only the reference can:
// a broadcast one that is computed at run time.
std::optional<RowParam> PrepareRowParam(const CpuKernelContext& context, size_t index,
                                        const OperandMap& map, int64_t row_size) {
  RowParam param;
  param.present = true;
  if (map.pattern == OperandPattern::kContiguous) return param;
  const Tensor* value = index < context.constants.size() ? context.constants[index] : nullptr;
  if (value == nullptr) return std::nullopt;
  param.expanded.emplace(static_cast<size_t>(row_size));
  for (int64_t j = 0; j < row_size; ++j)
    (*param.expanded)[j] = value->data<float>()[OperandOffset(map, j)];
  return param;
}

bool HasOutput(const CpuKernelContext& context, size_t index) {
  return index < context.output_types.size() &&
         context.output_types[index].dtype != DType::kUndefined;
}

}  // namespace

StatusOr<std::unique_ptr<CpuKernel>> CreateLayerNormCpuKernel(const CpuKernelContext& context) {
  const Node& node = *context.node;
  const std::vector<TensorType>& types = context.input_types;
  if (types.size() < 2 || context.output_types.empty())
    return InvalidInput("needs inputs X and Scale and an output");
  const bool has_bias = types.size() > 2 && types[2].dtype != DType::kUndefined;
  for (size_t i = 0; i < types.size(); ++i)
    if (types[i].dtype != DType::kFloat32 && types[i].dtype != DType::kUndefined)
      return std::unique_ptr<CpuKernel>();  // the reference
  IOS_ASSIGN_OR_RETURN(LayerNormParams params, ParseLayerNorm(node, types[0].dims, types[1].dims,
                                                              has_bias ? &types[2].dims : nullptr));
  if (context.output_types[0].dims != types[0].dims)
    return InvalidInput("output " + DimsToString(context.output_types[0].dims) +
                        " does not match input " + DimsToString(types[0].dims));
  for (size_t i = 1; i < 3; ++i)
    if (HasOutput(context, i) && context.output_types[i].dims != params.stats_dims)
      return InvalidInput("output " + std::to_string(i) + " " +
                          DimsToString(context.output_types[i].dims) + " should be " +
                          DimsToString(params.stats_dims));
  const int64_t row_size = params.shape.row_size;
  std::optional<RowParam> scale = PrepareRowParam(context, 1, params.scale_map, row_size);
  std::optional<RowParam> bias;
  if (has_bias) bias = PrepareRowParam(context, 2, params.bias_map, row_size);
  if (!scale || (has_bias && !bias)) return std::unique_ptr<CpuKernel>();  // the reference
  IOS_ASSIGN_OR_RETURN(dnnl::engine engine, CpuEngine());
  auto kernel = std::make_unique<LayerNormCpuKernel>(
      node.op_type + " '" + node.name + "'", params, std::move(*scale),
      bias ? std::move(*bias) : RowParam{}, HasOutput(context, 1) || HasOutput(context, 2), engine);
  IOS_RETURN_IF_ERROR(kernel->Prepare());
  return std::unique_ptr<CpuKernel>(std::move(kernel));
}

}  // namespace ios

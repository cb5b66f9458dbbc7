#include "runtime/cpu/kernels/dnnl_common.h"

#include <vector>

#include "ir/fused_activation.h"
#include "runtime/cpu/kernels/cpu_vector_clones.h"

namespace ios {

StatusOr<dnnl::engine> CpuEngine() {
  // Created once, on first use (a static local is initialised thread-safely).
  static const StatusOr<dnnl::engine> engine = []() -> StatusOr<dnnl::engine> {
    try {
      return dnnl::engine(dnnl::engine::kind::cpu, 0);
    } catch (const dnnl::error& e) {
      return DnnlErrorStatus("creating the oneDNN CPU engine", e);
    }
  }();
  return engine;
}

Status DnnlErrorStatus(const std::string& context, const dnnl::error& error) {
  return Internal(context + ": oneDNN error: " + error.what() + " (status " +
                  std::to_string(static_cast<int>(error.status)) + ")");
}

dnnl::memory::dims ToDnnlDims(const Dims& dims) {
  return dnnl::memory::dims(dims.begin(), dims.end());
}

dnnl::memory::format_tag PlainTag(size_t rank) {
  using tag = dnnl::memory::format_tag;
  switch (rank) {
    case 1: return tag::a;
    case 2: return tag::ab;
    case 3: return tag::abc;
    case 4: return tag::abcd;
    case 5: return tag::abcde;
    case 6: return tag::abcdef;
    default: return tag::undef;
  }
}

dnnl::memory::desc PlainF32(const Dims& dims) {
  // Strides rather than a tag, so that any rank works.
  return dnnl::memory::desc(ToDnnlDims(dims), dnnl::memory::data_type::f32,
                            ToDnnlDims(RowMajorStrides(dims)));
}

dnnl::memory::desc LayoutF32(const Dims& dims, Layout layout, int64_t batch_stride) {
  if (layout == Layout::kChannelsBlocked8)
    return dnnl::memory::desc(ToDnnlDims(dims), dnnl::memory::data_type::f32,
                              dnnl::memory::format_tag::nChw8c);
  Dims strides = LayoutStrides(dims, layout);
  if (batch_stride != 0) strides[0] = batch_stride;
  return dnnl::memory::desc(ToDnnlDims(dims), dnnl::memory::data_type::f32, ToDnnlDims(strides));
}

bool SigmoidPostOpsBeatOwnPass() {
  // On an AVX-512 EPYC, oneDNN 2.6's logistic and swish post-ops cost 2-3x a memory-bound pass
  // (1.2-1.6 ms on EfficientNet-B0's batch-8 depthwise outputs), so SigmoidLoop and SiluLoop
  // (sigmoid_loops_cpu.h) ran after the primitive. On an AVX2 EPYC the post-ops win: they work
  // on the output while the conv still has it in cache (EfficientNet-B0 sequential, paired
  // rounds: 0.91x at batch 1, 0.98x at batch 8).
  return NativeVectorBytes() < 64;
}

bool ActivationHasPostOps(const Activation& act) {
  // Only the kinds a conv may carry (ConvFusesActivation) map to an eltwise algorithm.
  if (!ConvFusesActivation(act.kind)) return false;
  if (act.kind == ActivationKind::kSigmoid || act.kind == ActivationKind::kSilu)
    return SigmoidPostOpsBeatOwnPass();
  // ApplyActivation returns alpha below alpha even when alpha > beta; oneDNN's clip would
  // return beta there, so that (degenerate) case stays with ApplyActivation.
  return !(act.kind == ActivationKind::kClip && !(act.alpha <= act.beta));
}

std::optional<EltwiseAlgorithm> SingleEltwiseAlgorithm(const Activation& act) {
  using alg = dnnl::algorithm;
  if (!ActivationHasPostOps(act)) return std::nullopt;
  switch (act.kind) {
    case ActivationKind::kRelu:
      return EltwiseAlgorithm{alg::eltwise_relu};
    case ActivationKind::kLeakyRelu:
      // relu with slope alpha: x > 0 ? x : alpha * x (equal to ONNX's x >= 0 test).
      return EltwiseAlgorithm{alg::eltwise_relu, act.alpha};
    case ActivationKind::kClip:
      return EltwiseAlgorithm{alg::eltwise_clip, act.alpha, act.beta};
    case ActivationKind::kTanh:
      return EltwiseAlgorithm{alg::eltwise_tanh};
    case ActivationKind::kHardSwish:
      // oneDNN: x * relu6(x + 3) / 6, which is ONNX's x * max(0, min(1, x / 6 + 0.5)).
      return EltwiseAlgorithm{alg::eltwise_hardswish};
    case ActivationKind::kElu:
      return EltwiseAlgorithm{alg::eltwise_elu, act.alpha};
    case ActivationKind::kSoftplus:
      // oneDNN 2.6's soft_relu is log(1 + exp(x)) (its alpha and beta are ignored).
      return EltwiseAlgorithm{alg::eltwise_soft_relu};
    case ActivationKind::kMish:
      return EltwiseAlgorithm{alg::eltwise_mish};
    default:
      // None, a chain (HardSigmoid), no exact algorithm, or Sigmoid and SiLU, which
      // ActivationHasPostOps keeps off oneDNN.
      return std::nullopt;
  }
}

bool AppendActivationPostOps(const Activation& act, dnnl::post_ops* ops) {
  if (!ActivationHasPostOps(act)) return false;
  constexpr float kScale = 1.f;
  if (act.kind == ActivationKind::kNone) return true;
  if (act.kind == ActivationKind::kHardSigmoid) {  // oneDNN 2.6 has no hardsigmoid
    ops->append_eltwise(kScale, dnnl::algorithm::eltwise_linear, act.alpha, act.beta);
    ops->append_eltwise(kScale, dnnl::algorithm::eltwise_clip, 0.f, 1.f);
    return true;
  }
  // Not SingleEltwiseAlgorithm's: the standalone Sigmoid and SiLU kernels keep their own pass.
  if (act.kind == ActivationKind::kSigmoid) {
    ops->append_eltwise(kScale, dnnl::algorithm::eltwise_logistic, 0.f, 0.f);
    return true;
  }
  if (act.kind == ActivationKind::kSilu) {  // swish with alpha 1: x * sigmoid(x)
    ops->append_eltwise(kScale, dnnl::algorithm::eltwise_swish, 1.f, 0.f);
    return true;
  }
  const std::optional<EltwiseAlgorithm> single = SingleEltwiseAlgorithm(act);
  if (!single) return false;
  ops->append_eltwise(kScale, single->algorithm, single->alpha, single->beta);
  return true;
}

dnnl::memory PackedWeights::Get(const dnnl::memory& plain, const dnnl::memory::desc& desc,
                                const dnnl::engine& engine) {
  for (const dnnl::memory& packed : packed_)
    if (packed.get_desc() == desc) return packed;
  // Always an owned copy (a reorder to the same layout copies), so that the kernel does not
  // depend on the lifetime of the constant it was created from. Later layouts are made from
  // the first packed copy.
  dnnl::memory source = packed_.empty() ? plain : packed_.front();
  dnnl::memory packed(desc, engine);
  dnnl::stream stream(engine);
  dnnl::reorder(source, packed).execute(stream, source, packed);
  stream.wait();
  packed_.push_back(packed);
  return packed;
}

}  // namespace ios

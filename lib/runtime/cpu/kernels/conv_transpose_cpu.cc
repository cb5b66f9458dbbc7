// ConvTranspose through oneDNN: 1-D, 2-D and 3-D, groups, dilations, strides, pads,
// output_padding, output_shape and auto_pad (resolved once in ops/conv_transpose_params.h), bias
// and a fused activation ("ios.activation", the CPU lowering's) as post-ops, on tensors in any of
// the CPU layouts (ir/layout.h). Two ways, by what the node's windows look like:
//
// - Windows that tile the output without overlapping (kernel == stride on both axes of a 2-D
//   ConvTranspose, no dilation, no pads or output padding, one group, constant weights): the
//   2x2 stride-2 upsampling of U-Nets, FPN-style necks and text detectors. Output pixel
//   (h·s + i, w·s + j) is X[n, :, h, w] · W[:, :, i, j], so each kernel row i is one batched GEMM
//   [N·H, W, C] x [C, s·M] (W repacked once to [i][c][j][m]) whose output rows are where an NHWC
//   Y keeps them: row (n, h, w) at pixel (h·s + i, w·s), its s·M values contiguous. The GEMMs
//   write Y in place when Y is channels-last, else NHWC scratch that one reorder turns into Y's
//   layout. oneDNN's deconvolution is slow on these windows: 64 -> 64 channels at 80x80 (a
//   segmentation model's decoder) took 2.0 ms (jit:avx512_core, NHWC) against onnxruntime's
//   0.83 ms; the GEMMs take 0.54 ms, 1.0 ms with the reorder to NCHW (2 threads, AVX-512,
//   oneDNN 2.6.3, medians of 30 runs).
// - Every other node: oneDNN's deconvolution on the tensors as stored (`any` and reorders only
//   when oneDNN has no optimised implementation for them). Measured as above, NHWC: kernel 4
//   stride 2 pads 1, 128 -> 64 at 40x40, 1.28 ms (onnxruntime 1.56); kernel 3 stride 2 pads 1
//   output_padding 1, 64 -> 32 at 80x80, 1.36 ms (1.50). oneDNN refuses a negative left padding
//   (an output_shape or SAME output larger than the transposed extent on that side): such a
//   node runs the reference kernel. The fused activation runs after the deconvolution, never as
//   its post-op: with an eltwise_relu post-op oneDNN 2.6's deconvolution took 97-110 ms instead
//   of 10-11 for 32 -> 16 channels, kernel 4 stride 2 pad 1, at 320x320 (NHWC and NCHW alike),
//   where one pass of ApplyActivationCpu over its output takes about 1 ms.
//
// oneDNN's deconvolution reads weights as [G, M/G, C/G, k...] (output channels first); ONNX
// stores [C, M/G, k...], which a strided descriptor describes as it is. Its padding_r is the
// end pad less output_padding: out = s(in - 1) + (k - 1)d + 1 - pad_l - pad_r.
#include <algorithm>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/fused_activation.h"
#include "ops/conv_transpose_params.h"
#include "ops/op_params.h"
#include "runtime/cpu/kernels/cpu_kernel_factories.h"
#include "runtime/cpu/kernels/dnnl_common.h"

namespace ios {
namespace {

using dnnl::memory;

// ThreadScratch slots: 0 src, 1 weights, 2 dst (reorders), 3 oneDNN's scratchpad.
constexpr int kSrcSlot = 0;
constexpr int kWeightsSlot = 1;
constexpr int kDstSlot = 2;
constexpr int kScratchpadSlot = 3;

bool IsReferenceImplementation(const char* impl) { return std::string(impl).rfind("ref", 0) == 0; }

// What both ways share.
struct TransposeSetup {
  std::string label;
  Dims src;  // X [N, C, in...]
  Dims dst;  // Y [N, M, out...]
  Layout src_layout = Layout::kRowMajor;
  Layout dst_layout = Layout::kRowMajor;
  bool has_bias = false;
  Activation act;
  bool act_fused = false;  // false: ApplyActivationCpu runs after the primitive
  int64_t macs = 0;
};

// A memory over this thread's scratch slot, sized for `desc`. Throws std::bad_alloc.
memory ScratchMemory(const memory::desc& desc, const dnnl::engine& engine, int slot) {
  void* buffer = ThreadScratch(slot, desc.get_size());
  if (buffer == nullptr) throw std::bad_alloc();
  return memory(desc, engine, buffer);
}

dnnl::primitive_attr AttrWithPostOps(const TransposeSetup& setup) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (setup.act_fused) {
    dnnl::post_ops ops;
    AppendActivationPostOps(setup.act, &ops);
    attr.set_post_ops(ops);
  }
  return attr;
}

void ApplyUnfusedActivation(const TransposeSetup& setup, float* y, int threads) {
  if (!setup.act_fused) ApplyActivationCpu(setup.act, y, NumElements(setup.dst), threads);
}

// ---- Non-overlapping windows: GEMMs per kernel row ---------------------------------------------

class TiledTransposeCpuKernel : public CpuKernel {
 public:
  // `weights` [C, M, s, s] and `bias` [M] (or null) are repacked here (see the file comment).
  TiledTransposeCpuKernel(TransposeSetup setup, dnnl::engine engine, const Tensor& weights,
                          const Tensor* bias)
      : setup_(std::move(setup)), engine_(std::move(engine)) {
    const int64_t c = setup_.src[1];
    const int64_t m = setup_.dst[1];
    stride_ = weights.dims()[2];
    row_ = stride_ * m;
    packed_.resize(static_cast<size_t>(stride_ * c * row_));
    const float* w = weights.data<float>();
    for (int64_t ci = 0; ci < c; ++ci)
      for (int64_t mi = 0; mi < m; ++mi)
        for (int64_t i = 0; i < stride_; ++i)
          for (int64_t j = 0; j < stride_; ++j)
            packed_[static_cast<size_t>((i * c + ci) * row_ + j * m + mi)] =
                w[((ci * m + mi) * stride_ + i) * stride_ + j];
    if (bias != nullptr) {
      bias_.resize(static_cast<size_t>(row_));
      for (int64_t j = 0; j < stride_; ++j)
        for (int64_t mi = 0; mi < m; ++mi) bias_[static_cast<size_t>(j * m + mi)] = bias->data<float>()[mi];
    }
    const int64_t n = setup_.src[0], h = setup_.src[2], w_in = setup_.src[3];
    const int64_t out_w = setup_.dst[3];
    // X as [N, H, W, C] (its layout's strides), one kernel row's W [C, s·M] broadcast over the
    // batch dims, and Y's rows for kernel row i as [N, H, W, s·M] (pointer offset i·OW·M).
    const Dims x_strides = LayoutStrides(setup_.src, setup_.src_layout);
    src_md_ = memory::desc({n, h, w_in, c}, memory::data_type::f32,
                           {x_strides[0], x_strides[2], x_strides[3], x_strides[1]});
    weights_md_ = memory::desc({1, 1, c, row_}, memory::data_type::f32, {c * row_, c * row_, row_, 1});
    bias_md_ = memory::desc({1, 1, 1, row_}, memory::data_type::f32, {row_, row_, row_, 1});
    const int64_t out_pixels = NumElements(setup_.dst) / n / m;
    rows_md_ = memory::desc({n, h, w_in, row_}, memory::data_type::f32,
                            {out_pixels * m, stride_ * out_w * m, row_, 1});
    row_offset_ = out_w * m;
    nhwc_md_ = LayoutF32(setup_.dst, Layout::kChannelsLast);
    dst_md_ = LayoutF32(setup_.dst, setup_.dst_layout);
  }

  Status Prepare() { return GetVariant(1).status(); }

  bool CopiedConstantInput(size_t input) const override { return input == 1 || input == 2; }

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    threads = ThreadsForMacs(threads, setup_.macs);
    if (inputs.empty() || inputs[0] == nullptr || outputs.empty() || outputs[0] == nullptr)
      return Internal(setup_.label + ": missing input or output buffer");
    IOS_ASSIGN_OR_RETURN(Variant * v, GetVariant(threads));
    float* y = static_cast<float*>(outputs[0]);
    {
      ScopedOmpThreads scope(threads);
      IOS_RETURN_IF_ERROR(CatchDnnl(setup_.label, [&]() -> Status {
        dnnl::stream stream(engine_);
        memory dst_plain = WrapMemory(dst_md_, engine_, y);
        memory nhwc = v->dst_reorder ? ScratchMemory(nhwc_md_, engine_, kDstSlot)
                                     : WrapMemory(nhwc_md_, engine_, y);
        float* rows = static_cast<float*>(nhwc.get_data_handle());
        memory scratchpad = ScratchMemory(v->pd.scratchpad_desc(), engine_, kScratchpadSlot);
        for (int64_t i = 0; i < stride_; ++i) {
          std::unordered_map<int, memory> args;
          args[DNNL_ARG_SRC] = WrapMemory(src_md_, engine_, inputs[0]);
          args[DNNL_ARG_WEIGHTS] =
              WrapMemory(weights_md_, engine_, packed_.data() + i * setup_.src[1] * row_);
          if (!bias_.empty()) args[DNNL_ARG_BIAS] = WrapMemory(bias_md_, engine_, bias_.data());
          args[DNNL_ARG_DST] = WrapMemory(rows_md_, engine_, rows + i * row_offset_);
          args[DNNL_ARG_SCRATCHPAD] = scratchpad;
          v->matmul.execute(stream, args);
        }
        if (v->dst_reorder) v->dst_reorder->execute(stream, nhwc, dst_plain);
        stream.wait();
        return Status::Ok();
      }));
    }
    ApplyUnfusedActivation(setup_, y, threads);
    return Status::Ok();
  }

 private:
  struct Variant {
    dnnl::matmul::primitive_desc pd;
    dnnl::matmul matmul;
    std::optional<dnnl::reorder> dst_reorder;  // NHWC scratch -> Y's layout
  };

  StatusOr<Variant*> GetVariant(int threads) {
    return variants_.Get(threads, [&]() -> StatusOr<std::unique_ptr<Variant>> {
      auto v = std::make_unique<Variant>();
      IOS_RETURN_IF_ERROR(CatchDnnl(setup_.label, [&]() -> Status {
        const dnnl::primitive_attr attr = AttrWithPostOps(setup_);
        const dnnl::matmul::desc desc =
            bias_.empty() ? dnnl::matmul::desc(src_md_, weights_md_, rows_md_)
                          : dnnl::matmul::desc(src_md_, weights_md_, bias_md_, rows_md_);
        v->pd = dnnl::matmul::primitive_desc(desc, attr, engine_);
        v->matmul = dnnl::matmul(v->pd);
        if (dst_md_ != nhwc_md_)
          v->dst_reorder.emplace(dnnl::reorder::primitive_desc(engine_, nhwc_md_, engine_, dst_md_));
        return Status::Ok();
      }));
      return v;
    });
  }

  TransposeSetup setup_;
  dnnl::engine engine_;
  int64_t stride_ = 1;
  int64_t row_ = 0;         // s·M: one GEMM output row
  int64_t row_offset_ = 0;  // OW·M: from kernel row i's output rows to row i + 1's
  std::vector<float> packed_;
  std::vector<float> bias_;  // [s·M]: the bias repeated per kernel column
  memory::desc src_md_, weights_md_, bias_md_, rows_md_, nhwc_md_, dst_md_;
  VariantsByThreads<Variant> variants_;
};

// ---- Everything else: oneDNN's deconvolution ---------------------------------------------------

struct DeconvSetup {
  Dims weights_dims;     // oneDNN's [M, C, k...] or [G, M/G, C/G, k...]
  Dims weights_strides;  // over ONNX's [C, M/G, k...]
  memory::dims strides, dilates, pad_l, pad_r;
};

class DeconvCpuKernel : public CpuKernel {
 public:
  DeconvCpuKernel(TransposeSetup setup, DeconvSetup deconv, dnnl::engine engine)
      : setup_(std::move(setup)),
        deconv_(std::move(deconv)),
        engine_(std::move(engine)),
        src_md_(LayoutF32(setup_.src, setup_.src_layout)),
        weights_md_(ToDnnlDims(deconv_.weights_dims), memory::data_type::f32,
                    ToDnnlDims(deconv_.weights_strides)),
        dst_md_(LayoutF32(setup_.dst, setup_.dst_layout)) {}

  // Creates the one-thread variant, prepacking `weights` and keeping a copy of `bias` (each null
  // when not constant). False (and no error) when oneDNN refuses the problem.
  StatusOr<bool> Prepare(const Tensor* weights, const Tensor* bias) {
    if (bias != nullptr) constant_bias_ = *bias;
    if (weights != nullptr) constant_weights_ = WrapMemory(weights_md_, engine_, weights->raw());
    StatusOr<Variant*> variant = GetVariant(1);
    constant_weights_.reset();
    has_constant_weights_ = weights != nullptr;
    if (!variant.ok()) return variant.status();
    return variant.value() != nullptr;
  }

  bool CopiedConstantInput(size_t input) const override {
    return (input == 1 && has_constant_weights_) || (input == 2 && constant_bias_.has_value());
  }

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    threads = ThreadsForMacs(threads, setup_.macs);
    if (inputs.empty() || inputs[0] == nullptr || outputs.empty() || outputs[0] == nullptr ||
        (!has_constant_weights_ && (inputs.size() < 2 || inputs[1] == nullptr)) ||
        (setup_.has_bias && !constant_bias_ && (inputs.size() < 3 || inputs[2] == nullptr)))
      return Internal(setup_.label + ": missing input or output buffer");
    IOS_ASSIGN_OR_RETURN(Variant * v, GetVariant(threads));
    if (v == nullptr) return Internal(setup_.label + ": oneDNN has no deconvolution for it");
    float* y = static_cast<float*>(outputs[0]);
    {
      ScopedOmpThreads scope(threads);
      IOS_RETURN_IF_ERROR(CatchDnnl(setup_.label, [&]() -> Status {
        dnnl::stream stream(engine_);
        std::unordered_map<int, memory> args;
        memory src = WrapMemory(src_md_, engine_, inputs[0]);
        if (v->src_reorder) {
          memory reordered = ScratchMemory(v->pd.src_desc(), engine_, kSrcSlot);
          v->src_reorder->execute(stream, src, reordered);
          src = reordered;
        }
        args[DNNL_ARG_SRC] = src;
        if (has_constant_weights_) {
          args[DNNL_ARG_WEIGHTS] = v->weights;
        } else {
          memory weights = WrapMemory(weights_md_, engine_, inputs[1]);
          if (v->weights_reorder) {
            memory packed = ScratchMemory(v->pd.weights_desc(), engine_, kWeightsSlot);
            v->weights_reorder->execute(stream, weights, packed);
            weights = packed;
          }
          args[DNNL_ARG_WEIGHTS] = weights;
        }
        if (setup_.has_bias) {
          const void* bias = constant_bias_ ? constant_bias_->raw() : inputs[2];
          args[DNNL_ARG_BIAS] = WrapMemory(v->pd.bias_desc(), engine_, bias);
        }
        memory dst_stored = WrapMemory(dst_md_, engine_, y);
        memory dst = v->dst_reorder ? ScratchMemory(v->pd.dst_desc(), engine_, kDstSlot) : dst_stored;
        args[DNNL_ARG_DST] = dst;
        args[DNNL_ARG_SCRATCHPAD] = ScratchMemory(v->pd.scratchpad_desc(), engine_, kScratchpadSlot);
        v->deconv.execute(stream, args);
        if (v->dst_reorder) v->dst_reorder->execute(stream, dst, dst_stored);
        stream.wait();
        return Status::Ok();
      }));
    }
    ApplyUnfusedActivation(setup_, y, threads);
    return Status::Ok();
  }

 private:
  struct Variant {
    dnnl::deconvolution_forward::primitive_desc pd;
    dnnl::deconvolution_forward deconv;
    std::optional<dnnl::reorder> src_reorder;      // X as stored -> the primitive's src
    std::optional<dnnl::reorder> dst_reorder;      // the primitive's dst -> Y as stored
    std::optional<dnnl::reorder> weights_reorder;  // run-time weights -> the primitive's layout
    memory weights;                                // the packed constant weights
  };

  // The variant for `threads`, or null when oneDNN refuses the problem (Prepare reports that
  // before any run).
  StatusOr<Variant*> GetVariant(int threads) {
    return variants_.Get(threads, [&]() -> StatusOr<std::unique_ptr<Variant>> {
      std::unique_ptr<Variant> v;
      IOS_RETURN_IF_ERROR(CatchDnnl(setup_.label, [&]() -> Status {
        v = MakeVariant();
        return Status::Ok();
      }));
      return v;
    });
  }

  // Called with the OpenMP team size set to the variant's thread count. Throws dnnl::error
  // but for oneDNN refusing the descriptors, which gives null.
  std::unique_ptr<Variant> MakeVariant() {
    const memory::data_type f32 = memory::data_type::f32;
    const memory::format_tag any = memory::format_tag::any;
    const dnnl::primitive_attr attr = AttrWithPostOps(setup_);
    const memory::desc weights_any(ToDnnlDims(deconv_.weights_dims), f32, any);
    auto make_pd = [&](const memory::desc& src, const memory::desc& dst) {
      const auto prop = dnnl::prop_kind::forward_inference;
      const auto alg = dnnl::algorithm::deconvolution_direct;
      std::optional<dnnl::deconvolution_forward::desc> desc;
      if (setup_.has_bias) {
        const memory::desc bias_md({setup_.dst[1]}, f32, memory::format_tag::a);
        desc.emplace(prop, alg, src, weights_any, bias_md, dst, deconv_.strides, deconv_.dilates,
                     deconv_.pad_l, deconv_.pad_r);
      } else {
        desc.emplace(prop, alg, src, weights_any, dst, deconv_.strides, deconv_.dilates,
                     deconv_.pad_l, deconv_.pad_r);
      }
      return dnnl::deconvolution_forward::primitive_desc(*desc, attr, engine_);
    };
    auto v = std::make_unique<Variant>();
    try {
      v->pd = make_pd(src_md_, dst_md_);
      if (IsReferenceImplementation(v->pd.impl_info_str())) {
        const memory::desc src_any(ToDnnlDims(setup_.src), f32, any);
        const memory::desc dst_any(ToDnnlDims(setup_.dst), f32, any);
        v->pd = make_pd(src_any, dst_any);
      }
    } catch (const dnnl::error& e) {
      if (e.status == dnnl_unimplemented || e.status == dnnl_invalid_arguments) return nullptr;
      throw;
    }
    v->deconv = dnnl::deconvolution_forward(v->pd);
    if (v->pd.src_desc() != src_md_)
      v->src_reorder.emplace(
          dnnl::reorder::primitive_desc(engine_, src_md_, engine_, v->pd.src_desc()));
    if (v->pd.dst_desc() != dst_md_)
      v->dst_reorder.emplace(
          dnnl::reorder::primitive_desc(engine_, v->pd.dst_desc(), engine_, dst_md_));
    if (constant_weights_ || !packed_.empty()) {
      v->weights = packed_.Get(constant_weights_ ? *constant_weights_ : memory(),
                               v->pd.weights_desc(), engine_);
    } else if (v->pd.weights_desc() != weights_md_) {
      v->weights_reorder.emplace(
          dnnl::reorder::primitive_desc(engine_, weights_md_, engine_, v->pd.weights_desc()));
    }
    return v;
  }

  TransposeSetup setup_;
  DeconvSetup deconv_;
  dnnl::engine engine_;
  memory::desc src_md_;      // X as stored
  memory::desc weights_md_;  // ONNX's [C, M/G, k...] read as oneDNN's dims
  memory::desc dst_md_;      // Y as stored
  bool has_constant_weights_ = false;
  std::optional<memory> constant_weights_;  // over the graph's tensor, during Prepare only
  std::optional<Tensor> constant_bias_;
  PackedWeights packed_;
  VariantsByThreads<Variant> variants_;
};

// Whether the node's windows tile the output (see the file comment) and the GEMMs can take it.
bool TilesOutput(const ConvTransposeParams& p, const TransposeSetup& setup, const Tensor* weights) {
  if (p.spatial_rank() != 2 || p.group != 1 || weights == nullptr) return false;
  if (setup.src_layout == Layout::kChannelsBlocked8) return false;
  for (size_t d = 0; d < 2; ++d) {
    if (p.kernel[d] != p.strides[d] || p.kernel[d] != p.kernel[0] || p.dilations[d] != 1 ||
        p.pads_begin[d] != 0 || p.pads_end[d] != 0 || p.output_padding[d] != 0)
      return false;
  }
  return true;
}

}  // namespace

StatusOr<std::unique_ptr<CpuKernel>> CreateConvTransposeCpuKernel(const CpuKernelContext& context) {
  const Node& node = *context.node;
  if (context.input_types.size() < 2 || context.output_types.empty())
    return InvalidInput("needs X, W and an output");
  const TensorType& x = context.input_types[0];
  const TensorType& w = context.input_types[1];
  const bool has_bias =
      context.input_types.size() > 2 && node.inputs.size() > 2 && node.inputs[2] != kNoValue;
  if (x.dtype != DType::kFloat32 || w.dtype != DType::kFloat32 ||
      (has_bias && context.input_types[2].dtype != DType::kFloat32))
    return std::unique_ptr<CpuKernel>();  // the reference reports the dtype
  if (x.dims.size() < 3 || x.dims.size() > 5) return std::unique_ptr<CpuKernel>();
  IOS_ASSIGN_OR_RETURN(ConvTransposeParams p, ParseConvTranspose(node, x.dims, w.dims));
  IOS_RETURN_IF_ERROR(CheckPlannedOutput(p.out_dims, context.output_types[0].dims));
  if (has_bias && context.input_types[2].dims != Dims{p.out_channels})
    return InvalidInput("bias " + DimsToString(context.input_types[2].dims) + " must have shape [" +
                        std::to_string(p.out_channels) + "]");
  if (NumElements(p.out_dims) == 0 || NumElements(x.dims) == 0)
    return std::unique_ptr<CpuKernel>();  // nothing for oneDNN to do; the reference copes

  TransposeSetup setup;
  setup.label = "ConvTranspose '" + node.name + "'";
  setup.src = x.dims;
  setup.dst = p.out_dims;
  setup.src_layout = context.input_layout(0);
  setup.dst_layout = context.output_layout(0);
  // A side stored the same both ways is read as channels-last beside a channels-last one.
  if (setup.dst_layout == Layout::kChannelsLast && ChannelsLastIsRowMajor(setup.src))
    setup.src_layout = Layout::kChannelsLast;
  if (setup.src_layout == Layout::kChannelsLast && ChannelsLastIsRowMajor(setup.dst))
    setup.dst_layout = Layout::kChannelsLast;
  if (context.batch_strides.any()) return Internal("a ConvTranspose tensor cannot be a strided view");
  setup.has_bias = has_bias;
  IOS_RETURN_IF_ERROR(CheckConvFusedActivation(node.attrs));
  setup.act = GetFusedActivation(node.attrs);
  setup.act_fused = ActivationHasPostOps(setup.act);
  setup.macs = NumElements(x.dims) * NumElements(w.dims) / std::max<int64_t>(w.dims[0], 1);

  IOS_ASSIGN_OR_RETURN(dnnl::engine engine, CpuEngine());
  const Tensor* weights = context.constants.size() > 1 ? context.constants[1] : nullptr;
  const Tensor* bias = has_bias && context.constants.size() > 2 ? context.constants[2] : nullptr;
  if (TilesOutput(p, setup, weights) && (!has_bias || bias != nullptr)) {
    auto kernel = std::make_unique<TiledTransposeCpuKernel>(std::move(setup), engine, *weights, bias);
    IOS_RETURN_IF_ERROR(kernel->Prepare());
    return std::unique_ptr<CpuKernel>(std::move(kernel));
  }

  DeconvSetup deconv;
  const size_t n = p.spatial_rank();
  const int64_t c = x.dims[1];
  const int64_t m = p.out_channels;
  const int64_t g = p.group;
  const int64_t taps = NumElements(p.kernel);
  // ONNX's W [C, M/G, k...] is [G][C/G][M/G][k...]; oneDNN's dims put M/G before C/G.
  if (g == 1) {
    deconv.weights_dims = {m, c};
    deconv.weights_strides = {taps, m * taps};
  } else {
    deconv.weights_dims = {g, m / g, c / g};
    deconv.weights_strides = {(c / g) * (m / g) * taps, taps, (m / g) * taps};
  }
  const Dims kernel_strides = RowMajorStrides(p.kernel);
  for (size_t d = 0; d < n; ++d) {
    deconv.weights_dims.push_back(p.kernel[d]);
    deconv.weights_strides.push_back(kernel_strides[d]);
    deconv.strides.push_back(p.strides[d]);
    deconv.dilates.push_back(p.dilations[d] - 1);  // oneDNN counts the gaps
    if (p.pads_begin[d] < 0) return std::unique_ptr<CpuKernel>();  // see the file comment
    deconv.pad_l.push_back(p.pads_begin[d]);
    deconv.pad_r.push_back(p.pads_end[d] - p.output_padding[d]);
  }
  setup.act_fused = false;  // see the file comment
  auto kernel = std::make_unique<DeconvCpuKernel>(std::move(setup), std::move(deconv), engine);
  IOS_ASSIGN_OR_RETURN(bool made, kernel->Prepare(weights, bias));
  if (!made) return std::unique_ptr<CpuKernel>();
  return std::unique_ptr<CpuKernel>(std::move(kernel));
}

}  // namespace ios

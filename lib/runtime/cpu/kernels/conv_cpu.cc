// Conv through oneDNN: 1-D/2-D/3-D, groups and depthwise, dilations, strides, asymmetric pads
// and auto_pad, bias and the fused activation ("ios.activation") as post-ops.
//
// Layout of plans whose tensors stay plain NC[D]HW (`--layout row-major`, or a CPU where oneDNN
// has no JIT conv for channels-last tensors: not CpuPrefersChannelsLast). oneDNN's fastest AVX2
// convs (jit:avx2, jit_1x1, jit_dw) want channel-blocked nChw8c; with plain src/dst it picks
// im2col + sgemm (gemm:jit). Measured on the first machine (AVX2, libdnnl 2.6.3, one thread, the
// blocked figure includes reordering src in and dst out, ms per conv):
//   1x192x35x35 -> 64 1x1       plain 0.32  blocked 0.37     2048x8x8 -> 320 1x1  2.2 / 1.1
//   1x256x28x28 -> 512 1x1 s2   plain 0.64  blocked 0.74     48 -> 64 5x5 35x35   3.3 / 1.8
//   1x288x35x35 -> 384 3x3 s2   plain 7.4-9.6 blocked 6.9-7.5  96 -> 96 3x3 35x35  3.2 / 2.2
//   1x32x147x147 -> 32 3x3      plain 7.8-14 blocked 4.5-5   448 -> 384 3x3 8x8   2.3 / 2.5
//   1x128x17x17 -> 128 1x7      plain 0.93  blocked 0.82-0.98  384 -> 384 1x3 8x8  0.63 / 0.83
//   depthwise 3x3 64x56x56      plain 1.0   blocked 0.13     group 4 3x3 64x28x28  0.6 / 0.2
// So blocked layouts pay off, reorders included, for grouped convs (10x for depthwise) and for
// spatial kernels on outputs of at least ~12x12; gemm on plain layouts wins for 1x1 convs
// (which need no im2col) unless the output is tiny, and for spatial kernels on tiny outputs.
// ChooseBlocked encodes that; the reorders run through per-thread scratch buffers. Where channels-
// last pays (CpuPrefersChannelsLast: AVX-512, and AVX2 since its jit:avx2 convs take NHWC) the
// plain gemm conv loses everywhere. On AVX-512: 16 -> 96 1x1 at 112x112 took
// 9.9 ms through gemm:jit against 1.0 ms in onnxruntime, 40 -> 240 at 28x28 1.57 against 0.24
// (one thread, with a fused SiLU); on an AVX2 EPYC 16 -> 96 1x1 at 112x112 at batch 8 took 74 ms
// through gemm:jit against 5.5 ms on NHWC (2 threads). So every conv there takes the blocked
// path.
//
// Strided views. X or Y may be a channel slice of a wider tensor at batch > 1
// (plan/tensor_views.h): its memory descriptor then has the wider batch stride. Reorders to and
// from blocked layouts take any strides, so blocked convs read and write views for free. oneDNN
// 2.6's plain-layout gemm conv does not take them: it falls back to its reference conv
// ("ref:any", many times slower), so such a conv runs on dense scratch instead, and the reorders
// copy between it and the view (the copy the Concat or Split would have made). Measured on
// Inception V3 at batch 8 (same bench, ~12 runs): reorders from and to strided views run as
// jit:uni or simple:any instead of jit:blk, 443 ms of reorders in all against 399 ms without
// views, which about cancels the copies the views save on this CPU (median latency 764.5 vs
// 766.2 ms). The views are kept: the same plan runs on the GPU, where they save the copies.
//
// Channels-last tensors (ir/layout.h). On AVX-512 oneDNN 2.6 picks NHWC (acdb) for every conv
// given `any` (brgconv, brgconv_1x1, brdgmm_dw), so the layout assignment of CPU plans
// (passes/assign_layouts.h) stores conv outputs channels-last and keeps them so between the ops
// that take it. A conv with a channels-last X or Y gives oneDNN that side's layout as it is (a
// row-major side whose bytes are the same both ways, [N, C, 1, 1], is read as channels-last
// too) and `any` for a row-major one, reordered as above; if no optimised implementation takes
// the fixed layouts, both become `any`. Where oneDNN blocks the channels of spatial convs when
// left to choose (CpuBlocksSpatialConvs: AVX2), a dense conv with a spatial kernel gets `any` on
// both sides and reorders its channels-last tensors in and out, through scratch as above: there
// nChw8c ran such convs 1.2-2.5x faster than NHWC, and the reorders cost less than that
// (side by side, 3 rounds of 1 s, medians, AVX2 EPYC, 2 threads: Inception V3 b1 143 -> 122 ms,
// b8 1021 -> 914; ResNet-50 b1 83 -> 74, b8 749 -> 618; GoogLeNet b1 46 -> 40, b8 352 -> 308).
// Depthwise and grouped convs keep NHWC: their tensors are large for their work, so the
// reorders would cost a good part of what nChw8c saves (not measured on whole networks).
// Channels-blocked-8 tensors (nChw8c, ir/layout.h) are the ones the layout assignment keeps
// blocked between dense convs and the ops that take them (passes/assign_layouts.h): a blocked side is given
// to oneDNN as it is, so that a run of them reorders only at its ends (oneDNN 2.6 has no AVX2
// conv that mixes nChw8c and NHWC, so a side stored otherwise is still reordered).
// Measured on an AVX-512 machine (2 threads, MobileNetV2 at batch 1): 16.0 ms with the choice
// above on row-major tensors, 8.5 ms with every conv blocked and its reorders, the reorders then
// half of it.
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/fused_activation.h"
#include "kernels/reference/reference_util.h"
#include "runtime/cpu/kernels/cpu_kernel_factories.h"
#include "runtime/cpu/cpu_layout.h"
#include "runtime/cpu/kernels/dnnl_common.h"

namespace ios {
namespace {

using dnnl::memory;

// ThreadScratch slots: 0 src, 1 weights, 2 dst (reorders), 3 oneDNN's scratchpad, and the copy
// of an in-place residual that no primitive adds itself.
constexpr int kResidualCopySlot = 4;
static_assert(kResidualCopySlot < kScratchSlots, "kernels use slots below kScratchSlots");

// Output positions below which a layout choice flips (see the table above).
constexpr int64_t kSmallOutput = 128;

// True for oneDNN's reference implementation ("ref:any"), which it picks when no optimised one
// takes the descriptors.
bool IsReferenceImplementation(const dnnl::convolution_forward::primitive_desc& pd) {
  return std::string(pd.impl_info_str()).rfind("ref", 0) == 0;
}

bool ChooseBlocked(int64_t group, const Dims& kernel, const Dims& out_spatial) {
  if (group > 1) return true;
  const int64_t out_positions = NumElements(out_spatial);
  bool pointwise = true;
  for (int64_t k : kernel) pointwise = pointwise && k == 1;
  return pointwise ? out_positions < kSmallOutput : out_positions >= kSmallOutput;
}

struct ConvSetup {
  std::string label;
  Dims src;
  Dims weights;  // oneDNN's: [G, M/G, C/G, k...] when grouped, else ONNX's [M, C, k...]
  Dims dst;
  int64_t src_batch_stride = 0;  // elements between batch items of X when it is a strided view
  int64_t dst_batch_stride = 0;  // of Y
  Layout src_layout = Layout::kRowMajor;
  Layout dst_layout = Layout::kRowMajor;
  memory::dims strides, dilates, pad_begin, pad_end;
  bool has_bias = false;
  bool blocked = false;
  // Channels-last tensors reordered into the layout oneDNN picks (see the file comment).
  bool reorder_channels_last = false;
  Activation act;
  bool act_fused = false;  // false: ApplyActivation runs after the primitive
  // A fused residual (input 3, ir/fused_activation.h), added before the activation: a binary
  // post-op where the primitive takes one, else after it (AddResidual). When the memory plan
  // puts Y over the residual's bytes (plan/in_place.h), Y holds the residual as the run starts
  // and oneDNN's sum post-op adds it where the conv writes, as onnxruntime's Conv with a Sum
  // input does: Y's lines are read and written once, and no second buffer is read. Measured
  // (2 threads, batch 8, 1x1 64 -> 256 at 56x56 with ReLU): 5.2 ms in place against 6.8 ms with
  // the binary post-op, which oneDNN 2.7 runs through jit_1x1 rather than brgconv_1x1.
  bool has_residual = false;
  Layout residual_layout = Layout::kRowMajor;
  int64_t macs = 0;  // multiply-adds per run
};

// y (stored with `y_strides`) += r (stored with `r_strides`) over `dims`, on up to `threads`.
// The fallback for a residual oneDNN would not take as a post-op.
void AddResidual(const Dims& dims, const Dims& y_strides, float* y, const Dims& r_strides,
                 const float* r, int threads) {
  const int64_t count = NumElements(dims);
  const int64_t inner = dims.back();
  const int64_t rows = inner == 0 ? 0 : count / inner;
  ParallelFor(rows, ThreadsForWork(threads, count), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      int64_t y_offset = 0;
      int64_t r_offset = 0;
      int64_t rest = row;
      for (size_t d = dims.size() - 1; d-- > 0;) {
        const int64_t index = rest % dims[d];
        rest /= dims[d];
        y_offset += index * y_strides[d];
        r_offset += index * r_strides[d];
      }
      const int64_t ys = y_strides.back();
      const int64_t rs = r_strides.back();
      for (int64_t i = 0; i < inner; ++i) y[y_offset + i * ys] += r[r_offset + i * rs];
    }
  });
}

class ConvCpuKernel : public CpuKernel {
 public:
  ConvCpuKernel(ConvSetup setup, dnnl::engine engine)
      : setup_(std::move(setup)),
        engine_(std::move(engine)),
        src_md_(LayoutF32(setup_.src, setup_.src_layout, setup_.src_batch_stride)),
        weights_md_(PlainF32(setup_.weights)),
        dst_md_(LayoutF32(setup_.dst, setup_.dst_layout, setup_.dst_batch_stride)),
        residual_md_(LayoutF32(setup_.dst, setup_.residual_layout, 0)) {}

  // Creates the one-thread variant, prepacking `weights` and keeping a copy of `bias` (each null
  // when not constant).
  Status Prepare(const Tensor* weights, const Tensor* bias) {
    if (bias != nullptr) constant_bias_ = *bias;
    if (weights != nullptr) {
      // Only read during this call: PackedWeights keeps its own copies.
      constant_weights_ = WrapMemory(weights_md_, engine_, weights->raw());
    }
    StatusOr<Variant*> variant = GetVariant(1);
    constant_weights_.reset();
    has_constant_weights_ = weights != nullptr;
    return variant.status();
  }

  bool CopiedConstantInput(size_t input) const override {
    return (input == 1 && has_constant_weights_) || (input == 2 && constant_bias_.has_value());
  }

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    threads = ThreadsForMacs(threads, setup_.macs);
    if (inputs.empty() || inputs[0] == nullptr || outputs.empty() || outputs[0] == nullptr ||
        (!has_constant_weights_ && (inputs.size() < 2 || inputs[1] == nullptr)) ||
        (setup_.has_bias && !constant_bias_ && (inputs.size() < 3 || inputs[2] == nullptr)) ||
        (setup_.has_residual && (inputs.size() < 4 || inputs[3] == nullptr)))
      return Internal(setup_.label + ": missing input or output buffer");
    float* y = static_cast<float*>(outputs[0]);
    const void* residual = setup_.has_residual ? inputs[3] : nullptr;
    Variant* v = nullptr;
    if (residual != nullptr && residual == y) {  // in place: see ConvSetup::has_residual
      IOS_ASSIGN_OR_RETURN(v, GetVariant(threads, /*sum_in_place=*/true));
      if (v == nullptr) {
        // No primitive writes Y itself with the sum post-op (it wants another dst layout): the
        // residual is copied aside and added as when it has bytes of its own.
        const size_t bytes = static_cast<size_t>(NumElements(setup_.dst)) * sizeof(float);
        void* copy = ThreadScratch(kResidualCopySlot, bytes);
        if (copy == nullptr) return Internal(setup_.label + ": out of memory");
        std::memcpy(copy, residual, bytes);
        residual = copy;
      }
    }
    if (v == nullptr) {
      IOS_ASSIGN_OR_RETURN(v, GetVariant(threads, /*sum_in_place=*/false));
    }
    {
      ScopedOmpThreads scope(threads);
      IOS_RETURN_IF_ERROR(CatchDnnl(setup_.label, [&]() -> Status {
        dnnl::stream stream(engine_);
        std::unordered_map<int, memory> args;
        memory src = WrapMemory(src_md_, engine_, inputs[0]);
        if (v->src_reorder) {
          memory blocked = ScratchMemory(v->pd.src_desc(), 0);
          v->src_reorder->execute(stream, src, blocked);
          src = blocked;
        }
        args[DNNL_ARG_SRC] = src;
        if (has_constant_weights_) {
          args[DNNL_ARG_WEIGHTS] = v->weights;
        } else {
          memory weights = WrapMemory(weights_md_, engine_, inputs[1]);
          if (v->weights_reorder) {
            memory packed = ScratchMemory(v->pd.weights_desc(), 1);
            v->weights_reorder->execute(stream, weights, packed);
            weights = packed;
          }
          args[DNNL_ARG_WEIGHTS] = weights;
        }
        if (setup_.has_bias) {
          const void* bias = constant_bias_ ? constant_bias_->raw() : inputs[2];
          args[DNNL_ARG_BIAS] = WrapMemory(v->pd.bias_desc(), engine_, bias);
        }
        memory dst_plain = WrapMemory(dst_md_, engine_, y);
        memory dst = v->dst_reorder ? ScratchMemory(v->pd.dst_desc(), 2) : dst_plain;
        args[DNNL_ARG_DST] = dst;
        if (setup_.has_residual && v->post_ops_fused && !v->sum_in_place)
          args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1] =
              WrapMemory(residual_md_, engine_, residual);
        args[DNNL_ARG_SCRATCHPAD] = ScratchMemory(v->pd.scratchpad_desc(), 3);
        v->conv.execute(stream, args);
        if (v->dst_reorder) v->dst_reorder->execute(stream, dst, dst_plain);
        stream.wait();
        return Status::Ok();
      }));
    }
    if (setup_.has_residual && !v->post_ops_fused) {
      // Both blocked (a dense Y: blocked tensors are never strided views): flat, as row-major.
      auto strided = [&](Layout layout) {
        return layout == Layout::kChannelsBlocked8 ? Layout::kRowMajor : layout;
      };
      Dims y_strides = LayoutStrides(setup_.dst, strided(setup_.dst_layout));
      if (setup_.dst_batch_stride != 0) y_strides[0] = setup_.dst_batch_stride;
      AddResidual(setup_.dst, y_strides, y,
                  LayoutStrides(setup_.dst, strided(setup_.residual_layout)),
                  static_cast<const float*>(residual), threads);
    }
    if (!setup_.act_fused || !v->post_ops_fused) {
      if (setup_.dst_batch_stride == 0) {
        ApplyActivationCpu(setup_.act, y, NumElements(setup_.dst), threads);
      } else {
        const int64_t item = NumElements(setup_.dst) / setup_.dst[0];
        for (int64_t n = 0; n < setup_.dst[0]; ++n)
          ApplyActivationCpu(setup_.act, y + n * setup_.dst_batch_stride, item, threads);
      }
    }
    return Status::Ok();
  }

 private:
  struct Variant {
    dnnl::convolution_forward::primitive_desc pd;
    dnnl::convolution_forward conv;
    std::optional<dnnl::reorder> src_reorder;      // plain -> the primitive's src layout
    std::optional<dnnl::reorder> dst_reorder;      // the primitive's dst layout -> plain
    std::optional<dnnl::reorder> weights_reorder;  // run-time weights -> the primitive's layout
    memory weights;                                // the packed constant weights
    // The residual and activation are the primitive's post-ops; false: both run after it.
    bool post_ops_fused = true;
    bool sum_in_place = false;  // the residual is a sum post-op over Y (in place)
  };

  // A memory over this thread's scratch slot (ThreadScratch), sized for `desc`.
  memory ScratchMemory(const memory::desc& desc, int slot) {
    void* buffer = ThreadScratch(slot, desc.get_size());
    if (buffer == nullptr) throw std::bad_alloc();
    return memory(desc, engine_, buffer);
  }

  // The variant for `threads`; with `sum_in_place` the one adding the residual Y holds, or null
  // when no primitive takes that (see Run).
  StatusOr<Variant*> GetVariant(int threads, bool sum_in_place = false) {
    VariantsByThreads<Variant>& variants = sum_in_place ? in_place_variants_ : variants_;
    return variants.Get(threads, [&]() -> StatusOr<std::unique_ptr<Variant>> {
      std::unique_ptr<Variant> v;
      IOS_RETURN_IF_ERROR(CatchDnnl(setup_.label, [&]() -> Status {
        v = MakeVariant(sum_in_place);
        return Status::Ok();
      }));
      return v;
    });
  }

  // Called with the OpenMP team size set to the variant's thread count. Throws dnnl::error.
  std::unique_ptr<Variant> MakeVariant(bool sum_in_place) {
    const memory::data_type f32 = memory::data_type::f32;
    const memory::format_tag any = memory::format_tag::any;
    const memory::desc src_any(ToDnnlDims(setup_.src), f32, any);
    const memory::desc dst_any(ToDnnlDims(setup_.dst), f32, any);
    const bool channels_last =
        setup_.src_layout != Layout::kRowMajor || setup_.dst_layout != Layout::kRowMajor;
    memory::desc src_md = setup_.blocked ? src_any : src_md_;
    memory::desc dst_md = setup_.blocked ? dst_any : dst_md_;
    if (channels_last) {  // see the file comment
      // A side as it is stored where it is blocked, or channels-last and oneDNN's NHWC conv
      // runs it; else oneDNN's choice, reordered to and from.
      auto side = [&](Layout layout, const memory::desc& stored, const memory::desc& any_md) {
        const bool as_stored = layout == Layout::kChannelsBlocked8 ||
                               (layout == Layout::kChannelsLast && !setup_.reorder_channels_last);
        return as_stored ? stored : any_md;
      };
      src_md = side(setup_.src_layout, src_md_, src_any);
      dst_md = side(setup_.dst_layout, dst_md_, dst_any);
    }
    const memory::desc weights_md(ToDnnlDims(setup_.weights), f32, any);
    dnnl::post_ops ops;
    if (setup_.has_residual && sum_in_place) {
      ops.append_sum(1.f);
    } else if (setup_.has_residual) {
      ops.append_binary(dnnl::algorithm::binary_add, residual_md_);
    }
    if (setup_.act_fused) AppendActivationPostOps(setup_.act, &ops);
    dnnl::primitive_attr fused_attr;
    fused_attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    fused_attr.set_post_ops(ops);
    dnnl::primitive_attr plain_attr;  // no post-ops: the residual and activation run after
    plain_attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    bool post_ops = true;
    // The primitive for these src/dst descriptors (the weights' and bias' are fixed).
    auto make_pd = [&](const memory::desc& src, const memory::desc& dst) {
      const dnnl::primitive_attr& attr = post_ops ? fused_attr : plain_attr;
      const auto prop = dnnl::prop_kind::forward_inference;
      const auto alg = dnnl::algorithm::convolution_direct;
      std::optional<dnnl::convolution_forward::desc> desc;
      if (setup_.has_bias) {
        const memory::desc bias_md({setup_.dst[1]}, f32, memory::format_tag::a);
        desc.emplace(prop, alg, src, weights_md, bias_md, dst, setup_.strides, setup_.dilates,
                     setup_.pad_begin, setup_.pad_end);
      } else {
        desc.emplace(prop, alg, src, weights_md, dst, setup_.strides, setup_.dilates,
                     setup_.pad_begin, setup_.pad_end);
      }
      return dnnl::convolution_forward::primitive_desc(*desc, attr, engine_);
    };
    auto v = std::make_unique<Variant>();
    const bool strided = setup_.src_batch_stride != 0 || setup_.dst_batch_stride != 0;
    auto choose = [&] {
      v->pd = make_pd(src_md, dst_md);
      if (channels_last && IsReferenceImplementation(v->pd)) v->pd = make_pd(src_any, dst_any);
      if (!setup_.blocked && strided && IsReferenceImplementation(v->pd))
        v->pd = make_pd(PlainF32(setup_.src), PlainF32(setup_.dst));  // see the file comment
    };
    choose();
    // The sum post-op adds what the primitive's dst holds: Y only when the primitive writes Y
    // itself, with no reorder after it.
    if (sum_in_place && (IsReferenceImplementation(v->pd) || v->pd.dst_desc() != dst_md_ ||
                         residual_md_ != dst_md_))
      return nullptr;
    v->sum_in_place = sum_in_place;
    // oneDNN 2.6's gemm conv adds a binary post-op's src1 as if it had the dst's layout: only a
    // residual stored as the primitive's dst is a post-op; any other is added after.
    if (setup_.has_residual && !sum_in_place &&
        (IsReferenceImplementation(v->pd) || v->pd.dst_desc() != residual_md_)) {
      post_ops = false;
      v->post_ops_fused = false;
      choose();
    }
    v->conv = dnnl::convolution_forward(v->pd);
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

  ConvSetup setup_;
  dnnl::engine engine_;
  memory::desc src_md_;      // plain NC[D]HW
  memory::desc weights_md_;  // plain, as ONNX stores them
  memory::desc dst_md_;
  memory::desc residual_md_;  // the residual as stored (the output's dims)
  bool has_constant_weights_ = false;
  std::optional<memory> constant_weights_;  // over the graph's tensor, during Prepare only
  std::optional<Tensor> constant_bias_;
  PackedWeights packed_;
  VariantsByThreads<Variant> variants_;
  VariantsByThreads<Variant> in_place_variants_;  // with the sum post-op (sum_in_place)
};

}  // namespace

StatusOr<std::unique_ptr<CpuKernel>> CreateConvCpuKernel(const CpuKernelContext& context) {
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
  const size_t rank = x.dims.size();
  if (rank < 3 || rank > 5 || w.dims.size() != rank) return std::unique_ptr<CpuKernel>();

  IOS_ASSIGN_OR_RETURN(int64_t group, node.attrs.GetInt("group", 1));
  const int64_t out_channels = w.dims[0];
  if (group < 1 || x.dims[1] != w.dims[1] * group || out_channels % group != 0)
    return InvalidInput("input " + DimsToString(x.dims) + ", weight " + DimsToString(w.dims) +
                        " and group " + std::to_string(group) + " do not match");
  if (has_bias && context.input_types[2].dims != Dims{out_channels})
    return InvalidInput("bias " + DimsToString(context.input_types[2].dims) + " must have shape [" +
                        std::to_string(out_channels) + "]");
  const Dims in_spatial(x.dims.begin() + 2, x.dims.end());
  const Dims kernel(w.dims.begin() + 2, w.dims.end());
  IOS_ASSIGN_OR_RETURN(Dims kernel_attr, node.attrs.GetInts("kernel_shape", kernel));
  if (kernel_attr != kernel)
    return InvalidInput("kernel_shape " + DimsToString(kernel_attr) +
                        " disagrees with the weight " + DimsToString(w.dims));
  IOS_ASSIGN_OR_RETURN(WindowGeometry geo,
                       ComputeWindowGeometry(node, in_spatial, kernel, /*ceil_mode=*/false));

  ConvSetup setup;
  setup.label = "Conv '" + node.name + "'";
  setup.src = x.dims;
  setup.dst = {x.dims[0], out_channels};
  setup.dst.insert(setup.dst.end(), geo.output.begin(), geo.output.end());
  if (setup.dst != context.output_types[0].dims)
    return InvalidInput("computed output " + DimsToString(setup.dst) + " but the plan has " +
                        DimsToString(context.output_types[0].dims));
  setup.weights = w.dims;
  if (group > 1) {
    setup.weights = {group, out_channels / group};
    setup.weights.insert(setup.weights.end(), w.dims.begin() + 1, w.dims.end());
  }
  for (size_t d = 0; d < kernel.size(); ++d) {
    setup.strides.push_back(geo.strides[d]);
    setup.dilates.push_back(geo.dilations[d] - 1);  // oneDNN counts the gaps
    setup.pad_begin.push_back(geo.pads_begin[d]);
    setup.pad_end.push_back(geo.pads_end[d]);
  }
  setup.has_bias = has_bias;
  if (!context.batch_strides.inputs.empty())
    setup.src_batch_stride = context.batch_strides.inputs[0];
  if (!context.batch_strides.outputs.empty())
    setup.dst_batch_stride = context.batch_strides.outputs[0];
  // Where oneDNN has JIT convs on NHWC (AVX-512, AVX2), its gemm conv on plain layouts is no
  // match for them at any size; the table above is for CPUs where it has none.
  setup.blocked = CpuPrefersChannelsLast() || ChooseBlocked(group, kernel, geo.output);
  setup.src_layout = context.input_layout(0);
  setup.dst_layout = context.output_layout(0);
  setup.reorder_channels_last = group == 1 && NumElements(kernel) > 1 && CpuBlocksSpatialConvs();
  // A side stored the same both ways is read as channels-last beside a channels-last one.
  if (setup.dst_layout == Layout::kChannelsLast && ChannelsLastIsRowMajor(setup.src) &&
      setup.src_batch_stride == 0)
    setup.src_layout = Layout::kChannelsLast;
  if (setup.src_layout == Layout::kChannelsLast && ChannelsLastIsRowMajor(setup.dst) &&
      setup.dst_batch_stride == 0)
    setup.dst_layout = Layout::kChannelsLast;
  if ((setup.src_layout != Layout::kRowMajor && setup.src_batch_stride != 0) ||
      (setup.dst_layout != Layout::kRowMajor && setup.dst_batch_stride != 0))
    return Internal("a channels-last or blocked tensor cannot be a strided view");
  if ((setup.src_layout == Layout::kChannelsBlocked8 && !HasChannelsBlocked8Form(setup.src)) ||
      (setup.dst_layout == Layout::kChannelsBlocked8 && !HasChannelsBlocked8Form(setup.dst)))
    return Internal("a channels-blocked-8 tensor must be [N, C, H, W] with C a multiple of 8");
  IOS_RETURN_IF_ERROR(CheckConvFusedActivation(node.attrs));
  setup.act = GetFusedActivation(node.attrs);
  setup.act_fused = ActivationHasPostOps(setup.act);
  if (HasFusedResidual(node)) {
    if (context.input_types.size() < 4 || context.input_types[3].dtype != DType::kFloat32 ||
        context.input_types[3].dims != setup.dst)
      return InvalidInput("the fused residual must be float32 of the output's shape " +
                          DimsToString(setup.dst));
    if (!context.batch_strides.inputs.empty() && context.batch_strides.inputs.size() > 3 &&
        context.batch_strides.inputs[3] != 0)
      return Internal("a conv's residual cannot be a strided view");
    setup.has_residual = true;
    setup.residual_layout = context.input_layout(3);
    if (setup.residual_layout == Layout::kRowMajor && ChannelsLastIsRowMajor(setup.dst) &&
        setup.dst_layout == Layout::kChannelsLast)
      setup.residual_layout = setup.dst_layout;  // the same bytes either way
    // AddResidual walks element strides, which blocked tensors have none of, but a blocked
    // residual and Y hold their elements in one order (added as flat arrays); the layout
    // assignment blocks both or neither, so the reference runs any other plan.
    if ((setup.residual_layout == Layout::kChannelsBlocked8) !=
        (setup.dst_layout == Layout::kChannelsBlocked8))
      return std::unique_ptr<CpuKernel>();
  }
  setup.macs = NumElements(setup.dst) * NumElements(w.dims) / out_channels;
  if (NumElements(setup.dst) == 0 || NumElements(setup.src) == 0)
    return std::unique_ptr<CpuKernel>();  // nothing for oneDNN to do; the reference copes

  IOS_ASSIGN_OR_RETURN(dnnl::engine engine, CpuEngine());
  auto kernel_ptr = std::make_unique<ConvCpuKernel>(std::move(setup), engine);
  const Tensor* weights = context.constants.size() > 1 ? context.constants[1] : nullptr;
  const Tensor* bias = has_bias && context.constants.size() > 2 ? context.constants[2] : nullptr;
  IOS_RETURN_IF_ERROR(kernel_ptr->Prepare(weights, bias));
  return std::unique_ptr<CpuKernel>(std::move(kernel_ptr));
}

}  // namespace ios

#include "runtime/cpu/cpu_layout.h"

#include <optional>
#include <string>

#include "runtime/cpu/kernels/dnnl_common.h"

namespace ios {
namespace {

// The probe conv's src and dst (64 channels at 56x56, Inception's and ResNet's sizes) in `layout`.
dnnl::memory::desc ProbeTensor(dnnl::memory::format_tag layout) {
  return dnnl::memory::desc({1, 64, 56, 56}, dnnl::memory::data_type::f32, layout);
}

// oneDNN's primitive for a 64 -> 64 3x3 conv over ProbeTensor(layout) (`any`: oneDNN's
// choice), or nothing when it has none or oneDNN is not there.
std::optional<dnnl::convolution_forward::primitive_desc> ProbeConv3x3(
    dnnl::memory::format_tag layout) {
  StatusOr<dnnl::engine> engine = CpuEngine();
  if (!engine.ok()) return std::nullopt;
  try {
    using memory = dnnl::memory;
    const memory::desc tensor = ProbeTensor(layout);
    const memory::desc weights({64, 64, 3, 3}, memory::data_type::f32, memory::format_tag::any);
    const dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                               dnnl::algorithm::convolution_direct, tensor,
                                               weights, tensor, {1, 1}, {1, 1}, {1, 1});
    return dnnl::convolution_forward::primitive_desc(desc, engine.value());
  } catch (const dnnl::error&) {
    return std::nullopt;
  }
}

}  // namespace

bool CpuPrefersChannelsLast() {
  // Channels-last pays where one of oneDNN's JIT convs runs the probe on NHWC tensors (brgconv
  // on AVX-512, jit:avx2 on AVX2), even where oneDNN left to choose would block the channels
  // (nChw8c on AVX2). Only its gemm or reference conv would run plain tensors, and its gemm conv
  // on plain NCHW is what the alternative comes down to: on an AVX2 EPYC (2 threads, batch 8)
  // MobileNetV2's 16 -> 96 1x1 conv at 112x112 took 74 ms through it against 5.5 ms
  // channels-last, the whole network 300 against 73 ms.
  static const bool prefers = [] {
    const auto pd = ProbeConv3x3(dnnl::memory::format_tag::nhwc);
    if (!pd) return false;
    const std::string impl = pd->impl_info_str();
    return impl.rfind("jit", 0) == 0 || impl.rfind("brg", 0) == 0;
  }();
  return prefers;
}

bool CpuBlocksSpatialConvs() {
  static const bool blocks = [] {
    const auto pd = ProbeConv3x3(dnnl::memory::format_tag::any);
    if (!pd) return false;
    const dnnl::memory::desc nhwc = ProbeTensor(dnnl::memory::format_tag::nhwc);
    return pd->src_desc() != nhwc || pd->dst_desc() != nhwc;
  }();
  return blocks;
}

}  // namespace ios

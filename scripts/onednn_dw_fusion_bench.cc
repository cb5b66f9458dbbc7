// Microbenchmark for the next step on MobileNetV2 at batch 8 (issue 11): oneDNN's depthwise
// post-op, which fuses a 1x1 conv (expand, clip 0..6) with the 3x3 depthwise conv after it
// (append_dw), against the two convs run apart, in NHWC (what iosc's CPU plans use) and nChw16c.
// Primitive times only (median of 30 runs after 5), weights and inputs held, no reorders.
//
//   g++ -O2 -std=c++17 scripts/onednn_dw_fusion_bench.cc -ldnnl -o /tmp/dw_fusion
//   OMP_NUM_THREADS=2 /tmp/dw_fusion
//
// Measured 2026-11-27 on this project's 2-core AVX-512 machine (oneDNN 2.6.3), ms, ranges over
// five runs (the machine is noisy; each run is interleaved, so compare within a run):
//   16->96 at 112x112, dw stride 2: NHWC apart 5.3-7.8, fused 2.2-3.3; nChw16c apart 3.9-5.2
//   24->144 at 56x56, stride 1:     NHWC apart 2.4-3.9, fused 1.6-2.0; nChw16c apart 1.9-2.6
//   24->144 at 56x56, stride 2:     NHWC apart 1.3-2.3, fused 1.2-1.3; nChw16c apart 1.4-1.9
//   32->192 at 28x28, stride 1:     NHWC apart 0.65-0.69, fused 0.62-0.68: no gain
// The fused primitive (jit_1x1:avx512_core) takes NHWC and never writes the expanded tensor.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <oneapi/dnnl/dnnl.hpp>
#include <vector>
using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;
engine eng(engine::kind::cpu, 0);
stream strm(eng);

template <class F>
double Median(F f, int n = 30) {
  for (int i = 0; i < 5; ++i) f();
  std::vector<double> t;
  for (int i = 0; i < n; ++i) {
    auto s = std::chrono::steady_clock::now();
    f();
    t.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

post_ops Clip() {
  post_ops po;
  po.append_eltwise(1.f, algorithm::eltwise_clip, 0.f, 6.f);
  return po;
}

struct Conv {
  convolution_forward::primitive_desc pd;
  memory src, wei, bias, dst;
  convolution_forward p;
};

Conv MakeConv(memory::dims x, memory::dims w, memory::dims y, memory::dims s, memory::dims pad,
              tag t, const memory& src_mem) {
  memory::desc xd(x, dt::f32, t), yd(y, dt::f32, t);
  memory::desc wd(w, dt::f32, tag::any), bd({y[1]}, dt::f32, tag::x);
  primitive_attr attr;
  attr.set_post_ops(Clip());
  auto d = convolution_forward::desc(prop_kind::forward_inference, algorithm::convolution_direct,
                                     xd, wd, bd, yd, s, pad, pad);
  Conv c{convolution_forward::primitive_desc(d, attr, eng),
         src_mem,
         memory(),
         memory(),
         memory(),
         convolution_forward()};
  c.wei = memory(c.pd.weights_desc(), eng);
  c.bias = memory(bd, eng);
  c.dst = memory(c.pd.dst_desc(), eng);
  c.p = convolution_forward(c.pd);
  return c;
}

double TimeConv(const Conv& c) {
  return Median([&] {
    c.p.execute(strm, {{DNNL_ARG_SRC, c.src},
                       {DNNL_ARG_WEIGHTS, c.wei},
                       {DNNL_ARG_BIAS, c.bias},
                       {DNNL_ARG_DST, c.dst}});
    strm.wait();
  });
}

void Case(int n, int cin, int cexp, int hw, int stride) {
  const int ho = hw / stride;
  for (tag t : {tag::nhwc, tag::nChw16c}) {
    memory src({{n, cin, hw, hw}, dt::f32, t}, eng);
    std::fill((float*)src.get_data_handle(),
              (float*)src.get_data_handle() + src.get_desc().get_size() / 4, 0.5f);
    Conv a =
        MakeConv({n, cin, hw, hw}, {cexp, cin, 1, 1}, {n, cexp, hw, hw}, {1, 1}, {0, 0}, t, src);
    Conv b = MakeConv({n, cexp, hw, hw}, {cexp, 1, 1, 3, 3}, {n, cexp, ho, ho}, {stride, stride},
                      {1, 1}, t, a.dst);
    const double ta = TimeConv(a);
    const double tb = TimeConv(b);
    std::printf("%-8s %d->%d @%d s%d: 1x1 %.2f ms [%s]  dw %.2f ms [%s]  sum %.2f\n",
                t == tag::nhwc ? "nhwc" : "nChw16c", cin, cexp, hw, stride, ta,
                a.pd.impl_info_str(), tb, b.pd.impl_info_str(), ta + tb);
    // Fused: the 1x1 with a depthwise post-op.
    try {
      post_ops po = Clip();
      po.append_dw(dt::f32, dt::f32, dt::f32, 3, stride, 1, 0, {});
      po.append_eltwise(1.f, algorithm::eltwise_clip, 0.f, 6.f);
      primitive_attr attr;
      attr.set_post_ops(po);
      memory::desc xd({n, cin, hw, hw}, dt::f32, t), yd({n, cexp, hw, hw}, dt::f32, t);
      memory::desc wd({cexp, cin, 1, 1}, dt::f32, tag::any), bd({cexp}, dt::f32, tag::x);
      auto d =
          convolution_forward::desc(prop_kind::forward_inference, algorithm::convolution_direct, xd,
                                    wd, bd, yd, {1, 1}, {0, 0}, {0, 0});
      convolution_forward::primitive_desc pd(d, attr, eng);
      memory wei(pd.weights_desc(), eng), bias(bd, eng), dst(pd.dst_desc(), eng);
      memory dww(pd.query_md(query::exec_arg_md, DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS), eng);
      memory dwb(pd.query_md(query::exec_arg_md, DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_BIAS), eng);
      convolution_forward p(pd);
      double tf = Median([&] {
        p.execute(strm, {{DNNL_ARG_SRC, src},
                         {DNNL_ARG_WEIGHTS, wei},
                         {DNNL_ARG_BIAS, bias},
                         {DNNL_ARG_DST, dst},
                         {DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS, dww},
                         {DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_BIAS, dwb}});
        strm.wait();
      });
      auto dims = pd.dst_desc().dims();
      std::printf("         fused 1x1+dw: %.2f ms [%s] dst %lldx%lldx%lldx%lld\n", tf,
                  pd.impl_info_str(), (long long)dims[0], (long long)dims[1], (long long)dims[2],
                  (long long)dims[3]);
    } catch (const dnnl::error& e) {
      std::printf("         fused 1x1+dw: not available (%s)\n", e.what());
    }
  }
}

int main() {
  Case(8, 16, 96, 112, 2);
  Case(8, 24, 144, 56, 1);
  Case(8, 24, 144, 56, 2);
  Case(8, 32, 192, 28, 1);
  return 0;
}

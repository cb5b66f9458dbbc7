// What the oneDNN-backed kernels (conv_cpu.cc, matmul_cpu.cc) share: the process-wide engine,
// dnnl::error → Status, plain layouts, activation post-ops and primitives per thread count.
//
// Why primitives per thread count: with the OpenMP runtime, oneDNN's JIT kernels fix their
// thread count when the primitive is created (from omp_get_max_threads() of the creating
// thread) and use it at every execution whatever the executing thread's setting; gemm-based
// ones read the executing thread's setting instead. Measured with libdnnl 2.6.3: a jit:avx2
// conv created with 2 threads opens a 2-thread team even when run from a thread set to 1. So a
// kernel creates its primitive for each `threads` it is run with (normally one value per plan
// node), both with the team size set to `threads`, and also sets it around execution.
// oneDNN's own primitive cache keys on that thread count too, so the variants do not collide.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/layout.h"
#include "ir/tensor.h"
#include "kernels/math/activation_math.h"
#include "runtime/cpu/cpu_threading.h"
#include "util/status.h"

namespace ios {

// The CPU engine every kernel uses (engines are expensive; streams are made per run).
StatusOr<dnnl::engine> CpuEngine();

// "<context>: oneDNN error: <what> (status N)".
Status DnnlErrorStatus(const std::string& context, const dnnl::error& error);

// Runs fn() -> Status, turning a dnnl::error or any other exception into an Internal status.
template <typename Fn>
Status CatchDnnl(const std::string& context, Fn&& fn) {
  try {
    return fn();
  } catch (const dnnl::error& e) {
    return DnnlErrorStatus(context, e);
  } catch (const std::exception& e) {
    return Internal(context + ": " + e.what());
  }
}

dnnl::memory::dims ToDnnlDims(const Dims& dims);
// The dense row-major tag for a rank (a, ab, abc, ... up to 6).
dnnl::memory::format_tag PlainTag(size_t rank);
// A row-major f32 memory descriptor.
dnnl::memory::desc PlainF32(const Dims& dims);
// An f32 memory descriptor of `dims` stored in `layout` (ir/layout.h): by element strides, with
// the batch stride of a strided view when `batch_stride` is not 0, or as oneDNN's nChw8c for
// kChannelsBlocked8 (which no view is). Throws dnnl::error.
dnnl::memory::desc LayoutF32(const Dims& dims, Layout layout, int64_t batch_stride = 0);

// Appends post-ops computing `act` exactly as ApplyActivation does. False (and nothing
// appended) when oneDNN 2.6 has no equivalent; the kernel then applies ApplyActivation itself.
// HardSigmoid is linear + clip (2.6 has no hardsigmoid); LeakyRelu is relu with a slope;
// Softplus is soft_relu. False for the kinds ConvFusesActivation refuses.
bool AppendActivationPostOps(const Activation& act, dnnl::post_ops* ops);
// Whether AppendActivationPostOps handles `act` (without touching oneDNN). For Sigmoid and SiLU,
// only where SigmoidPostOpsBeatOwnPass.
bool ActivationHasPostOps(const Activation& act);
// Whether a conv's Sigmoid or SiLU runs as oneDNN 2.6's logistic or swish post-op (AVX2 CPUs)
// rather than as their own pass after the primitive (sigmoid_loops_cpu.h; AVX-512 CPUs).
bool SigmoidPostOpsBeatOwnPass();

// The one oneDNN eltwise algorithm (with its alpha and beta) that computes `act` as
// ApplyActivation does, for the kinds that have one; what AppendActivationPostOps appends
// for them, and what the standalone activation kernels run.
struct EltwiseAlgorithm {
  dnnl::algorithm algorithm;
  float alpha = 0.f;
  float beta = 0.f;
};
std::optional<EltwiseAlgorithm> SingleEltwiseAlgorithm(const Activation& act);

// How many of `threads` a conv or matmul of `macs` multiply-adds should use: tiny ops stay on the
// calling thread (and need no second primitive), where a second thread costs more than it saves.
// OpenMP's team keeps spinning between ops, so that point is low: on this 2-core AVX-512 machine
// (oneDNN 2.6, warm caches), a 72 -> 24 1x1 conv at 1x1 pixels (1.7K MACs) took 0.6 us on one
// thread and 1.4 us on two, 480 -> 120 (58K) 3.3 and 3.6 us, 960 -> 240 (230K) 9.3 and 6.1 us, a
// 5x5 depthwise conv of 960 channels at 7x7 (1.2M) 24 and 15 us. The first rule (a million per
// thread) kept every depthwise conv of MobileNetV2 and V3 at batch 1 on one thread: 15% and 11%
// of their latency.
inline int ThreadsForMacs(int threads, int64_t macs) {
  constexpr int64_t kMinMacsPerThread = int64_t{32} << 10;
  const int64_t useful = std::max<int64_t>(1, macs / kMinMacsPerThread);
  return static_cast<int>(std::min<int64_t>(ClampThreads(threads), useful));
}

// The same for an op that also streams `bytes` of operands it barely reuses (a GEMV's weights,
// batch 1's classifier): memory-bound, so another thread pays for itself from 512 KiB on (each
// core's loads add bandwidth). Measured on EfficientNet-B0's 1280 x 1000 classifier at batch 1,
// 1.3M multiply-adds over 5.1 MB of weights: 0.33 ms on one thread.
inline int ThreadsForMacsAndBytes(int threads, int64_t macs, int64_t bytes) {
  constexpr int64_t kMinBytesPerThread = int64_t{512} << 10;
  const int64_t useful = std::max<int64_t>(1, bytes / kMinBytesPerThread);
  const int by_bytes = static_cast<int>(std::min<int64_t>(ClampThreads(threads), useful));
  return std::max(ThreadsForMacs(threads, macs), by_bytes);
}

// Primitives and buffers for one thread count, created on first use with the calling thread's
// OpenMP team size set to that count (see the top of this file). Thread-safe.
template <typename Variant>
class VariantsByThreads {
 public:
  // The variant for `threads`; make() -> StatusOr<std::unique_ptr<Variant>> builds it once.
  template <typename Make>
  StatusOr<Variant*> Get(int threads, Make&& make) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = variants_.find(threads);
    if (it != variants_.end()) return it->second.get();
    ScopedOmpThreads scope(threads);
    StatusOr<std::unique_ptr<Variant>> made = make();
    if (!made.ok()) return made.status();
    Variant* variant = made.value().get();
    variants_.emplace(threads, std::move(made.value()));
    return variant;
  }

 private:
  std::mutex mutex_;
  std::map<int, std::unique_ptr<Variant>> variants_;
};

// A oneDNN memory over a caller's buffer (the API takes a non-const handle).
inline dnnl::memory WrapMemory(const dnnl::memory::desc& desc, const dnnl::engine& engine,
                               const void* data) {
  return dnnl::memory(desc, engine, const_cast<void*>(data));
}

// Constant weights in the layouts primitives chose, each reordered once into a buffer the
// kernel owns, so that variants choosing the same layout share it and the kernel does not keep
// the graph's tensor. `plain` (a memory over the constant) is read only for the first layout;
// later ones are reordered from the first packed copy. Not thread-safe: call under the
// variants' lock. Throws dnnl::error.
class PackedWeights {
 public:
  bool empty() const { return packed_.empty(); }
  dnnl::memory Get(const dnnl::memory& plain, const dnnl::memory::desc& desc,
                   const dnnl::engine& engine);

 private:
  std::vector<dnnl::memory> packed_;
};

}  // namespace ios

// A deterministic, roofline-style model of named GPUs (`sim:V100`, `sim:A100`, `sim:H100`): stage
// latencies without a GPU, for planning, tests and CI. It ranks schedules the way the IOS paper
// explains them (small kernels leave the GPU idle; concurrent kernels fill it; large kernels
// contend); it is not a substitute for measuring on the device.
//
// ---- One kernel ------------------------------------------------------------------------------
// Every op is one kernel (as the runtime runs it: a unit's folded Sum and a Concat are kernels of
// their own). With F its FLOPs and B its bytes (OpCost from the op registry: every input, weights
// included, plus every output) and W its parallel work (below):
//     compute demand   c = F / (peak_flops · compute_efficiency)         [ms at full-GPU rate]
//     memory demand    m = B / (mem_bandwidth · memory_efficiency)
//     utilisation      u(W) = 1 − exp(−W / (SMs · threads_per_SM · work_per_thread))
//     kernel time      t = launch + max(c, m) / u(W)
// u grows linearly for small kernels (W threads' worth of work can keep only that many lanes and
// memory requests in flight), is 63% when W equals the resident-thread capacity, 95% at three
// times it, and saturates at 1: a small kernel cannot fill the GPU however fast its arithmetic.
// Parallel work W:
//   - Conv/ConvTranspose: output elements (cuDNN parallelises over outputs);
//   - Gemm/MatMul: output elements × min(K, 32), K = F / (2 · outputs): GEMV-like kernels spread
//     the reduction over a warp when there are few outputs;
//   - everything else (memory-bound): max(output elements, largest input's elements / 4), so a
//     reduction (GlobalAveragePool) is parallel over its input, not over its few outputs.
// t is monotone: more FLOPs or bytes at the same W never make a kernel faster, and more outputs
// at the same work per output never do either.
//
// ---- A stage ---------------------------------------------------------------------------------
// A group runs its kernels one after another: T_g = Σ t_k, C_g = Σ c_k, M_g = Σ m_k.
// Concurrent groups (one stream each) overlap, bounded by the GPU's total compute and memory:
//     T = max( max_g T_g,  launch + Σ_g C_g,  launch + Σ_g M_g )
//         + contention · (Σ_g T_g − max_g T_g) + (groups − 1) · stream_sync
// So two small kernels (u ≪ 1) take about as long as the larger one, two saturating kernels
// (u ≈ 1) about the sum of both. `contention` is the resource contention the IOS paper observes
// (§1, Figure 2: the greedy schedule's crowded first stage; §7: fewer concurrent operators win at
// batch 32): concurrent kernels share the L2, the memory controllers and the block scheduler, so
// every group but the longest adds a share of its own time. `stream_sync` charges the fork/join
// events of each extra stream. One group is exactly the sum of its kernels.
// A merge stage (strategy kMerge, CanMergeStage checked) is one conv with the merged kernel
// (merge_shape.h): F = 2 · N·M·OH·OW · C·kh·kw (+ bias and activation per output), recomputed for
// the zero-padded kernels; B = input once + merged weights + bias + output; W = N·M·OH·OW; then
// the Split that hands each original conv its channels (a copy: B = 2 · output bytes).
//
// ---- Constants (datasheet figures; fp32 CUDA cores, no tensor cores) -------------------------
//   V100 (Tesla V100 SXM2, sm_70): 80 SMs, 5120 FP32 lanes, 1530 MHz boost → 15.7 TFLOP/s;
//        HBM2 900 GB/s. Sources: NVIDIA Tesla V100 datasheet / Volta whitepaper; Cornell CVW
//        "GPU Example: Tesla V100" (5120 × 2 × 1.53 GHz ≈ 15.7 TFLOP/s); the IOS paper (§1)
//        quotes the same 15.7 TFLOP/s.
//   A100 (A100 SXM4 40 GB, sm_80): 108 SMs, 19.5 TFLOP/s FP32, HBM2 1555 GB/s. Sources: NVIDIA
//        A100 datasheet and Ampere whitepaper (as summarised at
//        glennklockwood.com/garden/processors/A100); the IOS paper (§1) quotes 19.5 TFLOP/s.
//   H100 (H100 SXM5 80 GB, sm_90): 132 SMs, 66.9 TFLOP/s FP32 (non-tensor, 1.98 GHz),
//        HBM3 3350 GB/s. Sources: NVIDIA H100 datasheet and Hopper whitepaper (as summarised at
//        glennklockwood.com/garden/processors/h100: "FP32 66.9"; the PCIe card is 51 TFLOP/s,
//        2000 GB/s and is not modelled).
//   threads_per_SM = 2048 on all three (CUDA C Programming Guide, "maximum number of resident
//        threads per SM", compute capabilities 7.0, 8.0, 9.0).
// Modelling choices (estimates, not datasheet values; change them and cached timings from
// `sim:` sources become stale):
//   compute_efficiency 0.70: cuDNN's fp32 implicit-GEMM convs reach roughly 70% of peak when
//        the GPU is full; memory_efficiency 0.85: STREAM-like copies reach ~85% of HBM peak.
//   work_per_thread 1: one output element per resident thread fills the GPU's latency hiding.
//   launch: 3.0 µs (V100), 2.5 µs (A100), 2.0 µs (H100) between dependent kernels on one stream
//        (a few µs per launch is the usual measurement; replay from a CUDA Graph is at the low
//        end, the newer GPUs and drivers lower still).
//   stream_sync 1.0 µs per extra concurrent group (event record + wait on fork and join).
//   contention 0.10: with it, a greedy schedule of Inception V3 at batch 32 is slightly slower
//        than the sequential one on sim:V100 while still 1.5x faster at batch 1; without it the
//        model would never prefer fewer concurrent groups.
// Known limits: no cache model (merging convs that share an input saves only the input's second
// read, so the model does not reproduce the paper's batch-32 preference for merging Inception's
// 1x3 and 3x1 convs); no per-algorithm cuDNN behaviour; fp32 only (FP16/tensor cores would need
// other peaks); one kernel per op. A kernel far below the GPU's capacity runs at the speed of the
// SMs it occupies, so on tiny kernels the model puts an A100 (64 FP32 lanes per SM at 1.41 GHz)
// slightly behind a V100 (64 lanes at 1.53 GHz): Inception V3's last block at batch 1 is
// 0.61 ms vs 0.58 ms sequentially.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sched/stage_cost_source.h"

namespace ios {

struct GpuSpec {
  std::string name;     // "V100": the model's name, as in `sim:V100`
  std::string product;  // "Tesla V100-SXM2"
  int compute_major = 0;
  int compute_minor = 0;
  int multiprocessors = 0;
  int threads_per_sm = 0;     // maximum resident threads per SM
  double peak_flops = 0;      // fp32 FLOP/s, an FMA counting 2
  double mem_bandwidth = 0;   // bytes/s
  double launch_us = 0;       // per kernel
  double stream_sync_us = 0;  // per concurrent group beyond the first
  double compute_efficiency = 0;
  double memory_efficiency = 0;
  double work_per_thread = 1;  // parallel work per resident thread at which u = 63%
  double contention = 0;       // share of each other group's time added to a concurrent stage
};

// The GPUs the model knows, in a fixed order.
const std::vector<GpuSpec>& KnownGpus();

// One kernel's estimate.
struct KernelEstimate {
  double flops = 0;
  double bytes = 0;
  double parallel_work = 0;
  double utilisation = 0;
  double compute_ms = 0;  // demand at full-GPU rate
  double memory_ms = 0;   // demand at full-GPU rate
  double time_ms = 0;     // launch + max(compute, memory) / utilisation
};

class AnalyticCostSource : public StageCostSource {
 public:
  explicit AnalyticCostSource(GpuSpec spec) : spec_(std::move(spec)) {}

  StatusOr<double> StageLatencyMs(const Graph& graph, const UnitGraph& units,
                                  const StageCandidate& stage) override;
  std::string Name() const override { return "sim:" + spec_.name; }
  // kind "sim", sim_model = the name; gpu_name, compute capability and SMs of the modelled GPU.
  DeviceFingerprint Fingerprint() const override;

  const GpuSpec& spec() const { return spec_; }
  // u(W) of the model.
  double Utilisation(double parallel_work) const;
  KernelEstimate EstimateKernel(double flops, double bytes, double parallel_work) const;
  // The kernel of one op of `graph` (shapes inferred).
  KernelEstimate EstimateNode(const Graph& graph, NodeId node) const;

 private:
  StatusOr<double> ConcurrentLatencyMs(const Graph& graph, const UnitGraph& units,
                                       const StageCandidate& stage) const;
  StatusOr<double> MergeLatencyMs(const Graph& graph, const UnitGraph& units,
                                  const StageCandidate& stage) const;

  // The estimate of an op, from the cache when its fingerprint is unchanged.
  const KernelEstimate& CachedEstimate(const Graph& graph, NodeId node) const;

  GpuSpec spec_;
  // Per-op estimates of the graph last seen, by op id. An entry is used only while the op's
  // fingerprint (type, opset, every input's and output's dtype and dims, attributes) is the one
  // it was computed for, so another graph at the same address, or a graph changed in place, is
  // never answered stale. A search asks for tens of thousands of stages over a few hundred
  // ops; this saves re-deriving each op's cost every time. Not thread-safe (nor is the rest).
  struct CachedKernel {
    uint64_t fingerprint = 0;
    bool valid = false;
    KernelEstimate estimate;
  };
  mutable std::vector<CachedKernel> kernels_;
};

// `name` is a known GPU's name, case-insensitive ("V100", "a100"); the error lists the names.
StatusOr<std::unique_ptr<AnalyticCostSource>> MakeAnalyticCostSource(const std::string& name);

}  // namespace ios

// Runs a loaded plan on the CPU: one arena from the memory plan, one kernel per op (weights
// prepacked once), the schedule lowered once into per-stream commands, and a pool of stream
// threads that execute them.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "plan/plan_loader.h"
#include "runtime/command_list.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "runtime/executor.h"
#include "runtime/node_buffers.h"
#include "util/status.h"

namespace ios {

struct CpuSessionOptions {
  int threads = 0;      // cores to use in all; 0 = every core of the machine
  int max_streams = 0;  // 0 = one per group of the widest stage, capped at `threads`
  // The arena must fit in this before it is allocated: -1 = the machine's available memory,
  // 0 = no check (util/memory_info.h).
  int64_t memory_limit_bytes = -1;
  // Caps every op's OpenMP team (0 = no cap). 1 runs each op on its stream's thread alone,
  // which the ThreadSanitizer test needs: TSAN cannot see OpenMP's own synchronisation.
  int max_threads_per_op = 0;
  // Check that the command list orders every two ops that touch the same bytes
  // (runtime/plan_ordering.h) before the first run.
  bool check_ordering = true;
};

class CpuSession : public OpRunner {
 public:
  static StatusOr<std::unique_ptr<CpuSession>> Create(LoadedPlan plan,
                                                      const CpuSessionOptions& options);
  ~CpuSession() override;

  // Checks count, dtype and shape against the plan's inputs, then copies them into the arena.
  Status SetInputs(const std::vector<Tensor>& inputs);
  // Runs the schedule on the inputs SetInputs last copied in (plans from this version keep them
  // intact, so Run may be called again on the same inputs).
  Status Run();
  // The same, recording every command's times into `trace` (runtime/run_trace.h).
  Status Run(RunTrace* trace);
  std::vector<Tensor> GetOutputs() const;

  // The plan's graph, less the bytes of the constants that every kernel reading them copied when
  // it was made (prepacked conv and GEMM weights, their biases): those values no longer hold a
  // constant, so that the session holds the model's weights once.
  const Graph& graph() const { return plan_.graph; }
  int64_t released_constant_bytes() const { return released_constant_bytes_; }
  const Schedule& schedule() const { return plan_.schedule; }
  const plan::Plan& meta() const { return plan_.meta; }
  const CommandList& commands() const { return commands_; }
  int64_t batch() const { return plan_.meta.batch(); }
  // Per NodeId: how its kernel runs it (runtime/kernel_path.h; skipped nodes: own kernel).
  const std::vector<KernelPath>& kernel_paths() const { return kernel_paths_; }

  Status RunOp(NodeId op, int threads) override;

 private:
  CpuSession() = default;
  Status Init(const CpuSessionOptions& options);
  // Frees a constant's bytes and the pointers to them (every reader's kernel copied it).
  void ReleaseConstant(ValueId value);
  void* ValuePointer(ValueId value) const { return value_ptr_[value]; }

  LoadedPlan plan_;
  std::unique_ptr<uint8_t, void (*)(void*)> arena_{nullptr, nullptr};
  std::vector<void*> value_ptr_;  // per ValueId: in the arena, or the constant's data
  std::vector<std::unique_ptr<CpuKernel>> kernels_;  // per NodeId
  std::vector<KernelPath> kernel_paths_;             // per NodeId
  std::vector<NodeBuffers> op_buffers_;              // per NodeId, resolved once
  std::vector<bool> redundant_;  // per NodeId: skipped, its slices are views (plan/tensor_views.h)
  CommandList commands_;
  std::unique_ptr<StreamExecutor> executor_;
  int max_threads_per_op_ = 0;
  int64_t released_constant_bytes_ = 0;
};

}  // namespace ios

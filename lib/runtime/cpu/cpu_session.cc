#include "runtime/cpu/cpu_session.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <thread>

#include "plan/tensor_views.h"
#include "runtime/cpu/cpu_threading.h"
#include "runtime/plan_ordering.h"
#include "runtime/session_inputs.h"
#include "util/memory_info.h"

namespace ios {

StatusOr<std::unique_ptr<CpuSession>> CpuSession::Create(LoadedPlan plan,
                                                         const CpuSessionOptions& options) {
  std::unique_ptr<CpuSession> session(new CpuSession());
  session->plan_ = std::move(plan);
  IOS_RETURN_IF_ERROR(session->Init(options));
  return session;
}

CpuSession::~CpuSession() = default;

Status CpuSession::Init(const CpuSessionOptions& options) {
  const Graph& graph = plan_.graph;
  const MemoryPlan& memory = plan_.memory;
  max_threads_per_op_ = options.max_threads_per_op;
  // Never more than OpenMP's thread limit: the concurrent streams' teams together must get
  // every thread they ask for (cpu_threading.h).
  int threads = ClampThreads(
      options.threads > 0 ? options.threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  // The arena: aligned for vector loads; at least one alignment unit so that it is never null.
  const size_t alignment = static_cast<size_t>(std::max<int64_t>(memory.alignment, 64));
  if (memory.arena_bytes < 0 ||
      memory.arena_bytes > std::numeric_limits<int64_t>::max() - static_cast<int64_t>(alignment))
    return InvalidInput("the plan's arena size " + std::to_string(memory.arena_bytes) +
                        " is not a size");
  IOS_RETURN_IF_ERROR(CheckFitsInMemory(memory.arena_bytes, options.memory_limit_bytes,
                                        "the plan's arena",
                                        "iosrun --memory-limit-mb raises the limit"));
  size_t bytes = static_cast<size_t>(memory.arena_bytes);
  bytes = std::max(alignment, (bytes + alignment - 1) / alignment * alignment);
  arena_ = std::unique_ptr<uint8_t, void (*)(void*)>(
      static_cast<uint8_t*>(std::aligned_alloc(alignment, bytes)), std::free);
  if (!arena_)
    return InvalidInput("cannot allocate the plan's " + std::to_string(bytes) + "-byte arena");
  std::memset(arena_.get(), 0, bytes);

  value_ptr_.assign(graph.values.size(), nullptr);
  for (const TensorPlacement& p : memory.placements) value_ptr_[p.value] = arena_.get() + p.offset;
  for (size_t v = 0; v < graph.values.size(); ++v) {
    const Value& value = graph.values[v];
    if (value.constant) value_ptr_[v] = const_cast<uint8_t*>(value.constant->raw());
  }

  // Each op's buffers, resolved once so that running an op does no lookups.
  IOS_ASSIGN_OR_RETURN(op_buffers_, ResolveNodeBuffers(graph, value_ptr_));
  const std::vector<std::vector<bool>> in_place = SlicesInPlace(graph, memory);
  redundant_ = OpsMadeRedundantByViews(in_place);
  const std::vector<int64_t> value_strides = BatchStridesOfValues(graph, memory);
  // A constant is freed as soon as every op reading it has a kernel that copied it (prepacked
  // weights), so that the weights are never all held twice: per constant, the reads left.
  std::vector<int> reads_left(graph.values.size(), 0);
  for (const Node& node : graph.nodes)
    if (!node.dead)
      for (ValueId in : node.inputs)
        if (in != kNoValue && graph.values[in].constant) ++reads_left[in];
  for (ValueId out : graph.outputs) reads_left[out] = -1;  // GetOutputs reads them
  kernels_.resize(graph.nodes.size());
  kernel_paths_.assign(graph.nodes.size(), KernelPath::kOwnKernel);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    if (node.dead) continue;
    CpuKernelContext context = MakeCpuKernelContext(graph, node);
    IOS_ASSIGN_OR_RETURN(context.batch_strides,
                         BatchStridesOfNode(graph, static_cast<NodeId>(n), value_strides,
                                            in_place[n], CpuKernelCaps()));
    if (!redundant_[n]) {  // else skipped at run time: no kernel needed
      IOS_ASSIGN_OR_RETURN(kernels_[n], CreateCpuKernel(context));
      kernel_paths_[n] = CpuKernelPathOf(*kernels_[n]);
    }
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const ValueId in = node.inputs[i];
      if (in == kNoValue || reads_left[in] <= 0) continue;
      if (!kernels_[n] || !kernels_[n]->CopiedConstantInput(i)) {
        reads_left[in] = -1;  // read where it lives: kept
      } else if (--reads_left[in] == 0) {
        ReleaseConstant(in);
      }
    }
  }
  if (released_constant_bytes_ > 0) ReleaseFreedMemory();  // glibc keeps the smaller ones

  int max_streams = options.max_streams > 0 ? options.max_streams : threads;
  IOS_ASSIGN_OR_RETURN(commands_, LowerToCommands(graph, plan_.schedule, max_streams, threads));
  if (options.check_ordering)
    IOS_RETURN_IF_ERROR(CheckPlanOrdering(graph, commands_, plan_.memory));
  executor_ = std::make_unique<StreamExecutor>(static_cast<int>(commands_.streams.size()));
  return Status::Ok();
}

void CpuSession::ReleaseConstant(ValueId v) {
  Graph& graph = plan_.graph;
  Value& value = graph.values[v];
  // No pointer to the freed bytes is left behind.
  value_ptr_[v] = nullptr;
  for (NodeId n : value.consumers)
    for (size_t i = 0; i < graph.nodes[n].inputs.size(); ++i)
      if (graph.nodes[n].inputs[i] == v && i < op_buffers_[n].inputs.size())
        op_buffers_[n].inputs[i] = nullptr;
  released_constant_bytes_ += static_cast<int64_t>(value.constant->num_bytes());
  value.constant.reset();
}

Status CpuSession::SetInputs(const std::vector<Tensor>& inputs) {
  const Graph& graph = plan_.graph;
  IOS_RETURN_IF_ERROR(CheckSessionInputs(graph, inputs));
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::memcpy(value_ptr_[graph.inputs[i]], inputs[i].raw(), inputs[i].num_bytes());
  }
  return Status::Ok();
}

Status CpuSession::Run() { return Run(nullptr); }

Status CpuSession::Run(RunTrace* trace) {
  return executor_->Run(commands_, *this, trace, OriginForCaller());
}

std::vector<Tensor> CpuSession::GetOutputs() const {
  std::vector<Tensor> outputs;
  for (ValueId id : plan_.graph.outputs) {
    const Value& value = plan_.graph.values[id];
    Tensor t(value.dtype, value.dims);
    if (t.num_bytes() > 0) std::memcpy(t.raw(), value_ptr_[id], t.num_bytes());
    outputs.push_back(std::move(t));
  }
  return outputs;
}

Status CpuSession::RunOp(NodeId op, int threads) {
  if (redundant_[op]) return Status::Ok();  // a Concat or Split whose slices are views
  const NodeBuffers& buffers = op_buffers_[op];
  if (max_threads_per_op_ > 0) threads = std::min(threads, max_threads_per_op_);
  Status status = kernels_[op]->Run(buffers.inputs, buffers.outputs, threads);
  if (status.ok()) return status;  // the node's description is for errors only
  return status.WithContext(plan_.graph.Describe(op));
}

}  // namespace ios

// iosc's CUDA steps, built only with the CUDA backend (IOS_HAVE_CUDA): the target's fingerprint,
// the refusal of ops the backend cannot run, the stage profiler, and the per-plan conv
// algorithm selection.
#pragma once

#include <memory>

#include "sched/stage_cost_source.h"
#include "compile/pipeline_options.h"
#include "iosplan.pb.h"
#include "ir/graph.h"
#include "plan/memory_plan.h"
#include "util/status.h"

namespace ios {

// The fingerprint of CUDA device `ordinal`, or InvalidInput "no CUDA device ..." without one.
StatusOr<plan::DeviceFingerprint> CudaTargetFingerprint(int ordinal);

// Unsupported naming every node (name and op) the CUDA backend has no kernel for.
Status CheckGraphRunsOnCuda(const Graph& graph);

// The CUDA stage profiler for the IOS search, with every node's kernel created up front, so
// that a node the backend refuses (its attributes or dtype) stops iosc before any measurement.
StatusOr<std::unique_ptr<StageCostSource>> MakeCudaCostSource(const PipelineOptions& options,
                                                              const Graph& graph);

// The plan's CUDA options: --tf32 and, with conv_algorithms "measure", the measured algorithm of
// every conv of the final graph, each measured on tensors laid out as `memory` places them.
// With "heuristic" (the default) no algorithm is recorded and the runtime takes cuDNN's
// heuristic choice, as the stage profiler does (docs/gpu-performance.md has why).
StatusOr<plan::CudaOptions> SelectCudaConvAlgorithms(const PipelineOptions& options, const Graph& graph,
                                                     const MemoryPlan& memory);

}  // namespace ios

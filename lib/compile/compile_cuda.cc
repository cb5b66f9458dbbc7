#include "compile/compile_cuda.h"

#include <algorithm>
#include <string>

#include "profile/cuda/conv_algorithm_selection.h"
#include "runtime/cuda/cuda_device.h"
#include "runtime/cuda/cuda_fingerprint.h"
#include "runtime/cuda/cuda_session.h"
#include "profile/cuda/cuda_stage_profiler.h"
#include "util/device_name.h"

namespace ios {

StatusOr<plan::DeviceFingerprint> CudaTargetFingerprint(int ordinal) {
  IOS_ASSIGN_OR_RETURN(CudaDeviceInfo info, QueryCudaDevice(ordinal));
  return CudaFingerprint(info);
}

Status CheckGraphRunsOnCuda(const Graph& graph) { return CheckCudaSupportsGraph(graph); }

StatusOr<std::unique_ptr<StageCostSource>> MakeCudaCostSource(const PipelineOptions& options,
                                                              const Graph& graph) {
  CudaProfilerOptions profiler;
  profiler.device = CudaOrdinalOf(options.device);
  if (options.profile_warmup >= 0) profiler.warmup_launches = options.profile_warmup;
  profiler.repeats = options.profile_repeats;
  // --profile-repeats below the profiler's minimum lowers the minimum with it.
  profiler.min_repeats = std::max(1, std::min(profiler.min_repeats, profiler.repeats));
  if (options.max_streams > 0) profiler.max_streams = options.max_streams;
  profiler.allow_tf32 = options.tf32;
  IOS_ASSIGN_OR_RETURN(std::unique_ptr<CudaStageProfiler> source,
                       CudaStageProfiler::Create(profiler));
  IOS_RETURN_IF_ERROR(source->PrepareGraph(graph));
  return std::unique_ptr<StageCostSource>(std::move(source));
}

StatusOr<plan::CudaOptions> SelectCudaConvAlgorithms(const PipelineOptions& options, const Graph& graph,
                                                     const MemoryPlan& memory) {
  if (options.conv_algorithms == ConvAlgorithms::kHeuristic) {
    plan::CudaOptions cuda;
    cuda.set_allow_tf32(options.tf32);
    return cuda;  // no recorded algorithm: the runtime asks cuDNN's heuristic for each conv
  }
  ConvAlgorithmSelectionOptions selection;
  selection.device = CudaOrdinalOf(options.device);
  selection.allow_tf32 = options.tf32;
  return SelectConvAlgorithms(graph, memory, selection);
}

}  // namespace ios

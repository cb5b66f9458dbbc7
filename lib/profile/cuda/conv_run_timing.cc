#include "profile/cuda/conv_run_timing.h"

#include <string>

#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/kernels/cuda_kernel.h"
#include "util/latency_stats.h"

namespace ios {

StatusOr<std::unique_ptr<ConvRunTimer>> ConvRunTimer::Create() {
  std::unique_ptr<ConvRunTimer> timer(new ConvRunTimer());
  IOS_CUDA_RETURN_IF_ERROR(cudaEventCreate(&timer->start_));  // timing enabled
  IOS_CUDA_RETURN_IF_ERROR(cudaEventCreate(&timer->stop_));
  IOS_ASSIGN_OR_RETURN(timer->blocker_, StreamBlocker::Create());
  return timer;
}

ConvRunTimer::~ConvRunTimer() {
  blocker_.reset();  // releases and waits for its stream first
  if (start_ != nullptr) cudaEventDestroy(start_);
  if (stop_ != nullptr) cudaEventDestroy(stop_);
}

StatusOr<double> ConvRunTimer::Time(const Graph& graph, NodeId conv,
                                    const WindowBatchStrides& strides,
                                    const plan::ConvAlgorithm& algorithm, bool allow_tf32,
                                    CudaStreamSet& streams, const ConvRunBuffers& buffers,
                                    const ConvRunTimingOptions& options) {
  if (options.samples < 1 || options.warmup_runs < 1)
    return Internal("conv run timing needs a warm-up run and a sample");
  const Node& node = graph.nodes[static_cast<size_t>(conv)];
  // As CudaSession::CreateKernels makes it.
  CudaKernelContext context = MakeCudaKernelContext(graph, node);
  context.conv_algorithm = &algorithm;
  context.allow_tf32 = allow_tf32;
  context.batch_strides.inputs.assign(node.inputs.size(), 0);
  context.batch_strides.outputs.assign(node.outputs.size(), 0);
  if (!context.batch_strides.inputs.empty()) context.batch_strides.inputs[0] = strides.x;
  if (!context.batch_strides.outputs.empty()) context.batch_strides.outputs[0] = strides.y;
  context.cudnn = streams.stream(0).cudnn;
  IOS_ASSIGN_OR_RETURN(std::unique_ptr<CudaKernel> kernel, CreateCudaKernel(context));
  IOS_RETURN_IF_ERROR(streams.Reserve(1, 0, kernel->WorkspaceBytes()));
  const CudaStreamContext& stream = streams.stream(0);

  const std::vector<const void*> inputs = {buffers.x, buffers.w, buffers.bias};
  const std::vector<void*> outputs = {buffers.y};
  auto enqueue = [&]() { return kernel->Enqueue(inputs, outputs, stream); };
  for (int i = 0; i < options.warmup_runs; ++i) IOS_RETURN_IF_ERROR(enqueue());
  IOS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream.stream));

  std::vector<double> samples;
  // Should a library call wait on the held stream from the host, the blocker times out and the
  // sample holds that wait: it is taken again without the blocker (then the host's enqueue rate
  // can show in it, as in a session without its CUDA Graph).
  bool hold = true;
  while (static_cast<int>(samples.size()) < options.samples) {
    bool timed_out = false;
    IOS_ASSIGN_OR_RETURN(const double ms,
                         TimeHeldRuns(hold ? blocker_.get() : nullptr, stream.stream, start_,
                                      stop_, options.runs_per_sample, enqueue, &timed_out));
    if (timed_out) {
      hold = false;
      continue;
    }
    samples.push_back(ms);
  }
  // The kernel (and its descriptors) go with this scope: nothing of it may still be queued.
  IOS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream.stream));
  return RobustMedian(std::move(samples));
}

}  // namespace ios

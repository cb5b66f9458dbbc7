#include "runtime/cuda/cuda_replay.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "runtime/cuda/cuda_check.h"
#include "runtime/issue_order.h"

namespace ios {
namespace {

// The issue order's commands as CUDA calls on the set's streams and events.
class CudaCommandSink : public CommandSink {
 public:
  CudaCommandSink(CudaStreamSet& streams, CudaOpLauncher& ops) : streams_(streams), ops_(ops) {}

  Status RunOp(int stream, NodeId op) override { return ops_.Enqueue(op, streams_.stream(stream)); }
  Status RecordEvent(int stream, int event) override {
    IOS_CUDA_RETURN_IF_ERROR(
        cudaEventRecord(streams_.event(event), streams_.stream(stream).stream));
    return Status::Ok();
  }
  Status WaitEvent(int stream, int event) override {
    IOS_CUDA_RETURN_IF_ERROR(
        cudaStreamWaitEvent(streams_.stream(stream).stream, streams_.event(event), 0));
    return Status::Ok();
  }

 private:
  CudaStreamSet& streams_;
  CudaOpLauncher& ops_;
};

// The set must have a stream for every stream of the list and an event for every event.
Status CheckResources(const CommandList& commands, const CudaStreamSet& streams) {
  if (static_cast<int>(commands.streams.size()) > streams.num_streams() ||
      commands.num_events > streams.num_events()) {
    return Internal("the command list needs " + std::to_string(commands.streams.size()) +
                    " stream(s) and " + std::to_string(commands.num_events) +
                    " event(s); the CUDA stream set has " + std::to_string(streams.num_streams()) +
                    " and " + std::to_string(streams.num_events()));
  }
  return Status::Ok();
}

Status IssueInOrder(const std::vector<IssuedCommand>& order, CommandSink& sink) {
  for (const IssuedCommand& issued : order) {
    const Command& command = issued.command;
    switch (command.kind) {
      case CommandKind::kRunOp:
        IOS_RETURN_IF_ERROR(sink.RunOp(issued.stream, command.op));
        break;
      case CommandKind::kRecordEvent:
        IOS_RETURN_IF_ERROR(sink.RecordEvent(issued.stream, command.event));
        break;
      case CommandKind::kWaitEvent:
        IOS_RETURN_IF_ERROR(sink.WaitEvent(issued.stream, command.event));
        break;
    }
  }
  return Status::Ok();
}

// After a failed capture: every stream of the set must have left capture mode, or none of them
// can be used again (their work would be captured into a sequence that no longer ends).
Status CheckNoStreamCapturing(const CudaStreamSet& streams) {
  for (int s = 0; s < streams.num_streams(); ++s) {
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    IOS_CUDA_RETURN_IF_ERROR(cudaStreamIsCapturing(streams.stream(s).stream, &capture));
    if (capture != cudaStreamCaptureStatusNone)
      return Internal("stream " + std::to_string(s) + " is still in capture mode after a " +
                      "failed capture");
  }
  return Status::Ok();
}

void LogGraphReleaseFailure(cudaError_t error, const char* call) {
  Status status = CudaStatus(error, call, __FILE__, __LINE__);
  if (!status.ok()) spdlog::warn("releasing a CUDA graph: {}", status.message());
}

// Timing events, destroyed with the holder.
class TimingEvents {
 public:
  ~TimingEvents() {
    for (cudaEvent_t event : events_)
      LogGraphReleaseFailure(cudaEventDestroy(event), "cudaEventDestroy");
  }
  StatusOr<cudaEvent_t> Record(cudaStream_t stream) {
    cudaEvent_t event = nullptr;
    IOS_CUDA_RETURN_IF_ERROR(cudaEventCreate(&event));  // timing enabled
    events_.push_back(event);
    IOS_CUDA_RETURN_IF_ERROR(cudaEventRecord(event, stream));
    return event;
  }

 private:
  std::vector<cudaEvent_t> events_;
};

}  // namespace

Status TraceCommands(const CommandList& commands, CudaStreamSet& streams, CudaOpLauncher& ops,
                     RunTrace* trace) {
  if (trace == nullptr) return Internal("TraceCommands without a trace");
  IOS_ASSIGN_OR_RETURN(std::vector<IssuedCommand> order, IssueOrder(commands));
  IOS_RETURN_IF_ERROR(CheckResources(commands, streams));
  TimingEvents events;
  trace->streams.assign(commands.streams.size(), {});
  trace->begin_ns = TraceClockNs();
  // Every stream starts after `start`, so that no event can complete before it.
  IOS_ASSIGN_OR_RETURN(cudaEvent_t start, events.Record(streams.origin()));
  for (size_t s = 1; s < commands.streams.size(); ++s)
    IOS_CUDA_RETURN_IF_ERROR(
        cudaStreamWaitEvent(streams.stream(static_cast<int>(s)).stream, start, 0));
  CudaCommandSink sink(streams, ops);
  struct Pending {
    int stream;
    Command command;
    cudaEvent_t begin;
    cudaEvent_t end;
  };
  std::vector<Pending> pending;
  pending.reserve(order.size());
  for (const IssuedCommand& issued : order) {
    const cudaStream_t stream = streams.stream(issued.stream).stream;
    IOS_ASSIGN_OR_RETURN(cudaEvent_t begin, events.Record(stream));
    const Command& command = issued.command;
    switch (command.kind) {
      case CommandKind::kRunOp:
        IOS_RETURN_IF_ERROR(sink.RunOp(issued.stream, command.op));
        break;
      case CommandKind::kRecordEvent:
        IOS_RETURN_IF_ERROR(sink.RecordEvent(issued.stream, command.event));
        break;
      case CommandKind::kWaitEvent:
        IOS_RETURN_IF_ERROR(sink.WaitEvent(issued.stream, command.event));
        break;
    }
    cudaEvent_t end = begin;
    if (command.kind != CommandKind::kRecordEvent) {
      IOS_ASSIGN_OR_RETURN(end, events.Record(stream));
    }
    pending.push_back({issued.stream, command, begin, end});
  }
  for (size_t s = 0; s < commands.streams.size(); ++s)
    IOS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(streams.stream(static_cast<int>(s)).stream));
  int64_t last_ns = trace->begin_ns;
  for (const Pending& p : pending) {
    float begin_ms = 0, end_ms = 0;
    IOS_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&begin_ms, start, p.begin));
    IOS_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&end_ms, start, p.end));
    TraceSpan span;
    span.kind = p.command.kind;
    span.op = p.command.op;
    span.event = p.command.event;
    span.threads = 1;
    span.begin_ns = trace->begin_ns + static_cast<int64_t>(static_cast<double>(begin_ms) * 1e6);
    span.end_ns = trace->begin_ns + static_cast<int64_t>(static_cast<double>(end_ms) * 1e6);
    last_ns = std::max(last_ns, span.end_ns);
    trace->streams[static_cast<size_t>(p.stream)].push_back(span);
  }
  trace->end_ns = last_ns;
  return Status::Ok();
}

Status ReplayCommands(const CommandList& commands, CudaStreamSet& streams, CudaOpLauncher& ops) {
  IOS_RETURN_IF_ERROR(CheckResources(commands, streams));
  CudaCommandSink sink(streams, ops);
  return IssueCommands(commands, sink);
}

// --- CudaGraphExec ----------------------------------------------------------------------------

CudaGraphExec::~CudaGraphExec() {
  if (exec_ != nullptr) LogGraphReleaseFailure(cudaGraphExecDestroy(exec_), "cudaGraphExecDestroy");
  if (graph_ != nullptr) LogGraphReleaseFailure(cudaGraphDestroy(graph_), "cudaGraphDestroy");
}

CudaGraphExec::CudaGraphExec(CudaGraphExec&& other) noexcept
    : graph_(std::exchange(other.graph_, nullptr)), exec_(std::exchange(other.exec_, nullptr)) {}

CudaGraphExec& CudaGraphExec::operator=(CudaGraphExec&& other) noexcept {
  if (this != &other) {
    CudaGraphExec old(std::move(*this));  // destroys the current graph when it goes
    graph_ = std::exchange(other.graph_, nullptr);
    exec_ = std::exchange(other.exec_, nullptr);
  }
  return *this;
}

Status CudaGraphExec::Launch(cudaStream_t stream) const {
  if (exec_ == nullptr) return Internal("launching a CUDA graph that was never instantiated");
  IOS_CUDA_RETURN_IF_ERROR(cudaGraphLaunch(exec_, stream));
  return Status::Ok();
}

StatusOr<CudaGraphExec> CaptureCommands(const CommandList& commands, CudaStreamSet& streams,
                                        CudaOpLauncher& ops) {
  // A malformed list is refused here, before CUDA sees any of it: a stream that never joins
  // the capture, or is never joined back, would invalidate it.
  IOS_ASSIGN_OR_RETURN(std::vector<IssuedCommand> order, IssueOrder(commands));
  IOS_RETURN_IF_ERROR(CheckCaptureSequence(order, static_cast<int>(commands.streams.size())));
  IOS_RETURN_IF_ERROR(CheckResources(commands, streams));

  const cudaStream_t origin = streams.origin();
  // Thread-local mode: only this thread's potentially unsafe calls (cudaMalloc, synchronising
  // calls) are refused while it captures; other threads of the process are not affected.
  IOS_CUDA_RETURN_IF_ERROR(cudaStreamBeginCapture(origin, cudaStreamCaptureModeThreadLocal));
  CudaCommandSink sink(streams, ops);
  Status issued = IssueInOrder(order, sink);

  CudaGraphExec result;
  // The capture is ended in every case, so that the streams leave capture mode; on failure the
  // graph (null when the capture was invalidated) is discarded by `result`'s destructor.
  cudaError_t ended = cudaStreamEndCapture(origin, &result.graph_);
  if (!issued.ok() || ended != cudaSuccess || result.graph_ == nullptr) {
    // The failure goes back as a Status; clear the thread's last error so that a later kernel
    // launch, which checks cudaGetLastError, does not report it again.
    (void)cudaGetLastError();
    IOS_RETURN_IF_ERROR(CheckNoStreamCapturing(streams));
    if (!issued.ok()) return issued.WithContext("while capturing the command list");
    IOS_CUDA_RETURN_IF_ERROR(ended);
    return Internal("the CUDA stream capture was invalidated");
  }
  IOS_CUDA_RETURN_IF_ERROR(cudaGraphInstantiate(&result.exec_, result.graph_, 0));
  // Uploading now moves the one-time setup out of the first launch.
  IOS_CUDA_RETURN_IF_ERROR(cudaGraphUpload(result.exec_, origin));
  return result;
}

Status RunCommandsAndWait(const CommandList& commands, CudaStreamSet& streams,
                          CudaOpLauncher& ops) {
  IOS_RETURN_IF_ERROR(ReplayCommands(commands, streams, ops));
  for (int s = 0; s < streams.num_streams(); ++s)
    IOS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(streams.stream(s).stream));
  return Status::Ok();
}

StatusOr<CapturedCommands> RunOnceThenCapture(const CommandList& commands, CudaStreamSet& streams,
                                              CudaOpLauncher& ops) {
  IOS_RETURN_IF_ERROR(RunCommandsAndWait(commands, streams, ops)
                          .WithContext("running the command list once before capturing it"));
  CapturedCommands result;
  StatusOr<CudaGraphExec> graph = CaptureCommands(commands, streams, ops);
  if (graph.ok()) {
    result.graph = std::move(graph).value();
  } else {
    result.capture_status = graph.status();  // no stream is left capturing (CaptureCommands)
  }
  return result;
}

}  // namespace ios

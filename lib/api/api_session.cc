// ios::Session (include/ios/session.h): a plan opened on the CPU or a CUDA device
// (session/plan_session.h), behind one mutex: the arena serves one inference at a time.
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "api/api_plan.h"
#include "ios/session.h"
#include "plan/plan_io.h"
#include "session/plan_session.h"

namespace ios {
namespace {

// The public element types and ios's own, one to one.
constexpr std::pair<DataType, DType> kTypes[] = {
    {DataType::kFloat32, DType::kFloat32}, {DataType::kFloat16, DType::kFloat16},
    {DataType::kFloat64, DType::kFloat64}, {DataType::kInt8, DType::kInt8},
    {DataType::kUInt8, DType::kUint8},     {DataType::kInt32, DType::kInt32},
    {DataType::kInt64, DType::kInt64},     {DataType::kBool, DType::kBool},
};

DataType ToPublic(DType dtype) {
  for (const auto& [public_type, internal] : kTypes)
    if (internal == dtype) return public_type;
  return DataType::kUndefined;
}

DType ToInternal(DataType dtype) {
  for (const auto& [public_type, internal] : kTypes)
    if (public_type == dtype) return internal;
  return DType::kUndefined;
}

std::vector<TensorInfo> Describe(const Graph& graph, const std::vector<ValueId>& ids) {
  std::vector<TensorInfo> out;
  for (ValueId id : ids) {
    const Value& value = graph.values[id];
    TensorInfo info;
    info.name = value.name;
    info.dtype = ToPublic(value.dtype);
    info.dims = value.dims;
    info.bytes = static_cast<size_t>(ValueBytes(value));
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace

struct Session::Impl {
  std::mutex mutex;  // one inference at a time
  PlanSession session;
  std::vector<TensorInfo> inputs, outputs;
};

namespace {

PlanSessionOptions SessionOptionsOf(const SessionOptions& options) {
  PlanSessionOptions open;
  open.device = options.device;
  open.force = options.force;
  open.threads = options.threads;
  open.max_streams = options.max_streams;
  open.use_cuda_graph = options.use_cuda_graph;
  open.weights_model_path = options.weights_model_path;
  open.check_ordering = options.verify;
  return open;
}

std::unique_ptr<Session::Impl> Wrap(PlanSession session) {
  auto impl = std::make_unique<Session::Impl>();
  impl->session = std::move(session);
  impl->inputs = Describe(impl->session.graph(), impl->session.graph().inputs);
  impl->outputs = Describe(impl->session.graph(), impl->session.graph().outputs);
  return impl;
}

PlanVerify VerifyOf(const SessionOptions& options) {
  return options.verify ? PlanVerify::kCheck : PlanVerify::kSkip;
}

// Where each given input goes (graph input order) and each output comes from (the output's
// index), checked against the session's tensors: every input once, any output (a subset, in any order),
// each buffer exactly the tensor's size.
struct BufferMatch {
  std::vector<const void*> inputs;  // per graph input
  std::vector<std::pair<size_t, void*>> outputs;  // (graph output index, buffer)
};

StatusOr<BufferMatch> MatchBuffers(const Session::Impl& impl,
                                   const std::vector<InputBuffer>& inputs,
                                   const std::vector<OutputBuffer>& outputs) {
  BufferMatch match;
  for (const TensorInfo& info : impl.inputs) {
    const InputBuffer* given = nullptr;
    for (const InputBuffer& buffer : inputs) {
      if (buffer.name != info.name) continue;
      if (given != nullptr) return InvalidInput("input '" + info.name + "' is given twice");
      given = &buffer;
    }
    if (given == nullptr) return InvalidInput("input '" + info.name + "' is not given");
    if (given->bytes != info.bytes || (info.bytes > 0 && given->data == nullptr))
      return InvalidInput("input '" + info.name + "' needs " + std::to_string(info.bytes) +
                          " bytes, the buffer has " + std::to_string(given->bytes));
    match.inputs.push_back(given->data);
  }
  for (const InputBuffer& buffer : inputs) {
    bool known = false;
    for (const TensorInfo& info : impl.inputs) known |= info.name == buffer.name;
    if (!known) return InvalidInput("the plan has no input '" + buffer.name + "'");
  }
  for (const OutputBuffer& buffer : outputs) {
    size_t index = impl.outputs.size();
    for (size_t o = 0; o < impl.outputs.size(); ++o)
      if (impl.outputs[o].name == buffer.name) index = o;
    if (index == impl.outputs.size())
      return InvalidInput("the plan has no output '" + buffer.name + "'");
    const TensorInfo& info = impl.outputs[index];
    if (buffer.bytes != info.bytes || (info.bytes > 0 && buffer.data == nullptr))
      return InvalidInput("output '" + info.name + "' needs " + std::to_string(info.bytes) +
                          " bytes, the buffer has " + std::to_string(buffer.bytes));
    match.outputs.emplace_back(index, buffer.data);
  }
  return match;
}

}  // namespace

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;

StatusOr<std::unique_ptr<Session>> Session::Open(const std::string& plan_path,
                                                 const SessionOptions& options) {
  IOS_ASSIGN_OR_RETURN(PlanFile file, PlanFile::Open(plan_path, VerifyOf(options)));
  IOS_ASSIGN_OR_RETURN(PlanSession session,
                       OpenPlanSession(std::move(file), plan_path, SessionOptionsOf(options)));
  return std::unique_ptr<Session>(new Session(Wrap(std::move(session))));
}

StatusOr<std::unique_ptr<Session>> Session::FromBytes(const std::string& plan_bytes,
                                                      const SessionOptions& options) {
  IOS_ASSIGN_OR_RETURN(PlanFile file,
                       PlanFile::FromBytes(plan_bytes, "the plan's bytes", VerifyOf(options)));
  IOS_ASSIGN_OR_RETURN(
      PlanSession session,
      OpenPlanSession(std::move(file), "the plan's bytes", SessionOptionsOf(options)));
  return std::unique_ptr<Session>(new Session(Wrap(std::move(session))));
}

StatusOr<std::unique_ptr<Session>> Session::FromPlan(const Plan& plan,
                                                     const SessionOptions& options) {
  // A copy of the message: the Plan stays usable.
  IOS_ASSIGN_OR_RETURN(PlanSession session,
                       OpenPlanSession(PlanAccess::Of(plan).plan, "the compiled plan",
                                       SessionOptionsOf(options)));
  return std::unique_ptr<Session>(new Session(Wrap(std::move(session))));
}

const std::vector<TensorInfo>& Session::inputs() const { return impl_->inputs; }
const std::vector<TensorInfo>& Session::outputs() const { return impl_->outputs; }
std::string Session::device() const { return impl_->session.device; }
int64_t Session::batch() const { return impl_->session.batch(); }

Status Session::Run(const std::vector<InputBuffer>& inputs,
                    const std::vector<OutputBuffer>& outputs) {
  IOS_ASSIGN_OR_RETURN(BufferMatch match, MatchBuffers(*impl_, inputs, outputs));
  const Graph& graph = impl_->session.graph();
  std::vector<Tensor> tensors;
  tensors.reserve(match.inputs.size());
  for (size_t i = 0; i < match.inputs.size(); ++i) {
    const Value& value = graph.values[graph.inputs[i]];
    Tensor tensor(value.dtype, value.dims);
    if (tensor.num_bytes() > 0) std::memcpy(tensor.raw(), match.inputs[i], tensor.num_bytes());
    tensors.push_back(std::move(tensor));
  }

  std::lock_guard<std::mutex> lock(impl_->mutex);
  PlanSession& session = impl_->session;
  std::vector<Tensor> results;
#ifdef IOS_HAVE_CUDA
  if (session.cuda) {
    IOS_RETURN_IF_ERROR(session.cuda->SetInputs(tensors));
    IOS_RETURN_IF_ERROR(session.cuda->Run());
    IOS_ASSIGN_OR_RETURN(results, session.cuda->GetOutputs());
  }
#endif
  if (session.cpu) {
    IOS_RETURN_IF_ERROR(session.cpu->SetInputs(tensors));
    IOS_RETURN_IF_ERROR(session.cpu->Run());
    results = session.cpu->GetOutputs();
  }
  for (const auto& [index, data] : match.outputs) {
    const Tensor& result = results[index];
    if (result.num_bytes() != impl_->outputs[index].bytes)
      return Internal("output '" + impl_->outputs[index].name + "' came back with another size");
    if (result.num_bytes() > 0) std::memcpy(data, result.raw(), result.num_bytes());
  }
  return Status::Ok();
}

Status Session::RunOnDevice(const std::vector<InputBuffer>& inputs,
                            const std::vector<OutputBuffer>& outputs, void* cuda_stream) {
#ifdef IOS_HAVE_CUDA
  if (impl_->session.cuda) {
    IOS_ASSIGN_OR_RETURN(BufferMatch match, MatchBuffers(*impl_, inputs, outputs));
    std::lock_guard<std::mutex> lock(impl_->mutex);
    return impl_->session.cuda->RunOnStream(match.inputs, match.outputs,
                                            static_cast<cudaStream_t>(cuda_stream));
  }
#else
  (void)inputs;
  (void)outputs;
#endif
  (void)cuda_stream;
  return InvalidInput("RunOnDevice is for a session on a CUDA device; this one runs on " +
                      impl_->session.device + ": use Run with host buffers");
}

const char* DataTypeName(DataType dtype) {
  // ios's own names ("float32", ...), kept for the life of the program.
  static const std::map<DType, std::string> names = [] {
    std::map<DType, std::string> all;
    for (const auto& entry : kTypes) all[entry.second] = DTypeName(entry.second);
    all[DType::kUndefined] = DTypeName(DType::kUndefined);
    return all;
  }();
  return names.at(ToInternal(dtype)).c_str();
}

size_t DataTypeSize(DataType dtype) { return DTypeSize(ToInternal(dtype)); }

}  // namespace ios

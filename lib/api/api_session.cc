// ios::Session (include/ios/session.h): a loaded plan on the CPU (CpuSession) or a CUDA device
// (CudaSession), behind one mutex: the arena serves one inference at a time.
#include <spdlog/spdlog.h>

#include <cstring>
#include <map>
#include <optional>
#include <mutex>
#include <string>
#include <utility>

#include "api/api_plan.h"
#include "ios/session.h"
#include "plan/plan_info.h"
#include "plan/plan_io.h"
#include "plan/plan_loader.h"
#include "compile/weight_rebuild.h"
#include "runtime/cpu/cpu_device.h"
#include "runtime/cpu/cpu_session.h"
#include "util/device_name.h"
#include "util/memory_info.h"
#ifdef IOS_HAVE_CUDA
#include "runtime/cuda/cuda_device.h"
#include "runtime/cuda/cuda_fingerprint.h"
#include "runtime/cuda/cuda_session.h"
#endif

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

// A plan to load: from a file or bytes (weights read as it loads), or a compiled plan's message.
struct PlanSource {
  std::optional<PlanFile> file;
  std::optional<plan::Plan> message;
  const plan::Plan& plan() const { return file ? file->plan() : *message; }
};

}  // namespace

struct Session::Impl {
  std::mutex mutex;  // one inference at a time
  std::string device;
  std::unique_ptr<CpuSession> cpu;
#ifdef IOS_HAVE_CUDA
  std::unique_ptr<CudaSession> cuda;
#endif
  std::vector<TensorInfo> inputs, outputs;
  int64_t batch = 0;

  const Graph& graph() const {
#ifdef IOS_HAVE_CUDA
    if (cuda) return cuda->graph();
#endif
    return cpu->graph();
  }
};

namespace {

StatusOr<LoadedPlan> Load(PlanSource source, const std::string& name) {
  if (source.file) return LoadPlanFile(std::move(*source.file));
  return LoadPlan(std::move(*source.message), name);
}

void Warn(const std::vector<std::string>& warnings) {
  for (const std::string& warning : warnings) spdlog::warn("{}", warning);
}

StatusOr<std::unique_ptr<Session::Impl>> Create(PlanSource source, const std::string& name,
                                                const SessionOptions& options) {
  if (!options.weights_model_path.empty()) {
    if (!source.file) return InvalidInput("weights_model_path is for a weight-stripped plan file");
    IOS_RETURN_IF_ERROR(AttachModelWeights(*source.file, options.weights_model_path));
  }
  const plan::Plan& meta = source.plan();
  const std::string device = options.device.empty() ? meta.device().kind() : options.device;
  auto impl = std::make_unique<Session::Impl>();
  impl->batch = meta.batch();
  const int ordinal = CudaOrdinalOf(device);
  std::vector<std::string> warnings;
  if (ordinal >= 0) {
#ifdef IOS_HAVE_CUDA
    IOS_ASSIGN_OR_RETURN(CudaDeviceInfo info, QueryCudaDevice(ordinal));
    IOS_RETURN_IF_ERROR(CheckCudaFingerprint(meta.device(), CudaFingerprint(info), options.force,
                                             &warnings)
                            .WithContext(name));
    Warn(warnings);
    IOS_ASSIGN_OR_RETURN(LoadedPlan loaded, Load(std::move(source), name));
    CudaSessionOptions cuda;
    cuda.device = ordinal;
    cuda.use_cuda_graph = options.use_cuda_graph;
    cuda.max_streams = options.max_streams;
    IOS_ASSIGN_OR_RETURN(impl->cuda, CudaSession::Create(std::move(loaded), cuda));
    impl->device = "cuda:" + std::to_string(ordinal);
#else
    return InvalidInput("no CUDA device: this build of ios has no CUDA backend");
#endif
  } else if (device == "cpu" || device == "sim") {
    IOS_RETURN_IF_ERROR(CheckCpuFingerprint(meta.device(), options.force, &warnings)
                            .WithContext(name));
    Warn(warnings);
    IOS_RETURN_IF_ERROR(CheckFitsInMemory(PlanHostBytes(meta), -1, "the plan's weights and arena",
                                          "free memory, or run a smaller batch")
                            .WithContext(name));
    IOS_ASSIGN_OR_RETURN(LoadedPlan loaded, Load(std::move(source), name));
    CpuSessionOptions cpu;
    cpu.threads = options.threads;
    cpu.max_streams = options.max_streams;
    IOS_ASSIGN_OR_RETURN(impl->cpu, CpuSession::Create(std::move(loaded), cpu));
    impl->device = "cpu";
  } else {
    return InvalidInput("device must be 'cpu', 'cuda', 'cuda:N' or a CUDA device ordinal, got '" +
                        device + "'");
  }
  impl->inputs = Describe(impl->graph(), impl->graph().inputs);
  impl->outputs = Describe(impl->graph(), impl->graph().outputs);
  return impl;
}

PlanVerify VerifyOf(const SessionOptions& options) {
  return options.verify ? PlanVerify::kCheck : PlanVerify::kSkip;
}

}  // namespace

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;

StatusOr<std::unique_ptr<Session>> Session::Open(const std::string& plan_path,
                                                 const SessionOptions& options) {
  PlanSource source;
  IOS_ASSIGN_OR_RETURN(PlanFile file, PlanFile::Open(plan_path, VerifyOf(options)));
  source.file = std::move(file);
  IOS_ASSIGN_OR_RETURN(std::unique_ptr<Impl> impl, Create(std::move(source), plan_path, options));
  return std::unique_ptr<Session>(new Session(std::move(impl)));
}

StatusOr<std::unique_ptr<Session>> Session::FromBytes(const std::string& plan_bytes,
                                                      const SessionOptions& options) {
  PlanSource source;
  IOS_ASSIGN_OR_RETURN(PlanFile file,
                       PlanFile::FromBytes(plan_bytes, "the plan's bytes", VerifyOf(options)));
  source.file = std::move(file);
  IOS_ASSIGN_OR_RETURN(std::unique_ptr<Impl> impl,
                       Create(std::move(source), "the plan's bytes", options));
  return std::unique_ptr<Session>(new Session(std::move(impl)));
}

StatusOr<std::unique_ptr<Session>> Session::FromPlan(const Plan& plan,
                                                     const SessionOptions& options) {
  PlanSource source;
  source.message = PlanAccess::Of(plan).plan;  // a copy: the Plan stays usable
  IOS_ASSIGN_OR_RETURN(std::unique_ptr<Impl> impl,
                       Create(std::move(source), "the compiled plan", options));
  return std::unique_ptr<Session>(new Session(std::move(impl)));
}

const std::vector<TensorInfo>& Session::inputs() const { return impl_->inputs; }
const std::vector<TensorInfo>& Session::outputs() const { return impl_->outputs; }
std::string Session::device() const { return impl_->device; }
int64_t Session::batch() const { return impl_->batch; }

Status Session::Run(const std::vector<InputBuffer>& inputs,
                    const std::vector<OutputBuffer>& outputs) {
  const Graph& graph = impl_->graph();
  // Every input once, each buffer exactly the tensor's size.
  std::vector<Tensor> tensors;
  tensors.reserve(impl_->inputs.size());
  for (size_t i = 0; i < impl_->inputs.size(); ++i) {
    const TensorInfo& info = impl_->inputs[i];
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
    const Value& value = graph.values[graph.inputs[i]];
    Tensor tensor(value.dtype, value.dims);
    if (info.bytes > 0) std::memcpy(tensor.raw(), given->data, info.bytes);
    tensors.push_back(std::move(tensor));
  }
  for (const InputBuffer& buffer : inputs) {
    bool known = false;
    for (const TensorInfo& info : impl_->inputs) known |= info.name == buffer.name;
    if (!known) return InvalidInput("the plan has no input '" + buffer.name + "'");
  }
  std::vector<size_t> wanted;  // the output index of each buffer
  for (const OutputBuffer& buffer : outputs) {
    size_t index = impl_->outputs.size();
    for (size_t o = 0; o < impl_->outputs.size(); ++o)
      if (impl_->outputs[o].name == buffer.name) index = o;
    if (index == impl_->outputs.size())
      return InvalidInput("the plan has no output '" + buffer.name + "'");
    const TensorInfo& info = impl_->outputs[index];
    if (buffer.bytes != info.bytes || (info.bytes > 0 && buffer.data == nullptr))
      return InvalidInput("output '" + info.name + "' needs " + std::to_string(info.bytes) +
                          " bytes, the buffer has " + std::to_string(buffer.bytes));
    wanted.push_back(index);
  }

  std::lock_guard<std::mutex> lock(impl_->mutex);
  std::vector<Tensor> results;
#ifdef IOS_HAVE_CUDA
  if (impl_->cuda) {
    IOS_RETURN_IF_ERROR(impl_->cuda->SetInputs(tensors));
    IOS_RETURN_IF_ERROR(impl_->cuda->Run());
    IOS_ASSIGN_OR_RETURN(results, impl_->cuda->GetOutputs());
  }
#endif
  if (impl_->cpu) {
    IOS_RETURN_IF_ERROR(impl_->cpu->SetInputs(tensors));
    IOS_RETURN_IF_ERROR(impl_->cpu->Run());
    results = impl_->cpu->GetOutputs();
  }
  for (size_t b = 0; b < outputs.size(); ++b) {
    const Tensor& result = results[wanted[b]];
    if (result.num_bytes() != outputs[b].bytes)
      return Internal("output '" + outputs[b].name + "' came back with another size");
    if (result.num_bytes() > 0) std::memcpy(outputs[b].data, result.raw(), result.num_bytes());
  }
  return Status::Ok();
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

#include "plan/plan_loader.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "plan/plan_format.h"
#include "plan/plan_validate.h"

namespace ios {
namespace {

// Copies weight `w`'s bytes (exactly the tensor's size: ValidatePlan checked it) into `into`.
using WeightReader = std::function<Status(int w, void* into)>;
// Frees wherever weight w's bytes were read from, once they are in the graph.
using WeightRelease = std::function<void(int w)>;

StatusOr<Tensor> WeightTensor(const plan::Plan& plan, int32_t index, const WeightReader& read) {
  const plan::Tensor& proto = plan.tensors(index);
  Tensor tensor(DTypeFromPlan(proto.dtype()), Dims(proto.dims().begin(), proto.dims().end()));
  IOS_RETURN_IF_ERROR(read(proto.weight(), tensor.raw()));
  return tensor;
}

StatusOr<AttributeValue> AttributeFromPlan(const plan::Plan& plan, const plan::Attribute& attr,
                                           const WeightReader& read) {
  switch (attr.value_case()) {
    case plan::Attribute::kI:
      return AttributeValue(attr.i());
    case plan::Attribute::kF:
      return AttributeValue(attr.f());
    case plan::Attribute::kS:
      return AttributeValue(attr.s());
    case plan::Attribute::kInts:
      return AttributeValue(
          std::vector<int64_t>(attr.ints().values().begin(), attr.ints().values().end()));
    case plan::Attribute::kFloats:
      return AttributeValue(
          std::vector<float>(attr.floats().values().begin(), attr.floats().values().end()));
    case plan::Attribute::kStrings:
      return AttributeValue(
          std::vector<std::string>(attr.strings().values().begin(), attr.strings().values().end()));
    case plan::Attribute::kTensor: {
      IOS_ASSIGN_OR_RETURN(Tensor tensor, WeightTensor(plan, attr.tensor(), read));
      return AttributeValue(std::move(tensor));
    }
    case plan::Attribute::VALUE_NOT_SET:
      break;  // ValidatePlan refuses it
  }
  return AttributeValue(int64_t{0});
}

StageStrategy StrategyFromPlan(int32_t strategy) {
  return strategy == plan::MERGE ? StageStrategy::kMerge : StageStrategy::kConcurrent;
}

// The number of leading tensors that are the graph's values: up to the last tensor that is not
// a weight or that an op or the graph's interface uses.
int CountValues(const plan::Plan& plan) {
  int count = 0;
  auto use = [&](int32_t t) { count = std::max(count, t + 1); };
  for (int t = 0; t < plan.tensors_size(); ++t)
    if (plan.tensors(t).kind() != plan::WEIGHT) use(t);
  for (const plan::Op& op : plan.ops()) {
    for (int32_t t : op.inputs()) use(t);
    for (int32_t t : op.outputs()) use(t);
  }
  for (int32_t t : plan.inputs()) use(t);
  for (int32_t t : plan.outputs()) use(t);
  return count;
}

// `plan` was validated; `read` copies a weight's bytes wherever they are, and `release` frees
// them there once no tensor will read them again. `plan` is moved into the result once every
// weight has been read.
StatusOr<LoadedPlan> Convert(plan::Plan& plan, const std::string& source, const WeightReader& read,
                             const WeightRelease& release, const KernelCapsTable& kernels) {
  LoadedPlan loaded;

  Graph& graph = loaded.graph;
  graph.name = plan.graph_name();
  graph.source_path = source;
  graph.opset = plan.opset();
  const int num_values = CountValues(plan);
  graph.values.resize(num_values);
  // A value's weight bytes are released once copied, so that a large plan is not held twice;
  // those an attribute also refers to stay until the attributes are read.
  std::vector<bool> in_attribute(static_cast<size_t>(plan.tensors_size()), false);
  for (const plan::Op& op : plan.ops())
    for (const plan::Attribute& attr : op.attributes())
      if (attr.value_case() == plan::Attribute::kTensor)
        in_attribute[static_cast<size_t>(attr.tensor())] = true;
  for (int t = 0; t < num_values; ++t) {
    const plan::Tensor& tensor = plan.tensors(t);
    Value& value = graph.values[t];
    value.name = tensor.name();
    value.dtype = DTypeFromPlan(tensor.dtype());
    value.dims.assign(tensor.dims().begin(), tensor.dims().end());
    value.has_shape = true;
    value.layout = LayoutFromPlan(tensor.layout()).value_or(Layout::kRowMajor);  // validated
    if (tensor.kind() != plan::WEIGHT) continue;
    IOS_ASSIGN_OR_RETURN(value.constant, WeightTensor(plan, t, read));
    if (!in_attribute[static_cast<size_t>(t)]) release(tensor.weight());
  }
  graph.nodes.reserve(plan.ops_size());
  for (const plan::Op& op : plan.ops()) {
    Node node;
    node.name = op.name();
    node.op_type = op.op_type();
    node.opset = op.opset();
    node.inputs.assign(op.inputs().begin(), op.inputs().end());
    node.outputs.assign(op.outputs().begin(), op.outputs().end());
    for (const plan::Attribute& attr : op.attributes()) {
      IOS_ASSIGN_OR_RETURN(AttributeValue value, AttributeFromPlan(plan, attr, read));
      node.attrs.Set(attr.name(), std::move(value));
    }
    graph.nodes.push_back(std::move(node));
  }
  graph.inputs.assign(plan.inputs().begin(), plan.inputs().end());
  graph.outputs.assign(plan.outputs().begin(), plan.outputs().end());
  graph.RebuildUses();

  Schedule& schedule = loaded.schedule;
  schedule.kind = plan.schedule().kind();
  for (const plan::Block& block : plan.schedule().blocks()) {
    ScheduleBlock& b = schedule.blocks.emplace_back();
    for (const plan::Stage& stage : block.stages()) {
      ScheduleStage& s = b.stages.emplace_back();
      s.strategy = StrategyFromPlan(stage.strategy());
      for (const plan::Group& group : stage.groups())
        s.groups.push_back({std::vector<NodeId>(group.ops().begin(), group.ops().end())});
    }
  }

  MemoryPlan& memory = loaded.memory;
  memory.arena_bytes = plan.memory().arena_bytes();
  memory.alignment = plan.memory().alignment();
  memory.total_tensor_bytes = plan.memory().total_tensor_bytes();
  for (const plan::TensorPlacement& p : plan.memory().placements())
    memory.placements.push_back({p.tensor(), p.offset(), p.bytes(),
                                 p.is_view() ? p.view_of() : kNoValue,
                                 p.is_view() ? p.view_pitch() : 0});

  Status status = ValidateSchedule(graph, schedule);
  if (status.ok()) status = CheckMemoryPlan(graph, schedule, memory, kernels);
  if (!status.ok()) return InvalidInput(source + ": " + status.message());

  for (int w = 0; w < plan.weights_size(); ++w) release(w);
  loaded.meta = std::move(plan);
  return loaded;
}

}  // namespace

StatusOr<LoadedPlan> LoadPlan(plan::Plan plan, const std::string& source,
                              const KernelCapsTable& kernels) {
  IOS_RETURN_IF_ERROR(ValidatePlan(plan, source));
  return Convert(
      plan, source,
      [&plan](int w, void* into) {
        const std::string& data = plan.weights(w).data();
        if (!data.empty()) std::memcpy(into, data.data(), data.size());
        return Status::Ok();
      },
      // Swapped out, not cleared: a cleared string keeps its capacity.
      [&plan](int w) { std::string().swap(*plan.mutable_weights(w)->mutable_data()); }, kernels);
}

StatusOr<LoadedPlan> LoadPlanFile(PlanFile file, const KernelCapsTable& kernels) {
  // PlanFile::Open validated the plan; each weight goes from the file into its tensor.
  const std::string source = file.path();
  return Convert(
      file.mutable_plan(), source, [&file](int w, void* into) { return file.ReadWeight(w, into); },
      [&file](int w) { file.ReleaseWeight(w); }, kernels);
}

}  // namespace ios

#include "plan/plan_builder.h"

#include <string>
#include <utility>

#include "plan/plan_format.h"
#include "plan/plan_validate.h"

namespace ios {
namespace {

// Appends a WEIGHT tensor of `data`'s type and size, holding its bytes when `copy_bytes`;
// returns its tensor index.
int32_t AddWeight(plan::Plan& out, const std::string& name, const Tensor& data, bool copy_bytes) {
  int32_t index = out.tensors_size();
  plan::Tensor* tensor = out.add_tensors();
  tensor->set_name(name);
  tensor->set_dtype(DTypeToPlan(data.dtype()));
  for (int64_t d : data.dims()) tensor->add_dims(d);
  tensor->set_kind(plan::WEIGHT);
  tensor->set_weight(out.weights_size());
  plan::Weight* weight = out.add_weights();
  weight->set_tensor(index);
  // assign, not set_data: set_data(ptr, size) builds a temporary string first, a second copy.
  if (copy_bytes)
    weight->mutable_data()->assign(reinterpret_cast<const char*>(data.raw()), data.num_bytes());
  weight->set_bytes(static_cast<int64_t>(data.num_bytes()));
  return index;
}

void SetAttribute(plan::Attribute& attr, const AttributeValue& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) {
    attr.set_i(*i);
  } else if (const auto* f = std::get_if<float>(&value)) {
    attr.set_f(*f);
  } else if (const auto* s = std::get_if<std::string>(&value)) {
    attr.set_s(*s);
  } else if (const auto* ints = std::get_if<std::vector<int64_t>>(&value)) {
    auto* list = attr.mutable_ints();
    for (int64_t v : *ints) list->add_values(v);
  } else if (const auto* floats = std::get_if<std::vector<float>>(&value)) {
    auto* list = attr.mutable_floats();
    for (float v : *floats) list->add_values(v);
  } else if (const auto* strings = std::get_if<std::vector<std::string>>(&value)) {
    auto* list = attr.mutable_strings();
    for (const std::string& v : *strings) list->add_values(v);
  }
  // Tensor attributes are handled by the caller (they become WEIGHT tensors).
}

}  // namespace

StatusOr<plan::Plan> BuildPlan(const Graph& graph, const Schedule& schedule,
                               const MemoryPlan& memory, const PlanMetadata& metadata) {
  plan::Plan out;
  out.set_format_major(kPlanFormatMajor);
  out.set_format_minor(kPlanFormatMinor);
  plan::Producer* producer = out.mutable_producer();
  producer->set_ios_version(IOS_VERSION);
  producer->set_command_line(metadata.command_line);
  for (const auto& [key, value] : metadata.options) (*producer->mutable_options())[key] = value;
  out.set_model_sha256(metadata.model_sha256);
  out.set_batch(metadata.batch);
  *out.mutable_device() = metadata.device;
  out.set_opset(graph.opset);
  out.set_graph_name(graph.name);

  // Tensors: value i is tensor i, so weights are appended as they are met.
  for (size_t v = 0; v < graph.values.size(); ++v) {
    const Value& value = graph.values[v];
    if (!value.has_shape || value.dtype == DType::kUndefined)
      return Internal("value '" + value.name + "' has no inferred shape or dtype; cannot plan it");
    if (value.constant) {
      if (value.constant->dtype() != value.dtype || value.constant->dims() != value.dims)
        return Internal("constant '" + value.name + "' holds " +
                        DTypeName(value.constant->dtype()) + DimsToString(value.constant->dims()) +
                        " but the value is " + DTypeName(value.dtype) + DimsToString(value.dims));
      AddWeight(out, value.name, *value.constant, metadata.weight_bytes);
      continue;
    }
    plan::Tensor* tensor = out.add_tensors();
    tensor->set_name(value.name);
    tensor->set_dtype(DTypeToPlan(value.dtype));
    for (int64_t d : value.dims) tensor->add_dims(d);
    tensor->set_kind(value.is_graph_input    ? plan::INPUT
                     : value.is_graph_output ? plan::OUTPUT
                                             : plan::INTERMEDIATE);
    tensor->set_weight(-1);
    tensor->set_layout(LayoutToPlan(value.layout));
  }

  for (const Node& node : graph.nodes) {
    if (node.dead) return Internal("BuildPlan needs a compacted graph; " + node.name + " is dead");
    plan::Op* op = out.add_ops();
    op->set_name(node.name);
    op->set_op_type(node.op_type);
    op->set_opset(node.opset);
    for (ValueId in : node.inputs) op->add_inputs(in);
    for (ValueId o : node.outputs) op->add_outputs(o);
    for (const auto& [name, value] : node.attrs.all()) {
      plan::Attribute* attr = op->add_attributes();
      attr->set_name(name);
      if (const auto* tensor = std::get_if<Tensor>(&value)) {
        attr->set_tensor(AddWeight(out, node.name + "." + name, *tensor, metadata.weight_bytes));
      } else {
        SetAttribute(*attr, value);
      }
    }
  }
  for (ValueId id : graph.inputs) out.add_inputs(id);
  for (ValueId id : graph.outputs) out.add_outputs(id);

  plan::Schedule* sched = out.mutable_schedule();
  sched->set_kind(schedule.kind);
  for (const ScheduleBlock& block : schedule.blocks) {
    plan::Block* b = sched->add_blocks();
    for (const ScheduleStage& stage : block.stages) {
      plan::Stage* s = b->add_stages();
      s->set_strategy(StrategyToPlan(stage.strategy));
      for (const ScheduleGroup& group : stage.groups) {
        plan::Group* g = s->add_groups();
        for (NodeId n : group.nodes) g->add_ops(n);
      }
    }
  }

  plan::MemoryPlan* mem = out.mutable_memory();
  mem->set_arena_bytes(memory.arena_bytes);
  mem->set_alignment(memory.alignment);
  mem->set_total_tensor_bytes(memory.total_tensor_bytes);
  for (const TensorPlacement& p : memory.placements) {
    plan::TensorPlacement* placement = mem->add_placements();
    placement->set_tensor(p.value);
    placement->set_offset(p.offset);
    placement->set_bytes(p.bytes);
    if (p.view_of != kNoValue) {
      placement->set_is_view(true);
      placement->set_view_of(p.view_of);
      placement->set_view_pitch(p.pitch);
    }
  }

  for (const plan::StageLatency& latency : metadata.stage_latencies)
    *out.add_stage_latencies() = latency;
  // Never hand out a plan that the loader would refuse.
  Status valid = ValidatePlan(out, "the plan being built",
                              metadata.weight_bytes ? WeightBytes::kInMessage : WeightBytes::kInFile);
  if (!valid.ok()) return Internal(valid.message());
  return out;
}

std::vector<PlanWeightRef> PlanWeightTensors(const Graph& graph) {
  std::vector<PlanWeightRef> weights;
  for (size_t v = 0; v < graph.values.size(); ++v) {
    const Value& value = graph.values[v];
    if (value.constant)
      weights.push_back({value.name, &*value.constant, static_cast<ValueId>(v)});
  }
  for (const Node& node : graph.nodes)
    for (const auto& [name, value] : node.attrs.all())
      if (const auto* tensor = std::get_if<Tensor>(&value))
        weights.push_back({node.name + "." + name, tensor, kNoValue});
  return weights;
}

}  // namespace ios

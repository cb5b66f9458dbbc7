#include "compile/weight_rebuild.h"

#include <cerrno>
#include <cstdlib>
#include <set>
#include <utility>
#include <vector>

#include "onnx/onnx_importer.h"
#include "onnx/shape_spec.h"
#include "passes/canonicalize.h"
#include "passes/cpu_lowering.h"
#include "plan/plan_builder.h"
#include "plan/plan_format.h"
#include "sched/merge_convs.h"
#include "util/sha256.h"

namespace ios {
namespace {

std::string Digest(const Tensor& tensor) { return Sha256Bytes(tensor.raw(), tensor.num_bytes()); }

std::vector<std::string> SplitOn(const std::string& text, char separator) {
  std::vector<std::string> parts;
  if (text.empty()) return parts;
  size_t start = 0;
  for (;;) {
    const size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

// The options iosc recorded that shape the weights: how the model was imported and the passes.
struct RecordedOptions {
  ImportOptions import;
  CanonicalizeOptions passes;
};

StatusOr<RecordedOptions> ReadRecordedOptions(const plan::Plan& plan, const std::string& plan_path) {
  const auto& options = plan.producer().options();
  auto get = [&](const char* key) -> StatusOr<std::string> {
    const auto found = options.find(key);
    if (found == options.end())
      return InvalidInput(plan_path + ": the plan does not record its '" + key +
                          "' option, so its weights cannot be rebuilt; recompile it");
    return found->second;
  };
  RecordedOptions recorded;
  IOS_ASSIGN_OR_RETURN(std::string batch, get("batch"));
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(batch.c_str(), &end, 10);
  if (batch.empty() || *end != '\0' || errno != 0 || value < 1)
    return InvalidInput(plan_path + ": the plan records batch '" + batch + "'");
  recorded.import.batch = value;
  const auto shapes = options.find("input_shapes");
  if (shapes != options.end()) {
    for (const std::string& spec : SplitOn(shapes->second, ';')) {
      auto shape = ParseInputShapeSpec(spec);
      if (!shape.ok()) return shape.status().WithContext(plan_path + ": input_shapes");
      recorded.import.input_shapes[shape->first] = shape->second;
    }
  }
  IOS_ASSIGN_OR_RETURN(std::string passes, get("passes"));
  auto pass_options = CanonicalizeOptionsForPasses(SplitOn(passes, ','));
  if (!pass_options.ok()) return pass_options.status().WithContext(plan_path + ": passes");
  recorded.passes = *pass_options;
  return recorded;
}

// The plan's MERGE stages over the canonical graph: each merged conv's Split gives back the
// original convs' outputs, in group order, and so the convs that were merged.
StatusOr<Schedule> MergesOf(const plan::Plan& plan, const Graph& graph,
                            const std::string& plan_path) {
  Schedule merges;
  ScheduleBlock& block = merges.blocks.emplace_back();
  for (const plan::Block& b : plan.schedule().blocks()) {
    for (const plan::Stage& stage : b.stages()) {
      if (stage.strategy() != plan::MERGE) continue;
      const plan::Op* split = nullptr;
      for (const plan::Group& group : stage.groups())
        for (int32_t op : group.ops())
          if (plan.ops(op).op_type() == "Split") split = &plan.ops(op);
      if (split == nullptr)
        return InvalidInput(plan_path + ": a MERGE stage without its Split; cannot rebuild it");
      ScheduleStage& merged = block.stages.emplace_back();
      merged.strategy = StageStrategy::kMerge;
      for (int32_t output : split->outputs()) {
        const std::string& name = plan.tensors(output).name();
        const ValueId value = graph.FindValue(name);
        const NodeId conv = value == kNoValue ? kNoNode : graph.values[value].producer;
        if (conv == kNoNode || graph.nodes[conv].op_type != "Conv")
          return InvalidInput(plan_path + ": merged conv output '" + name +
                              "' is not a Conv's output in the model");
        merged.groups.push_back({{conv}});
      }
    }
  }
  return merges;
}

}  // namespace

std::map<std::string, std::string> ModelConstantDigests(const Graph& imported) {
  std::map<std::string, std::string> digests;
  for (const Value& value : imported.values)
    if (value.constant) digests[value.name] = Digest(*value.constant);
  return digests;
}

Status RecordWeightDerivations(const std::map<std::string, std::string>& model_constants,
                               const Graph& graph, plan::Plan& plan) {
  const std::vector<PlanWeightRef> refs = PlanWeightTensors(graph);
  if (refs.size() != static_cast<size_t>(plan.weights_size()))
    return Internal("the plan has " + std::to_string(plan.weights_size()) +
                    " weights, its graph " + std::to_string(refs.size()));
  std::set<int32_t> in_merge_stages;
  for (const plan::Block& block : plan.schedule().blocks())
    for (const plan::Stage& stage : block.stages())
      if (stage.strategy() == plan::MERGE)
        for (const plan::Group& group : stage.groups())
          for (int32_t op : group.ops())
            for (int32_t input : plan.ops(op).inputs()) in_merge_stages.insert(input);
  for (int w = 0; w < plan.weights_size(); ++w) {
    plan::Weight& weight = *plan.mutable_weights(w);
    const std::string& name = plan.tensors(weight.tensor()).name();
    const PlanWeightRef& ref = refs[static_cast<size_t>(w)];
    if (ref.name != name)
      return Internal("plan weight " + std::to_string(w) + " is '" + name + "', its graph's '" +
                      ref.name + "'");
    const auto found = model_constants.find(name);
    if (found != model_constants.end() && found->second == Digest(*ref.tensor)) {
      weight.set_derivation(plan::INITIALIZER);
    } else {
      weight.set_derivation(in_merge_stages.count(weight.tensor()) ? plan::MERGED : plan::FOLDED);
    }
  }
  return Status::Ok();
}

Status AttachModelWeights(PlanFile& file, const std::string& model_path) {
  const plan::Plan& plan = file.plan();
  const std::string& plan_path = file.path();
  if (!plan.weights_stripped())
    return InvalidInput(plan_path + " carries its weights; --weights " + model_path +
                        " is only for weight-stripped plans (iosc --strip-weights)");
  IOS_ASSIGN_OR_RETURN(RecordedOptions recorded, ReadRecordedOptions(plan, plan_path));
  recorded.import.external_data_dir = ModelFolder(model_path);
  // Hashed as it is parsed (the file's bytes are never held beside the parsed model), and
  // checked before any refusal of the import: another model is named as such.
  std::string digest;
  StatusOr<Graph> imported = ImportOnnxFile(model_path, recorded.import, &digest);
  if (!digest.empty() && digest != plan.model_sha256())
    return InvalidInput(model_path + ": not the model " + plan_path +
                        " was compiled from: its SHA-256 is " + digest + ", the plan's model's " +
                        plan.model_sha256());
  if (!imported.ok()) return imported.status();
  Graph graph = std::move(*imported);
  CanonicalizeStats stats;
  IOS_RETURN_IF_ERROR(Canonicalize(graph, recorded.passes, &stats));
  if (plan.device().kind() == "cpu") LowerGraphForCpu(graph);  // as iosc did
  graph.RebuildUses();
  IOS_ASSIGN_OR_RETURN(Schedule merges, MergesOf(plan, graph, plan_path));
  IOS_RETURN_IF_ERROR(ApplyMergeStages(graph, merges));

  auto differs = [&](const std::string& what) {
    return InvalidInput(model_path + ": the weights rebuilt from it differ from those " +
                        plan_path + " was compiled with (" + what + "); the plan was written by " +
                        "ios " + plan.producer().ios_version() + ", this is ios " + IOS_VERSION +
                        ": recompile the plan");
  };
  const std::vector<PlanWeightRef> refs = PlanWeightTensors(graph);
  if (refs.size() != static_cast<size_t>(plan.weights_size()))
    return differs(std::to_string(refs.size()) + " weights rebuilt, the plan has " +
                   std::to_string(plan.weights_size()));
  std::vector<Tensor> rebuilt;
  rebuilt.reserve(refs.size());
  for (int w = 0; w < plan.weights_size(); ++w) {
    const plan::Weight& weight = plan.weights(w);
    const plan::Tensor& tensor = plan.tensors(weight.tensor());
    const PlanWeightRef& ref = refs[static_cast<size_t>(w)];
    const Tensor& data = *ref.tensor;
    const std::string which = "weight " + std::to_string(w) + " '" + tensor.name() + "'";
    if (ref.name != tensor.name()) return differs(which + " is rebuilt as '" + ref.name + "'");
    if (DTypeToPlan(data.dtype()) != tensor.dtype() ||
        !std::equal(data.dims().begin(), data.dims().end(), tensor.dims().begin(),
                    tensor.dims().end()))
      return differs(which + " is rebuilt as " + DTypeName(data.dtype()) +
                     DimsToString(data.dims()));
    if (Digest(data) != weight.sha256()) return differs(which + " has other values");
    // Constants are moved out of the graph, which is dropped here: the weights are held once.
    rebuilt.push_back(ref.value != kNoValue ? std::move(*graph.values[ref.value].constant) : data);
  }
  file.SetRebuiltWeights(std::move(rebuilt));
  return Status::Ok();
}

void AttachPlaceholderWeights(PlanFile& file) {
  const plan::Plan& plan = file.plan();
  std::vector<Tensor> zeros;
  zeros.reserve(static_cast<size_t>(plan.weights_size()));
  for (const plan::Weight& weight : plan.weights()) {
    const plan::Tensor& tensor = plan.tensors(weight.tensor());
    zeros.emplace_back(DTypeFromPlan(tensor.dtype()), Dims(tensor.dims().begin(), tensor.dims().end()));
  }
  file.SetRebuiltWeights(std::move(zeros));
}

}  // namespace ios

// ios::Plan (include/ios/compiler.h): the public face of the compile pipeline (lib/compile).
#include <utility>

#include "api/api_plan.h"
#include "compile/compile_pipeline.h"
#include "compile/compile_schedule.h"
#include "compile/device_defaults.h"
#include "ios/compiler.h"
#include "plan/plan_io.h"
#include "util/file_util.h"
#include "util/json_print.h"

namespace ios {
namespace {

// The public options, whose spellings are the API's, as the pipeline's typed ones; the
// device's defaults as iosc has them.
StatusOr<PipelineOptions> ToPipeline(const CompileOptions& options) {
  PipelineOptions pipeline;
  pipeline.batch = options.batch;
  pipeline.input_shapes = options.input_shapes;
  pipeline.device = options.device;
  IOS_ASSIGN_OR_RETURN(pipeline.schedule, ParseScheduleName(options.schedule));
  pipeline.max_units_per_group = options.max_units_per_group;
  if (options.max_groups_per_stage >= 0)  // any negative: the device's default
    pipeline.max_groups_per_stage = options.max_groups_per_stage;
  ResolveDeviceDefaults(pipeline);
  pipeline.search_budget_s = options.search_budget_s;
  pipeline.profile_budget_s = options.profile_budget_s;
  pipeline.timing_cache_path = options.timing_cache_path;
  pipeline.strip_weights = options.strip_weights;
  pipeline.keep_plan = true;
  if (options.log) pipeline.report = options.log;
  if (options.progress) {
    pipeline.on_progress = [callback = options.progress](const SearchProgress& p) {
      CompileProgress progress;
      progress.parts_done = p.parts_done;
      progress.parts_total = p.parts_total;
      progress.stages_measured = p.stages_measured;
      progress.seconds = p.seconds;
      callback(progress);
    };
  }
  return pipeline;
}

StatusOr<Plan> Finish(StatusOr<PipelineResult> result, bool strip_weights) {
  if (!result.ok()) return result.status();
  if (!result->plan) return Internal("the compile pipeline built no plan");
  auto impl = PlanAccess::NewImpl();
  impl->plan = std::move(*result->plan);
  impl->strip_weights = strip_weights;
  // Every compile reports its statistics (a CPU plan's slow nodes among them); the search's
  // figures only where it ran.
  if (result->search_stats) {
    IOS_ASSIGN_OR_RETURN(impl->stats_json, MessageToJson(*result->search_stats));
  }
  if (result->search_stats && result->search_stats->schedule().rfind("ios", 0) == 0) {
    const proto::SearchStats& s = *result->search_stats;
    impl->stats.searched = true;
    impl->stats.predicted_latency_ms = s.predicted_latency_ms();
    impl->stats.sequential_latency_ms = s.sequential_latency_ms();
    impl->stats.greedy_latency_ms = s.greedy_latency_ms();
    impl->stats.search_seconds = s.search_seconds();
    impl->stats.distinct_stages_measured = s.distinct_stages_measured();
    impl->stats.parts = s.parts_size();
  }
  return PlanAccess::Make(std::move(impl));
}

}  // namespace

StatusOr<Plan> Plan::Compile(const std::string& model_path, const CompileOptions& options) {
  IOS_ASSIGN_OR_RETURN(PipelineOptions pipeline, ToPipeline(options));
  pipeline.model_path = model_path;
  return Finish(RunPipeline(pipeline), options.strip_weights);
}

StatusOr<Plan> Plan::CompileBytes(const std::string& model_bytes, const std::string& name,
                                  const CompileOptions& options) {
  if (model_bytes.empty()) return InvalidInput(name + ": no model bytes");
  IOS_ASSIGN_OR_RETURN(PipelineOptions pipeline, ToPipeline(options));
  pipeline.model_path = name;
  pipeline.model_bytes = model_bytes;
  return Finish(RunPipeline(pipeline), options.strip_weights);
}

Plan::Plan(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Plan::Plan(Plan&&) noexcept = default;
Plan& Plan::operator=(Plan&&) noexcept = default;
Plan::~Plan() = default;

StatusOr<std::string> Plan::Serialize() const {
  // The serialiser moves the weights' bytes out of the message and back; the plan is unchanged.
  return SerializePlan(impl_->plan,
                       impl_->strip_weights ? PlanWeights::kStrip : PlanWeights::kKeep);
}

Status Plan::Save(const std::string& path) const {
  return WritePlanFile(impl_->plan, path,
                       impl_->strip_weights ? PlanWeights::kStrip : PlanWeights::kKeep);
}

const SearchStatistics& Plan::statistics() const { return impl_->stats; }
const std::string& Plan::statistics_json() const { return impl_->stats_json; }

double Plan::predicted_latency_ms() const {
  double total = 0;
  for (const plan::StageLatency& stage : impl_->plan.stage_latencies()) total += stage.latency_ms();
  return total;
}

int64_t Plan::batch() const { return impl_->plan.batch(); }

StatusOr<std::string> DeviceFingerprintJson(const std::string& device) {
  IOS_ASSIGN_OR_RETURN(plan::DeviceFingerprint fingerprint, TargetDevice(device));
  return MessageToJson(fingerprint);
}

}  // namespace ios

#include "compile/search_statistics.h"

namespace ios {
namespace {

void FillPart(const PartSearchStats& part, proto::PartStats* p) {
  p->set_block(part.block);
  p->set_part(part.part);
  p->set_units(part.units);
  p->set_width(part.width);
  p->set_states(part.states);
  p->set_transitions(part.transitions);
  p->set_stages_measured(part.stages_measured);
  p->set_search_seconds(part.search_seconds);
  p->set_latency_ms(part.latency_ms);
  p->set_fallback(part.fallback);
  p->set_reused_part(part.reused_part);
  p->set_transitions_bounded(part.transitions_bounded);
  p->set_bounds_checked(part.bounds_checked);
  p->set_bounds_broken(part.bounds_broken);
  p->set_ceiling_ms(part.ceiling_ms);
  p->set_no_room(part.no_room);
  p->set_unsearched_after_check(part.unsearched_after_check);
}

void FillBlockCheck(const BlockCheck& check, proto::BlockCheckStats* b) {
  b->set_checked(check.checked);
  b->set_replaced(check.replaced);
  b->set_reordered_only(check.reordered_only);
  b->set_unmeasured_replaced(check.unmeasured_replaced);
  b->set_ios_ms(check.ios_ms);
  b->set_sequential_ms(check.sequential_ms);
  b->set_kept_gain_ms(check.kept_gain_ms);
  b->set_kept_gain_remeasured(check.kept_gain_remeasured);
  b->set_unchecked_gain_ms(check.unchecked_gain_ms);
}

}  // namespace

CostFigures CostFiguresOf(const CachedStageCost& cost) {
  CostFigures figures;
  figures.name = cost.Name();
  figures.requests = cost.requests();
  figures.distinct_measured = cost.distinct_measured();
  figures.unit_bounds_measured = cost.unit_bounds_measured();
  figures.composed = cost.composed();
  figures.bounds_stages = cost.BoundsStages();
  figures.counters = cost.CountersText();
  return figures;
}

proto::SearchStats SearchStatistics(const PipelineOptions& options, const CostFigures& cost,
                                    const SearchRun& run, const ConcurrencyOutcome& policy) {
  const IosSearchResult& result = run.result;
  proto::SearchStats stats;
  stats.set_model(options.model_path);
  stats.set_cost_source(cost.name);
  stats.set_max_units_per_group(options.max_units_per_group);
  stats.set_max_groups_per_stage(options.max_groups_per_stage);
  stats.set_endings(EndingsName(options.endings));
  stats.set_schedule(ScheduleName(options.schedule));
  for (const PartSearchStats& part : result.parts) FillPart(part, stats.add_parts());
  stats.set_search_seconds(result.search_seconds);
  stats.set_predicted_latency_ms(result.predicted_latency_ms);
  stats.set_searched_latency_ms(policy.searched_ms);
  stats.set_sequential_latency_ms(run.baselines.sequential_ms);
  stats.set_greedy_latency_ms(run.baselines.greedy_ms);
  stats.set_stage_cost_requests(cost.requests);
  stats.set_distinct_stages_measured(cost.distinct_measured);
  stats.set_unit_bounds_measured(cost.unit_bounds_measured);
  stats.set_profile_estimate_s(result.profile_estimate_s);
  stats.set_stopped_by_budget(result.stopped_by_budget);
  stats.set_min_concurrency_gain(options.min_concurrency_gain);
  stats.set_profile_budget_s(options.profile_budget_s);
  stats.set_stage_bounds(cost.bounds_stages);
  stats.set_stages_composed(cost.composed);
  stats.set_cost_counters(cost.counters);

  proto::SearchCheckStats* check = stats.mutable_search_check();
  check->set_parts_measured(run.search_check.parts_measured);
  check->set_ios_ms(run.search_check.ios_ms);
  check->set_sequential_ms(run.search_check.sequential_ms);
  check->set_stopped_by_check(result.stopped_by_check);

  proto::ConcurrencyStats* concurrency = stats.mutable_concurrency();
  concurrency->set_greedy_blocks(policy.greedy_blocks);
  concurrency->set_unmeasured_gain_ms(policy.unmeasured_gain_ms);
  concurrency->set_dropped_unmeasured(policy.dropped_unmeasured);
  if (policy.block_checked) FillBlockCheck(policy.block_check, concurrency->mutable_block_check());
  concurrency->set_dropped_after_check(policy.dropped_after_check);
  return stats;
}

proto::CanonicalizeStats CanonicalizeStatistics(const CanonicalizeStats& stats) {
  proto::CanonicalizeStats c;
  c.set_nodes_before(stats.nodes_before);
  c.set_nodes_after(stats.nodes_after);
  c.set_float16_values_widened(stats.float16_values_widened);
  c.set_constants_folded(stats.constants_folded);
  c.set_gathers_to_reshapes(stats.gathers_to_reshapes);
  c.set_identities_removed(stats.identities_removed);
  c.set_common_subexpressions_eliminated(stats.common_subexpressions_eliminated);
  c.set_gelus_fused(stats.gelus_fused);
  c.set_layer_norms_fused(stats.layer_norms_fused);
  c.set_global_pools_made(stats.global_pools_made);
  c.set_hard_swishes_fused(stats.hard_swishes_fused);
  c.set_gemms_made(stats.gemms_made);
  c.set_flattens_made(stats.flattens_made);
  c.set_splits_made(stats.splits_made);
  c.set_conv_transposes_as_convs(stats.conv_transposes_as_convs);
  c.set_batchnorms_folded(stats.batchnorms_folded);
  c.set_activations_fused(stats.activations_fused);
  return c;
}

}  // namespace ios

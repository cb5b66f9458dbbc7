#include "compile/concurrency_policy.h"

namespace ios {
namespace {

// The source measures whole blocks and the check is on: the search and the check measure.
bool Measures(const ConcurrencySettings& settings) {
  return settings.check_blocks && settings.measures_blocks;
}

}  // namespace

SearchLimits SearchLimitsFor(const ConcurrencySettings& settings) {
  SearchLimits limits;
  // On the CPU, a part whose units alone already use the cores about as well as any schedule
  // could (its ceiling, sched/part_ceiling.h) under the margin runs sequentially unsearched:
  // measuring its candidate stages could not pay. Merge stages, which the ceiling does not
  // bound, never pass the block check there (it cannot run them).
  if (Measures(settings)) limits.min_part_gain = settings.min_concurrency_gain;
  if (settings.measures_blocks) limits.profile_budget_s = settings.profile_budget_s;
  limits.check_parts = Measures(settings);
  return limits;
}

bool KeepsGreedyBlocks(const ConcurrencySettings& settings, bool stopped_by_check,
                       bool stopped_by_budget) {
  return settings.concurrent_allowed && !stopped_by_check && !stopped_by_budget;
}

bool DropsUnmeasured(const ConcurrencySettings& settings, double predicted_gain_ms,
                     double sequential_ms) {
  return Measures(settings) && predicted_gain_ms < settings.min_concurrency_gain * sequential_ms;
}

bool DropsAfterBlockCheck(const ConcurrencySettings& settings, const BlockCheck& check,
                          double sequential_ms) {
  return settings.check_blocks && check.checked > 0 &&
         check.kept_gain_ms + check.unchecked_gain_ms <
             settings.min_concurrency_gain * sequential_ms;
}

StatusOr<ConcurrencyOutcome> ApplyConcurrencyPolicy(const ConcurrencySettings& settings,
                                                    const Baselines& baselines,
                                                    const BlockChecker& block_check,
                                                    IosSearchResult* result) {
  ConcurrencyOutcome outcome;
  if (KeepsGreedyBlocks(settings, result->stopped_by_check, result->stopped_by_budget))
    outcome.greedy_blocks =
        KeepGreedyWhereFaster(baselines.greedy, baselines.greedy_stages, result);
  outcome.searched_ms = result->predicted_latency_ms;
  if (Measures(settings)) {
    outcome.unmeasured_gain_ms =
        PredictedConcurrentGainMs(baselines.sequential, baselines.sequential_stages, *result);
    if (DropsUnmeasured(settings, outcome.unmeasured_gain_ms, baselines.sequential_ms))
      outcome.dropped_unmeasured =
          DropConcurrentBlocks(baselines.sequential, baselines.sequential_stages, result);
  }
  if (settings.check_blocks) {
    IOS_ASSIGN_OR_RETURN(outcome.block_check, block_check(result));
    outcome.block_checked = true;
    if (DropsAfterBlockCheck(settings, outcome.block_check, baselines.sequential_ms))
      outcome.dropped_after_check =
          DropConcurrentBlocks(baselines.sequential, baselines.sequential_stages, result);
  }
  return outcome;
}

}  // namespace ios

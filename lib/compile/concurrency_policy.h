// The concurrency policy: what iosc makes of the IOS search's schedule before writing it. Four
// decisions, each a pure function of plain figures so that a test can drive them with made-up
// stage latencies:
//   1. where the search's own pruning applies (SearchLimitsFor): on a source that measures whole
//      blocks (the CPU profiler) with the block check on, parts without room run unsearched, the
//      search checks itself part by part, and the profiling budget stops it;
//   2. blocks keep the greedy stages where predicted faster than the search's (KeepsGreedyBlocks),
//      unless the search stopped itself or concurrency is excluded (--schedule ios-merge);
//   3. concurrent blocks predicted to save under the margin run sequentially before any is
//      measured whole (DropsUnmeasured);
//   4. after the measured block check, concurrent blocks that saved under the margin run
//      sequentially too (DropsAfterBlockCheck).
// ApplyConcurrencyPolicy runs 2-4 in that order on the search's result.
#pragma once

#include <functional>
#include <vector>

#include "compile/block_check.h"
#include "sched/ios_scheduler.h"
#include "sched/schedule.h"
#include "util/status.h"

namespace ios {

struct ConcurrencySettings {
  bool check_blocks = true;      // the measured block check (--no-block-check clears it)
  bool measures_blocks = false;  // the cost source runs whole blocks (the CPU profiler)
  // Concurrent blocks must save this fraction of the sequential latency (--min-concurrency-gain).
  double min_concurrency_gain = 0.05;
  double profile_budget_s = 0;     // --profile-budget (0 = none)
  bool concurrent_allowed = true;  // false for --schedule ios-merge
};

// What the search itself is told (IosOptions' fields of the same names).
struct SearchLimits {
  double min_part_gain = 0;     // 0: every part is searched, whatever its ceiling
  double profile_budget_s = 0;  // 0: no budget
  bool check_parts = false;     // SearchCheck as IosOptions::check_part
};

// Decision 1.
SearchLimits SearchLimitsFor(const ConcurrencySettings& settings);
// Decision 2: whether blocks may keep the greedy stages. Not after the search stopped itself:
// the greedy stages are concurrent too, and the parts measured whole said that concurrency does
// not pay here, or the profiling budget is spent (the block check would measure the greedy
// blocks).
bool KeepsGreedyBlocks(const ConcurrencySettings& settings, bool stopped_by_check,
                       bool stopped_by_budget);
// Decision 3: where the block check would measure blocks, concurrent blocks predicted (by the
// stage costs, which favour the searched stages) to save under the margin would be dropped
// whatever it measured, so they are dropped unmeasured (NasNet at batch 8: predicted 3%, and
// 37 s of measuring blocks both ways).
bool DropsUnmeasured(const ConcurrencySettings& settings, double predicted_gain_ms,
                     double sequential_ms);
// Decision 4: the blocks the check measured, with what it predicts for those it could not
// measure, save under the margin (block_check.h, DropConcurrentBlocks).
bool DropsAfterBlockCheck(const ConcurrencySettings& settings, const BlockCheck& check,
                          double sequential_ms);

// The baselines under the search's cost source: the sequential and greedy schedules of the same
// blocks, with their predicted stage latencies and totals.
struct Baselines {
  Schedule sequential;
  std::vector<double> sequential_stages;
  double sequential_ms = 0;
  Schedule greedy;
  std::vector<double> greedy_stages;
  double greedy_ms = 0;
};

struct ConcurrencyOutcome {
  double searched_ms = 0;  // the search's prediction with the greedy blocks, before the check
  int greedy_blocks = 0;
  double unmeasured_gain_ms = 0;  // weighed only where decision 3 applies, else 0
  int dropped_unmeasured = 0;
  bool block_checked = false;
  BlockCheck block_check;
  int dropped_after_check = 0;
};

// The measured block check on `result` (KeepSequentialWhereMeasuredFaster against the cost
// source, in a compile).
using BlockChecker = std::function<StatusOr<BlockCheck>(IosSearchResult* result)>;

// Applies decisions 2-4 to `result` (its schedule, stage latencies and predicted total).
StatusOr<ConcurrencyOutcome> ApplyConcurrencyPolicy(const ConcurrencySettings& settings,
                                                    const Baselines& baselines,
                                                    const BlockChecker& block_check,
                                                    IosSearchResult* result);

}  // namespace ios

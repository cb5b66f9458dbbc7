// The compile's concurrency policy (compile/concurrency_policy.h) on made-up schedules and stage
// latencies, the device defaults (compile/device_defaults.h), the options' spellings and the
// search report made from the statistics alone (compile/search_report.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compile/concurrency_policy.h"
#include "compile/device_defaults.h"
#include "compile/pipeline_options.h"
#include "compile/search_report.h"

namespace ios {
namespace {

ScheduleStage PolicyStage(std::vector<std::vector<NodeId>> groups) {
  ScheduleStage stage;
  for (auto& nodes : groups) stage.groups.push_back(ScheduleGroup{nodes});
  return stage;
}

// Two blocks of two units each (nodes 0 and 1, 10 and 11). Sequentially they take 4 + 4 and
// 8 + 8 ms (24 in all); the search runs each block as one two-group stage, block 0 in 6 ms and
// block 1 in `block1_searched_ms`; greedy runs the same stages, block 0 in 5 ms (faster than the
// search's: its stages may span parts) and block 1 in 14.
struct PolicyCase {
  Baselines baselines;
  IosSearchResult result;
};

PolicyCase TwoBlocks(double block1_searched_ms) {
  PolicyCase c;
  Schedule& sequential = c.baselines.sequential;
  sequential.kind = "sequential";
  sequential.blocks.resize(2);
  sequential.blocks[0].stages = {PolicyStage({{0}}), PolicyStage({{1}})};
  sequential.blocks[1].stages = {PolicyStage({{10}}), PolicyStage({{11}})};
  c.baselines.sequential_stages = {4, 4, 8, 8};
  c.baselines.sequential_ms = 24;
  Schedule& greedy = c.baselines.greedy;
  greedy.kind = "greedy";
  greedy.blocks.resize(2);
  greedy.blocks[0].stages = {PolicyStage({{0}, {1}})};
  greedy.blocks[1].stages = {PolicyStage({{10}, {11}})};
  c.baselines.greedy_stages = {5, 14};
  c.baselines.greedy_ms = 19;
  c.result.schedule.kind = "ios";
  c.result.schedule.blocks = greedy.blocks;
  c.result.stage_latency_ms = {6, block1_searched_ms};
  c.result.predicted_latency_ms = 6 + block1_searched_ms;
  for (int block : {0, 1}) {
    PartSearchStats part;
    part.block = block;
    c.result.parts.push_back(part);
  }
  return c;
}

// The CPU profiler's settings: blocks measured whole, the check on, a 25% margin.
ConcurrencySettings MeasuringSettings() {
  ConcurrencySettings settings;
  settings.check_blocks = true;
  settings.measures_blocks = true;
  settings.min_concurrency_gain = 0.25;
  settings.profile_budget_s = 40;
  return settings;
}

// An analytic model's: no block is measured whole.
ConcurrencySettings AnalyticSettings() {
  ConcurrencySettings settings = MeasuringSettings();
  settings.measures_blocks = false;
  return settings;
}

// A block check that measured `checked` blocks, whose kept ones save `kept_gain_ms` and the
// unmeasured ones are predicted to save `unchecked_gain_ms`; it counts its calls.
struct FakeCheck {
  BlockCheck figures;
  int calls = 0;
  BlockChecker Checker() {
    return [this](IosSearchResult*) -> StatusOr<BlockCheck> {
      ++calls;
      return figures;
    };
  }
};

FakeCheck Checked(int checked, double kept_gain_ms, double unchecked_gain_ms) {
  FakeCheck check;
  check.figures.checked = checked;
  check.figures.kept_gain_ms = kept_gain_ms;
  check.figures.unchecked_gain_ms = unchecked_gain_ms;
  return check;
}

bool IsSequential(const PolicyCase& c) {
  return c.result.schedule.blocks[0].stages.size() == 2 &&
         c.result.schedule.blocks[1].stages.size() == 2 &&
         c.result.stage_latency_ms == c.baselines.sequential_stages &&
         c.result.predicted_latency_ms == c.baselines.sequential_ms;
}

TEST(SearchLimitsTest, AMeasuringSourceWithTheCheckBoundsChecksAndBudgetsTheSearch) {
  const SearchLimits limits = SearchLimitsFor(MeasuringSettings());
  EXPECT_EQ(limits.min_part_gain, 0.25);
  EXPECT_EQ(limits.profile_budget_s, 40);
  EXPECT_TRUE(limits.check_parts);
}

TEST(SearchLimitsTest, WithoutTheBlockCheckOnlyTheBudgetStays) {
  ConcurrencySettings settings = MeasuringSettings();
  settings.check_blocks = false;
  const SearchLimits limits = SearchLimitsFor(settings);
  EXPECT_EQ(limits.min_part_gain, 0);
  EXPECT_EQ(limits.profile_budget_s, 40);
  EXPECT_FALSE(limits.check_parts);
}

TEST(SearchLimitsTest, AnAnalyticModelSearchesEveryPartUnbudgeted) {
  const SearchLimits limits = SearchLimitsFor(AnalyticSettings());
  EXPECT_EQ(limits.min_part_gain, 0);
  EXPECT_EQ(limits.profile_budget_s, 0);
  EXPECT_FALSE(limits.check_parts);
}

TEST(ConcurrencyDecisionTest, GreedyBlocksAreKeptOnlyWhileConcurrencyIsAllowedAndTheSearchRan) {
  ConcurrencySettings settings = MeasuringSettings();
  EXPECT_TRUE(KeepsGreedyBlocks(settings, false, false));
  EXPECT_FALSE(KeepsGreedyBlocks(settings, /*stopped_by_check=*/true, false));
  EXPECT_FALSE(KeepsGreedyBlocks(settings, false, /*stopped_by_budget=*/true));
  settings.concurrent_allowed = false;  // --schedule ios-merge
  EXPECT_FALSE(KeepsGreedyBlocks(settings, false, false));
}

TEST(ConcurrencyDecisionTest, UnmeasuredBlocksAreDroppedStrictlyUnderTheMargin) {
  // 25% of 24 ms is 6 ms: a predicted 6 ms meets it.
  EXPECT_FALSE(DropsUnmeasured(MeasuringSettings(), 6, 24));
  EXPECT_TRUE(DropsUnmeasured(MeasuringSettings(), 5.75, 24));
  EXPECT_TRUE(DropsUnmeasured(MeasuringSettings(), -1, 24));  // predicted slower than sequential
  // Only where the block check would measure: never on an analytic model, nor without it.
  EXPECT_FALSE(DropsUnmeasured(AnalyticSettings(), 0, 24));
  ConcurrencySettings unchecked = MeasuringSettings();
  unchecked.check_blocks = false;
  EXPECT_FALSE(DropsUnmeasured(unchecked, 0, 24));
}

TEST(ConcurrencyDecisionTest, AfterTheCheckMeasuredAndPredictedGainsTogetherMeetTheMargin) {
  EXPECT_FALSE(
      DropsAfterBlockCheck(MeasuringSettings(), Checked(2, 4.5, 1.5).figures, 24));  // 6 of 6
  EXPECT_TRUE(DropsAfterBlockCheck(MeasuringSettings(), Checked(2, 4.5, 1.25).figures, 24));
  // A check that measured no block whole decides nothing.
  EXPECT_FALSE(DropsAfterBlockCheck(MeasuringSettings(), Checked(0, 0, 0).figures, 24));
  ConcurrencySettings unchecked = MeasuringSettings();
  unchecked.check_blocks = false;
  EXPECT_FALSE(DropsAfterBlockCheck(unchecked, Checked(2, 0, 0).figures, 24));
}

TEST(ConcurrencyPolicyTest, AnAnalyticModelKeepsFasterGreedyBlocksAndDropsNothing) {
  PolicyCase c = TwoBlocks(14);
  FakeCheck check = Checked(0, 0, 0);
  StatusOr<ConcurrencyOutcome> outcome =
      ApplyConcurrencyPolicy(AnalyticSettings(), c.baselines, check.Checker(), &c.result);
  ASSERT_TRUE(outcome.ok()) << outcome.status().message();
  EXPECT_EQ(outcome->greedy_blocks, 1);  // block 0: greedy 5 ms against 6
  EXPECT_EQ(outcome->searched_ms, 19);
  EXPECT_EQ(c.result.predicted_latency_ms, 19);
  EXPECT_EQ(c.result.stage_latency_ms, (std::vector<double>{5, 14}));
  // 5 ms predicted gain, under 25% of 24, but an analytic model's blocks are never dropped.
  EXPECT_EQ(outcome->unmeasured_gain_ms, 0);
  EXPECT_EQ(outcome->dropped_unmeasured, 0);
  EXPECT_TRUE(outcome->block_checked);
  EXPECT_EQ(check.calls, 1);
  EXPECT_EQ(outcome->dropped_after_check, 0);
}

TEST(ConcurrencyPolicyTest, GreedyBlocksStayOutAfterTheBudgetStoppedTheSearch) {
  PolicyCase c = TwoBlocks(14);
  c.result.stopped_by_budget = true;
  FakeCheck check = Checked(0, 0, 0);
  StatusOr<ConcurrencyOutcome> outcome =
      ApplyConcurrencyPolicy(AnalyticSettings(), c.baselines, check.Checker(), &c.result);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->greedy_blocks, 0);
  EXPECT_EQ(outcome->searched_ms, 20);
  EXPECT_EQ(c.result.stage_latency_ms, (std::vector<double>{6, 14}));
}

TEST(ConcurrencyPolicyTest, AMergeOnlySearchKeepsNoGreedyBlock) {
  PolicyCase c = TwoBlocks(14);
  ConcurrencySettings settings = AnalyticSettings();
  settings.concurrent_allowed = false;
  FakeCheck check = Checked(0, 0, 0);
  StatusOr<ConcurrencyOutcome> outcome =
      ApplyConcurrencyPolicy(settings, c.baselines, check.Checker(), &c.result);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->greedy_blocks, 0);
  EXPECT_EQ(c.result.predicted_latency_ms, 20);
}

TEST(ConcurrencyPolicyTest, ConcurrentBlocksPredictedUnderTheMarginRunSequentiallyUnmeasured) {
  // After the greedy block 0 (5 ms): 8 - 5 + 16 - 13.25 = 5.75 ms predicted, under 6.
  PolicyCase c = TwoBlocks(13.25);
  FakeCheck check = Checked(0, 0, 0);
  StatusOr<ConcurrencyOutcome> outcome =
      ApplyConcurrencyPolicy(MeasuringSettings(), c.baselines, check.Checker(), &c.result);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->greedy_blocks, 1);
  EXPECT_EQ(outcome->searched_ms, 18.25);  // the search's prediction stays in the outcome
  EXPECT_EQ(outcome->unmeasured_gain_ms, 5.75);
  EXPECT_EQ(outcome->dropped_unmeasured, 2);
  EXPECT_TRUE(IsSequential(c));
  EXPECT_EQ(check.calls, 1);  // the check still runs (it reorders, and checks merge stages)
}

TEST(ConcurrencyPolicyTest, AMarginExactlyMetKeepsTheConcurrentBlocks) {
  PolicyCase c = TwoBlocks(13);  // 3 + 3 = 6 ms predicted: 25% of 24 exactly
  FakeCheck check = Checked(0, 0, 0);
  StatusOr<ConcurrencyOutcome> outcome =
      ApplyConcurrencyPolicy(MeasuringSettings(), c.baselines, check.Checker(), &c.result);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->unmeasured_gain_ms, 6);
  EXPECT_EQ(outcome->dropped_unmeasured, 0);
  EXPECT_EQ(c.result.stage_latency_ms, (std::vector<double>{5, 13}));
  EXPECT_EQ(outcome->dropped_after_check, 0);
}

TEST(ConcurrencyPolicyTest, BlocksMeasuredToSaveUnderTheMarginRunSequentially) {
  PolicyCase c = TwoBlocks(13);
  FakeCheck check = Checked(2, 4.5, 1.25);  // 5.75 ms, under 6
  StatusOr<ConcurrencyOutcome> outcome =
      ApplyConcurrencyPolicy(MeasuringSettings(), c.baselines, check.Checker(), &c.result);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->dropped_unmeasured, 0);
  EXPECT_EQ(outcome->block_check.checked, 2);
  EXPECT_EQ(outcome->dropped_after_check, 2);
  EXPECT_TRUE(IsSequential(c));
}

TEST(ConcurrencyPolicyTest, BlocksMeasuredToSaveTheMarginKeepTheirStages) {
  PolicyCase c = TwoBlocks(13);
  FakeCheck check = Checked(2, 4.5, 1.5);  // 6 ms
  StatusOr<ConcurrencyOutcome> outcome =
      ApplyConcurrencyPolicy(MeasuringSettings(), c.baselines, check.Checker(), &c.result);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->dropped_after_check, 0);
  EXPECT_EQ(c.result.predicted_latency_ms, 18);
}

TEST(ConcurrencyPolicyTest, WithoutTheBlockCheckNothingIsMeasuredOrDropped) {
  PolicyCase c = TwoBlocks(13.25);  // 5.75 ms predicted, under the 6 ms margin
  ConcurrencySettings settings = MeasuringSettings();
  settings.check_blocks = false;
  FakeCheck check = Checked(2, 0, 0);
  StatusOr<ConcurrencyOutcome> outcome =
      ApplyConcurrencyPolicy(settings, c.baselines, check.Checker(), &c.result);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(check.calls, 0);
  EXPECT_FALSE(outcome->block_checked);
  EXPECT_EQ(outcome->dropped_unmeasured, 0);
  EXPECT_EQ(outcome->dropped_after_check, 0);
  EXPECT_EQ(c.result.stage_latency_ms, (std::vector<double>{5, 13.25}));
}

TEST(ConcurrencyPolicyTest, ABlockCheckErrorIsTheCompilesError) {
  PolicyCase c = TwoBlocks(14);
  const BlockChecker failing = [](IosSearchResult*) -> StatusOr<BlockCheck> {
    return InvalidInput("block 1: the profiler failed");
  };
  StatusOr<ConcurrencyOutcome> outcome =
      ApplyConcurrencyPolicy(MeasuringSettings(), c.baselines, failing, &c.result);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().message(), "block 1: the profiler failed");
}

TEST(DeviceDefaultsTest, TheCpuGetsAtMostItsCoresPerStageAndTwoWarmUpRuns) {
  PipelineOptions two_cores;
  ResolveDeviceDefaults(two_cores, 2);
  EXPECT_EQ(two_cores.max_groups_per_stage, 2);
  EXPECT_EQ(two_cores.profile_warmup, 2);
  EXPECT_TRUE(DeviceDefaultsResolved(two_cores));
  PipelineOptions many_cores;
  ResolveDeviceDefaults(many_cores, 64);
  EXPECT_EQ(many_cores.max_groups_per_stage, 8);
}

TEST(DeviceDefaultsTest, ValuesGivenAreKept) {
  PipelineOptions options;
  options.max_groups_per_stage = 0;  // unlimited
  options.profile_warmup = 0;
  ResolveDeviceDefaults(options, 2);
  EXPECT_EQ(options.max_groups_per_stage, 0);
  EXPECT_EQ(options.profile_warmup, 0);
  options.max_groups_per_stage = 12;  // above the cores, given
  ResolveDeviceDefaults(options, 2);
  EXPECT_EQ(options.max_groups_per_stage, 12);
}

TEST(DeviceDefaultsTest, ACudaDeviceKeepsItsProfilersWarmUpAndEightGroups) {
  for (const char* device : {"0", "cuda", "cuda:1"}) {
    PipelineOptions options;
    options.device = device;
    ResolveDeviceDefaults(options, 2);
    EXPECT_EQ(options.max_groups_per_stage, 8) << device;
    EXPECT_EQ(options.profile_warmup, kDeviceDefault) << device;
    EXPECT_TRUE(DeviceDefaultsResolved(options)) << device;
  }
}

TEST(DeviceDefaultsTest, AnAnalyticModelIsNotBoundByThisMachinesCores) {
  PipelineOptions options;
  options.device = "sim:V100";
  ResolveDeviceDefaults(options, 2);
  EXPECT_EQ(options.max_groups_per_stage, 8);
}

TEST(DeviceDefaultsTest, UnresolvedOptionsAreNoticed) {
  PipelineOptions options;
  EXPECT_FALSE(DeviceDefaultsResolved(options));
  options.max_groups_per_stage = 4;
  EXPECT_FALSE(DeviceDefaultsResolved(options));  // the CPU's warm-up is still open
}

TEST(DeviceDefaultsTest, GreedyStreamsAreTheCoresOnTheCpuAndEightElsewhere) {
  PipelineOptions options;
  EXPECT_EQ(GreedyStreams(options, 2), 2);
  options.device = "sim:A100";
  EXPECT_EQ(GreedyStreams(options, 2), 8);
  options.max_streams = 3;
  EXPECT_EQ(GreedyStreams(options, 2), 3);
}

TEST(OptionNamesTest, EveryValueHasOneSpellingThatParsesBack) {
  for (const auto& [name, schedule] : ScheduleNames()) {
    EXPECT_EQ(ScheduleName(schedule), name);
    StatusOr<ScheduleKind> parsed = ParseScheduleName(name);
    ASSERT_TRUE(parsed.ok()) << name;
    EXPECT_EQ(*parsed, schedule);
  }
  EXPECT_EQ(EndingsName(Endings::kReference), "reference");
  EXPECT_EQ(LayoutName(TensorLayouts::kChannelsLast), "channels-last");
  EXPECT_EQ(ConvAlgorithmsName(ConvAlgorithms::kMeasure), "measure");
  EXPECT_EQ(OnOff(false), "off");
  EXPECT_TRUE(IsIosSearch(ScheduleKind::kIosMerge));
  EXPECT_FALSE(IsIosSearch(ScheduleKind::kGreedy));
}

TEST(OptionNamesTest, AnUnknownScheduleIsRefusedByName) {
  StatusOr<ScheduleKind> parsed = ParseScheduleName("ios2");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("'ios2'"), std::string::npos);
}

// Statistics of a CPU search that the budget stopped after two of three parts.
proto::SearchStats BudgetStoppedSearch() {
  proto::SearchStats stats;
  stats.set_cost_source("cpu-profiler");
  stats.set_schedule("ios");
  stats.set_endings("paper");
  stats.set_max_units_per_group(3);
  stats.set_max_groups_per_stage(2);
  stats.set_min_concurrency_gain(0.05);
  stats.set_profile_budget_s(0.5);
  stats.set_profile_estimate_s(3);
  stats.set_stopped_by_budget(true);
  stats.set_stages_composed(4);
  stats.set_distinct_stages_measured(7);
  stats.set_stage_cost_requests(9);
  for (int i = 0; i < 3; ++i) {
    proto::PartStats* part = stats.add_parts();
    part->set_states(10);
    part->set_transitions(20);
    part->set_ceiling_ms(-1);
    part->set_unsearched_after_check(i == 2);
  }
  stats.set_searched_latency_ms(10);
  stats.set_predicted_latency_ms(10);
  stats.set_sequential_latency_ms(12);
  stats.set_greedy_latency_ms(11);
  return stats;
}

TEST(SearchReportTest, TheReportSaysWhatTheStatisticsHold) {
  const std::string report = FormatSearchReport(BudgetStoppedSearch());
  EXPECT_NE(report.find("IOS search (cpu-profiler, r=3, s=2, paper endings): 3 parts, 30 states, "
                        "60 transitions, 7 distinct stages measured (9 requests, 4 one-group "
                        "stages summed from their units)"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("--profile-budget 0.5 s of measuring (estimated from their latencies; 3 "
                        "s in all), so the search stopped and 1 later part(s)"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("predicted latency (cpu-profiler): ios 10.000 ms, greedy 11.000 ms, "
                        "sequential 12.000 ms (1.20x over sequential, 1.10x over greedy)"),
            std::string::npos)
      << report;
  // What did not happen is not said.
  EXPECT_EQ(report.find("block check"), std::string::npos) << report;
  EXPECT_EQ(report.find("branch and bound"), std::string::npos) << report;
  EXPECT_EQ(report.find("after the block check"), std::string::npos) << report;
}

TEST(SearchReportTest, ThePolicysChangesAreReported) {
  proto::SearchStats stats = BudgetStoppedSearch();
  stats.set_predicted_latency_ms(12);
  proto::ConcurrencyStats* concurrency = stats.mutable_concurrency();
  concurrency->set_greedy_blocks(2);
  concurrency->set_dropped_unmeasured(3);
  concurrency->set_unmeasured_gain_ms(0.25);
  concurrency->mutable_block_check()->set_reordered_only(1);
  concurrency->mutable_block_check()->set_replaced(1);
  const std::string report = FormatSearchReport(stats);
  EXPECT_NE(report.find("predicted to save 0.250 ms, less than"), std::string::npos) << report;
  EXPECT_NE(report.find("3 block(s) run sequentially, unmeasured"), std::string::npos) << report;
  EXPECT_NE(report.find("block check: 1 block(s) only reorder ops"), std::string::npos) << report;
  EXPECT_NE(report.find("after the block check: 12.000 ms (1.00x over sequential)"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("note: 2 block(s) keep the greedy stages"), std::string::npos) << report;
  EXPECT_EQ(report.find("measured whole"), std::string::npos) << report;
}

}  // namespace
}  // namespace ios

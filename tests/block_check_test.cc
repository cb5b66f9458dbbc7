// The measured block check (compile/block_check.h): a block that a source measures faster with
// the sequential stages keeps them, with their predicted latencies; other blocks, and sources
// that only cost stages, leave the searched schedule as it is.
#include "compile/block_check.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace ios {
namespace {

ScheduleBlock Block(std::vector<std::vector<std::vector<NodeId>>> stages) {
  ScheduleBlock block;
  for (auto& groups : stages) {
    ScheduleStage stage;
    for (auto& nodes : groups) stage.groups.push_back(ScheduleGroup{nodes});
    block.stages.push_back(stage);
  }
  return block;
}

// Block latencies by the block's first stage's width: wide (searched) blocks cost `wide_ms` per
// block index, sequential ones `narrow_ms`.
class FakeBlockSource : public StageCostSource {
 public:
  FakeBlockSource(std::vector<double> wide_ms, std::vector<double> narrow_ms, bool measures)
      : wide_ms_(std::move(wide_ms)), narrow_ms_(std::move(narrow_ms)), measures_(measures) {}
  StatusOr<double> StageLatencyMs(const Graph&, const UnitGraph&, const StageCandidate&) override {
    return 1.0;
  }
  StatusOr<double> BlockLatencyMs(const Graph& graph, const ScheduleBlock& block,
                                  int round) override {
    if (!measures_) return StageCostSource::BlockLatencyMs(graph, block, round);
    size_t nodes = 0;
    for (const ScheduleStage& stage : block.stages)
      for (const ScheduleGroup& group : stage.groups) nodes += group.nodes.size();
    if (nodes > max_nodes) return Unsupported("too large to measure whole");
    ++calls;
    const size_t index = static_cast<size_t>(block.stages[0].groups[0].nodes[0] / 10);
    return block.stages[0].groups.size() > 1 ? wide_ms_[index] : narrow_ms_[index];
  }
  bool MeasuresBlocks() const override { return measures_; }
  std::string Name() const override { return "fake"; }
  DeviceFingerprint Fingerprint() const override { return {}; }
  int calls = 0;
  size_t max_nodes = 1000;  // blocks of more nodes are not measured whole

 private:
  std::vector<double> wide_ms_, narrow_ms_;
  bool measures_;
};

struct Case {
  Schedule sequential;
  std::vector<double> sequential_stages;
  IosSearchResult result;
};

// Three blocks (nodes 0-1, 10-11, 20): the search runs blocks 0 and 1 as one two-group stage,
// block 2 as the sequential schedule does.
Case ThreeBlocks() {
  Case c;
  c.sequential.kind = "sequential";
  c.sequential.blocks = {Block({{{0}}, {{1}}}), Block({{{10}}, {{11}}}), Block({{{20}}})};
  c.sequential_stages = {2, 3, 4, 5, 6};
  c.result.schedule.kind = "ios";
  c.result.schedule.blocks = {Block({{{0}, {1}}}), Block({{{10}, {11}}}), Block({{{20}}})};
  c.result.stage_latency_ms = {4, 6, 6};
  c.result.predicted_latency_ms = 16;
  return c;
}

TEST(BlockCheckTest, ABlockMeasuredFasterSequentiallyKeepsTheSequentialStages) {
  Case c = ThreeBlocks();
  // Block 0: 7 ms searched against 5 sequential (replaced); block 1: 6 against 9 (kept).
  FakeBlockSource source({7, 6}, {5, 9}, true);
  Graph graph;
  StatusOr<BlockCheck> check = KeepSequentialWhereMeasuredFaster(
      graph, c.sequential, c.sequential_stages, source, &c.result);
  ASSERT_TRUE(check.ok()) << check.status().message();
  EXPECT_EQ(check->checked, 2);  // block 2 is already sequential
  EXPECT_EQ(check->replaced, 1);
  EXPECT_DOUBLE_EQ(check->ios_ms, 7 + 6);
  EXPECT_DOUBLE_EQ(check->sequential_ms, 5 + 9);
  EXPECT_DOUBLE_EQ(check->kept_gain_ms, 9 - 6);  // block 1, measured again
  EXPECT_DOUBLE_EQ(check->unchecked_gain_ms, 0);
  EXPECT_EQ(source.calls, 2 * 2 * 2 + 2 * 2);  // two blocks both ways twice, block 1 again
  ASSERT_EQ(c.result.schedule.blocks[0].stages.size(), 2u);
  EXPECT_EQ(c.result.schedule.blocks[0].stages[1].groups[0].nodes, std::vector<NodeId>{1});
  ASSERT_EQ(c.result.schedule.blocks[1].stages.size(), 1u);
  EXPECT_EQ(c.result.stage_latency_ms, (std::vector<double>{2, 3, 6, 6}));
  EXPECT_DOUBLE_EQ(c.result.predicted_latency_ms, 16 - 4 + 2 + 3);
}

// The kept blocks are measured again only when the measurements that chose them, which favour
// them, put the plan's gain at the margin (5% of the sequential 20 ms here) or more: below it,
// the caller drops them either way.
TEST(BlockCheckTest, KeptBlocksAreMeasuredAgainOnlyWhereTheirGainCouldCount) {
  for (double block1_ms : {8.2, 8.9}) {  // saves 0.8 ms (under 1 ms) or 0.1 ms (under)
    Case c = ThreeBlocks();
    FakeBlockSource source({7, block1_ms}, {5, 9}, true);
    Graph graph;
    StatusOr<BlockCheck> check = KeepSequentialWhereMeasuredFaster(
        graph, c.sequential, c.sequential_stages, source, &c.result, 0.05);
    ASSERT_TRUE(check.ok()) << check.status().message();
    EXPECT_EQ(check->replaced, 1);
    EXPECT_FALSE(check->kept_gain_remeasured);
    EXPECT_NEAR(check->kept_gain_ms, 9 - block1_ms, 1e-9);
    EXPECT_EQ(source.calls, 2 * 2 * 2);  // both blocks both ways twice, nothing again
  }
  // 3 ms saved (the first test): measured again.
  Case c = ThreeBlocks();
  FakeBlockSource source({7, 6}, {5, 9}, true);
  Graph graph;
  StatusOr<BlockCheck> check = KeepSequentialWhereMeasuredFaster(
      graph, c.sequential, c.sequential_stages, source, &c.result, 0.05);
  ASSERT_TRUE(check.ok()) << check.status().message();
  EXPECT_TRUE(check->kept_gain_remeasured);
  EXPECT_EQ(source.calls, 2 * 2 * 2 + 2 * 2);
}

// A block too large to run whole is checked segment by segment, at the cuts where the searched
// and the sequential stages have run the same nodes.
TEST(BlockCheckTest, ABlockTooLargeToMeasureWholeIsCheckedSegmentBySegment) {
  Case c;
  c.sequential.kind = "sequential";
  c.sequential.blocks = {Block({{{0}}, {{1}}, {{10}}, {{11}}})};
  c.sequential_stages = {2, 3, 4, 5};
  c.result.schedule.kind = "ios";
  c.result.schedule.blocks = {Block({{{0}, {1}}, {{10}, {11}}})};
  c.result.stage_latency_ms = {4, 6};
  c.result.predicted_latency_ms = 10;
  // Segment {0, 1}: 7 searched against 5 sequential (replaced); {10, 11}: 6 against 9 (kept).
  FakeBlockSource source({7, 6}, {5, 9}, true);
  source.max_nodes = 2;
  Graph graph;
  StatusOr<BlockCheck> check = KeepSequentialWhereMeasuredFaster(
      graph, c.sequential, c.sequential_stages, source, &c.result);
  ASSERT_TRUE(check.ok()) << check.status().message();
  EXPECT_EQ(check->checked, 2);
  EXPECT_EQ(check->replaced, 1);
  EXPECT_DOUBLE_EQ(check->kept_gain_ms, 9 - 6);
  ASSERT_EQ(c.result.schedule.blocks.size(), 1u);
  ASSERT_EQ(c.result.schedule.blocks[0].stages.size(), 3u);
  EXPECT_EQ(c.result.schedule.blocks[0].stages[0].groups[0].nodes, std::vector<NodeId>{0});
  EXPECT_EQ(c.result.schedule.blocks[0].stages[1].groups[0].nodes, std::vector<NodeId>{1});
  EXPECT_EQ(c.result.schedule.blocks[0].stages[2].groups.size(), 2u);
  EXPECT_EQ(c.result.stage_latency_ms, (std::vector<double>{2, 3, 6}));
  EXPECT_DOUBLE_EQ(c.result.predicted_latency_ms, 11);
}

// A merge stage cannot be run as a block: its segment keeps the searched stages only when
// predicted to save enough.
// Two units in one stage, predicted at `searched_ms` against the sequential 2 + 3, as a merge
// or as two concurrent groups, where nothing can run as a block.
struct UnmeasurableCase {
  Case c;
  StatusOr<BlockCheck> check = Internal("not run");
};
UnmeasurableCase CheckUnmeasurable(double searched_ms, bool merge) {
  UnmeasurableCase u;
  Case& c = u.c;
  c.sequential.kind = "sequential";
  c.sequential.blocks = {Block({{{0}}, {{1}}})};
  c.sequential_stages = {2, 3};
  c.result.schedule.kind = "ios";
  c.result.schedule.blocks = {Block({{{0}, {1}}})};
  if (merge) c.result.schedule.blocks[0].stages[0].strategy = StageStrategy::kMerge;
  c.result.stage_latency_ms = {searched_ms};
  c.result.predicted_latency_ms = searched_ms;
  FakeBlockSource source({7}, {5}, true);
  source.max_nodes = 1;  // nothing runs as a block
  Graph graph;
  u.check = KeepSequentialWhereMeasuredFaster(graph, c.sequential, c.sequential_stages, source,
                                              &c.result, 0.05);
  return u;
}

TEST(BlockCheckTest, AnUnmeasurableConcurrentSegmentNeedsAPredictedMargin) {
  for (double searched_ms : {4.9, 4.0}) {
    SCOPED_TRACE(searched_ms);
    UnmeasurableCase u = CheckUnmeasurable(searched_ms, /*merge=*/false);
    ASSERT_TRUE(u.check.ok()) << u.check.status().message();
    const bool kept = searched_ms < 5 * 0.95;  // 4.0 saves 20%, 4.9 saves 2%
    EXPECT_EQ(u.check->unmeasured_replaced, kept ? 0 : 1);
    EXPECT_DOUBLE_EQ(u.check->unchecked_gain_ms, kept ? 1.0 : 0.0);
    EXPECT_EQ(u.c.result.schedule.blocks[0].stages.size(), kept ? 1u : 2u);
    EXPECT_DOUBLE_EQ(u.c.result.predicted_latency_ms, kept ? searched_ms : 5.0);
  }
}

TEST(BlockCheckTest, AnUnmeasurableMergeSegmentKeepsTheSequentialStages) {
  // Even at a predicted 20% gain: merges are kept on a measurement only.
  for (double merged_ms : {4.9, 4.0}) {
    SCOPED_TRACE(merged_ms);
    UnmeasurableCase u = CheckUnmeasurable(merged_ms, /*merge=*/true);
    ASSERT_TRUE(u.check.ok()) << u.check.status().message();
    EXPECT_EQ(u.check->unmeasured_replaced, 1);
    EXPECT_DOUBLE_EQ(u.check->unchecked_gain_ms, 0.0);
    EXPECT_EQ(u.c.result.schedule.blocks[0].stages.size(), 2u);
    EXPECT_DOUBLE_EQ(u.c.result.predicted_latency_ms, 5.0);
  }
}

// Greedy stages replace a block predicted slower than them, unless every part of the block had
// no room (its ceiling under the margin): the search ran it sequentially on that evidence.
TEST(BlockCheckTest, GreedyStagesDoNotReplaceABlockWithoutRoom) {
  for (bool block0_without_room : {false, true}) {
    SCOPED_TRACE(block0_without_room);
    Case c = ThreeBlocks();
    // The search's result: sequential stages; greedy's: ThreeBlocks' concurrent ones, predicted
    // faster in blocks 0 (4 against 2 + 3) and 1 (6 against 4 + 5).
    Schedule greedy = c.result.schedule;
    const std::vector<double> greedy_stages = c.result.stage_latency_ms;
    c.result.schedule = c.sequential;
    c.result.stage_latency_ms = c.sequential_stages;
    c.result.predicted_latency_ms = 2 + 3 + 4 + 5 + 6;
    // Block 0 has two parts; block 1 one, with room; block 2 a chain (nothing measured).
    for (auto [block, no_room] : {std::pair{0, block0_without_room}, std::pair{0, true},
                                  std::pair{1, false}, std::pair{2, false}}) {
      PartSearchStats part;
      part.block = block;
      part.no_room = no_room;
      c.result.parts.push_back(part);
    }
    EXPECT_EQ(KeepGreedyWhereFaster(greedy, greedy_stages, &c.result),
              block0_without_room ? 1 : 2);
    EXPECT_EQ(c.result.schedule.blocks[0].stages.size(), block0_without_room ? 2u : 1u);
    EXPECT_EQ(c.result.schedule.blocks[1].stages.size(), 1u);
    EXPECT_DOUBLE_EQ(c.result.predicted_latency_ms,
                     block0_without_room ? 2 + 3 + 6 + 6 : 4 + 6 + 6);
  }
}

TEST(BlockCheckTest, DroppingConcurrencyRunsEveryConcurrentBlockSequentially) {
  Case c = ThreeBlocks();
  EXPECT_EQ(DropConcurrentBlocks(c.sequential, c.sequential_stages, &c.result), 2);
  for (size_t b = 0; b < 3; ++b)
    for (const ScheduleStage& stage : c.result.schedule.blocks[b].stages)
      EXPECT_EQ(stage.groups.size(), 1u);
  EXPECT_EQ(c.result.stage_latency_ms, (std::vector<double>{2, 3, 4, 5, 6}));
  EXPECT_DOUBLE_EQ(c.result.predicted_latency_ms, 2 + 3 + 4 + 5 + 6);
}

TEST(BlockCheckTest, ThePredictedConcurrentGainCountsConcurrentBlocksOnly) {
  Case c = ThreeBlocks();
  // Blocks 0 and 1: (2 + 3) - 4 and (4 + 5) - 6.
  EXPECT_DOUBLE_EQ(PredictedConcurrentGainMs(c.sequential, c.sequential_stages, c.result), 1 + 3);
  // Block 1 as a merge stage: not concurrent.
  c.result.schedule.blocks[1].stages[0].strategy = StageStrategy::kMerge;
  EXPECT_DOUBLE_EQ(PredictedConcurrentGainMs(c.sequential, c.sequential_stages, c.result), 1);
  // A concurrent block predicted slower counts against the others.
  c.result.stage_latency_ms[0] = 7;
  EXPECT_DOUBLE_EQ(PredictedConcurrentGainMs(c.sequential, c.sequential_stages, c.result), -2);
}

TEST(BlockCheckTest, ASourceWithoutBlockMeasurementsLeavesTheSchedule) {
  Case c = ThreeBlocks();
  FakeBlockSource source({7, 6}, {5, 9}, false);
  Graph graph;
  StatusOr<BlockCheck> check = KeepSequentialWhereMeasuredFaster(
      graph, c.sequential, c.sequential_stages, source, &c.result);
  ASSERT_TRUE(check.ok()) << check.status().message();
  EXPECT_EQ(check->checked, 0);
  EXPECT_EQ(check->replaced, 0);
  // Blocks 0 and 1 run two groups at once: predicted (2 + 3) - 4 and (4 + 5) - 6.
  EXPECT_DOUBLE_EQ(check->unchecked_gain_ms, 1 + 3);
  EXPECT_EQ(c.result.schedule.blocks[0].stages.size(), 1u);
  EXPECT_EQ(c.result.stage_latency_ms, (std::vector<double>{4, 6, 6}));
  EXPECT_DOUBLE_EQ(c.result.predicted_latency_ms, 16);
}

// SearchCheck over three parts (nodes 0-1, 10-11, 20-21), each searched as one two-group stage
// against its two units one at a time: the calls' answers, and what it summed.
std::vector<bool> CheckThreeParts(SearchCheck* check) {
  std::vector<bool> answers;
  for (NodeId first : {0, 10, 20}) {
    const ScheduleBlock searched = Block({{{first}, {first + 1}}});
    const ScheduleBlock sequential = Block({{{first}}, {{first + 1}}});
    StatusOr<bool> search_on = check->Check(PartCheck{searched, sequential, 1, 2});
    EXPECT_TRUE(search_on.ok()) << search_on.status().message();
    answers.push_back(search_on.ok() && search_on.value());
  }
  return answers;
}

TEST(SearchCheckTest, StopsOnceThreePartsMeasuredWholeSaveUnderTheMargin) {
  // Each part takes 10 ms both ways: no gain. The first two cannot stop the search.
  FakeBlockSource source({10, 10, 10}, {10, 10, 10}, true);
  Graph graph;
  SearchCheck check(graph, source, 0.05);
  EXPECT_EQ(CheckThreeParts(&check), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(check.measured(), 3);
  EXPECT_DOUBLE_EQ(check.ios_ms(), 30);
  EXPECT_DOUBLE_EQ(check.sequential_ms(), 30);
  // Both ways, two rounds each, per part.
  EXPECT_EQ(source.calls, 12);
}

TEST(SearchCheckTest, TheMarginIsOfTheSummedSequentialTime) {
  // 4% saved: under a 5% margin, over a 3% one.
  for (auto [margin, last] : {std::pair{0.05, false}, std::pair{0.03, true}}) {
    FakeBlockSource source({9.6, 9.6, 9.6}, {10, 10, 10}, true);
    Graph graph;
    SearchCheck check(graph, source, margin);
    EXPECT_EQ(CheckThreeParts(&check), (std::vector<bool>{true, true, last})) << margin;
  }
  // One part that saves half carries two that save nothing: 5 of 30 ms.
  FakeBlockSource source({5, 10, 10}, {10, 10, 10}, true);
  Graph graph;
  SearchCheck check(graph, source, 0.05);
  EXPECT_EQ(CheckThreeParts(&check), (std::vector<bool>{true, true, true}));
  EXPECT_DOUBLE_EQ(check.sequential_ms() - check.ios_ms(), 5);
}

TEST(SearchCheckTest, PartsThatCannotRunWholeAreNoEvidence) {
  FakeBlockSource source({10, 10, 10}, {10, 10, 10}, true);
  source.max_nodes = 1;  // every part has two nodes: Unsupported
  Graph graph;
  SearchCheck check(graph, source, 0.05);
  EXPECT_EQ(CheckThreeParts(&check), (std::vector<bool>{true, true, true}));
  EXPECT_EQ(check.measured(), 0);
  EXPECT_EQ(source.calls, 0);
}

}  // namespace
}  // namespace ios

// What the CPU and CUDA stage profilers share (profile/profiled_stage.h): the buffers of a stage
// and the pool slot each one takes.
#include "profile/profiled_stage.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

#include "test_graph_builder.h"

namespace ios {
namespace {

using testing::GraphBuilder;

TEST(ProfiledStageTest, BuffersOfOneKindAndSizeTakeSuccessivePoolSlots) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 4, 8, 8});
  ValueId y = b.Input("y", {1, 4, 8, 8});
  ValueId wide = b.Input("wide", {1, 8, 8, 8});
  ValueId from_x = b.Conv(x, 4, 1);             // node 0
  ValueId from_y = b.Conv(y, 4, 1);             // node 1
  ValueId sum = b.Op("Add", {from_x, from_y});  // node 2
  ValueId from_wide = b.Conv(wide, 4, 1);       // node 3
  Graph g = b.Finish({sum, from_wide});
  ScheduleStage stage;
  stage.groups = {ScheduleGroup{{0, 1, 2}}, ScheduleGroup{{3}}};
  const std::vector<StageBuffer> buffers = StageBuffers(g, stage);
  ASSERT_EQ(buffers.size(), 7u);
  const ValueId order[] = {x, from_x, y, from_y, sum, wide, from_wide};
  const bool produced[] = {false, true, false, true, true, false, true};
  // x and y share the input pool's size class, from_x, from_y, sum and from_wide the work
  // pool's; wide is alone in its input size class.
  const int slot[] = {0, 0, 1, 1, 2, 0, 3};
  for (size_t i = 0; i < buffers.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(buffers[i].value, order[i]);
    EXPECT_EQ(buffers[i].produced, produced[i]);
    EXPECT_EQ(buffers[i].pool_index, slot[i]);
  }
}

// A block's produced buffers are reused once their last reader's stage has run, and never
// between values of one stage.
TEST(ProfiledStageTest, BlockBuffersReuseProducedBuffersByLiveness) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 4, 8, 8});
  ValueId c0 = b.Conv(x, 4, 1);    // node 0, stage 0
  ValueId c1 = b.Conv(c0, 4, 1);   // node 1, stage 1
  ValueId c2 = b.Conv(c1, 4, 1);   // node 2, stage 2: c0 is dead by now
  ValueId c3 = b.Conv(c2, 4, 1);   // node 3, stage 3 with node 4
  ValueId c4 = b.Conv(c2, 4, 1);   // node 4
  Graph g = b.Finish({c3, c4});
  ScheduleBlock block;
  for (std::vector<std::vector<NodeId>> groups :
       std::vector<std::vector<std::vector<NodeId>>>{{{0}}, {{1}}, {{2}}, {{3}, {4}}}) {
    ScheduleStage& stage = block.stages.emplace_back();
    for (const std::vector<NodeId>& nodes : groups) stage.groups.push_back(ScheduleGroup{nodes});
  }
  std::map<ValueId, int> slot;
  for (const StageBuffer& buffer : BlockBuffers(g, block))
    if (buffer.produced) slot[buffer.value] = buffer.pool_index;
  ASSERT_EQ(slot.size(), 5u);
  EXPECT_EQ(slot[c0], 0);
  EXPECT_EQ(slot[c1], 1);  // c0 is read by stage 1: still live
  EXPECT_EQ(slot[c2], 0);  // c0's buffer, free after stage 1
  EXPECT_EQ(slot[c3], 1);  // c1's, free after stage 2
  EXPECT_EQ(slot[c4], 2);  // c3's stage-mate: a buffer of its own (c2 is read in stage 3)
  // One stage: what StageBuffers gives.
  ScheduleBlock one;
  one.stages.push_back(block.stages[3]);
  const std::vector<StageBuffer> plain = StageBuffers(g, one.stages[0]);
  const std::vector<StageBuffer> reused = BlockBuffers(g, one);
  ASSERT_EQ(plain.size(), reused.size());
  for (size_t i = 0; i < plain.size(); ++i) EXPECT_EQ(plain[i].pool_index, reused[i].pool_index);
}

// Buffers of other sizes are shared too: the smallest free one that holds a value, else the
// largest free one, grown; each reports the size it was given.
TEST(ProfiledStageTest, BlockBuffersShareBuffersAcrossSizes) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 4, 8, 8});
  ValueId p = b.Conv(x, 16, 1);  // node 0, stage 0: 4096 bytes
  ValueId q = b.Conv(x, 4, 1);   // node 1, stage 0: 1024
  ValueId r = b.Conv(p, 1, 1);   // node 2, stage 1: 256
  ValueId t = b.Conv(q, 1, 1);   // node 3, stage 1: 256
  ValueId u = b.Conv(r, 3, 1);   // node 4, stage 2: 768, into q's 1024 rather than p's 4096
  ValueId v = b.Conv(u, 32, 1);  // node 5, stage 3: 8192, p's buffer grown
  Graph g = b.Finish({t, v});
  ScheduleBlock block;
  for (std::vector<std::vector<NodeId>> groups : std::vector<std::vector<std::vector<NodeId>>>{
           {{0}, {1}}, {{2}, {3}}, {{4}}, {{5}}}) {
    ScheduleStage& stage = block.stages.emplace_back();
    for (const std::vector<NodeId>& nodes : groups) stage.groups.push_back(ScheduleGroup{nodes});
  }
  std::map<ValueId, std::pair<size_t, int>> given;  // value: (bytes, pool_index)
  for (const StageBuffer& buffer : BlockBuffers(g, block))
    if (buffer.produced) given[buffer.value] = {buffer.bytes, buffer.pool_index};
  ASSERT_EQ(given.size(), 6u);
  // p's buffer, grown to v's 8192 bytes: the only one of its size.
  EXPECT_EQ(given[p], std::make_pair(size_t{8192}, 0));
  EXPECT_EQ(given[v], std::make_pair(size_t{8192}, 0));
  // q's 1024 bytes hold u; r and t are live together in stage 1: two buffers of 256.
  EXPECT_EQ(given[q], std::make_pair(size_t{1024}, 0));
  EXPECT_EQ(given[u], std::make_pair(size_t{1024}, 0));
  EXPECT_EQ(given[r].first, 256u);
  EXPECT_EQ(given[t].first, 256u);
  EXPECT_NE(given[r].second, given[t].second);
  // Every buffer holds its value.
  for (const auto& [value, buffer] : given)
    EXPECT_GE(buffer.first, static_cast<size_t>(ValueBytes(g.values[value])));
}

TEST(ProfiledStageTest, RandomStageInputIsInRangeAndSeeded) {
  std::vector<float> first(1000), second(1000);
  std::mt19937 rng_a(7), rng_b(7);
  FillRandomStageInput(first.data(), first.size(), rng_a);
  FillRandomStageInput(second.data(), second.size(), rng_b);
  EXPECT_EQ(first, second);
  bool varied = false;
  for (float f : first) {
    EXPECT_GE(f, -1.f);
    EXPECT_LT(f, 1.f);
    varied = varied || f != first[0];
  }
  EXPECT_TRUE(varied);
}

}  // namespace
}  // namespace ios

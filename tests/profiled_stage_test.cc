// What the CPU and CUDA stage profilers share (runtime/profiled_stage.h): the buffers of a stage
// and the pool slot each one takes.
#include "runtime/profiled_stage.h"

#include <gtest/gtest.h>

#include <random>

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

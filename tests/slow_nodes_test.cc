// compile/slow_nodes.h: which nodes of a CPU plan are on slow paths, and their stages' share of
// the predicted latency.
#include "compile/slow_nodes.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "passes/assign_layouts.h"
#include "runtime/cpu/cpu_layout.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "test_graph_builder.h"

namespace ios {
namespace {

using testing::GraphBuilder;

TEST(SlowNodesTest, FindsReferenceAndReorderedNodesAndTheirStagesShare) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 8, 6, 6});
  ValueId conv = b.Conv(x, 16, 3, 1, 1, 1, "conv");
  AttributeMap axis;
  axis.Set("axis", int64_t{1});
  ValueId soft = b.Op("Softmax", {conv}, axis, "softmax");
  ValueId i = b.Input("i", {5}, DType::kInt64);
  Tensor three(DType::kInt64, {5});
  for (int k = 0; k < 5; ++k) three.data<int64_t>()[k] = 3;
  ValueId div = b.Op("Div", {i, b.Constant("three", three)}, {}, "int_div");
  Graph graph = b.Finish({soft, div});
  AssignCpuLayouts(graph, CpuKernelCaps(), /*channels_last=*/true, /*blocked=*/false);

  StatusOr<std::vector<proto::SlowNode>> slow = FindSlowCpuNodes(graph);
  ASSERT_TRUE(slow.ok()) << slow.status().message();
  ASSERT_EQ(slow->size(), 2u);
  EXPECT_EQ((*slow)[0].name(), "softmax");
  EXPECT_EQ((*slow)[0].kernel(), "behind a reorder");
  EXPECT_EQ((*slow)[1].name(), "int_div");
  EXPECT_EQ((*slow)[1].kernel(), "reference");
  EXPECT_EQ((*slow)[0].stage_ms(), -1);

  // Stages: conv alone (2 ms), then the Softmax beside the Div (1 ms): 3 ms in all.
  Schedule schedule;
  ScheduleBlock& block = schedule.blocks.emplace_back();
  block.stages.emplace_back().groups.push_back(ScheduleGroup{{graph.values[conv].producer}});
  ScheduleStage& both = block.stages.emplace_back();
  both.groups.push_back(ScheduleGroup{{graph.values[soft].producer}});
  both.groups.push_back(ScheduleGroup{{graph.values[div].producer}});
  AttachStageLatencies(graph, schedule, {2.0, 1.0}, 3.0, &*slow);
  for (const proto::SlowNode& node : *slow) {
    EXPECT_DOUBLE_EQ(node.stage_ms(), 1.0) << node.name();
    EXPECT_EQ(node.stage_ops(), 2) << node.name();
    EXPECT_DOUBLE_EQ(node.share(), 1.0 / 3.0) << node.name();
  }
  const std::string text = FormatSlowNodes(*slow);
  EXPECT_NE(text.find("2 node(s)"), std::string::npos) << text;
  EXPECT_NE(text.find("Div 'int_div': reference"), std::string::npos) << text;
  // Without a prediction (a sequential plan): no share.
  std::vector<proto::SlowNode> unpredicted = FindSlowCpuNodes(graph).value();
  AttachStageLatencies(graph, schedule, {}, -1, &unpredicted);
  for (const proto::SlowNode& node : unpredicted) EXPECT_EQ(node.share(), -1) << node.name();
  EXPECT_TRUE(FormatSlowNodes({}).empty());
}

}  // namespace
}  // namespace ios

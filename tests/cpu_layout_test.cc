// The CPU plan's layout assignment (passes/assign_layouts.h) on small graphs, and what the rest
// of the pipeline does with its answer: the memory plan makes no views of channels-last tensors,
// the plan records and restores the layouts, and the validator refuses layouts that cannot be.
#include "runtime/cpu/cpu_layout.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/fused_activation.h"
#include "layout_shorthands.h"
#include "passes/assign_layouts.h"
#include "passes/cpu_lowering.h"
#include "plan/memory_plan.h"
#include "plan/plan_builder.h"
#include "plan/plan_loader.h"
#include "plan/tensor_views.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "sched/schedule.h"
#include "test_graph_builder.h"

namespace ios {
namespace {

using testing::GraphBuilder;

using testing::kB8;
using testing::kCL;
using testing::kRM;

AttributeMap Axis(int64_t axis) {
  AttributeMap attrs;
  attrs.Set("axis", axis);
  return attrs;
}

// A sequential schedule of `graph`'s nodes in order, one per stage.
Schedule OneNodePerStage(const Graph& graph) {
  Schedule schedule;
  schedule.kind = "sequential";
  ScheduleBlock& block = schedule.blocks.emplace_back();
  for (NodeId n = 0; n < static_cast<NodeId>(graph.nodes.size()); ++n)
    block.stages.emplace_back().groups.push_back(ScheduleGroup{{n}});
  return schedule;
}

TEST(CpuLayoutTest, ConvOutputsAndTheOpsBetweenThemAreChannelsLast) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 8, 16, 16});
  ValueId c1 = b.Conv(x, 16, 3, 1, 1, 1, "c1");
  ValueId relu = b.Op("Relu", {c1});
  ValueId pool = b.Op("MaxPool", {relu}, [] {
    AttributeMap a;
    a.Set("kernel_shape", std::vector<int64_t>{2, 2});
    a.Set("strides", std::vector<int64_t>{2, 2});
    return a;
  }());
  ValueId c2 = b.Conv(pool, 16, 1, 0, 1, 1, "c2");
  ValueId c3 = b.Conv(pool, 8, 3, 1, 1, 1, "c3");
  ValueId sum = b.Op("Add", {c2, pool});
  ValueId cat = b.Op("Concat", {sum, c3}, Axis(1));
  ValueId gap = b.Op("GlobalAveragePool", {cat});
  ValueId flat = b.Op("Flatten", {gap}, Axis(1));
  ValueId out = b.Conv(cat, 4, 1, 0, 1, 1, "head");
  Graph graph = b.Finish({flat, out});

  const int count = AssignCpuLayouts(graph, CpuKernelCaps(), true, CpuBlocksSpatialConvs());
  for (ValueId v : {c1, relu, pool, c2, c3, sum, cat})
    EXPECT_EQ(graph.values[v].layout, kCL) << graph.values[v].name;
  // The graph's input and outputs, and [N, C, 1, 1], stay row-major; so do the constants.
  for (ValueId v : {x, gap, flat, out}) EXPECT_EQ(graph.values[v].layout, kRM) << graph.values[v].name;
  for (const Value& value : graph.values) {
    if (value.constant) {
      EXPECT_EQ(value.layout, kRM) << value.name;
    }
  }
  EXPECT_EQ(count, 7);

  // --layout row-major: none.
  EXPECT_EQ(
      AssignCpuLayouts(graph, CpuKernelCaps(), /*channels_last=*/false, CpuBlocksSpatialConvs()),
      0);
  for (const Value& value : graph.values) EXPECT_EQ(value.layout, kRM) << value.name;
}

// A ConvTranspose starts channels-last tensors as a conv does (its oneDNN kernels take NHWC).
TEST(CpuLayoutTest, ConvTransposeOutputsAreChannelsLast) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 8, 6, 6});
  AttributeMap stride2;
  stride2.Set("strides", std::vector<int64_t>{2, 2});
  ValueId up = b.Op("ConvTranspose",
                    {x, b.Constant("w", b.Random({8, 16, 2, 2})), b.Constant("b", b.Random({16}))},
                    stride2);
  ValueId relu = b.Op("Relu", {up});
  ValueId out = b.Conv(relu, 4, 3, 1, 1, 1, "head");
  Graph graph = b.Finish({out});
  AssignCpuLayouts(graph, CpuKernelCaps(), /*channels_last=*/true, /*blocked=*/false);
  for (ValueId v : {up, relu}) EXPECT_EQ(graph.values[v].layout, kCL) << graph.values[v].name;
  for (ValueId v : {x, out}) EXPECT_EQ(graph.values[v].layout, kRM) << graph.values[v].name;
  // Where oneDNN blocks spatial convs (AVX2), the run between it and the conv may be blocked.
  AssignCpuLayouts(graph, CpuKernelCaps(), true, CpuBlocksSpatialConvs());
  for (ValueId v : {up, relu}) EXPECT_NE(graph.values[v].layout, kRM) << graph.values[v].name;
}

TEST(CpuLayoutTest, OpsThatCannotTakeChannelsLastStayRowMajor) {
  GraphBuilder b;
  ValueId x = b.Input("x", {2, 4, 8, 8});
  ValueId c1 = b.Conv(x, 8, 3, 1);
  ValueId c2 = b.Conv(x, 8, 3, 1);
  // A concat along the height: its kernel copies rows of row-major tensors only.
  ValueId rows = b.Op("Concat", {c1, c2}, Axis(2));
  // An Add of a channels-last and a row-major tensor of the same shape (a graph input).
  ValueId y = b.Input("y", {2, 8, 8, 8});
  ValueId mixed = b.Op("Add", {c1, y});
  // Softmax has no channels-last kernel.
  ValueId soft = b.Op("Softmax", {c2}, Axis(1));
  ValueId tail = b.Op("Relu", {soft});
  Graph graph = b.Finish({rows, mixed, tail});
  AssignCpuLayouts(graph, CpuKernelCaps(), true, CpuBlocksSpatialConvs());
  EXPECT_EQ(graph.values[c1].layout, kCL);
  EXPECT_EQ(graph.values[c2].layout, kCL);
  for (ValueId v : {rows, mixed, soft, tail})
    EXPECT_EQ(graph.values[v].layout, kRM) << graph.values[v].name;
}

TEST(CpuLayoutTest, MemoryPlanMakesNoViewsOfChannelsLastTensors) {
  // A concat of two convs, read by a third: row-major, both slices become views.
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 8, 8, 8});
  ValueId c1 = b.Conv(x, 8, 1);
  ValueId c2 = b.Conv(x, 8, 3, 1);
  ValueId cat = b.Op("Concat", {c1, c2}, Axis(1));
  ValueId out = b.Conv(cat, 4, 1);
  Graph graph = b.Finish({out});
  EXPECT_EQ(FindSliceViews(graph, CpuKernelCaps()).size(), 2u);
  AssignCpuLayouts(graph, CpuKernelCaps(), true, CpuBlocksSpatialConvs());
  ASSERT_EQ(graph.values[cat].layout, kCL);
  EXPECT_TRUE(FindSliceViews(graph, CpuKernelCaps()).empty());
}

TEST(CpuLayoutTest, PlanRecordsLayoutsAndRefusesImpossibleOnes) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 4, 8, 8});
  ValueId c1 = b.Conv(x, 8, 3, 1);
  ValueId relu = b.Op("Relu", {c1});
  ValueId out = b.Conv(relu, 4, 1);
  Graph graph = b.Finish({out});
  ASSERT_EQ(AssignCpuLayouts(graph, CpuKernelCaps(), true, CpuBlocksSpatialConvs()), 2);
  const Schedule schedule = OneNodePerStage(graph);
  StatusOr<MemoryPlan> memory = PlanMemory(graph, schedule, CpuKernelCaps(), 256, true);
  ASSERT_TRUE(memory.ok()) << memory.status().message();
  PlanMetadata meta;
  StatusOr<plan::Plan> built = BuildPlan(graph, schedule, *memory, meta);
  ASSERT_TRUE(built.ok()) << built.status().message();
  plan::Plan message = built.value();
  int channels_last = 0;
  for (const plan::Tensor& t : message.tensors()) channels_last += t.layout() == plan::CHANNELS_LAST;
  EXPECT_EQ(channels_last, 2);

  StatusOr<LoadedPlan> loaded = LoadPlan(message, "test.iosplan", CpuKernelCaps());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  for (ValueId v = 0; v < static_cast<ValueId>(graph.values.size()); ++v) {
    const ValueId id = loaded->graph.FindValue(graph.values[v].name);
    ASSERT_NE(id, kNoValue) << graph.values[v].name;
    EXPECT_EQ(loaded->graph.values[id].layout, graph.values[v].layout) << graph.values[v].name;
  }

  auto refused = [&](const std::string& why, auto edit, const std::string& words) {
    SCOPED_TRACE(why);
    plan::Plan bad = message;
    edit(bad);
    StatusOr<LoadedPlan> result = LoadPlan(std::move(bad), "bad.iosplan", CpuKernelCaps());
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.status().message().find(words), std::string::npos)
        << result.status().message();
  };
  auto index_of = [&](const plan::Plan& p, const std::string& name) {
    for (int t = 0; t < p.tensors_size(); ++t)
      if (p.tensors(t).name() == name) return t;
    return -1;
  };
  refused("a channels-last graph input",
          [&](plan::Plan& p) {
            p.mutable_tensors(index_of(p, "x"))->set_layout(plan::CHANNELS_LAST);
          },
          "is channels-last, which only float32 intermediate tensors");
  refused("an unknown layout",
          [&](plan::Plan& p) {
            p.mutable_tensors(index_of(p, graph.values[c1].name))->set_layout(
                static_cast<plan::Layout>(7));
          },
          "unknown layout 7");
}

// Where oneDNN blocks spatial convs (AVX2), the values with whole blocks of 8 channels that pass
// between dense 2-D convs (a 1x1 conv blocked on both sides or neither) are channels-blocked-8;
// a grouped conv, another channel count, or an op that cannot take them keeps them
// channels-last. The plan records them, and refuses one that cannot be.
TEST(CpuLayoutTest, ValuesBetweenDenseConvsAreBlocked) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 8, 16, 16});
  ValueId a = b.Conv(x, 16, 3, 1, 1, 1, "a");   // read by a 3x3 conv only
  ValueId bb = b.Conv(a, 16, 3, 1, 1, 1, "b");  // read by a 1x1 conv that writes a blocked c
  ValueId c = b.Conv(bb, 16, 1, 0, 1, 1, "c");  // made by that 1x1 conv, read by a 3x3 conv
  ValueId d = b.Conv(c, 12, 3, 1, 1, 1, "d");   // 12 channels
  ValueId e = b.Conv(d, 16, 3, 1, 1, 1, "e");   // read by a conv and a Relu to a graph output
  ValueId f = b.Conv(e, 16, 3, 1, 1, 1, "f");   // read by a grouped conv
  ValueId g = b.Conv(f, 16, 3, 1, 2, 1, "g");   // made by a grouped conv
  ValueId h = b.Conv(g, 16, 3, 1, 1, 1, "h");   // a graph output
  ValueId relu = b.Op("Relu", {e});
  Graph graph = b.Finish({h, relu});
  const int count = AssignCpuLayouts(graph, CpuKernelCaps(), true, CpuBlocksSpatialConvs());
  EXPECT_EQ(count, 7);  // a to g, blocked or not
  for (ValueId v : {a, bb, c})
    EXPECT_EQ(graph.values[v].layout, CpuBlocksSpatialConvs() ? kB8 : kCL) << graph.values[v].name;
  for (ValueId v : {d, e, f, g}) EXPECT_EQ(graph.values[v].layout, kCL) << graph.values[v].name;
  EXPECT_EQ(graph.values[h].layout, kRM);  // graph outputs
  EXPECT_EQ(graph.values[relu].layout, kRM);
  if (!CpuBlocksSpatialConvs()) return;  // the rest is about a blocked value
  // --layout channels-last: none blocked.
  EXPECT_EQ(AssignCpuLayouts(graph, CpuKernelCaps(), true, /*blocked=*/false), 7);
  for (ValueId v : {a, bb, c}) EXPECT_EQ(graph.values[v].layout, kCL);
  AssignCpuLayouts(graph, CpuKernelCaps(), true, CpuBlocksSpatialConvs());

  const Schedule schedule = OneNodePerStage(graph);
  StatusOr<MemoryPlan> memory = PlanMemory(graph, schedule, CpuKernelCaps(), 256, true);
  ASSERT_TRUE(memory.ok()) << memory.status().message();
  StatusOr<plan::Plan> built = BuildPlan(graph, schedule, *memory, PlanMetadata());
  ASSERT_TRUE(built.ok()) << built.status().message();
  StatusOr<LoadedPlan> loaded = LoadPlan(built.value(), "test.iosplan", CpuKernelCaps());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->graph.values[loaded->graph.FindValue(graph.values[a].name)].layout, kB8);
  for (const std::string& name : {graph.values[d].name, std::string("x")}) {
    SCOPED_TRACE(name);
    plan::Plan bad = built.value();
    for (plan::Tensor& t : *bad.mutable_tensors())
      if (t.name() == name) t.set_layout(plan::CHANNELS_BLOCKED_8);
    StatusOr<LoadedPlan> result = LoadPlan(std::move(bad), "bad.iosplan", CpuKernelCaps());
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.status().message().find("is channels-blocked-8, which only float32 "
                                             "intermediate tensors [N, C, H, W] with C a multiple "
                                             "of 8"),
              std::string::npos)
        << result.status().message();
  }
}

// An Inception module: the blocked layout runs from conv to conv through the pool, the Concat,
// a same-shape Add and an activation, and at batch 1 the Concat's slices are views of its
// blocked output, which the plan keeps. At batch 2 they would be strided views, which only
// row-major tensors may be: the Concat copies.
TEST(CpuLayoutTest, BlockedValuesRunThroughPoolsConcatsAndElementwiseOps) {
  if (!CpuBlocksSpatialConvs()) GTEST_SKIP() << "oneDNN does not block spatial convs here";
  for (int64_t batch : {1, 2}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    GraphBuilder b;
    ValueId x = b.Input("x", {batch, 8, 12, 12});
    ValueId stem = b.Conv(x, 16, 3, 1, 1, 1, "stem");
    ValueId branch = b.Conv(stem, 16, 1, 0, 1, 1, "branch");
    AttributeMap window;
    window.Set("kernel_shape", std::vector<int64_t>{3, 3});
    window.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
    ValueId pool = b.Op("MaxPool", {stem}, window, "pool");
    ValueId cat = b.Op("Concat", {branch, pool}, Axis(1), "cat");
    ValueId left = b.Conv(cat, 16, 3, 1, 1, 1, "left");
    ValueId right = b.Conv(cat, 16, 3, 1, 1, 1, "right");
    ValueId sum = b.Op("Add", {left, right}, {}, "sum");
    ValueId relu = b.Op("Relu", {sum}, {}, "relu");
    // A per-channel scale broadcasts, which blocked tensors cannot: `scaled`, `relu2` and the
    // output of the `tail` conv that `relu2` reads stay channels-last.
    ValueId relu2 = b.Op("Relu", {b.Conv(relu, 16, 3, 1, 1, 1, "tail")}, {}, "relu2");
    ValueId scale =
        b.Constant("scale", Tensor::FromFloat(std::vector<float>(16, 0.5f), {1, 16, 1, 1}));
    ValueId scaled = b.Op("Mul", {relu2, scale}, {}, "scaled");
    ValueId head = b.Conv(scaled, 8, 1, 0, 1, 1, "head");
    Graph graph = b.Finish({head});
    AssignCpuLayouts(graph, CpuKernelCaps(), true, CpuBlocksSpatialConvs());
    for (ValueId v : {stem, branch, pool, cat, left, right, sum, relu})
      EXPECT_EQ(graph.values[v].layout, kB8) << graph.values[v].name;
    for (ValueId v : {relu2, scaled}) EXPECT_EQ(graph.values[v].layout, kCL);

    const std::vector<TensorView> views = FindSliceViews(graph, CpuKernelCaps());
    EXPECT_EQ(views.size(), batch == 1 ? 2u : 0u);
    const Schedule schedule = OneNodePerStage(graph);
    StatusOr<MemoryPlan> memory = PlanMemory(graph, schedule, CpuKernelCaps(), 256, true);
    ASSERT_TRUE(memory.ok()) << memory.status().message();
    int placed_views = 0;
    for (const TensorPlacement& p : memory->placements) placed_views += p.view_of != kNoValue;
    EXPECT_EQ(placed_views, static_cast<int>(views.size()));
    StatusOr<plan::Plan> built = BuildPlan(graph, schedule, *memory, PlanMetadata());
    ASSERT_TRUE(built.ok()) << built.status().message();
    StatusOr<LoadedPlan> loaded = LoadPlan(built.value(), "test.iosplan", CpuKernelCaps());
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  }
}

// DenseNet's dense layers: each concatenates every feature before it, then the pre-activation
// per-channel Mul/Add and Relu, a 1x1 and a 3x3 conv. The CPU lowering makes the Mul/Add a
// BatchNormalization with the Relu fused (passes/cpu_lowering.h), whose kernel takes blocked
// tensors: the layers run blocked from conv to conv, where the broadcasting Mul kept them
// channels-last. A BN writes over its Concat, which nothing else reads, and not over the stem,
// which the later Concats read.
TEST(CpuLayoutTest, DenseLayersRunBlockedThroughTheirPreActivation) {
  if (!CpuBlocksSpatialConvs()) GTEST_SKIP() << "oneDNN does not block spatial convs here";
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 8, 12, 12});
  std::vector<ValueId> features = {b.Conv(x, 16, 3, 1, 1, 1, "stem")};
  for (int layer = 0; layer < 3; ++layer) {
    const std::string name = "layer" + std::to_string(layer);
    const ValueId in =
        features.size() == 1 ? features[0] : b.Op("Concat", features, Axis(1), name + "/cat");
    const int64_t channels = b.graph().values[in].dims[1];
    ValueId scale = b.Constant(name + "/scale", b.Random({channels, 1, 1}));
    ValueId shift = b.Constant(name + "/shift", b.Random({channels, 1, 1}));
    ValueId norm = b.Op("Add", {b.Op("Mul", {in, scale}), shift});
    ValueId bottleneck = b.Conv(b.Op("Relu", {norm}), 32, 1, 0, 1, 1, name + "/conv1");
    features.push_back(b.Conv(bottleneck, 8, 3, 1, 1, 1, name + "/conv2"));
  }
  // A spatial head conv: a 1x1 one would keep its input, and through the Concats every value,
  // channels-last beside its row-major graph output.
  const ValueId all = b.Op("Concat", features, Axis(1), "cat");
  Graph graph = b.Finish({b.Conv(all, 8, 3, 1, 1, 1, "head")});
  const CpuLoweringStats lowered = LowerGraphForCpu(graph);
  EXPECT_EQ(lowered.channel_affines, 3);
  EXPECT_EQ(lowered.batchnorm_activations, 3);
  AssignCpuLayouts(graph, CpuKernelCaps(), true, CpuBlocksSpatialConvs());
  const Schedule schedule = OneNodePerStage(graph);
  StatusOr<MemoryPlan> memory =
      PlanMemory(graph, schedule, CpuKernelCaps(), 256, true, /*in_place=*/true);
  ASSERT_TRUE(memory.ok()) << memory.status().message();
  auto offset = [&](ValueId v) {
    for (const TensorPlacement& p : memory->placements)
      if (p.value == v) return p.offset;
    ADD_FAILURE() << graph.values[v].name << " has no placement";
    return int64_t{-1};
  };
  int bns = 0;
  int in_place = 0;
  for (const Node& node : graph.nodes) {
    if (node.dead || node.op_type != "BatchNormalization") continue;
    ++bns;
    const Value& in = graph.values[node.inputs[0]];
    EXPECT_EQ(in.layout, kB8) << node.name;
    EXPECT_EQ(graph.values[node.outputs[0]].layout, kB8) << node.name;
    const bool over_input = offset(node.inputs[0]) == offset(node.outputs[0]);
    EXPECT_EQ(over_input, graph.nodes[in.producer].op_type == "Concat") << node.name;
    in_place += over_input;
  }
  EXPECT_EQ(bns, 3);
  EXPECT_EQ(in_place, 2);
  StatusOr<plan::Plan> built = BuildPlan(graph, schedule, *memory, PlanMetadata());
  ASSERT_TRUE(built.ok()) << built.status().message();
  StatusOr<LoadedPlan> loaded = LoadPlan(built.value(), "test.iosplan", CpuKernelCaps());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
}

// A 1x1 conv runs blocked only on both sides: one whose output must stay channels-last (read by
// an op that cannot take blocked tensors) keeps its input so.
TEST(CpuLayoutTest, OneByOneConvsAreBlockedOnBothSidesOrNeither) {
  if (!CpuBlocksSpatialConvs()) GTEST_SKIP() << "oneDNN does not block spatial convs here";
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 8, 10, 10});
  ValueId a = b.Conv(x, 16, 3, 1, 1, 1, "a");
  ValueId reduce = b.Conv(a, 16, 1, 0, 1, 1, "reduce");  // read by a Softmax
  ValueId soft = b.Op("Softmax", {reduce}, Axis(1), "soft");
  ValueId out = b.Conv(soft, 8, 3, 1, 1, 1, "out");
  Graph graph = b.Finish({out});
  AssignCpuLayouts(graph, CpuKernelCaps(), true, CpuBlocksSpatialConvs());
  EXPECT_EQ(graph.values[reduce].layout, kCL);
  EXPECT_EQ(graph.values[a].layout, kCL);
}

// A bottleneck whose last 1x1 conv adds the block's input (a fused residual, as
// passes/fuse_residual_add.h leaves ResNet's): blocked throughout, the residual with the output
// it is added to. Where the residual must stay channels-last (a Softmax reads it too), so does
// that output, and so does the 1x1 conv's input, pair by pair.
TEST(CpuLayoutTest, ResidualConvsAreBlockedWithTheirResidual) {
  if (!CpuBlocksSpatialConvs()) GTEST_SKIP() << "oneDNN does not block spatial convs here";
  for (bool residual_read_elsewhere : {false, true}) {
    SCOPED_TRACE(residual_read_elsewhere ? "residual also read by a Softmax" : "ResNet's");
    GraphBuilder b;
    ValueId x = b.Input("x", {1, 8, 10, 10});
    ValueId stem = b.Conv(x, 16, 3, 1, 1, 1, "stem");
    ValueId reduce = b.Conv(stem, 16, 1, 0, 1, 1, "reduce");
    ValueId spatial = b.Conv(reduce, 16, 3, 1, 1, 1, "spatial");
    ValueId expand = b.Conv(spatial, 16, 1, 0, 1, 1, "expand");
    Node& fused = b.graph().nodes.back();  // expand's
    ASSERT_EQ(fused.outputs[0], expand);
    fused.inputs.push_back(stem);
    fused.attrs.Set(kFusedResidualAttr, int64_t{1});
    ValueId out = b.Conv(expand, 8, 3, 1, 1, 1, "out");
    std::vector<ValueId> outputs = {out};
    if (residual_read_elsewhere) outputs.push_back(b.Op("Softmax", {stem}, Axis(1), "soft"));
    Graph graph = b.Finish(outputs);
    AssignCpuLayouts(graph, CpuKernelCaps(), true, CpuBlocksSpatialConvs());
    if (!residual_read_elsewhere) {
      for (ValueId v : {stem, reduce, spatial, expand})
        EXPECT_EQ(graph.values[v].layout, kB8) << graph.values[v].name;
    } else {  // stem, so expand, so spatial (its 1x1 X), and reduce (its 1x1 Y, from stem)
      for (ValueId v : {stem, reduce, spatial, expand})
        EXPECT_EQ(graph.values[v].layout, kCL) << graph.values[v].name;
    }
  }
}

}  // namespace
}  // namespace ios

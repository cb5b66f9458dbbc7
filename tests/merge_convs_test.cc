// Operator merge: the merged conv + Split computes what the separate convs did, with the
// reference kernels and with the CPU fast kernels, and the graph and schedule stay consistent.
#include "sched/merge_convs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "profile/cpu/cpu_profiler.h"
#include "kernels/reference/reference_graph.h"
#include "passes/canonicalize.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "sched/blocks.h"
#include "test_graph_builder.h"

namespace ios {
namespace {

using testing::GraphBuilder;

struct ConvSpec {
  int64_t out_channels;
  int64_t kh, kw;
  std::vector<int64_t> pads;  // top, left, bottom, right
  bool bias = true;
};

struct MergeCase {
  std::string name;
  std::vector<ConvSpec> convs;
  int64_t stride = 1;
  bool relu = false;
  int64_t opset = 13;
  bool concat = true;  // a Concat of the outputs as a further consumer (needs equal sizes)
};

// x -> every conv (with a Relu after it when asked) -> graph outputs, and a Concat of them as a
// consumer that the merge must leave untouched.
Graph BuildGraph(const MergeCase& c, int64_t batch, std::vector<std::string>* conv_names) {
  GraphBuilder b(c.opset);
  ValueId x = b.Input("x", {batch, 12, 11, 11});
  std::vector<ValueId> outs;
  for (size_t i = 0; i < c.convs.size(); ++i) {
    const ConvSpec& s = c.convs[i];
    std::vector<ValueId> inputs = {x, b.Constant("w" + std::to_string(i),
                                                 b.Random({s.out_channels, 12, s.kh, s.kw}))};
    if (s.bias) inputs.push_back(b.Constant("b" + std::to_string(i), b.Random({s.out_channels})));
    AttributeMap attrs;
    attrs.Set("kernel_shape", std::vector<int64_t>{s.kh, s.kw});
    attrs.Set("pads", s.pads);
    attrs.Set("strides", std::vector<int64_t>{c.stride, c.stride});
    const std::string name = "conv" + std::to_string(i);
    conv_names->push_back(name);
    ValueId y = b.Op("Conv", inputs, attrs, name);
    if (c.relu) y = b.Op("Relu", {y});
    outs.push_back(y);
  }
  if (c.concat) {
    AttributeMap concat;
    concat.Set("axis", int64_t{1});
    outs.push_back(b.Op("Concat", outs, concat, "concat"));
  }
  return b.Finish(outs);
}

NodeId FindNode(const Graph& graph, const std::string& name) {
  for (size_t n = 0; n < graph.nodes.size(); ++n)
    if (!graph.nodes[n].dead && graph.nodes[n].name == name) return static_cast<NodeId>(n);
  return kNoNode;
}

// The sequential schedule with the convs pulled into one kMerge stage where the first was.
Schedule MergeSchedule(const Graph& graph, const std::vector<NodeId>& convs) {
  StatusOr<BlockStructure> blocks = PartitionIntoBlocks(graph, BlockOptions{});
  EXPECT_TRUE(blocks.ok()) << blocks.status().message();
  Schedule sequential = SequentialSchedule(*blocks);
  const std::set<NodeId> merged(convs.begin(), convs.end());
  Schedule schedule;
  schedule.kind = "test-merge";
  bool placed = false;
  for (const ScheduleBlock& block : sequential.blocks) {
    ScheduleBlock& out = schedule.blocks.emplace_back();
    for (const ScheduleStage& stage : block.stages) {
      const NodeId first = stage.groups[0].nodes[0];
      if (merged.count(first) == 0) {
        out.stages.push_back(stage);
        continue;
      }
      EXPECT_EQ(stage.groups.size(), 1u);
      EXPECT_EQ(stage.groups[0].nodes.size(), 1u);
      if (placed) continue;
      ScheduleStage& m = out.stages.emplace_back();
      m.strategy = StageStrategy::kMerge;
      for (NodeId n : convs) m.groups.push_back(ScheduleGroup{{n}});
      placed = true;
    }
  }
  EXPECT_TRUE(placed);
  return schedule;
}

// Runs the schedule's nodes in order with the CPU backend's kernels.
std::vector<Tensor> RunCpuKernels(const Graph& graph, const Schedule& schedule,
                                  const std::vector<Tensor>& inputs, int threads) {
  std::map<ValueId, Tensor> values;
  for (size_t i = 0; i < graph.inputs.size(); ++i) values[graph.inputs[i]] = inputs[i];
  for (const ScheduleBlock& block : schedule.blocks) {
    for (const ScheduleStage& stage : block.stages) {
      for (const ScheduleGroup& group : stage.groups) {
        for (NodeId n : group.nodes) {
          const Node& node = graph.nodes[n];
          CpuKernelContext context;
          context.node = &node;
          std::vector<const void*> in_ptrs;
          std::vector<void*> out_ptrs;
          for (ValueId in : node.inputs) {
            const Value& v = graph.values[in];
            context.input_types.push_back(TensorType{v.dtype, v.dims});
            context.constants.push_back(v.constant ? &*v.constant : nullptr);
            in_ptrs.push_back(v.constant ? v.constant->raw() : values.at(in).raw());
          }
          for (ValueId out : node.outputs) {
            const Value& v = graph.values[out];
            context.output_types.push_back(TensorType{v.dtype, v.dims});
            values[out] = Tensor(v.dtype, v.dims);
            out_ptrs.push_back(values[out].raw());
          }
          StatusOr<std::unique_ptr<CpuKernel>> kernel = CreateCpuKernel(context);
          EXPECT_TRUE(kernel.ok()) << kernel.status().message();
          if (!kernel.ok()) return {};
          Status status = (*kernel)->Run(in_ptrs, out_ptrs, threads);
          EXPECT_TRUE(status.ok()) << graph.Describe(n) << ": " << status.message();
        }
      }
    }
  }
  std::vector<Tensor> outputs;
  for (ValueId out : graph.outputs) outputs.push_back(values.at(out));
  return outputs;
}

// |got - want| <= 1e-4 * max(|want|, 1): relative, with the floor that sums near zero need
// (the merged conv adds the same products in another order).
void ExpectClose(const std::vector<Tensor>& got, const std::vector<Tensor>& want,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].dims(), want[i].dims()) << what << " output " << i;
    const float* g = got[i].data<float>();
    const float* w = want[i].data<float>();
    int bad = 0;
    for (int64_t e = 0; e < want[i].num_elements() && bad < 5; ++e) {
      if (std::fabs(g[e] - w[e]) > 1e-4 * std::max(1.0f, std::fabs(w[e]))) {
        ADD_FAILURE() << what << " output " << i << " element " << e << ": " << g[e] << " vs "
                      << w[e];
        ++bad;
      }
    }
  }
}

void CheckMerge(const MergeCase& c, int64_t batch) {
  SCOPED_TRACE(c.name + " batch " + std::to_string(batch));
  std::vector<std::string> names;
  Graph graph = BuildGraph(c, batch, &names);
  ASSERT_TRUE(Canonicalize(graph, CanonicalizeOptions{}, nullptr).ok());
  std::vector<NodeId> convs;
  for (const std::string& name : names) convs.push_back(FindNode(graph, name));
  if (c.relu) {
    for (NodeId n : convs)
      ASSERT_EQ(graph.nodes[n].attrs.Has("ios.activation"), true) << "Relu was not fused";
  }
  Schedule schedule = MergeSchedule(graph, convs);
  ASSERT_TRUE(ValidateSchedule(graph, schedule).ok());

  GraphBuilder data;
  std::vector<Tensor> inputs = {data.Random(graph.values[graph.inputs[0]].dims)};
  StatusOr<std::vector<Tensor>> expected = EvaluateGraphReference(graph, inputs);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  const std::vector<std::string> output_names = [&] {
    std::vector<std::string> out;
    for (ValueId v : graph.outputs) out.push_back(graph.values[v].name);
    return out;
  }();
  const Schedule separate_schedule = schedule;
  const Graph separate = graph;

  Status merged = ApplyMergeStages(graph, schedule);
  ASSERT_TRUE(merged.ok()) << merged.message();
  Status valid = ValidateSchedule(graph, schedule);
  ASSERT_TRUE(valid.ok()) << valid.message();

  // The convs are gone; one Conv and one Split took their place and wrote the same values.
  int conv_count = 0, split_count = 0;
  for (const Node& node : graph.nodes) {
    EXPECT_FALSE(node.dead);
    conv_count += node.op_type == "Conv";
    split_count += node.op_type == "Split";
    for (const std::string& name : names) EXPECT_NE(node.name, name);
  }
  EXPECT_EQ(conv_count, 1);
  EXPECT_EQ(split_count, 1);
  for (size_t i = 0; i < graph.outputs.size(); ++i)
    EXPECT_EQ(graph.values[graph.outputs[i]].name, output_names[i]);
  const ScheduleStage* stage = nullptr;
  for (const ScheduleBlock& block : schedule.blocks)
    for (const ScheduleStage& s : block.stages)
      if (s.strategy == StageStrategy::kMerge) stage = &s;
  ASSERT_NE(stage, nullptr);
  ASSERT_EQ(stage->groups.size(), 1u);
  ASSERT_EQ(stage->groups[0].nodes.size(), 2u);
  const Node& conv = graph.nodes[stage->groups[0].nodes[0]];
  const Node& split = graph.nodes[stage->groups[0].nodes[1]];
  EXPECT_EQ(conv.op_type, "Conv");
  EXPECT_EQ(split.op_type, "Split");
  EXPECT_EQ(split.outputs.size(), names.size());
  EXPECT_EQ(conv.attrs.Has("ios.activation"), c.relu);
  // The opset decides the form of the split sizes.
  EXPECT_EQ(split.inputs.size(), c.opset >= 13 ? 2u : 1u);
  EXPECT_EQ(split.attrs.Has("split"), c.opset < 13);
  int64_t channels = 0;
  for (const ConvSpec& s : c.convs) channels += s.out_channels;
  EXPECT_EQ(graph.values[split.inputs[0]].dims[1], channels);

  StatusOr<std::vector<Tensor>> reference = EvaluateGraphReference(graph, inputs);
  ASSERT_TRUE(reference.ok()) << reference.status().message();
  ExpectClose(*reference, *expected, "reference kernels, merged vs separate");
  for (int threads : {1, 2}) {
    const std::string t = " (" + std::to_string(threads) + " threads)";
    ExpectClose(RunCpuKernels(graph, schedule, inputs, threads), *expected,
                "CPU kernels, merged vs reference separate" + t);
    ExpectClose(RunCpuKernels(separate, separate_schedule, inputs, threads), *expected,
                "CPU kernels, separate vs reference separate" + t);
  }
}

const std::vector<MergeCase>& Cases() {
  static const std::vector<MergeCase> cases = {
      {"1x1+3x3", {{16, 1, 1, {0, 0, 0, 0}}, {24, 3, 3, {1, 1, 1, 1}}}},
      {"1x3+3x1", {{8, 1, 3, {0, 1, 0, 1}}, {8, 3, 1, {1, 0, 1, 0}}}},
      {"1x3+3x1+3x3",
       {{8, 1, 3, {0, 1, 0, 1}}, {8, 3, 1, {1, 0, 1, 0}, false}, {16, 3, 3, {1, 1, 1, 1}}}},
      {"two 1x1", {{16, 1, 1, {0, 0, 0, 0}}, {32, 1, 1, {0, 0, 0, 0}}}},
      {"1x1+3x3 relu", {{16, 1, 1, {0, 0, 0, 0}}, {24, 3, 3, {1, 1, 1, 1}}}, 1, true},
      {"1x1+5x5+3x3 relu",
       {{8, 1, 1, {0, 0, 0, 0}}, {8, 5, 5, {2, 2, 2, 2}}, {8, 3, 3, {1, 1, 1, 1}}}, 1, true},
      {"1x1+3x3 stride 2", {{16, 1, 1, {0, 0, 0, 0}}, {16, 3, 3, {1, 1, 1, 1}}}, 2},
      {"two 1x1 opset 11", {{16, 1, 1, {0, 0, 0, 0}}, {8, 1, 1, {0, 0, 0, 0}}}, 1, false, 11},
      {"1x1+3x3 relu opset 18", {{16, 1, 1, {0, 0, 0, 0}}, {8, 3, 3, {1, 1, 1, 1}}}, 1, true, 18},
  };
  return cases;
}

TEST(MergeConvsTest, MergedGraphComputesTheSameAtBatch1) {
  for (const MergeCase& c : Cases()) CheckMerge(c, 1);
}

TEST(MergeConvsTest, MergedGraphComputesTheSameAtBatch2) {
  for (const MergeCase& c : Cases()) CheckMerge(c, 2);
}

TEST(MergeConvsTest, LeavesOtherStagesAlone) {
  std::vector<std::string> names;
  Graph graph = BuildGraph(Cases()[0], 1, &names);
  ASSERT_TRUE(Canonicalize(graph, CanonicalizeOptions{}, nullptr).ok());
  StatusOr<BlockStructure> blocks = PartitionIntoBlocks(graph, BlockOptions{});
  ASSERT_TRUE(blocks.ok());
  Schedule schedule = GreedySchedule(*blocks, 0);
  const Schedule before = schedule;
  const size_t nodes = graph.nodes.size();
  ASSERT_TRUE(ApplyMergeStages(graph, schedule).ok());
  EXPECT_EQ(graph.nodes.size(), nodes);
  ASSERT_EQ(schedule.blocks.size(), before.blocks.size());
  for (size_t b = 0; b < before.blocks.size(); ++b)
    EXPECT_EQ(schedule.blocks[b].stages.size(), before.blocks[b].stages.size());
}

TEST(MergeConvsTest, RejectsAStageThatCannotMerge) {
  // A 1x1 and an unpadded 3x3 do not produce outputs of the same size.
  MergeCase c{"bad", {{8, 1, 1, {0, 0, 0, 0}}, {8, 3, 3, {0, 0, 0, 0}}}};
  c.concat = false;
  std::vector<std::string> names;
  Graph graph = BuildGraph(c, 1, &names);
  ASSERT_TRUE(Canonicalize(graph, CanonicalizeOptions{}, nullptr).ok());
  std::vector<NodeId> convs = {FindNode(graph, names[0]), FindNode(graph, names[1])};
  Schedule schedule;
  schedule.blocks.resize(1);
  ScheduleStage& stage = schedule.blocks[0].stages.emplace_back();
  stage.strategy = StageStrategy::kMerge;
  for (NodeId n : convs) stage.groups.push_back(ScheduleGroup{{n}});
  Status status = ApplyMergeStages(graph, schedule);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("conv"), std::string::npos) << status.message();
}

// The merged output is stored as the convs' outputs are; blocked channels only where every
// output is blocked, since their sum must come in whole blocks of 8 for the plan to be valid.
TEST(MergeConvsTest, MergedOutputKeepsALayoutItsChannelsFit) {
  struct Case {
    Layout first, second;
    Layout merged;
  };
  const Layout kCL = Layout::kChannelsLast, kB8 = Layout::kChannelsBlocked8;
  for (const Case& c :
       {Case{kB8, kB8, kB8}, Case{kB8, kCL, kCL}, Case{kCL, kB8, kCL}, Case{kCL, kCL, kCL}}) {
    SCOPED_TRACE(LayoutName(c.first) + " and " + LayoutName(c.second));
    // 16 and 8 channels: whole blocks each and together.
    MergeCase spec{"layouts", {{16, 3, 3, {1, 1, 1, 1}}, {8, 3, 3, {1, 1, 1, 1}}}};
    spec.concat = false;
    std::vector<std::string> names;
    Graph graph = BuildGraph(spec, 1, &names);
    ASSERT_TRUE(Canonicalize(graph, CanonicalizeOptions{}, nullptr).ok());
    const NodeId first = FindNode(graph, names[0]), second = FindNode(graph, names[1]);
    graph.values[graph.nodes[first].outputs[0]].layout = c.first;
    graph.values[graph.nodes[second].outputs[0]].layout = c.second;
    Schedule schedule;
    schedule.blocks.resize(1);
    ScheduleStage& stage = schedule.blocks[0].stages.emplace_back();
    stage.strategy = StageStrategy::kMerge;
    stage.groups = {ScheduleGroup{{first}}, ScheduleGroup{{second}}};
    ASSERT_TRUE(ApplyMergeStages(graph, schedule).ok());
    const ValueId merged = graph.FindValue("ios_merge(" + names[0] + "," + names[1] + "):0");
    ASSERT_NE(merged, kNoValue);
    EXPECT_EQ(graph.values[merged].layout, c.merged);
  }
}

TEST(MergeConvsTest, ProfilerCostsAMergeStage) {
  std::vector<std::string> names;
  Graph graph = BuildGraph(Cases()[2], 1, &names);
  ASSERT_TRUE(Canonicalize(graph, CanonicalizeOptions{}, nullptr).ok());
  ScheduleStage stage;
  stage.strategy = StageStrategy::kMerge;
  for (const std::string& name : names)
    stage.groups.push_back(ScheduleGroup{{FindNode(graph, name)}});
  CpuProfilerOptions options;
  options.repeats = 3;
  options.runs_per_repeat = 1;
  CpuProfilerCostSource profiler(options);
  StatusOr<double> ms = profiler.MeasureStage(graph, stage);
  ASSERT_TRUE(ms.ok()) << ms.status().message();
  EXPECT_GT(*ms, 0);
  EXPECT_EQ(profiler.counters().merge_stages_measured, 1);
  EXPECT_EQ(profiler.counters().kernels_created, 2);  // the merged conv and the split
  ASSERT_TRUE(profiler.MeasureStage(graph, stage).ok());
  EXPECT_EQ(profiler.counters().kernels_created, 2);
  EXPECT_EQ(profiler.counters().kernel_cache_hits, 2);
  // The profiled graph itself is untouched.
  for (const std::string& name : names) EXPECT_NE(FindNode(graph, name), kNoNode);
}

}  // namespace
}  // namespace ios

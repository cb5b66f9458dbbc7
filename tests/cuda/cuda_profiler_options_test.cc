// The CUDA stage profiler's device-free parts: option validation, the refusal of graphs the
// backend cannot run, the clean failure without a device, and the command lists it would capture
// (their issue order must have the shape a CUDA Graph capture needs).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "../test_graph_builder.h"
#include "../test_paths.h"
#include "profile/profiled_stage.h"
#include "ir/fused_activation.h"
#include "onnx/onnx_importer.h"
#include "passes/canonicalize.h"
#include "profile/cuda/conv_algorithm_selection.h"
#include "runtime/cuda/cuda_session.h"
#include "profile/cuda/cuda_stage_profiler.h"
#include "runtime/issue_order.h"
#include "sched/blocks.h"
#include "sched/schedule.h"

namespace ios {
namespace {

using testing::GraphBuilder;

bool HaveDevice() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

TEST(CudaProfilerOptionsTest, DefaultsAreValidAndEachBadFieldIsNamed) {
  EXPECT_TRUE(ValidateCudaProfilerOptions(CudaProfilerOptions{}).ok());
  struct Case {
    void (*set)(CudaProfilerOptions&);
    const char* field;
  };
  const Case cases[] = {
      {[](CudaProfilerOptions& o) { o.device = -1; }, "device"},
      {[](CudaProfilerOptions& o) { o.warmup_launches = -1; }, "warm-up"},
      {[](CudaProfilerOptions& o) { o.repeats = 0; }, "repeats"},
      {[](CudaProfilerOptions& o) { o.launches_per_repeat = 0; }, "launches per repeat"},
      {[](CudaProfilerOptions& o) { o.max_streams = 0; }, "max streams"},
      {[](CudaProfilerOptions& o) { o.min_repeats = 0; }, "min repeats"},
      {[](CudaProfilerOptions& o) { o.min_repeats = o.repeats + 1; }, "min repeats"},
      {[](CudaProfilerOptions& o) { o.settle_tolerance = -0.01; }, "settle tolerance"},
  };
  for (const Case& c : cases) {
    CudaProfilerOptions options;
    c.set(options);
    Status status = ValidateCudaProfilerOptions(options);
    ASSERT_FALSE(status.ok()) << c.field;
    EXPECT_EQ(status.code(), StatusCode::kInvalidInput);
    EXPECT_NE(status.message().find(c.field), std::string::npos) << status.message();
  }
  CudaProfilerOptions no_warmup;
  no_warmup.warmup_launches = 0;  // allowed: measure cold
  EXPECT_TRUE(ValidateCudaProfilerOptions(no_warmup).ok());
  CudaProfilerOptions every_sample;
  every_sample.settle_tolerance = 0;  // allowed: always `repeats` samples
  every_sample.min_repeats = every_sample.repeats;
  EXPECT_TRUE(ValidateCudaProfilerOptions(every_sample).ok());
}

TEST(CudaProfilerOptionsTest, BadOptionsAreRefusedBeforeTheDeviceIsLookedFor) {
  CudaProfilerOptions options;
  options.repeats = 0;
  auto profiler = CudaStageProfiler::Create(options);
  ASSERT_FALSE(profiler.ok());
  EXPECT_NE(profiler.status().message().find("repeats"), std::string::npos)
      << profiler.status().message();
}

TEST(CudaProfilerOptionsTest, CreateFailsCleanlyWithoutADevice) {
  if (HaveDevice()) GTEST_SKIP() << "a CUDA device is present; the GPU tests cover this";
  auto profiler = CudaStageProfiler::Create(CudaProfilerOptions{});
  ASSERT_FALSE(profiler.ok());
  EXPECT_EQ(profiler.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(profiler.status().message().rfind("no CUDA device", 0), 0u)
      << profiler.status().message();
}

TEST(CudaProfilerOptionsTest, ChannelsLastPlansAreRefusedNamingATensor) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 8, 16, 16});
  ValueId a = b.Conv(x, 8, 3, 1);
  ValueId c = b.Conv(a, 8, 1);
  Graph g = b.Finish({c});
  EXPECT_TRUE(CheckCudaLayouts(g).ok());
  g.values[a].layout = Layout::kChannelsLast;  // as iosc lays out a CPU plan
  Status status = CheckCudaLayouts(g);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kUnsupported);
  EXPECT_NE(status.message().find("'" + g.values[a].name + "' and 0 more"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("--layout row-major"), std::string::npos) << status.message();

  // A conv with a fused residual (a CPU plan's lowering) is refused naming the node.
  g.values[a].layout = Layout::kRowMajor;
  Node& second = g.nodes[g.values[c].producer];
  second.inputs.push_back(a);
  second.attrs.Set(kFusedResidualAttr, int64_t{1});
  second.name = "with_residual";
  status = CheckCudaSupportsGraph(g);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("'with_residual' (Conv)"), std::string::npos) << status.message();
}

TEST(CudaProfilerOptionsTest, GraphsWithOpsTheBackendLacksAreRefusedNamingNodeAndOp) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 8, 16, 16});
  ValueId a = b.Conv(x, 8, 3, 1);
  ValueId c = b.Conv(x, 8, 1);
  Graph g = b.Finish({a, c});
  ASSERT_TRUE(CudaSupportsOp("Conv"));
  EXPECT_TRUE(CheckCudaSupportsGraph(g).ok());

  g.nodes[1].op_type = "IosTestOpWithoutKernel";
  g.nodes[1].name = "odd_one";
  Status status = CheckCudaSupportsGraph(g);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kUnsupported);
  EXPECT_NE(status.message().find("'odd_one' (IosTestOpWithoutKernel)"), std::string::npos)
      << status.message();
  EXPECT_EQ(status.message().find("Conv"), std::string::npos) << status.message();

  g.nodes[1].dead = true;  // dead nodes never run
  EXPECT_TRUE(CheckCudaSupportsGraph(g).ok());

  // A fused activation is the CUDA conv's epilogue, but a CPU plan's alone on another op (an
  // inference BN's, FuseBatchNormActivations), which the CUDA kernels would ignore.
  g.nodes[1].dead = false;
  g.nodes[1].op_type = "Conv";
  SetFusedActivation(g.nodes[1].attrs, Activation{ActivationKind::kRelu});
  EXPECT_TRUE(CheckCudaSupportsGraph(g).ok());
  g.nodes[1].op_type = "BatchNormalization";
  ASSERT_TRUE(CudaSupportsOp("BatchNormalization"));
  status = CheckCudaSupportsGraph(g);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("'odd_one' (BatchNormalization)"), std::string::npos)
      << status.message();
}

// Every multi-group stage: the list lowers, its issue order passes CheckCaptureSequence and
// CheckForkJoin, it runs every op once, and uses min(groups, max_streams) streams.
void ExpectCapturable(const Graph& graph, const ScheduleStage& stage, int max_streams,
                      const std::string& where) {
  StatusOr<CommandList> commands = LowerProfiledStage(graph, stage, max_streams);
  ASSERT_TRUE(commands.ok()) << where << ": " << commands.status().message();
  EXPECT_TRUE(CheckForkJoin(*commands).ok()) << where;
  StatusOr<std::vector<IssuedCommand>> order = IssueOrder(*commands);
  ASSERT_TRUE(order.ok()) << where << ": " << order.status().message();
  Status capture = CheckCaptureSequence(*order, static_cast<int>(commands->streams.size()));
  EXPECT_TRUE(capture.ok()) << where << ": " << capture.message();
  size_t ops = 0, runs = 0;
  for (const ScheduleGroup& group : stage.groups) ops += group.nodes.size();
  for (const IssuedCommand& c : *order) runs += c.command.kind == CommandKind::kRunOp ? 1 : 0;
  EXPECT_EQ(runs, ops) << where;
  const size_t streams_used = std::min(stage.groups.size(), static_cast<size_t>(max_streams));
  size_t non_empty = 0;
  for (const auto& stream : commands->streams) non_empty += stream.empty() ? 0 : 1;
  EXPECT_EQ(non_empty, streams_used) << where;
}

TEST(CudaProfilerOptionsTest, StagesOfARealNetworkLowerToCapturableCommandLists) {
  // A mini ResNet exported as PyTorch does (stem, identity and downsample blocks): the
  // downsample block's two branches give two-group stages.
  ImportOptions import;
  auto graph = ImportOnnxFile(
      testing::TestSourceDir() + "/testdata/models/residual_blocks_opset17.onnx", import);
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  CanonicalizeStats stats;
  ASSERT_TRUE(Canonicalize(*graph, CanonicalizeOptions{}, &stats).ok());
  auto blocks = PartitionIntoBlocks(*graph, BlockOptions{});
  ASSERT_TRUE(blocks.ok()) << blocks.status().message();
  int multi_group = 0;
  for (int max_streams : {8, 1}) {
    const Schedule greedy = GreedySchedule(*blocks, 8);
    for (size_t b = 0; b < greedy.blocks.size(); ++b) {
      for (size_t s = 0; s < greedy.blocks[b].stages.size(); ++s) {
        const ScheduleStage& stage = greedy.blocks[b].stages[s];
        if (max_streams == 8 && stage.groups.size() > 1) ++multi_group;
        ExpectCapturable(*graph, stage, max_streams,
                         "block " + std::to_string(b) + " stage " + std::to_string(s) +
                             ", max streams " + std::to_string(max_streams));
      }
    }
  }
  EXPECT_GT(multi_group, 0) << "the network has no concurrent stage to check";
}

TEST(CudaProfilerOptionsTest, InceptionModuleAndItsMergedStageLowerToCapturableLists) {
  // An Inception-style module: four branches off one input, one of them two convs deep.
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 32, 17, 17});
  ValueId b1 = b.Conv(x, 16, 1);                   // node 0
  ValueId b3 = b.Conv(x, 16, 3, 1);                // node 1
  ValueId b5 = b.Conv(b.Conv(x, 8, 1), 16, 5, 2);  // nodes 2, 3
  ValueId b7 = b.Conv(x, 24, 1);                   // node 4
  Graph g = b.Finish({b1, b3, b5, b7});
  ScheduleStage four;
  four.groups = {ScheduleGroup{{0}}, ScheduleGroup{{1}}, ScheduleGroup{{2, 3}}, ScheduleGroup{{4}}};
  for (int max_streams : {8, 3, 2}) ExpectCapturable(g, four, max_streams, "four branches");

  // The merge of the three single convs reading x runs as [merged conv, split] on a scratch
  // graph: one group on the origin.
  ScheduleStage merge;
  merge.strategy = StageStrategy::kMerge;
  merge.groups = {ScheduleGroup{{0}}, ScheduleGroup{{1}}, ScheduleGroup{{4}}};
  auto key = MergeStageKeyOf(g, merge);
  ASSERT_TRUE(key.ok()) << key.status().message();
  EXPECT_EQ(key->convs, (std::vector<NodeId>{0, 1, 4}));
  auto scratch = BuildMergedScratchStage(g, key->convs);
  ASSERT_TRUE(scratch.ok()) << scratch.status().message();
  ASSERT_EQ(scratch->stage.groups.size(), 1u);
  ExpectCapturable(scratch->graph, scratch->stage, 8, "merged stage");
  // The merged conv is one of the convs conv algorithm selection measures on a merged graph.
  const std::vector<NodeId> convs = ConvNodesToMeasure(scratch->graph);
  ASSERT_EQ(convs.size(), 1u);
  EXPECT_EQ(scratch->graph.values[scratch->graph.nodes[convs[0]].outputs[0]].dims,
            (Dims{1, 56, 17, 17}));
}

TEST(CudaProfilerOptionsTest, StageBuffersSeparateInputsFromProducedValuesAndSkipConstants) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 4, 8, 8});
  ValueId mid = b.Conv(x, 6, 1);       // node 0
  ValueId out = b.Conv(mid, 2, 3, 1);  // node 1
  Graph g = b.Finish({out});
  ScheduleStage stage;
  stage.groups = {ScheduleGroup{{0, 1}}};
  const std::vector<StageBuffer> buffers = StageBuffers(g, stage);
  ASSERT_EQ(buffers.size(), 3u);  // x, mid, out; weights and biases are constants
  EXPECT_EQ(buffers[0].value, x);
  EXPECT_FALSE(buffers[0].produced);
  EXPECT_EQ(buffers[0].bytes, 4u * 8 * 8 * sizeof(float));
  EXPECT_EQ(buffers[1].value, mid);
  EXPECT_TRUE(buffers[1].produced);
  EXPECT_EQ(buffers[2].value, out);
  EXPECT_EQ(buffers[2].bytes, 2u * 8 * 8 * sizeof(float));
}

}  // namespace
}  // namespace ios

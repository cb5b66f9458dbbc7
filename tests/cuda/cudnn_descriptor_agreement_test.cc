// cuDNN agrees with ios on every conv and pool window: the backend's own descriptor builders
// (runtime/cuda/kernels/cudnn_descriptors.h) must be accepted by cuDNN, and cuDNN's output dims
// (cudnnGetConvolutionNdForwardOutputDim / cudnnGetPoolingNdForwardOutputDim, which need no
// device) must be the full output the builders planned, containing ios's inferred output at the
// planned crop. Runs over every Conv and pool of the four benchmark networks after
// canonicalisation, over merged convs, over channel slices of concat buffers, and over
// hand-built windows (stride, dilation, depthwise, asymmetric pads, ceil_mode, auto_pad).
//
// The networks come from the ctest fixture `models.generate` (tests/cuda/CMakeLists.txt); a
// missing model is a failure, not a skip.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "../test_graph_builder.h"
#include "../test_paths.h"
#include "onnx/onnx_importer.h"
#include "passes/canonicalize.h"
#include "sched/merge_convs.h"
#include "runtime/cuda/kernels/conv_algorithm.h"
#include "runtime/cuda/kernels/cudnn_descriptors.h"
#include "sched/blocks.h"
#include "sched/schedule.h"

namespace ios {
namespace {

using testing::GraphBuilder;

bool IsPool(const std::string& op) {
  return op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool" ||
         op == "GlobalMaxPool";
}

const Dims& DimsOf(const Graph& graph, ValueId v) {
  return graph.values[static_cast<size_t>(v)].dims;
}

// Checks one geometry against cuDNN's output dims and ios's output; returns a failure message or
// "" when they agree.
std::string CheckAgreement(const CudnnWindowGeometry& g, const Dims& cudnn_dims, const Dims& y) {
  const Dims ios = PadToCudnnRank(y);
  if (cudnn_dims != g.full_output)
    return "cuDNN computes " + DimsToString(cudnn_dims) + ", the plan expects " +
           DimsToString(g.full_output);
  if (g.output != ios)
    return "geometry output " + DimsToString(g.output) + " vs " + DimsToString(ios);
  if (!g.cropped()) return cudnn_dims == ios ? "" : "uncropped but dims differ";
  // ios's output lies inside cuDNN's at the crop.
  if (cudnn_dims[0] != ios[0] || cudnn_dims[1] != ios[1]) return "batch or channels differ";
  for (size_t i = 2; i < ios.size(); ++i) {
    if (g.crop_begin[i - 2] < 0 || g.crop_begin[i - 2] + ios[i] > cudnn_dims[i])
      return "crop of axis " + std::to_string(i) + " leaves cuDNN's output";
  }
  return "";
}

struct NodeCheck {
  bool ok = false;
  bool cropped = false;
  std::string message;
};

NodeCheck CheckNode(const Graph& graph, const Node& node) {
  NodeCheck check;
  const Dims& x = DimsOf(graph, node.inputs[0]);
  const Dims& y = DimsOf(graph, node.outputs[0]);
  if (node.op_type == "Conv") {
    for (bool tf32 : {false, true}) {
      auto d = BuildConvDescriptors(node, x, DimsOf(graph, node.inputs[1]), y, ConvMathType(tf32));
      if (!d.ok()) {
        check.message = d.status().message();
        return check;
      }
      auto dims = CudnnConvOutputDims(*d, d->geometry.full_output.size());
      if (!dims.ok()) {
        check.message = dims.status().message();
        return check;
      }
      check.message = CheckAgreement(d->geometry, *dims, y);
      check.cropped = d->geometry.cropped();
      if (!check.message.empty()) return check;
    }
  } else {
    auto d = BuildPoolDescriptors(node, x, y);
    if (!d.ok()) {
      check.message = d.status().message();
      return check;
    }
    auto dims = CudnnPoolOutputDims(*d, d->geometry.full_output.size());
    if (!dims.ok()) {
      check.message = dims.status().message();
      return check;
    }
    check.message = CheckAgreement(d->geometry, *dims, y);
    check.cropped = d->geometry.cropped();
    if (!check.message.empty()) return check;
  }
  check.ok = true;
  return check;
}

std::string ModelPath(const std::string& name) {
  return testing::TestBinaryDir() + "/models/" + name + ".onnx";
}

class BenchmarkModelTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BenchmarkModelTest, EveryConvAndPoolAgreesWithCudnn) {
  const std::string path = ModelPath(GetParam());
  // Loud on purpose: the fixture models.generate writes the models before this test runs.
  ASSERT_TRUE(std::filesystem::exists(path))
      << path << " is missing: run the ctest fixture models.generate, or "
      << "scripts/generate_models.py --out " << testing::TestBinaryDir() << "/models";
  StatusOr<Graph> graph = ImportOnnxFile(path, ImportOptions{});
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  CanonicalizeStats stats;
  Status status = Canonicalize(*graph, CanonicalizeOptions{}, &stats);
  ASSERT_TRUE(status.ok()) << status.message();

  std::map<std::string, int> checked;
  int cropped = 0;
  for (const Node& node : graph->nodes) {
    if (node.dead || (node.op_type != "Conv" && !IsPool(node.op_type))) continue;
    NodeCheck check = CheckNode(*graph, node);
    EXPECT_TRUE(check.ok) << GetParam() << " node '" << node.name << "' (" << node.op_type
                          << "): " << check.message;
    ++checked[node.op_type];
    if (check.cropped) ++cropped;
  }
  EXPECT_GT(checked["Conv"], 0) << "no Conv in " << GetParam();
  std::string summary;
  for (const auto& [op, count] : checked) summary += " " + op + ":" + std::to_string(count);
  std::cout << "[ checked  ] " << GetParam() << summary << ", cropped " << cropped << "\n";
}

INSTANTIATE_TEST_SUITE_P(Networks, BenchmarkModelTest,
                         ::testing::Values("inception_v3", "squeezenet", "randwire", "nasnet"));

// Concat inputs written in place: each input is a channel slice of the concat's buffer.
TEST(CudnnChannelSliceTest, ConcatInputsOfInceptionAreStridedSlices) {
  const std::string path = ModelPath("inception_v3");
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing: run models.generate";
  StatusOr<Graph> graph = ImportOnnxFile(path, ImportOptions{});
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  CanonicalizeStats stats;
  ASSERT_TRUE(Canonicalize(*graph, CanonicalizeOptions{}, &stats).ok());
  int slices = 0;
  for (const Node& node : graph->nodes) {
    if (node.dead || node.op_type != "Concat") continue;
    const Dims& out = DimsOf(*graph, node.outputs[0]);
    const int64_t hw = out[2] * out[3];
    int64_t first = 0;
    for (ValueId in : node.inputs) {
      const Dims& dims = DimsOf(*graph, in);
      auto desc = MakeChannelSliceDescriptor(dims, out[1]);
      ASSERT_TRUE(desc.ok()) << desc.status().message();
      auto info = ReadTensorDescriptor(desc->get());
      ASSERT_TRUE(info.ok()) << info.status().message();
      EXPECT_EQ(info->dims, dims);
      EXPECT_EQ(info->strides, (Dims{out[1] * hw, hw, out[3], 1})) << node.name;
      EXPECT_EQ(ChannelSliceOffset(dims, first), first * hw);
      first += dims[1];
      ++slices;
    }
    EXPECT_EQ(first, out[1]) << node.name;
  }
  EXPECT_GT(slices, 20);
}

TEST(CudnnChannelSliceTest, SliceOfABatchTwoBufferKeepsTheBufferStrides) {
  // Channels [16, 48) of a [2, 64, 7, 5] buffer.
  auto desc = MakeChannelSliceDescriptor(Dims{2, 32, 7, 5}, 64);
  ASSERT_TRUE(desc.ok()) << desc.status().message();
  auto info = ReadTensorDescriptor(desc->get());
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->dims, (Dims{2, 32, 7, 5}));
  EXPECT_EQ(info->strides, (Dims{64 * 35, 35, 5, 1}));
  EXPECT_EQ(ChannelSliceOffset(Dims{2, 32, 7, 5}, 16), 16 * 35);
  EXPECT_FALSE(MakeChannelSliceDescriptor(Dims{1, 65, 7, 5}, 64).ok());
}

// ---- Merged convs
// --------------------------------------------------------------------------------

struct MergeSpec {
  int64_t out, kh, kw;
  std::vector<int64_t> pads;  // top, left, bottom, right
};

// x -> each conv; the schedule puts the convs in one kMerge stage; returns the merged conv.
void CheckMerge(const std::vector<MergeSpec>& specs, int64_t stride) {
  GraphBuilder b(13);
  ValueId x = b.Input("x", {2, 16, 17, 17});
  std::vector<ValueId> outs;
  for (size_t i = 0; i < specs.size(); ++i) {
    const MergeSpec& s = specs[i];
    AttributeMap attrs;
    attrs.Set("kernel_shape", std::vector<int64_t>{s.kh, s.kw});
    attrs.Set("pads", s.pads);
    attrs.Set("strides", std::vector<int64_t>{stride, stride});
    outs.push_back(b.Op("Conv",
                        {x, b.Constant("w" + std::to_string(i), b.Random({s.out, 16, s.kh, s.kw})),
                         b.Constant("b" + std::to_string(i), b.Random({s.out}))},
                        attrs, "conv" + std::to_string(i)));
  }
  Graph graph = b.Finish(outs);
  StatusOr<BlockStructure> blocks = PartitionIntoBlocks(graph, BlockOptions{});
  ASSERT_TRUE(blocks.ok()) << blocks.status().message();
  Schedule sequential = SequentialSchedule(*blocks);
  std::set<NodeId> convs;
  for (size_t n = 0; n < graph.nodes.size(); ++n)
    if (graph.nodes[n].op_type == "Conv") convs.insert(static_cast<NodeId>(n));
  Schedule schedule;
  schedule.kind = "test-merge";
  bool placed = false;
  for (const ScheduleBlock& block : sequential.blocks) {
    ScheduleBlock& out = schedule.blocks.emplace_back();
    for (const ScheduleStage& stage : block.stages) {
      if (convs.count(stage.groups[0].nodes[0]) == 0) {
        out.stages.push_back(stage);
        continue;
      }
      if (placed) continue;
      ScheduleStage& merged = out.stages.emplace_back();
      merged.strategy = StageStrategy::kMerge;
      for (NodeId n : convs) merged.groups.push_back(ScheduleGroup{{n}});
      placed = true;
    }
  }
  ASSERT_TRUE(placed);
  Status status = ApplyMergeStages(graph, schedule);
  ASSERT_TRUE(status.ok()) << status.message();
  int merged_convs = 0;
  for (const Node& node : graph.nodes) {
    if (node.dead || node.op_type != "Conv") continue;
    ++merged_convs;
    NodeCheck check = CheckNode(graph, node);
    EXPECT_TRUE(check.ok) << "merged conv '" << node.name << "': " << check.message;
    EXPECT_FALSE(check.cropped) << "a centred merge keeps symmetric pads";
  }
  EXPECT_EQ(merged_convs, 1);
}

TEST(CudnnMergedConvTest, OneByThreeWithThreeByOne) {
  CheckMerge({{8, 1, 3, {0, 1, 0, 1}}, {12, 3, 1, {1, 0, 1, 0}}}, 1);
}

TEST(CudnnMergedConvTest, OneByOneWithThreeByThree) {
  CheckMerge({{8, 1, 1, {0, 0, 0, 0}}, {12, 3, 3, {1, 1, 1, 1}}}, 1);
}

TEST(CudnnMergedConvTest, OneBySevenWithSevenByOneStrideTwo) {
  CheckMerge({{4, 1, 7, {0, 3, 0, 3}}, {4, 7, 1, {3, 0, 3, 0}}}, 2);
}

// ---- Hand-built windows
// --------------------------------------------------------------------------

struct Built {
  Graph graph;
  NodeId node = kNoNode;
};

Built ConvGraph(Dims x_dims, int64_t out, std::vector<int64_t> kernel, AttributeMap attrs,
                int64_t group = 1) {
  GraphBuilder b(13);
  ValueId x = b.Input("x", x_dims);
  Dims w = {out, x_dims[1] / group};
  w.insert(w.end(), kernel.begin(), kernel.end());
  attrs.Set("kernel_shape", kernel);
  attrs.Set("group", group);
  ValueId y = b.Op("Conv", {x, b.Constant("w", b.Random(w))}, attrs, "conv");
  Built built{b.Finish({y}), 0};
  return built;
}

Built PoolGraph(const std::string& op, Dims x_dims, AttributeMap attrs) {
  GraphBuilder b(13);
  ValueId x = b.Input("x", x_dims);
  ValueId y = b.Op(op, {x}, std::move(attrs), "pool");
  Built built{b.Finish({y}), 0};
  return built;
}

NodeCheck CheckBuilt(const Built& built) {
  return CheckNode(built.graph, built.graph.nodes[static_cast<size_t>(built.node)]);
}

TEST(CudnnHandBuiltTest, StrideTwoDilationTwoDepthwise) {
  AttributeMap stride;
  stride.Set("strides", std::vector<int64_t>{2, 2});
  stride.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  NodeCheck a = CheckBuilt(ConvGraph({1, 8, 15, 16}, 6, {3, 3}, stride));
  EXPECT_TRUE(a.ok && !a.cropped) << a.message;

  AttributeMap dilation;
  dilation.Set("dilations", std::vector<int64_t>{2, 2});
  dilation.Set("pads", std::vector<int64_t>{2, 2, 2, 2});
  NodeCheck b = CheckBuilt(ConvGraph({2, 8, 13, 13}, 8, {3, 3}, dilation));
  EXPECT_TRUE(b.ok && !b.cropped) << b.message;

  AttributeMap depthwise;
  depthwise.Set("pads", std::vector<int64_t>{2, 2, 2, 2});
  depthwise.Set("strides", std::vector<int64_t>{2, 2});
  NodeCheck c = CheckBuilt(ConvGraph({1, 32, 11, 11}, 32, {5, 5}, depthwise, 32));
  EXPECT_TRUE(c.ok && !c.cropped) << c.message;

  NodeCheck grouped = CheckBuilt(ConvGraph({1, 12, 9, 9}, 6, {3, 3}, AttributeMap{}, 3));
  EXPECT_TRUE(grouped.ok) << grouped.message;

  AttributeMap three_d;
  three_d.Set("pads", std::vector<int64_t>{1, 0, 1, 1, 2, 1});
  three_d.Set("strides", std::vector<int64_t>{1, 2, 1});
  NodeCheck volume = CheckBuilt(ConvGraph({1, 4, 6, 7, 8}, 5, {3, 3, 3}, three_d));
  EXPECT_TRUE(volume.ok && volume.cropped) << volume.message;

  AttributeMap one_d;
  one_d.Set("pads", std::vector<int64_t>{1, 1});
  NodeCheck d = CheckBuilt(ConvGraph({1, 4, 20}, 5, {3}, one_d));
  EXPECT_TRUE(d.ok && !d.cropped) << d.message;
}

TEST(CudnnHandBuiltTest, AsymmetricConvPadsBecomeACrop) {
  // Height: in 8, kernel 3, stride 2, pads 0/1 (TensorFlow's SAME): ios gives 4 outputs, the
  // first window at 0. cuDNN gets pad 2 on both sides (the smallest symmetric pad >= 1 that keeps
  // the windows on the stride grid): 5 outputs, the first at -2, so ios's output starts at
  // cuDNN's index 1. Width: in 9, pads 1/0: ios gives 4; pad 1 on both sides gives 5, the first 4
  // of which are ios's.
  AttributeMap attrs;
  attrs.Set("strides", std::vector<int64_t>{2, 2});
  attrs.Set("pads", std::vector<int64_t>{0, 1, 1, 0});  // top 0, left 1, bottom 1, right 0
  Built built = ConvGraph({1, 3, 8, 9}, 4, {3, 3}, attrs);
  const Node& node = built.graph.nodes[0];
  auto d = BuildConvDescriptors(node, DimsOf(built.graph, node.inputs[0]),
                                DimsOf(built.graph, node.inputs[1]),
                                DimsOf(built.graph, node.outputs[0]), CUDNN_FMA_MATH);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(DimsOf(built.graph, node.outputs[0]), (Dims{1, 4, 4, 4}));
  EXPECT_EQ(d->geometry.pads, (std::vector<int>{2, 1}));
  EXPECT_EQ(d->geometry.crop_begin, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(d->geometry.full_output, (Dims{1, 4, 5, 5}));
  EXPECT_EQ(d->geometry.CropOffset(), 5);
  auto cudnn = CudnnConvOutputDims(*d, 4);
  ASSERT_TRUE(cudnn.ok()) << cudnn.status().message();
  EXPECT_EQ(*cudnn, (Dims{1, 4, 5, 5}));
  auto view = ReadTensorDescriptor(d->y_crop_view.get());
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->dims, (Dims{1, 4, 4, 4}));
  EXPECT_EQ(view->strides, (Dims{100, 25, 5, 1}));
}

TEST(CudnnHandBuiltTest, PoolsWithCeilModeAutoPadAndAsymmetricPads) {
  AttributeMap ceil;
  ceil.Set("kernel_shape", std::vector<int64_t>{3, 3});
  ceil.Set("strides", std::vector<int64_t>{2, 2});
  ceil.Set("ceil_mode", int64_t{1});
  NodeCheck max_ceil = CheckBuilt(PoolGraph("MaxPool", {1, 4, 8, 8}, ceil));
  EXPECT_TRUE(max_ceil.ok && max_ceil.cropped) << max_ceil.message;
  NodeCheck avg_ceil = CheckBuilt(PoolGraph("AveragePool", {1, 4, 8, 8}, ceil));
  EXPECT_TRUE(avg_ceil.ok && avg_ceil.cropped) << avg_ceil.message;

  AttributeMap same;
  same.Set("kernel_shape", std::vector<int64_t>{3, 3});
  same.Set("strides", std::vector<int64_t>{2, 2});
  same.Set("auto_pad", std::string("SAME_UPPER"));
  NodeCheck max_same = CheckBuilt(PoolGraph("MaxPool", {1, 4, 10, 9}, same));
  EXPECT_TRUE(max_same.ok) << max_same.message;

  AttributeMap asym;
  asym.Set("kernel_shape", std::vector<int64_t>{3, 3});
  asym.Set("pads", std::vector<int64_t>{1, 0, 0, 1});
  asym.Set("count_include_pad", int64_t{1});
  NodeCheck avg_asym = CheckBuilt(PoolGraph("AveragePool", {2, 3, 7, 7}, asym));
  EXPECT_TRUE(avg_asym.ok && avg_asym.cropped) << avg_asym.message;

  AttributeMap volume;
  volume.Set("kernel_shape", std::vector<int64_t>{2, 2, 2});
  volume.Set("strides", std::vector<int64_t>{2, 2, 2});
  NodeCheck max_3d = CheckBuilt(PoolGraph("MaxPool", {1, 2, 6, 7, 8}, volume));
  EXPECT_TRUE(max_3d.ok && !max_3d.cropped) << max_3d.message;

  NodeCheck global = CheckBuilt(PoolGraph("GlobalAveragePool", {2, 16, 7, 5}, AttributeMap{}));
  EXPECT_TRUE(global.ok && !global.cropped) << global.message;
  NodeCheck global_max = CheckBuilt(PoolGraph("GlobalMaxPool", {1, 8, 3, 3}, AttributeMap{}));
  EXPECT_TRUE(global_max.ok) << global_max.message;
}

TEST(CudnnHandBuiltTest, RefusedPoolsSayWhy) {
  // count_include_pad with a ceil_mode window past the end padding.
  AttributeMap include_ceil;
  include_ceil.Set("kernel_shape", std::vector<int64_t>{3, 3});
  include_ceil.Set("strides", std::vector<int64_t>{2, 2});
  include_ceil.Set("ceil_mode", int64_t{1});
  include_ceil.Set("count_include_pad", int64_t{1});
  Built built = PoolGraph("AveragePool", {1, 4, 8, 8}, include_ceil);
  const Node& node = built.graph.nodes[0];
  auto refused = BuildPoolDescriptors(node, DimsOf(built.graph, node.inputs[0]),
                                      DimsOf(built.graph, node.outputs[0]));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(refused.status().message().find("node 'pool' (AveragePool)"), std::string::npos)
      << refused.status().message();

  AttributeMap dilated;
  dilated.Set("kernel_shape", std::vector<int64_t>{2, 2});
  dilated.Set("dilations", std::vector<int64_t>{2, 2});
  Built max = PoolGraph("MaxPool", {1, 4, 8, 8}, dilated);
  const Node& max_node = max.graph.nodes[0];
  auto refused_max = BuildPoolDescriptors(max_node, DimsOf(max.graph, max_node.inputs[0]),
                                          DimsOf(max.graph, max_node.outputs[0]));
  ASSERT_FALSE(refused_max.ok());
  EXPECT_EQ(refused_max.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(refused_max.status().message().find("dilations"), std::string::npos);
}

}  // namespace
}  // namespace ios

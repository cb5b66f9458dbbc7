// Stage costs: operator-merge eligibility and the merged conv's shape, the analytic GPU model,
// stage signatures, and CachedStageCost with its timing cache.
#include "sched/stage_cost_source.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cost/analytic_model.h"
#include "cost/cached_stage_cost.h"
#include "sched/merge_shape.h"
#include "sched/stage_signature.h"
#include "passes/canonicalize.h"
#include "sched/units.h"
#include "temp_files.h"
#include "test_graph_builder.h"
#include "timing_cache.pb.h"
#include "util/file_util.h"

namespace ios {
namespace {

using testing::GraphBuilder;
using testing::TempPath;

struct ConvSpec {
  int64_t out_channels = 8;
  int64_t kh = 1, kw = 1;
  int64_t ph = 0, pw = 0;  // begin = end
  int64_t stride = 1;
  int64_t group = 1;
  std::string activation;  // "", "Relu", "LeakyRelu"
  float alpha = 0.01f;

  ConvSpec& Out(int64_t v) {
    out_channels = v;
    return *this;
  }
  ConvSpec& KH(int64_t v) {
    kh = v;
    return *this;
  }
  ConvSpec& KW(int64_t v) {
    kw = v;
    return *this;
  }
  ConvSpec& PH(int64_t v) {
    ph = v;
    return *this;
  }
  ConvSpec& PW(int64_t v) {
    pw = v;
    return *this;
  }
  ConvSpec& Stride(int64_t v) {
    stride = v;
    return *this;
  }
  ConvSpec& Group(int64_t v) {
    group = v;
    return *this;
  }
  ConvSpec& Act(std::string v) {
    activation = std::move(v);
    return *this;
  }
  ConvSpec& Alpha(float v) {
    alpha = v;
    return *this;
  }
};

// A conv named `name` (plus its activation as a separate op, fused by Canonicalize).
ValueId AddConv(GraphBuilder& b, ValueId x, const std::string& name, const ConvSpec& spec) {
  const int64_t in_channels = b.graph().values[x].dims[1];
  ValueId w = b.Constant(name + "_w",
                         b.Random({spec.out_channels, in_channels / spec.group, spec.kh, spec.kw}));
  ValueId bias = b.Constant(name + "_b", b.Random({spec.out_channels}));
  AttributeMap attrs;
  attrs.Set("kernel_shape", std::vector<int64_t>{spec.kh, spec.kw});
  attrs.Set("pads", std::vector<int64_t>{spec.ph, spec.pw, spec.ph, spec.pw});
  attrs.Set("strides", std::vector<int64_t>{spec.stride, spec.stride});
  attrs.Set("group", spec.group);
  ValueId y = b.Op("Conv", {x, w, bias}, attrs, name);
  if (spec.activation.empty()) return y;
  AttributeMap act;
  if (spec.activation == "LeakyRelu") act.Set("alpha", spec.alpha);
  return b.Op(spec.activation, {y}, act, name + "_act");
}

AttributeMap Axis1() {
  AttributeMap axis;
  axis.Set("axis", int64_t{1});
  return axis;
}

// A canonicalised graph with its units; units are looked up by the name of one of their nodes.
struct Built {
  Graph graph;
  UnitGraph units;

  UnitId Unit(const std::string& node_name) const {
    for (size_t n = 0; n < graph.nodes.size(); ++n) {
      if (!graph.nodes[n].dead && graph.nodes[n].name == node_name) return units.unit_of_node[n];
    }
    ADD_FAILURE() << "no node " << node_name;
    return -1;
  }
  StageCandidate Stage(const std::vector<std::vector<std::string>>& groups,
                       StageStrategy strategy = StageStrategy::kConcurrent) const {
    StageCandidate stage;
    stage.strategy = strategy;
    for (const auto& group : groups) {
      stage.groups.emplace_back();
      for (const std::string& name : group) stage.groups.back().push_back(Unit(name));
    }
    return stage;
  }
};

Built Build(GraphBuilder& b, std::vector<ValueId> outputs) {
  Built built;
  built.graph = b.Finish(std::move(outputs));
  Status status = Canonicalize(built.graph, CanonicalizeOptions{}, nullptr);
  EXPECT_TRUE(status.ok()) << status.message();
  auto units = FormUnits(built.graph, UnitOptions{});
  EXPECT_TRUE(units.ok()) << units.status().message();
  if (units.ok()) built.units = std::move(units).value();
  return built;
}

// Two convs on one input (or on two inputs when `second_input`), concatenated.
Built TwoConvs(const ConvSpec& a, const ConvSpec& b_spec, bool second_input = false,
               Dims input = {1, 16, 8, 8}) {
  GraphBuilder b;
  ValueId x = b.Input("x", input);
  ValueId x2 = second_input ? b.Input("x2", input) : x;
  ValueId ya = AddConv(b, x, "a", a);
  ValueId yb = AddConv(b, x2, "b", b_spec);
  return Build(b, {ya, yb});
}

// ---- CanMergeStage and MergedConvShapeOf ----------------------------------------------------

TEST(MergeShapeTest, Accepts1x1And3x3) {
  Built g = TwoConvs(ConvSpec().Out(8), ConvSpec().Out(12).KH(3).KW(3).PH(1).PW(1));
  StageCandidate stage = g.Stage({{"a"}, {"b"}}, StageStrategy::kMerge);
  EXPECT_TRUE(CanMergeStage(g.graph, g.units, stage));
  auto shape = MergedConvShapeOf(g.graph, g.units, stage);
  ASSERT_TRUE(shape.ok()) << shape.status().message();
  EXPECT_EQ(shape->kh, 3);
  EXPECT_EQ(shape->kw, 3);
  EXPECT_EQ(shape->pads, (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(shape->out_channels, 20);
}

TEST(MergeShapeTest, Accepts1x3And3x1And3x3) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 16, 8, 8});
  ValueId f = AddConv(b, x, "f", ConvSpec().Out(8).KH(1).KW(3).PH(0).PW(1).Act("Relu"));
  ValueId g = AddConv(b, x, "g", ConvSpec().Out(8).KH(3).KW(1).PH(1).PW(0).Act("Relu"));
  ValueId h = AddConv(b, x, "h", ConvSpec().Out(4).KH(3).KW(3).PH(1).PW(1).Act("Relu"));
  Built built = Build(b, {f, g, h});
  StageCandidate stage = built.Stage({{"f"}, {"g"}, {"h"}}, StageStrategy::kMerge);
  auto shape = MergedConvShapeOf(built.graph, built.units, stage);
  ASSERT_TRUE(shape.ok()) << shape.status().message();
  EXPECT_EQ(shape->kh, 3);
  EXPECT_EQ(shape->kw, 3);
  EXPECT_EQ(shape->pads, (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(shape->out_channels, 20);
  // Without the 3x3 the union is still 3x3.
  auto pair = MergedConvShapeOf(built.graph, built.units, built.Stage({{"f"}, {"g"}}));
  ASSERT_TRUE(pair.ok()) << pair.status().message();
  EXPECT_EQ(pair->pads, (std::vector<int64_t>{1, 1, 1, 1}));
}

TEST(MergeShapeTest, Accepts1x1And5x5WithMatchingPads) {
  Built g = TwoConvs(ConvSpec().Out(4), ConvSpec().Out(4).KH(5).KW(5).PH(2).PW(2));
  auto shape = MergedConvShapeOf(g.graph, g.units, g.Stage({{"a"}, {"b"}}));
  ASSERT_TRUE(shape.ok()) << shape.status().message();
  EXPECT_EQ(shape->kh, 5);
  EXPECT_EQ(shape->pads, (std::vector<int64_t>{2, 2, 2, 2}));
}

void ExpectRejected(const Built& g, const StageCandidate& stage, const std::string& reason) {
  EXPECT_FALSE(CanMergeStage(g.graph, g.units, stage)) << reason;
  auto shape = MergedConvShapeOf(g.graph, g.units, stage);
  ASSERT_FALSE(shape.ok());
  EXPECT_EQ(shape.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(shape.status().message().find(reason), std::string::npos) << shape.status().message();
}

TEST(MergeShapeTest, RejectsDifferentStrides) {
  Built g =
      TwoConvs(ConvSpec().Out(4).Stride(2), ConvSpec().Out(4).KH(3).KW(3).PH(1).PW(1).Stride(1));
  ExpectRejected(g, g.Stage({{"a"}, {"b"}}), "strides");
}

TEST(MergeShapeTest, RejectsDifferentInputs) {
  Built g = TwoConvs(ConvSpec().Out(4), ConvSpec().Out(4), /*second_input=*/true);
  ExpectRejected(g, g.Stage({{"a"}, {"b"}}), "share the input");
}

TEST(MergeShapeTest, RejectsDifferentActivations) {
  Built relu = TwoConvs(ConvSpec().Out(4).Act("Relu"), ConvSpec().Out(4));
  ExpectRejected(relu, relu.Stage({{"a"}, {"b"}}), "fused activation");
  Built alpha = TwoConvs(ConvSpec().Out(4).Act("LeakyRelu").Alpha(0.1f),
                         ConvSpec().Out(4).Act("LeakyRelu").Alpha(0.2f));
  ExpectRejected(alpha, alpha.Stage({{"a"}, {"b"}}), "fused activation");
  Built same = TwoConvs(ConvSpec().Out(4).Act("LeakyRelu").Alpha(0.1f),
                        ConvSpec().Out(8).Act("LeakyRelu").Alpha(0.1f));
  EXPECT_TRUE(CanMergeStage(same.graph, same.units, same.Stage({{"a"}, {"b"}})));
}

TEST(MergeShapeTest, RejectsGroupedConvs) {
  Built g = TwoConvs(ConvSpec().Out(4).Group(2), ConvSpec().Out(4));
  ExpectRejected(g, g.Stage({{"a"}, {"b"}}), "group = 2");
}

TEST(MergeShapeTest, RejectsUnevenKernelParity) {
  // A 1x1 and a 2x2 padded to the same output size: the 1x1 cannot be centred in a 2x2.
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 8, 9, 9});
  ValueId a = AddConv(b, x, "a", ConvSpec().Out(4));
  ValueId w = b.Constant("bw", b.Random({4, 8, 2, 2}));
  AttributeMap attrs;
  attrs.Set("kernel_shape", std::vector<int64_t>{2, 2});
  attrs.Set("pads", std::vector<int64_t>{1, 1, 0, 0});
  ValueId c = b.Op("Conv", {x, w}, attrs, "b");
  Built g = Build(b, {a, c});
  ASSERT_EQ(g.graph.values[g.graph.nodes[g.units.units[g.Unit("b")].nodes[0]].outputs[0]].dims,
            (Dims{1, 4, 9, 9}));
  ExpectRejected(g, g.Stage({{"a"}, {"b"}}), "difference must be even");
}

TEST(MergeShapeTest, RejectsMisalignedPadsAndShapes) {
  // 3x3 with pads (2, 2, 0, 0) has the 1x1's output size but its windows start one row earlier.
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 8, 8, 8});
  ValueId a = AddConv(b, x, "a", ConvSpec().Out(4));
  ValueId w = b.Constant("bw", b.Random({4, 8, 3, 3}));
  AttributeMap attrs;
  attrs.Set("kernel_shape", std::vector<int64_t>{3, 3});
  attrs.Set("pads", std::vector<int64_t>{2, 2, 0, 0});
  ValueId c = b.Op("Conv", {x, w}, attrs, "b");
  Built g = Build(b, {a, c});
  ExpectRejected(g, g.Stage({{"a"}, {"b"}}), "different offset");
  // 3x3 without padding: a smaller output.
  Built small = TwoConvs(ConvSpec().Out(4), ConvSpec().Out(4).KH(3).KW(3));
  ExpectRejected(small, small.Stage({{"a"}, {"b"}}), "has the output");
}

TEST(MergeShapeTest, RejectsStagesThatAreNotLoneConvs) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 8, 8, 8});
  ValueId a = AddConv(b, x, "a", ConvSpec().Out(4));
  ValueId c = AddConv(b, x, "c", ConvSpec().Out(4));
  ValueId d = AddConv(b, a, "d", ConvSpec().Out(4));
  ValueId p = b.Op(
      "MaxPool", {x},
      [] {
        AttributeMap m;
        m.Set("kernel_shape", std::vector<int64_t>{1, 1});
        return m;
      }(),
      "pool");
  Built g = Build(b, {c, d, p});
  ExpectRejected(g, g.Stage({{"a"}}), "at least two");
  ExpectRejected(g, g.Stage({{"a", "d"}, {"c"}}), "exactly one Conv unit");
  ExpectRejected(g, g.Stage({{"a"}, {"pool"}}), "Pool unit");
}

// ---- The analytic model ----------------------------------------------------------------------

std::unique_ptr<AnalyticCostSource> Sim(const std::string& name) {
  auto sim = MakeAnalyticCostSource(name);
  EXPECT_TRUE(sim.ok()) << sim.status().message();
  return sim.ok() ? std::move(sim).value() : nullptr;
}

double Latency(StageCostSource& source, const Built& g, const StageCandidate& stage) {
  auto latency = source.StageLatencyMs(g.graph, g.units, stage);
  EXPECT_TRUE(latency.ok()) << latency.status().message();
  return latency.ok() ? latency.value() : -1;
}

TEST(AnalyticModelTest, KnownModelsAndErrors) {
  for (const char* name : {"V100", "A100", "H100", "v100"}) {
    auto sim = Sim(name);
    ASSERT_NE(sim, nullptr);
    EXPECT_EQ(sim->Fingerprint().kind, "sim");
    EXPECT_FALSE(sim->Fingerprint().sim_model.empty());
  }
  auto v100 = Sim("V100");
  EXPECT_EQ(v100->Name(), "sim:V100");
  EXPECT_EQ(v100->Fingerprint().sim_model, "V100");
  EXPECT_EQ(v100->spec().multiprocessors, 80);
  EXPECT_EQ(Sim("A100")->spec().multiprocessors, 108);
  EXPECT_EQ(Sim("H100")->spec().multiprocessors, 132);
  auto unknown = MakeAnalyticCostSource("K80");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalidInput);
  for (const char* name : {"K80", "V100", "A100", "H100"})
    EXPECT_NE(unknown.status().message().find(name), std::string::npos)
        << unknown.status().message();
}

TEST(AnalyticModelTest, DeterministicAndMonotone) {
  auto sim = Sim("V100");
  Built g = TwoConvs(ConvSpec().Out(32), ConvSpec().Out(32).KH(3).KW(3).PH(1).PW(1), false,
                     {1, 64, 16, 16});
  StageCandidate a = g.Stage({{"a"}});
  StageCandidate b = g.Stage({{"b"}});
  StageCandidate both = g.Stage({{"a"}, {"b"}});
  EXPECT_EQ(Latency(*sim, g, both), Latency(*sim, g, both));
  EXPECT_EQ(Latency(*sim, g, both), Latency(*Sim("V100"), g, both));
  // The 3x3 has 9x the FLOPs of the 1x1 on the same output.
  EXPECT_GT(Latency(*sim, g, b), Latency(*sim, g, a));
  // A concurrent stage is never faster than its slowest group alone.
  EXPECT_GE(Latency(*sim, g, both), std::max(Latency(*sim, g, a), Latency(*sim, g, b)));

  // More FLOPs or bytes at the same parallel work, or more work of the same kind, never faster.
  double previous = 0;
  for (double flops = 1e6; flops <= 1e11; flops *= 3) {
    double t = sim->EstimateKernel(flops, 1e6, 1e5).time_ms;
    EXPECT_GE(t, previous);
    previous = t;
  }
  previous = 0;
  for (double bytes = 1e3; bytes <= 1e10; bytes *= 3) {
    double t = sim->EstimateKernel(1e6, bytes, 1e5).time_ms;
    EXPECT_GE(t, previous);
    previous = t;
  }
  previous = 0;
  for (double outputs = 1; outputs <= 1e8; outputs *= 2) {
    double t = sim->EstimateKernel(outputs * 1000, outputs * 8, outputs).time_ms;
    EXPECT_GE(t, previous);
    previous = t;
  }
  // Convs with more input channels, output channels or a larger kernel cost more.
  double last = 0;
  for (int64_t channels : {16, 32, 64, 128, 256}) {
    Built c = TwoConvs(ConvSpec().Out(channels), ConvSpec().Out(4), false, {1, channels, 14, 14});
    double t = Latency(*sim, c, c.Stage({{"a"}}));
    EXPECT_GT(t, last) << channels;
    last = t;
  }
}

TEST(AnalyticModelTest, SmallConvsOverlapHugeConvsDoNot) {
  auto sim = Sim("V100");
  // Batch 1, 8x8: each conv fills a small fraction of the GPU.
  Built small = TwoConvs(ConvSpec().Out(64).KH(3).KW(3).PH(1).PW(1),
                         ConvSpec().Out(64).KH(3).KW(3).PH(1).PW(1), false, {1, 64, 8, 8});
  double sequential =
      Latency(*sim, small, small.Stage({{"a"}})) + Latency(*sim, small, small.Stage({{"b"}}));
  double concurrent = Latency(*sim, small, small.Stage({{"a"}, {"b"}}));
  EXPECT_LT(concurrent, 0.6 * sequential) << concurrent << " vs " << sequential;
  // Batch 32, 56x56, 256 channels: each conv fills the GPU.
  Built huge = TwoConvs(ConvSpec().Out(256).KH(3).KW(3).PH(1).PW(1),
                        ConvSpec().Out(256).KH(3).KW(3).PH(1).PW(1), false, {32, 256, 56, 56});
  sequential = Latency(*sim, huge, huge.Stage({{"a"}})) + Latency(*sim, huge, huge.Stage({{"b"}}));
  concurrent = Latency(*sim, huge, huge.Stage({{"a"}, {"b"}}));
  EXPECT_GT(concurrent, 0.95 * sequential) << concurrent << " vs " << sequential;
  // Contention may make it a little slower than running them one after the other.
  EXPECT_LE(concurrent, sequential * (1 + sim->spec().contention) + 1e-3);
  // The same two convs in one group take the sum of their times.
  EXPECT_NEAR(Latency(*sim, huge, huge.Stage({{"a", "b"}})), sequential, 1e-9);
}

TEST(AnalyticModelTest, MergeStageCostsTheMergedConv) {
  auto sim = Sim("V100");
  Built g = TwoConvs(ConvSpec().Out(64), ConvSpec().Out(64).KH(3).KW(3).PH(1).PW(1), false,
                     {1, 64, 8, 8});
  const double merged = Latency(*sim, g, g.Stage({{"a"}, {"b"}}, StageStrategy::kMerge));
  // One 3x3 conv with 128 outputs and a Split: more than a lone 3x3 with 64, less than two 3x3s
  // in sequence plus the split's launch.
  Built ref = TwoConvs(ConvSpec().Out(128).KH(3).KW(3).PH(1).PW(1),
                       ConvSpec().Out(64).KH(3).KW(3).PH(1).PW(1), false, {1, 64, 8, 8});
  const double conv128 = Latency(*sim, ref, ref.Stage({{"a"}}));
  EXPECT_GT(merged, conv128);
  EXPECT_LT(merged, conv128 + 2 * sim->spec().launch_us * 1e-3);
  // Not mergeable: an error, not a number.
  Built other = TwoConvs(ConvSpec().Out(4).Stride(2), ConvSpec().Out(4));
  auto rejected = sim->StageLatencyMs(other.graph, other.units,
                                      other.Stage({{"a"}, {"b"}}, StageStrategy::kMerge));
  EXPECT_FALSE(rejected.ok());
}

// Inception V3's last block (Mixed_7c) at a batch size, its convs with fused Relu.
Built InceptionLastBlock(int64_t batch) {
  GraphBuilder b;
  ValueId x = b.Input("x", {batch, 2048, 8, 8});
  auto conv = [&](ValueId in, const std::string& name, int64_t m, int64_t kh, int64_t kw) {
    return AddConv(b, in, name, ConvSpec().Out(m).KH(kh).KW(kw).PH(kh / 2).PW(kw / 2).Act("Relu"));
  };
  ValueId a = conv(x, "a_1x1", 320, 1, 1);
  ValueId b0 = conv(x, "b_1x1", 384, 1, 1);
  ValueId b1 = conv(b0, "b_1x3", 384, 1, 3);
  ValueId b2 = conv(b0, "b_3x1", 384, 3, 1);
  ValueId c0 = conv(x, "c_1x1", 448, 1, 1);
  ValueId c1 = conv(c0, "c_3x3", 384, 3, 3);
  ValueId c2 = conv(c1, "c_1x3", 384, 1, 3);
  ValueId c3 = conv(c1, "c_3x1", 384, 3, 1);
  AttributeMap pool;
  pool.Set("kernel_shape", std::vector<int64_t>{3, 3});
  pool.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  pool.Set("strides", std::vector<int64_t>{1, 1});
  ValueId p = b.Op("AveragePool", {x}, pool, "pool");
  ValueId d = conv(p, "d_1x1", 192, 1, 1);
  ValueId cat = b.Op("Concat", {a, b1, b2, c2, c3, d}, Axis1(), "concat");
  return Build(b, {cat});
}

struct BlockLatencies {
  double sequential = 0;  // one unit per stage
  double concurrent = 0;  // the paper's two-stage schedule for batch 1 (Figure 10 (1)), + concat
  double merged_fg = 0;   // the same with b_1x3 and b_3x1 merged in their own stage
};

BlockLatencies LastBlockLatencies(StageCostSource& sim, const Built& g) {
  BlockLatencies out;
  for (const Unit& unit : g.units.units) {
    StageCandidate stage;
    stage.groups = {{unit.id}};
    out.sequential += Latency(sim, g, stage);
  }
  const double stage1 =
      Latency(sim, g, g.Stage({{"a_1x1"}, {"b_1x1"}, {"c_1x1", "c_3x3"}, {"pool", "d_1x1"}}));
  const double stage2 = Latency(sim, g, g.Stage({{"b_1x3"}, {"b_3x1"}, {"c_1x3"}, {"c_3x1"}}));
  const double concat = Latency(sim, g, g.Stage({{"concat"}}));
  out.concurrent = stage1 + stage2 + concat;
  const double fg = Latency(sim, g, g.Stage({{"b_1x3"}, {"b_3x1"}}, StageStrategy::kMerge));
  const double rest = Latency(sim, g, g.Stage({{"c_1x3"}, {"c_3x1"}}));
  out.merged_fg = stage1 + fg + rest + concat;
  return out;
}

TEST(AnalyticModelTest, InceptionLastBlockConcurrencyHelpsAtBatchOne) {
  const Built batch1 = InceptionLastBlock(1);
  const Built batch32 = InceptionLastBlock(32);
  for (const char* gpu : {"V100", "A100", "H100"}) {
    auto sim = Sim(gpu);
    BlockLatencies one = LastBlockLatencies(*sim, batch1);
    BlockLatencies big = LastBlockLatencies(*sim, batch32);
    std::printf(
        "%s Inception V3 last block: batch 1: sequential %.3f ms, 2-stage concurrent "
        "%.3f ms (%.2fx), with f,g merged %.3f ms; batch 32: sequential %.3f ms, "
        "concurrent %.3f ms (%.2fx), merged %.3f ms\n",
        gpu, one.sequential, one.concurrent, one.sequential / one.concurrent, one.merged_fg,
        big.sequential, big.concurrent, big.sequential / big.concurrent, big.merged_fg);
    // Batch 1: the small convs leave the GPU mostly idle; running them concurrently helps a lot.
    EXPECT_LT(one.concurrent, one.sequential / 1.5) << gpu;
    // Batch 32: the convs fill the GPU; concurrency buys much less.
    EXPECT_GT(big.concurrent / big.sequential, one.concurrent / one.sequential) << gpu;
    EXPECT_GT(big.concurrent, big.sequential / 1.3) << gpu;
  }
}

// ---- Stage signatures ------------------------------------------------------------------------

// Two identical cells (a 1x1 and a 3x3 on the cell input, concatenated) in sequence, then a third
// whose 3x3 has the spec `third` (its two convs are graph outputs, not concatenated).
Built Cells(const ConvSpec& third) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 16, 8, 8});
  const ConvSpec relu1x1 = ConvSpec().Out(8).Act("Relu");
  const ConvSpec standard = ConvSpec().Out(8).KH(3).KW(3).PH(1).PW(1).Act("Relu");
  auto cell = [&](ValueId in, const std::string& prefix) {
    ValueId p = AddConv(b, in, prefix + "a", relu1x1);
    ValueId q = AddConv(b, in, prefix + "b", standard);
    return b.Op("Concat", {p, q}, Axis1(), prefix + "cat");
  };
  ValueId c2 = cell(cell(x, "one_"), "two_");
  ValueId p = AddConv(b, c2, "three_a", relu1x1);
  ValueId q = AddConv(b, c2, "three_b", third);
  return Build(b, {p, q});
}

TEST(StageSignatureTest, RepeatedCellsHaveEqualSignatures) {
  const ConvSpec standard = ConvSpec().Out(8).KH(3).KW(3).PH(1).PW(1).Act("Relu");
  Built g = Cells(standard);
  const std::string one = StageSignature(g.graph, g.units, g.Stage({{"one_a"}, {"one_b"}}));
  EXPECT_EQ(one, StageSignature(g.graph, g.units, g.Stage({{"two_a"}, {"two_b"}})));
  EXPECT_EQ(one, StageSignature(g.graph, g.units, g.Stage({{"three_a"}, {"three_b"}})));
  // Group order does not matter.
  EXPECT_EQ(one, StageSignature(g.graph, g.units, g.Stage({{"two_b"}, {"two_a"}})));
  // Single-unit stages too, and the concats.
  EXPECT_EQ(StageSignature(g.graph, g.units, g.Stage({{"one_cat"}})),
            StageSignature(g.graph, g.units, g.Stage({{"two_cat"}})));
  EXPECT_EQ(StageSignature(g.graph, g.units, g.Stage({{"one_b", "one_cat"}})),
            StageSignature(g.graph, g.units, g.Stage({{"two_b", "two_cat"}})));
  // But the two convs are different stages, and one group of both is not two groups.
  EXPECT_NE(StageSignature(g.graph, g.units, g.Stage({{"one_a"}})),
            StageSignature(g.graph, g.units, g.Stage({{"one_b"}})));
  EXPECT_NE(one, StageSignature(g.graph, g.units, g.Stage({{"one_a", "one_b"}})));
  // Two groups sharing one input are not two groups reading two inputs.
  EXPECT_NE(one, StageSignature(g.graph, g.units, g.Stage({{"one_a"}, {"two_b"}})));
  // A group's internal data flow counts: conv then the concat reading it.
  EXPECT_NE(StageSignature(g.graph, g.units, g.Stage({{"two_b", "two_cat"}})),
            StageSignature(g.graph, g.units, g.Stage({{"one_b", "two_cat"}})));
}

TEST(StageSignatureTest, AnythingThatChangesLatencyChangesTheSignature) {
  const ConvSpec standard = ConvSpec().Out(8).KH(3).KW(3).PH(1).PW(1).Act("Relu");
  Built base = Cells(standard);
  const std::string reference =
      StageSignature(base.graph, base.units, base.Stage({{"three_a"}, {"three_b"}}));
  std::map<std::string, ConvSpec> variants;
  variants["channels"] = standard;
  variants["channels"].out_channels = 16;  // output shape
  variants["kernel"] = standard;
  variants["kernel"].kh = 5;  // kernel shape and pads
  variants["kernel"].ph = 2;
  variants["stride"] = standard;
  variants["stride"].stride = 2;  // attribute and output shape
  variants["group"] = standard;
  variants["group"].group = 2;  // attribute and weight shape
  variants["no activation"] = standard;
  variants["no activation"].activation = "";
  variants["leaky"] = standard;
  variants["leaky"].activation = "LeakyRelu";
  variants["leaky2"] = variants["leaky"];
  variants["leaky2"].alpha = 0.02f;  // an activation parameter
  std::map<std::string, std::string> seen;
  seen["standard"] = reference;
  for (const auto& [name, spec] : variants) {
    Built g = Cells(spec);
    const std::string sig = StageSignature(g.graph, g.units, g.Stage({{"three_a"}, {"three_b"}}));
    for (const auto& [other, other_sig] : seen)
      EXPECT_NE(sig, other_sig) << name << " vs " << other;
    seen[name] = sig;
  }
  // The strategy.
  EXPECT_NE(reference,
            StageSignature(base.graph, base.units,
                           base.Stage({{"three_a"}, {"three_b"}}, StageStrategy::kMerge)));
  // An attribute that leaves every shape alone: explicit pads vs auto_pad SAME_UPPER.
  GraphBuilder b1, b2;
  for (GraphBuilder* b : {&b1, &b2}) {
    ValueId x = b->Input("x", {1, 4, 6, 6});
    ValueId w = b->Constant("w", b->Random({4, 4, 3, 3}));
    AttributeMap attrs;
    if (b == &b1) {
      attrs.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
    } else {
      attrs.Set("auto_pad", std::string("SAME_UPPER"));
    }
    b->Op("Conv", {x, w}, attrs, "conv");
  }
  Built p1 = Build(b1, {b1.graph().nodes[0].outputs[0]});
  Built p2 = Build(b2, {b2.graph().nodes[0].outputs[0]});
  EXPECT_NE(StageSignature(p1.graph, p1.units, p1.Stage({{"conv"}})),
            StageSignature(p2.graph, p2.units, p2.Stage({{"conv"}})));
  // Batch size.
  Built batch1 = TwoConvs(ConvSpec().Out(8), ConvSpec().Out(8), false, {1, 16, 8, 8});
  Built batch2 = TwoConvs(ConvSpec().Out(8), ConvSpec().Out(8), false, {2, 16, 8, 8});
  EXPECT_NE(StageSignature(batch1.graph, batch1.units, batch1.Stage({{"a"}})),
            StageSignature(batch2.graph, batch2.units, batch2.Stage({{"a"}})));
}

TEST(SequenceInternerTest, EqualSequencesShareAnIdAcrossGrowth) {
  SequenceInterner interner;
  std::vector<std::vector<int32_t>> sequences;
  for (int32_t i = 0; i < 500; ++i) sequences.push_back({i % 7, i, -i});
  sequences.push_back({});
  for (size_t i = 0; i < sequences.size(); ++i) {
    EXPECT_EQ(interner.Find(sequences[i].data(), static_cast<int>(sequences[i].size())), -1);
    EXPECT_EQ(interner.Intern(sequences[i].data(), static_cast<int>(sequences[i].size())),
              static_cast<int32_t>(i));
  }
  EXPECT_EQ(interner.size(), 501);
  for (size_t i = 0; i < sequences.size(); ++i) {  // after several rehashes
    const int32_t id = static_cast<int32_t>(i);
    EXPECT_EQ(interner.Intern(sequences[i].data(), static_cast<int>(sequences[i].size())), id);
    ASSERT_EQ(interner.length(id), static_cast<int>(sequences[i].size()));
    EXPECT_TRUE(std::equal(sequences[i].begin(), sequences[i].end(), interner.data(id)));
  }
  const int32_t prefix[] = {3, 3};  // a prefix of {3, 3, -3} is another sequence
  EXPECT_EQ(interner.Find(prefix, 2), -1);
}

// The measurement key (StageKeyer) drops the wiring that StageSignature keeps, and nothing else.
TEST(StageKeyerTest, IdenticalUpToWiringSharesAKey) {
  const ConvSpec standard = ConvSpec().Out(8).KH(3).KW(3).PH(1).PW(1).Act("Relu");
  Built g = Cells(standard);
  StageKeyer keyer;
  keyer.Bind(g.graph, g.units);
  auto key = [&](const std::vector<std::vector<std::string>>& groups,
                 StageStrategy strategy = StageStrategy::kConcurrent) {
    return keyer.Key(g.Stage(groups, strategy));
  };
  const int32_t shared = key({{"one_a"}, {"one_b"}});
  EXPECT_EQ(shared, key({{"two_b"}, {"two_a"}}));
  // Two groups sharing one input and two groups reading two inputs of the same shape: one key
  // (the signature tells them apart).
  EXPECT_EQ(shared, key({{"one_a"}, {"two_b"}}));
  EXPECT_NE(StageSignature(g.graph, g.units, g.Stage({{"one_a"}, {"one_b"}})),
            StageSignature(g.graph, g.units, g.Stage({{"one_a"}, {"two_b"}})));
  // The intra-group data flow: the concat after the conv that feeds it or after another one.
  EXPECT_EQ(key({{"two_b", "two_cat"}}), key({{"one_b", "two_cat"}}));
  // Kept: the kernels, the grouping, the order within a group, the strategy.
  EXPECT_NE(key({{"one_a"}}), key({{"one_b"}}));
  EXPECT_NE(shared, key({{"one_a", "one_b"}}));
  EXPECT_NE(key({{"one_a", "one_cat"}}), key({{"one_cat", "one_a"}}));
  EXPECT_NE(shared, key({{"one_a"}, {"one_b"}}, StageStrategy::kMerge));
  Built other = Cells(ConvSpec().Out(16).KH(3).KW(3).PH(1).PW(1).Act("Relu"));
  keyer.Bind(other.graph, other.units);
  EXPECT_EQ(keyer.Key(other.Stage({{"one_a"}, {"one_b"}})), shared);      // same units, other graph
  EXPECT_NE(keyer.Key(other.Stage({{"three_a"}, {"three_b"}})), shared);  // 16 channels

  // The canonical text does not depend on the order in which keys were made.
  StageKeyer fresh;
  fresh.Bind(other.graph, other.units);
  const int32_t first = fresh.Key(other.Stage({{"three_b"}, {"three_a"}}));
  fresh.Key(other.Stage({{"one_b"}}));
  EXPECT_EQ(fresh.Text(first), keyer.Text(keyer.Key(other.Stage({{"three_a"}, {"three_b"}}))));
  EXPECT_NE(fresh.Text(first), keyer.Text(shared));
}

// The analytic model caches each op's estimate, but never answers from a stale entry: a graph
// changed in place, or another graph in the same place, is estimated afresh.
TEST(AnalyticModelTest, OpCacheFollowsGraphChanges) {
  auto sim = Sim("V100");
  Built g = TwoConvs(ConvSpec().Out(32), ConvSpec().Out(32).KH(3).KW(3).PH(1).PW(1).Act("Relu"),
                     false, {1, 64, 16, 16});
  const StageCandidate both = g.Stage({{"a"}, {"b"}});
  const double before = Latency(*sim, g, both);
  // Drop conv b's fused activation in place; shapes stay.
  NodeId b = g.units.units[g.Unit("b")].nodes[0];
  AttributeMap attrs;
  for (const auto& [name, value] : g.graph.nodes[b].attrs.all())
    if (name.rfind("ios.", 0) != 0) attrs.Set(name, value);
  ASSERT_LT(attrs.all().size(), g.graph.nodes[b].attrs.all().size()) << "no fused activation";
  g.graph.nodes[b].attrs = attrs;
  const double after = Latency(*sim, g, both);
  EXPECT_EQ(after, Latency(*Sim("V100"), g, both));
  EXPECT_NE(after, before);
  // Another graph in the same variable: larger input.
  g = TwoConvs(ConvSpec().Out(32), ConvSpec().Out(32).KH(3).KW(3).PH(1).PW(1), false,
               {1, 64, 32, 32});
  const StageCandidate again = g.Stage({{"a"}, {"b"}});
  EXPECT_EQ(Latency(*sim, g, again), Latency(*Sim("V100"), g, again));
  EXPECT_GT(Latency(*sim, g, again), before);
}

// ---- CachedStageCost and the timing cache ----------------------------------------------------

// Counts its calls; the latency is 1 ms per group plus 0.1 ms per unit.
class CountingSource : public StageCostSource {
 public:
  explicit CountingSource(std::string cpu_model = "Test CPU",
                          std::string kernels = "TestDNN 1.0")
      : cpu_model_(std::move(cpu_model)), kernels_(std::move(kernels)) {}
  StatusOr<double> StageLatencyMs(const Graph&, const UnitGraph&,
                                  const StageCandidate& stage) override {
    ++calls;
    double latency = static_cast<double>(stage.groups.size());
    for (const auto& group : stage.groups) latency += 0.1 * static_cast<double>(group.size());
    return latency;
  }
  std::string Name() const override { return "counting"; }
  DeviceFingerprint Fingerprint() const override {
    DeviceFingerprint device;
    device.kind = "cpu";
    device.cpu_model = cpu_model_;
    device.cpu_isa = "avx2";
    device.cpu_cores = 2;
    return device;
  }
  std::string KernelVersions() const override { return kernels_; }
  // Blocks: 10 ms per stage plus the round, so that rounds are told apart.
  StatusOr<double> BlockLatencyMs(const Graph&, const ScheduleBlock& block, int round) override {
    ++block_calls;
    return 10.0 * static_cast<double>(block.stages.size()) + round;
  }
  // Units alone: 0.5 ms plus 0.1 ms per group of the stage's width.
  StatusOr<double> UnitAloneLatencyMs(const Graph&, const UnitGraph&, UnitId,
                                      int stage_width) override {
    ++unit_calls;
    return 0.5 + 0.1 * stage_width;
  }
  bool BoundsStages() const override { return true; }
  int calls = 0;
  int block_calls = 0;
  int unit_calls = 0;

 private:
  std::string cpu_model_;
  std::string kernels_;
};

TEST(CachedStageCostTest, MeasuresEachDistinctSignatureOnce) {
  const ConvSpec standard = ConvSpec().Out(8).KH(3).KW(3).PH(1).PW(1).Act("Relu");
  Built g = Cells(standard);
  CountingSource inner;
  CachedStageCost cost(inner);
  for (const char* cell : {"one_", "two_", "three_"}) {
    const std::string c = cell;
    EXPECT_DOUBLE_EQ(Latency(cost, g, g.Stage({{c + "a"}, {c + "b"}})), 2.2);
    EXPECT_DOUBLE_EQ(Latency(cost, g, g.Stage({{c + "b"}, {c + "a"}})), 2.2);
    EXPECT_DOUBLE_EQ(Latency(cost, g, g.Stage({{c + "a"}})), 1.1);
  }
  // The cats of cells one and two are the same stage.
  Latency(cost, g, g.Stage({{"one_cat"}}));
  Latency(cost, g, g.Stage({{"two_cat"}}));
  EXPECT_EQ(cost.requests(), 11);
  EXPECT_EQ(cost.distinct_measured(), 3);
  EXPECT_EQ(inner.calls, 3);
  EXPECT_EQ(cost.Name(), "counting");
  EXPECT_EQ(cost.Fingerprint().cpu_model, "Test CPU");
}

// A source that costs one-group stages as the sum of their units (the CPU profiler) but whose
// every measurement differs, as noisy measurements do: 1 ms more for each call. A one-group
// stage of several units asked of it directly costs 100 ms, which the cache must never ask.
class ComposingSource : public CountingSource {
 public:
  StatusOr<double> StageLatencyMs(const Graph&, const UnitGraph&,
                                  const StageCandidate& stage) override {
    ++calls;
    if (stage.groups.size() == 1 && stage.groups[0].size() > 1) return 100.0;
    return static_cast<double>(calls);
  }
  bool ComposesOneGroupStages() const override { return true; }
};

// A chain costs exactly its units as separate stages, whichever of them was measured first and
// whichever came from a timing cache; composed stages are not saved.
TEST(CachedStageCostTest, ComposesOneGroupStagesFromItsOwnUnitFigures) {
  const ConvSpec standard = ConvSpec().Out(8).KH(3).KW(3).PH(1).PW(1).Act("Relu");
  Built g = Cells(standard);
  const std::string path = TempPath("stage_cost_composed.iostc");
  std::filesystem::remove(path);
  {
    ComposingSource inner;
    CachedStageCost cost(inner);
    EXPECT_DOUBLE_EQ(Latency(cost, g, g.Stage({{"one_a"}})), 1);
    // one_a known (1 ms), one_cat measured now (2 ms).
    EXPECT_DOUBLE_EQ(Latency(cost, g, g.Stage({{"one_a", "one_cat"}})), 3);
    EXPECT_DOUBLE_EQ(Latency(cost, g, g.Stage({{"one_cat"}})), 2);
    // two_a and two_cat share one_a's and one_cat's keys.
    EXPECT_DOUBLE_EQ(Latency(cost, g, g.Stage({{"two_a", "two_cat"}})), 3);
    EXPECT_EQ(inner.calls, 2);
    EXPECT_EQ(cost.composed(), 2);
    EXPECT_EQ(cost.distinct_measured(), 2);
    // Two groups and merges are the source's to measure.
    EXPECT_DOUBLE_EQ(Latency(cost, g, g.Stage({{"one_a"}, {"one_b"}})), 3);
    EXPECT_EQ(inner.calls, 3);
    ASSERT_TRUE(cost.SaveTimingCache(path).ok());
  }
  proto::TimingCache saved;
  ASSERT_TRUE(saved.ParseFromString(ReadFileToString(path).value()));
  EXPECT_EQ(saved.stages_size(), 3);  // one_a, one_cat, the two-group stage

  // From the cache: one_a and one_cat are loaded, three_b (3x3 like one_b) is measured now.
  ComposingSource inner;
  CachedStageCost cost(inner);
  ASSERT_TRUE(cost.LoadTimingCache(path).ok());
  EXPECT_DOUBLE_EQ(Latency(cost, g, g.Stage({{"one_a", "one_cat"}})), 3);
  EXPECT_EQ(inner.calls, 0);
  EXPECT_DOUBLE_EQ(Latency(cost, g, g.Stage({{"one_cat", "three_b", "one_a"}})), 4);
  EXPECT_DOUBLE_EQ(Latency(cost, g, g.Stage({{"three_b"}})), 1);
  EXPECT_EQ(inner.calls, 1);

  // A source that measures one-group stages whole is asked for them.
  CountingSource whole;
  CachedStageCost whole_cost(whole);
  EXPECT_DOUBLE_EQ(Latency(whole_cost, g, g.Stage({{"one_a", "one_cat"}})), 1.2);
  EXPECT_EQ(whole.calls, 1);
  EXPECT_EQ(whole_cost.composed(), 0);
  std::filesystem::remove(path);
}

// Block measurements are kept per block and round, and persist with the stages.
TEST(CachedStageCostTest, KeepsBlockMeasurementsPerRoundInTheTimingCache) {
  const ConvSpec standard = ConvSpec().Out(8).KH(3).KW(3).PH(1).PW(1).Act("Relu");
  Built g = Cells(standard);
  ScheduleBlock two_stages;
  two_stages.stages.resize(2);
  two_stages.stages[0].groups = {ScheduleGroup{{0}}};
  two_stages.stages[1].groups = {ScheduleGroup{{1}}};
  ScheduleBlock one_stage;
  one_stage.stages.resize(1);
  one_stage.stages[0].groups = {ScheduleGroup{{0}}, ScheduleGroup{{1}}};
  const std::string path = TempPath("stage_cost_blocks.iostc");
  std::filesystem::remove(path);
  {
    CountingSource inner;
    CachedStageCost cost(inner);
    EXPECT_DOUBLE_EQ(*cost.BlockLatencyMs(g.graph, two_stages, 0), 20);
    EXPECT_DOUBLE_EQ(*cost.BlockLatencyMs(g.graph, two_stages, 0), 20);
    EXPECT_DOUBLE_EQ(*cost.BlockLatencyMs(g.graph, two_stages, 1), 21);
    EXPECT_DOUBLE_EQ(*cost.BlockLatencyMs(g.graph, one_stage, 0), 10);
    EXPECT_EQ(inner.block_calls, 3);
    ASSERT_TRUE(cost.SaveTimingCache(path).ok());
  }
  CountingSource inner;
  CachedStageCost cost(inner);
  ASSERT_TRUE(cost.LoadTimingCache(path).ok());
  EXPECT_DOUBLE_EQ(*cost.BlockLatencyMs(g.graph, two_stages, 1), 21);
  EXPECT_DOUBLE_EQ(*cost.BlockLatencyMs(g.graph, one_stage, 0), 10);
  EXPECT_EQ(inner.block_calls, 0);
  std::filesystem::remove(path);
}

// Units alone are kept per unit key and width, and persist with the stages; width 1 is the
// one-unit stage itself.
TEST(CachedStageCostTest, KeepsUnitBoundsPerWidthInTheTimingCache) {
  const ConvSpec standard = ConvSpec().Out(8).KH(3).KW(3).PH(1).PW(1).Act("Relu");
  Built g = Cells(standard);
  const std::string path = TempPath("stage_cost_unit_bounds.iostc");
  std::filesystem::remove(path);
  auto alone = [&](StageCostSource& source, const std::string& node, int width) {
    StatusOr<double> ms = source.UnitAloneLatencyMs(g.graph, g.units, g.Unit(node), width);
    EXPECT_TRUE(ms.ok()) << ms.status().message();
    return ms.ok() ? ms.value() : -1;
  };
  {
    CountingSource inner;
    CachedStageCost cost(inner);
    EXPECT_TRUE(cost.BoundsStages());
    EXPECT_DOUBLE_EQ(alone(cost, "one_a", 2), 0.7);
    EXPECT_DOUBLE_EQ(alone(cost, "two_a", 2), 0.7);  // the same unit key: not asked again
    EXPECT_DOUBLE_EQ(alone(cost, "one_a", 3), 0.8);
    EXPECT_EQ(inner.unit_calls, 2);
    EXPECT_EQ(cost.unit_bounds_measured(), 2);
    EXPECT_DOUBLE_EQ(alone(cost, "one_a", 1), 1.1);  // the one-unit stage
    EXPECT_DOUBLE_EQ(Latency(cost, g, g.Stage({{"two_a"}})), 1.1);
    EXPECT_EQ(inner.calls, 1);
    EXPECT_EQ(inner.unit_calls, 2);
    ASSERT_TRUE(cost.SaveTimingCache(path).ok());
  }
  CountingSource inner;
  CachedStageCost cost(inner);
  ASSERT_TRUE(cost.LoadTimingCache(path).ok());
  EXPECT_DOUBLE_EQ(alone(cost, "three_a", 2), 0.7);
  EXPECT_DOUBLE_EQ(alone(cost, "one_a", 3), 0.8);
  EXPECT_DOUBLE_EQ(alone(cost, "one_a", 1), 1.1);
  EXPECT_EQ(inner.unit_calls, 0);
  EXPECT_EQ(inner.calls, 0);
  EXPECT_EQ(cost.unit_bounds_measured(), 0);
  std::filesystem::remove(path);
}

TEST(TimingCacheTest, RoundTripsAndMissingFileIsEmpty) {
  const ConvSpec standard = ConvSpec().Out(8).KH(3).KW(3).PH(1).PW(1).Act("Relu");
  Built g = Cells(standard);
  const std::string path = TempPath("stage_cost_roundtrip.iostc");
  std::filesystem::remove(path);
  {
    CountingSource inner;
    CachedStageCost cost(inner);
    ASSERT_TRUE(cost.LoadTimingCache(path).ok());  // missing: empty
    EXPECT_EQ(cost.size(), 0u);
    Latency(cost, g, g.Stage({{"one_a"}, {"one_b"}}));
    Latency(cost, g, g.Stage({{"one_cat"}}));
    Status saved = cost.SaveTimingCache(path);
    ASSERT_TRUE(saved.ok()) << saved.message();
  }
  CountingSource inner;
  CachedStageCost cost(inner);
  Status loaded = cost.LoadTimingCache(path);
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  EXPECT_EQ(cost.size(), 2u);
  EXPECT_DOUBLE_EQ(Latency(cost, g, g.Stage({{"two_b"}, {"two_a"}})), 2.2);
  EXPECT_DOUBLE_EQ(Latency(cost, g, g.Stage({{"two_cat"}})), 1.1);
  EXPECT_EQ(inner.calls, 0);
  EXPECT_EQ(cost.distinct_measured(), 0);
  EXPECT_EQ(cost.requests(), 2);
  // Saving again is byte-identical (sorted, deterministic).
  const std::string again = TempPath("stage_cost_roundtrip2.iostc");
  ASSERT_TRUE(cost.SaveTimingCache(again).ok());
  EXPECT_EQ(ReadFileToString(path).value(), ReadFileToString(again).value());
}

TEST(TimingCacheTest, KeysDoNotDependOnTheOrderOfRequests) {
  const ConvSpec standard = ConvSpec().Out(8).KH(3).KW(3).PH(1).PW(1).Act("Relu");
  Built g = Cells(standard);
  const std::string path = TempPath("stage_cost_order.iostc");
  std::filesystem::remove(path);
  {
    CountingSource inner;
    CachedStageCost cost(inner);
    Latency(cost, g, g.Stage({{"one_b"}, {"one_a"}}));
    Latency(cost, g, g.Stage({{"one_cat"}}));
    Latency(cost, g, g.Stage({{"one_a", "one_cat"}}));
    ASSERT_TRUE(cost.SaveTimingCache(path).ok());
  }
  CountingSource inner;
  CachedStageCost cost(inner);
  ASSERT_TRUE(cost.LoadTimingCache(path).ok());
  // Other units first: the interned ids differ from the first run's, the cache keys do not.
  Latency(cost, g, g.Stage({{"two_a", "two_cat"}}));
  Latency(cost, g, g.Stage({{"two_cat"}}));
  Latency(cost, g, g.Stage({{"three_a"}, {"three_b"}}));
  EXPECT_EQ(inner.calls, 0);
}

TEST(TimingCacheTest, RefusesACacheFromAnotherDevice) {
  Built g = TwoConvs(ConvSpec().Out(8), ConvSpec().Out(8));
  const std::string path = TempPath("stage_cost_v100.iostc");
  {
    auto v100 = Sim("V100");
    CachedStageCost cost(*v100);
    Latency(cost, g, g.Stage({{"a"}, {"b"}}));
    ASSERT_TRUE(cost.SaveTimingCache(path).ok());
  }
  auto a100 = Sim("A100");
  CachedStageCost cost(*a100);
  Status refused = cost.LoadTimingCache(path);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.code(), StatusCode::kInvalidInput);
  EXPECT_NE(refused.message().find("V100"), std::string::npos) << refused.message();
  EXPECT_NE(refused.message().find(path), std::string::npos) << refused.message();
  EXPECT_EQ(cost.size(), 0u);
  // Asked to ignore the mismatch: skipped with a warning, never used.
  Status skipped = cost.LoadTimingCache(path, /*ignore_mismatch=*/true);
  EXPECT_TRUE(skipped.ok()) << skipped.message();
  EXPECT_EQ(cost.size(), 0u);
  ASSERT_EQ(cost.warnings().size(), 1u);
  EXPECT_NE(cost.warnings()[0].find("V100"), std::string::npos);

  // Another CPU model, and another source on the same device, are refused too.
  const std::string cpu_path = TempPath("stage_cost_cpu.iostc");
  {
    CountingSource here("Intel Xeon A");
    CachedStageCost c(here);
    Latency(c, g, g.Stage({{"a"}}));
    ASSERT_TRUE(c.SaveTimingCache(cpu_path).ok());
  }
  CountingSource there("AMD EPYC B");
  CachedStageCost other(there);
  Status cpu_refused = other.LoadTimingCache(cpu_path);
  ASSERT_FALSE(cpu_refused.ok());
  EXPECT_NE(cpu_refused.message().find("Intel Xeon A"), std::string::npos) << cpu_refused.message();
  CachedStageCost sim_cost(*a100);
  EXPECT_FALSE(sim_cost.LoadTimingCache(cpu_path).ok());
}

// Same device, other kernel library or ios version: the timings are stale. They are skipped with
// a warning naming both versions (not an error: the file is the right one, only old), measured
// again, and the saved cache replaces them.
TEST(TimingCacheTest, SkipsAndReplacesACacheFromOtherVersions) {
  Built g = TwoConvs(ConvSpec().Out(8), ConvSpec().Out(8));
  const std::string path = TempPath("stage_cost_versions.iostc");
  std::filesystem::remove(path);
  {
    CountingSource old_kernels("Test CPU", "TestDNN 1.0");
    CachedStageCost cost(old_kernels);
    Latency(cost, g, g.Stage({{"a"}, {"b"}}));
    ASSERT_TRUE(cost.SaveTimingCache(path).ok());
  }
  proto::TimingCache saved;
  ASSERT_TRUE(saved.ParseFromString(ReadFileToString(path).value()));
  EXPECT_EQ(saved.ios_version(), IOS_VERSION);
  EXPECT_EQ(saved.kernel_versions(), "TestDNN 1.0");

  CountingSource new_kernels("Test CPU", "TestDNN 1.1");
  CachedStageCost cost(new_kernels);
  Status loaded = cost.LoadTimingCache(path);
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  EXPECT_EQ(cost.size(), 0u);
  ASSERT_EQ(cost.warnings().size(), 1u);
  EXPECT_NE(cost.warnings()[0].find("TestDNN 1.0"), std::string::npos) << cost.warnings()[0];
  EXPECT_NE(cost.warnings()[0].find("TestDNN 1.1"), std::string::npos) << cost.warnings()[0];
  EXPECT_NE(cost.warnings()[0].find(path), std::string::npos) << cost.warnings()[0];
  Latency(cost, g, g.Stage({{"a"}, {"b"}}));
  EXPECT_EQ(new_kernels.calls, 1);  // measured again
  ASSERT_TRUE(cost.SaveTimingCache(path).ok());
  {
    CountingSource same("Test CPU", "TestDNN 1.1");
    CachedStageCost reloaded(same);
    ASSERT_TRUE(reloaded.LoadTimingCache(path).ok());
    EXPECT_TRUE(reloaded.warnings().empty());
    EXPECT_EQ(reloaded.size(), 1u);
    Latency(reloaded, g, g.Stage({{"b"}, {"a"}}));
    EXPECT_EQ(same.calls, 0);
  }

  // Another ios version, and a cache from before versions were recorded (format 1.0), are
  // stale too, whatever the kernels.
  for (const std::string& ios_version : {std::string("0.0.1-old"), std::string()}) {
    proto::TimingCache cache;
    ASSERT_TRUE(cache.ParseFromString(ReadFileToString(path).value()));
    cache.set_ios_version(ios_version);
    if (ios_version.empty()) {
      cache.set_format_minor(0);
      cache.clear_kernel_versions();
    }
    const std::string other = TempPath("stage_cost_other_ios.iostc");
    ASSERT_TRUE(WriteFileAtomically(other, cache.SerializeAsString()).ok());
    CountingSource source("Test CPU", "TestDNN 1.1");
    CachedStageCost stale(source);
    ASSERT_TRUE(stale.LoadTimingCache(other).ok());
    EXPECT_EQ(stale.size(), 0u) << ios_version;
    ASSERT_EQ(stale.warnings().size(), 1u);
    const std::string expected =
        ios_version.empty() ? "did not record its version" : "ios " + ios_version;
    EXPECT_NE(stale.warnings()[0].find(expected), std::string::npos) << stale.warnings()[0];
  }
}

// Another format major is refused, never read: a newer one (whose fields may change what the
// timings mean) and an older one, each naming both versions and what to do.
TEST(TimingCacheTest, RefusesANewerOrOlderFormatMajor) {
  Built g = TwoConvs(ConvSpec().Out(8), ConvSpec().Out(8));
  const std::string path = TempPath("stage_cost_format.iostc");
  CountingSource inner;
  {
    CachedStageCost cost(inner);
    Latency(cost, g, g.Stage({{"a"}, {"b"}}));
    ASSERT_TRUE(cost.SaveTimingCache(path).ok());
  }
  proto::TimingCache saved;
  ASSERT_TRUE(saved.ParseFromString(ReadFileToString(path).value()));
  const int32_t major = saved.format_major();
  for (const int32_t other : {major + 1, major - 1}) {
    proto::TimingCache cache = saved;
    cache.set_format_major(other);
    cache.set_format_minor(4);
    cache.set_ios_version("9.9.9");
    ASSERT_TRUE(WriteFileAtomically(path, cache.SerializeAsString()).ok());
    CachedStageCost cost(inner);
    Status status = cost.LoadTimingCache(path);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.code(), StatusCode::kInvalidInput);
    const std::string& message = status.message();
    EXPECT_NE(
        message.find(path + ": timing cache format " + std::to_string(other) +
                     ".4 (written by ios 9.9.9) is " + (other > major ? "newer" : "older") +
                     " than this ios " IOS_VERSION " reads format " + std::to_string(major) + ".x"),
        std::string::npos)
        << message;
    EXPECT_NE(message.find(other > major ? "upgrade ios" : "delete it"), std::string::npos)
        << message;
    EXPECT_EQ(cost.size(), 0u);
  }
}

TEST(TimingCacheTest, ReportsACorruptedFile) {
  const std::string path = TempPath("stage_cost_corrupt.iostc");
  ASSERT_TRUE(WriteFileAtomically(path, "this is not a timing cache\n").ok());
  CountingSource inner;
  CachedStageCost cost(inner);
  Status status = cost.LoadTimingCache(path);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find(path), std::string::npos) << status.message();
  // A truncated cache is corrupted too.
  Built g = TwoConvs(ConvSpec().Out(8), ConvSpec().Out(8));
  const std::string good = TempPath("stage_cost_good.iostc");
  Latency(cost, g, g.Stage({{"a"}}));
  Latency(cost, g, g.Stage({{"a"}, {"b"}}));
  ASSERT_TRUE(cost.SaveTimingCache(good).ok());
  std::string bytes = ReadFileToString(good).value();
  ASSERT_TRUE(WriteFileAtomically(path, bytes.substr(0, bytes.size() - 5)).ok());
  CachedStageCost again(inner);
  Status truncated = again.LoadTimingCache(path);
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.message().find(path), std::string::npos) << truncated.message();
}

}  // namespace
}  // namespace ios

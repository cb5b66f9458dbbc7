#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>

#include "passes/canonicalize.h"
#include "plan/memory_plan.h"
#include "plan/plan_builder.h"
#include "plan/plan_format.h"
#include "plan/plan_info.h"
#include "plan/plan_io.h"
#include "plan/plan_loader.h"
#include "plan/plan_validate.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "sched/blocks.h"
#include "small_fork_join_model.h"
#include "temp_files.h"
#include "test_graph_builder.h"
#include "util/file_util.h"
#include "util/sha256.h"

namespace ios {
namespace {

using testing::GraphBuilder;
using testing::TempPath;
using testing::WriteRaw;

using Compiled = testing::ScheduledGraph;

// The small fork/join model (small_fork_join_model.h) with a LeakyRelu, greedily scheduled, plus
// attributes of every kind on the first conv.
Compiled CompileSmallModel() {
  AttributeMap alpha;
  alpha.Set("alpha", 0.125f);
  Graph graph = testing::SmallForkJoinGraph({1, 3, 8, 8}, "LeakyRelu", alpha);

  // Bit patterns that a lossy round trip would change: -0, a NaN with a payload, a denormal.
  for (Value& value : graph.values) {
    if (!value.constant || value.constant->dtype() != DType::kFloat32) continue;
    if (value.constant->num_elements() < 3) continue;
    uint32_t bits[3] = {0x80000000u, 0x7fc12345u, 0x00000007u};
    std::memcpy(value.constant->raw(), bits, sizeof(bits));
    break;
  }
  // Attributes of every kind (the plan stores them whatever the op).
  AttributeMap& attrs = graph.nodes[0].attrs;
  attrs.Set("test.string", std::string("hello"));
  attrs.Set("test.float", -1.5f);
  attrs.Set("test.floats", std::vector<float>{0.5f, std::numeric_limits<float>::denorm_min()});
  attrs.Set("test.strings", std::vector<std::string>{"a", "", "c"});
  attrs.Set("test.ints", std::vector<int64_t>{});
  attrs.Set("test.tensor", Tensor::FromInt64({3, -1, 1LL << 40}, {3}));

  return testing::ScheduleWithMemory(std::move(graph), /*greedy=*/true);
}

PlanMetadata Metadata() {
  PlanMetadata meta;
  meta.command_line = "iosc small.onnx -o small.iosplan";
  meta.options = {{"schedule", "greedy"}, {"batch", "1"}};
  meta.model_sha256 = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
  meta.batch = 1;
  meta.device.set_kind("cpu");
  meta.device.set_cpu_cores(2);
  plan::StageLatency latency;
  latency.set_block(0);
  latency.set_stage(0);
  latency.set_latency_ms(0.25);
  latency.set_source("cpu-profiler");
  meta.stage_latencies.push_back(latency);
  return meta;
}

plan::Plan BuildSmallPlan() {
  Compiled c = CompileSmallModel();
  auto plan = BuildPlan(c.graph, c.schedule, c.memory, Metadata());
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  return plan.value();
}

bool SameTensor(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.dims() == b.dims() && a.num_bytes() == b.num_bytes() &&
         std::memcmp(a.raw(), b.raw(), a.num_bytes()) == 0;
}

// Bitwise equality of attribute values (floats compared by bits).
bool SameAttribute(const AttributeValue& a, const AttributeValue& b) {
  if (a.index() != b.index()) return false;
  if (const auto* t = std::get_if<Tensor>(&a)) return SameTensor(*t, std::get<Tensor>(b));
  if (const auto* f = std::get_if<float>(&a)) return std::memcmp(f, &std::get<float>(b), 4) == 0;
  if (const auto* fs = std::get_if<std::vector<float>>(&a)) {
    const auto& gs = std::get<std::vector<float>>(b);
    return fs->size() == gs.size() && std::memcmp(fs->data(), gs.data(), 4 * fs->size()) == 0;
  }
  if (const auto* i = std::get_if<int64_t>(&a)) return *i == std::get<int64_t>(b);
  if (const auto* str = std::get_if<std::string>(&a)) return *str == std::get<std::string>(b);
  if (const auto* is = std::get_if<std::vector<int64_t>>(&a))
    return *is == std::get<std::vector<int64_t>>(b);
  return std::get<std::vector<std::string>>(a) == std::get<std::vector<std::string>>(b);
}

void ExpectSameGraph(const Graph& want, const Graph& got) {
  EXPECT_EQ(got.name, want.name);
  EXPECT_EQ(got.opset, want.opset);
  EXPECT_EQ(got.inputs, want.inputs);
  EXPECT_EQ(got.outputs, want.outputs);
  ASSERT_EQ(got.values.size(), want.values.size());
  for (size_t v = 0; v < want.values.size(); ++v) {
    SCOPED_TRACE("value " + want.values[v].name);
    const Value& w = want.values[v];
    const Value& g = got.values[v];
    EXPECT_EQ(g.name, w.name);
    EXPECT_EQ(g.dtype, w.dtype);
    EXPECT_EQ(g.dims, w.dims);
    EXPECT_EQ(g.producer, w.producer);
    EXPECT_EQ(g.consumers, w.consumers);
    EXPECT_EQ(g.is_graph_input, w.is_graph_input);
    EXPECT_EQ(g.is_graph_output, w.is_graph_output);
    ASSERT_EQ(g.constant.has_value(), w.constant.has_value());
    if (w.constant) {
      EXPECT_TRUE(SameTensor(*g.constant, *w.constant));
    }
  }
  ASSERT_EQ(got.nodes.size(), want.nodes.size());
  for (size_t n = 0; n < want.nodes.size(); ++n) {
    SCOPED_TRACE("node " + want.nodes[n].name);
    const Node& w = want.nodes[n];
    const Node& g = got.nodes[n];
    EXPECT_EQ(g.name, w.name);
    EXPECT_EQ(g.op_type, w.op_type);
    EXPECT_EQ(g.opset, w.opset);
    EXPECT_EQ(g.inputs, w.inputs);
    EXPECT_EQ(g.outputs, w.outputs);
    ASSERT_EQ(g.attrs.all().size(), w.attrs.all().size());
    for (const auto& [name, value] : w.attrs.all()) {
      ASSERT_TRUE(g.attrs.Has(name)) << name;
      EXPECT_TRUE(SameAttribute(g.attrs.all().at(name), value)) << name;
    }
  }
}

TEST(PlanTest, RoundTripThroughAFilePreservesEverything) {
  Compiled c = CompileSmallModel();
  ASSERT_GE(c.schedule.blocks.size(), 1u);
  auto built = BuildPlan(c.graph, c.schedule, c.memory, Metadata());
  ASSERT_TRUE(built.ok()) << built.status().message();
  EXPECT_EQ(built->format_major(), kPlanFormatMajor);
  EXPECT_EQ(built->format_minor(), kPlanFormatMinor);
  EXPECT_EQ(built->producer().ios_version(), IOS_VERSION);
  // The tensor attribute is a WEIGHT tensor after the graph's values.
  EXPECT_EQ(built->tensors_size(), static_cast<int>(c.graph.values.size()) + 1);
  EXPECT_EQ(built->tensors(built->tensors_size() - 1).kind(), plan::WEIGHT);

  std::string path = TempPath("roundtrip.iosplan");
  ASSERT_TRUE(WritePlanFile(built.value(), path).ok());
  auto read = ReadPlanFile(path);
  ASSERT_TRUE(read.ok()) << read.status().message();
  auto loaded = LoadPlan(read.value(), path, CpuKernelCaps());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();

  ExpectSameGraph(c.graph, loaded->graph);
  EXPECT_EQ(loaded->graph.source_path, path);

  const Schedule& s = loaded->schedule;
  EXPECT_EQ(s.kind, c.schedule.kind);
  ASSERT_EQ(s.blocks.size(), c.schedule.blocks.size());
  bool concurrent = false;
  for (size_t b = 0; b < s.blocks.size(); ++b) {
    ASSERT_EQ(s.blocks[b].stages.size(), c.schedule.blocks[b].stages.size());
    for (size_t i = 0; i < s.blocks[b].stages.size(); ++i) {
      const ScheduleStage& got = s.blocks[b].stages[i];
      const ScheduleStage& want = c.schedule.blocks[b].stages[i];
      EXPECT_EQ(got.strategy, want.strategy);
      ASSERT_EQ(got.groups.size(), want.groups.size());
      concurrent = concurrent || got.groups.size() > 1;
      for (size_t g = 0; g < got.groups.size(); ++g)
        EXPECT_EQ(got.groups[g].nodes, want.groups[g].nodes);
    }
  }
  EXPECT_TRUE(concurrent) << "the test model should have a stage with two groups";

  const MemoryPlan& m = loaded->memory;
  EXPECT_EQ(m.arena_bytes, c.memory.arena_bytes);
  EXPECT_EQ(m.alignment, c.memory.alignment);
  EXPECT_EQ(m.total_tensor_bytes, c.memory.total_tensor_bytes);
  ASSERT_EQ(m.placements.size(), c.memory.placements.size());
  for (size_t i = 0; i < m.placements.size(); ++i) {
    EXPECT_EQ(m.placements[i].value, c.memory.placements[i].value);
    EXPECT_EQ(m.placements[i].offset, c.memory.placements[i].offset);
    EXPECT_EQ(m.placements[i].bytes, c.memory.placements[i].bytes);
  }

  // The metadata survives, and the meta copy holds no weight bytes but keeps their sizes.
  const plan::Plan& meta = loaded->meta;
  EXPECT_EQ(meta.model_sha256(), Metadata().model_sha256);
  EXPECT_EQ(meta.producer().command_line(), Metadata().command_line);
  EXPECT_EQ(meta.producer().options().at("schedule"), "greedy");
  EXPECT_EQ(meta.device().kind(), "cpu");
  ASSERT_EQ(meta.stage_latencies_size(), 1);
  EXPECT_EQ(meta.stage_latencies(0).source(), "cpu-profiler");
  ASSERT_EQ(meta.weights_size(), built->weights_size());
  for (int w = 0; w < meta.weights_size(); ++w) {
    EXPECT_TRUE(meta.weights(w).data().empty());
    EXPECT_EQ(meta.weights(w).bytes(), static_cast<int64_t>(built->weights(w).data().size()));
  }
  std::remove(path.c_str());
}

TEST(PlanTest, BuildRefusesAnIncompleteMemoryPlan) {
  Compiled c = CompileSmallModel();
  c.memory.total_tensor_bytes -= c.memory.placements.back().bytes;
  c.memory.placements.pop_back();
  auto built = BuildPlan(c.graph, c.schedule, c.memory, Metadata());
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.status().code(), StatusCode::kInternal);
  EXPECT_NE(built.status().message().find("no place in the memory plan"), std::string::npos)
      << built.status().message();
}

TEST(PlanTest, WritingIsDeterministic) {
  plan::Plan plan = BuildSmallPlan();
  std::string first = TempPath("det1.iosplan"), second = TempPath("det2.iosplan");
  ASSERT_TRUE(WritePlanFile(plan, first).ok());
  ASSERT_TRUE(WritePlanFile(BuildSmallPlan(), second).ok());
  EXPECT_EQ(ReadFileToString(first).value(), ReadFileToString(second).value());
  std::remove(first.c_str());
  std::remove(second.c_str());
}

// iosc builds a plan without its weights' bytes and writes them from the graph: the same file.
TEST(PlanTest, WritingWeightsFromTheGraphGivesTheSameFile) {
  Compiled c = CompileSmallModel();
  PlanMetadata meta = Metadata();
  meta.weight_bytes = false;
  auto bare = BuildPlan(c.graph, c.schedule, c.memory, meta);
  ASSERT_TRUE(bare.ok()) << bare.status().message();
  ASSERT_GT(bare->weights_size(), 1);
  for (const plan::Weight& weight : bare->weights()) {
    EXPECT_TRUE(weight.data().empty());
    EXPECT_GT(weight.bytes(), 0);
  }
  WeightTensors tensors;
  for (const PlanWeightRef& ref : PlanWeightTensors(c.graph)) tensors.push_back(ref.tensor);
  const std::string from_graph = TempPath("from_graph.iosplan"), held = TempPath("held.iosplan");
  ASSERT_TRUE(WritePlanFile(*bare, from_graph, PlanWeights::kKeep, &tensors).ok());
  ASSERT_TRUE(WritePlanFile(BuildSmallPlan(), held).ok());
  EXPECT_EQ(ReadFileToString(from_graph).value(), ReadFileToString(held).value());
  for (const plan::Weight& weight : bare->weights()) EXPECT_TRUE(weight.data().empty());

  // Tensors that do not match the plan's weights are refused, and nothing is written.
  const std::string refused = TempPath("refused.iosplan");
  WeightTensors short_list(tensors.begin(), tensors.end() - 1);
  Status fewer = WritePlanFile(*bare, refused, PlanWeights::kKeep, &short_list);
  EXPECT_EQ(fewer.code(), StatusCode::kInternal) << fewer.message();
  WeightTensors swapped = tensors;
  ASSERT_NE(swapped[0]->num_bytes(), swapped[1]->num_bytes());
  std::swap(swapped[0], swapped[1]);
  Status other = WritePlanFile(*bare, refused, PlanWeights::kKeep, &swapped);
  EXPECT_EQ(other.code(), StatusCode::kInternal) << other.message();
  EXPECT_NE(other.message().find("weight 0"), std::string::npos) << other.message();
  EXPECT_FALSE(std::ifstream(refused).good());
  std::remove(from_graph.c_str());
  std::remove(held.c_str());
}

// ValidatePlan's message for a broken plan; fails the test if the plan is accepted.
std::string Rejection(const plan::Plan& plan) {
  Status status = ValidatePlan(plan, "model.iosplan");
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kInvalidInput);
  EXPECT_EQ(status.message().rfind("model.iosplan: ", 0), 0u) << status.message();
  return status.message();
}

TEST(PlanValidateTest, AcceptsABuiltPlan) {
  Status status = ValidatePlan(BuildSmallPlan(), "model.iosplan");
  EXPECT_TRUE(status.ok()) << status.message();
}

TEST(PlanValidateTest, RejectsAnOutOfRangeInput) {
  plan::Plan plan = BuildSmallPlan();
  plan.mutable_ops(1)->set_inputs(0, 9999);
  std::string expected = "op 1 ('" + plan.ops(1).name() + "') input 0 refers to tensor 9999, " +
                         "but the plan has " + std::to_string(plan.tensors_size()) + " tensors";
  EXPECT_NE(Rejection(plan).find(expected), std::string::npos) << Rejection(plan);
}

TEST(PlanValidateTest, RejectsAWeightOfTheWrongSize) {
  plan::Plan plan = BuildSmallPlan();
  plan.mutable_weights(0)->mutable_data()->pop_back();
  EXPECT_NE(Rejection(plan).find("weight 0"), std::string::npos) << Rejection(plan);
}

TEST(PlanValidateTest, RejectsAPlacementOutsideTheArena) {
  plan::Plan plan = BuildSmallPlan();
  plan::TensorPlacement* p = plan.mutable_memory()->mutable_placements(0);
  p->set_offset(plan.memory().arena_bytes() - p->bytes() + 256);
  EXPECT_NE(Rejection(plan).find("outside the arena"), std::string::npos) << Rejection(plan);
}

TEST(PlanValidateTest, RejectsAPlacementOfTheWrongSize) {
  plan::Plan plan = BuildSmallPlan();
  plan.mutable_memory()->mutable_placements(0)->set_bytes(4);
  EXPECT_NE(Rejection(plan).find("placement 0"), std::string::npos) << Rejection(plan);
}

TEST(PlanValidateTest, RejectsAnOpMissingFromTheSchedule) {
  plan::Plan plan = BuildSmallPlan();
  plan::Group* group =
      plan.mutable_schedule()->mutable_blocks(0)->mutable_stages(0)->mutable_groups(0);
  ASSERT_GT(group->ops_size(), 0);
  int32_t op = group->ops(group->ops_size() - 1);
  group->mutable_ops()->RemoveLast();
  std::string expected = "the schedule never runs op " + std::to_string(op);
  EXPECT_NE(Rejection(plan).find(expected), std::string::npos) << Rejection(plan);
}

TEST(PlanValidateTest, RejectsAnOpScheduledTwice) {
  plan::Plan plan = BuildSmallPlan();
  plan::Group* group =
      plan.mutable_schedule()->mutable_blocks(0)->mutable_stages(0)->mutable_groups(0);
  group->add_ops(group->ops(0));
  EXPECT_NE(Rejection(plan).find("twice"), std::string::npos) << Rejection(plan);
}

TEST(PlanValidateTest, RejectsANewerFormatMajor) {
  plan::Plan plan = BuildSmallPlan();
  plan.set_format_major(kPlanFormatMajor + 1);
  plan.set_format_minor(3);
  std::string message = Rejection(plan);
  EXPECT_NE(message.find("plan format " + std::to_string(kPlanFormatMajor + 1) + ".3"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("to " + std::to_string(kPlanFormatMajor) + ".x)"), std::string::npos)
      << message;
  EXPECT_NE(message.find("ios " IOS_VERSION " reads"), std::string::npos) << message;
  EXPECT_NE(message.find("newer"), std::string::npos) << message;
  EXPECT_NE(message.find("upgrade ios"), std::string::npos) << message;
}

// A 1.x plan has no strided views, so a 2.x reader reads it exactly; a major below the oldest
// one is refused.
TEST(PlanValidateTest, AcceptsTheOlderFormatMajorItStillReads) {
  plan::Plan plan = BuildSmallPlan();
  plan.set_format_major(kOldestPlanFormatMajor);
  plan.set_format_minor(1);
  EXPECT_TRUE(ValidatePlan(plan, "model.iosplan").ok());
  plan.set_format_major(kOldestPlanFormatMajor - 1);
  const std::string message = Rejection(plan);
  EXPECT_NE(message.find("plan format " + std::to_string(kOldestPlanFormatMajor - 1) + ".1"),
            std::string::npos)
      << message;
  EXPECT_NE(
      message.find("is older than this build of ios reads (ios " IOS_VERSION " reads formats " +
                   std::to_string(kOldestPlanFormatMajor) + ".x"),
      std::string::npos)
      << message;
  EXPECT_NE(message.find("rebuild the plan with this iosc"), std::string::npos) << message;
}

TEST(PlanValidateTest, AcceptsANewerFormatMinor) {
  plan::Plan plan = BuildSmallPlan();
  plan.set_format_minor(kPlanFormatMinor + 5);
  EXPECT_TRUE(ValidatePlan(plan, "model.iosplan").ok());
}

TEST(PlanValidateTest, RejectsOtherBrokenPlans) {
  {
    plan::Plan plan = BuildSmallPlan();
    plan.mutable_tensors(0)->set_dims(0, -1);
    EXPECT_NE(Rejection(plan).find("negative"), std::string::npos);
  }
  {
    plan::Plan plan = BuildSmallPlan();  // two ops write one tensor
    plan.mutable_ops(1)->set_outputs(0, plan.ops(0).outputs(0));
    EXPECT_NE(Rejection(plan).find("written by both"), std::string::npos);
  }
  {
    plan::Plan plan = BuildSmallPlan();
    plan.add_outputs(plan.tensors_size());
    EXPECT_NE(Rejection(plan).find("graph output"), std::string::npos);
  }
  {
    plan::Plan plan = BuildSmallPlan();
    plan.mutable_tensors(plan.inputs(0))->set_kind(plan::WEIGHT);
    Rejection(plan);
  }
  {
    plan::Plan plan = BuildSmallPlan();
    plan.clear_inputs();
    EXPECT_NE(Rejection(plan).find("not among the graph inputs"), std::string::npos);
  }
  {
    plan::Plan plan = BuildSmallPlan();
    plan.mutable_schedule()->mutable_blocks(0)->mutable_stages(0)->mutable_groups(0)->set_ops(0,
                                                                                              77);
    EXPECT_NE(Rejection(plan).find("refers to op 77"), std::string::npos);
  }
  {
    plan::Plan plan = BuildSmallPlan();
    plan.mutable_stage_latencies(0)->set_block(99);
    EXPECT_NE(Rejection(plan).find("stage latency 0"), std::string::npos);
  }
}

// Two arena tensors live in the same stage, by index into the placements.
bool FindLiveTogether(const LoadedPlan& loaded, int* a, int* b) {
  std::vector<LiveInterval> live = ComputeLiveIntervals(loaded.graph, loaded.schedule);
  const auto& placements = loaded.memory.placements;
  for (size_t i = 0; i < placements.size(); ++i) {
    for (size_t j = i + 1; j < placements.size(); ++j) {
      const LiveInterval& p = live[placements[i].value];
      const LiveInterval& q = live[placements[j].value];
      if (p.first <= q.last && q.first <= p.last && placements[i].bytes > 0 &&
          placements[j].bytes > 0) {
        *a = static_cast<int>(i);
        *b = static_cast<int>(j);
        return true;
      }
    }
  }
  return false;
}

TEST(PlanLoadTest, RejectsOverlappingPlacements) {
  plan::Plan plan = BuildSmallPlan();
  auto loaded = LoadPlan(plan, "model.iosplan", CpuKernelCaps());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  int a = 0, b = 0;
  ASSERT_TRUE(FindLiveTogether(loaded.value(), &a, &b));
  plan::MemoryPlan* memory = plan.mutable_memory();
  memory->mutable_placements(b)->set_offset(memory->placements(a).offset());
  memory->set_arena_bytes(memory->arena_bytes() + memory->placements(b).bytes());
  auto broken = LoadPlan(plan, "model.iosplan", CpuKernelCaps());
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(broken.status().message().find("overlaps"), std::string::npos)
      << broken.status().message();
}

TEST(PlanLoadTest, RejectsAScheduleThatRunsAnOpBeforeItsInput) {
  plan::Plan plan = BuildSmallPlan();
  // The first stage of the schedule trades places with the last one.
  plan::Schedule* schedule = plan.mutable_schedule();
  plan::Block* last_block = schedule->mutable_blocks(schedule->blocks_size() - 1);
  plan::Stage* last = last_block->mutable_stages(last_block->stages_size() - 1);
  plan::Stage* first = schedule->mutable_blocks(0)->mutable_stages(0);
  ASSERT_NE(first, last);
  first->Swap(last);
  auto loaded = LoadPlan(plan, "model.iosplan", CpuKernelCaps());
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kInvalidInput);
}

TEST(PlanIoTest, RejectsATruncatedFile) {
  std::string path = TempPath("truncated.iosplan");
  ASSERT_TRUE(WritePlanFile(BuildSmallPlan(), path).ok());
  std::string bytes = ReadFileToString(path).value();
  // Cut in the data section, in the body, and in the header.
  for (size_t keep : {bytes.size() - 1, bytes.size() / 2, size_t{40}, size_t{12}}) {
    WriteRaw(path, bytes.substr(0, keep));
    auto read = ReadPlanFile(path);
    ASSERT_FALSE(read.ok()) << keep;
    EXPECT_EQ(read.status().code(), StatusCode::kInvalidInput);
    EXPECT_EQ(read.status().message().rfind(path + ": ", 0), 0u);
    EXPECT_NE(read.status().message().find("truncated or corrupted"), std::string::npos)
        << read.status().message();
  }
  std::remove(path.c_str());
}

TEST(PlanIoTest, WeightsFollowTheBodyInTheContainerAndLoadBitExact) {
  plan::Plan plan = BuildSmallPlan();
  const plan::Plan original = plan;
  std::string path = TempPath("container.iosplan");
  ASSERT_TRUE(WritePlanFile(plan, path).ok());
  // The caller's plan keeps its weights' bytes, now with their offsets.
  ASSERT_EQ(plan.weights_size(), original.weights_size());
  for (int w = 0; w < plan.weights_size(); ++w) {
    EXPECT_EQ(plan.weights(w).data(), original.weights(w).data());
    EXPECT_EQ(plan.weights(w).offset() % 64, 0);
  }
  const std::string bytes = ReadFileToString(path).value();
  ASSERT_GE(bytes.size(), 56u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\0IOSPLAN", 8));
  auto read = ReadPlanFile(path);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->format_major(), kPlanFormatMajor);
  for (int w = 0; w < plan.weights_size(); ++w)
    EXPECT_EQ(read->weights(w).data(), original.weights(w).data()) << "weight " << w;
  // The same plan gives the same bytes.
  std::string again_path = TempPath("container_again.iosplan");
  ASSERT_TRUE(WritePlanFile(plan, again_path).ok());
  EXPECT_EQ(ReadFileToString(again_path).value(), bytes);
  std::remove(path.c_str());
  std::remove(again_path.c_str());
}

// Every byte of a plan is checked as it loads: a flip in the header's digest, the body, a
// weight or the padding, and bytes appended, are each "plan is corrupted"; --no-verify
// (PlanVerify::kSkip) skips the digests.
TEST(PlanIoTest, ACorruptedByteAnywhereIsFound) {
  plan::Plan plan = BuildSmallPlan();
  const std::string path = TempPath("checked.iosplan");
  ASSERT_TRUE(WritePlanFile(plan, path).ok());
  const std::string good = ReadFileToString(path).value();
  const uint64_t body_size = [&] {
    uint64_t size = 0;
    for (int i = 7; i >= 0; --i) size = (size << 8) | static_cast<unsigned char>(good[16 + i]);
    return size;
  }();
  const size_t data_start = (56 + body_size + 63) / 64 * 64;
  // A position inside the first weight with a gap after it, and one in that gap.
  size_t in_weight = 0, in_padding = 0;
  for (int w = 0; w + 1 < plan.weights_size(); ++w) {
    const int64_t end = plan.weights(w).offset() + plan.weights(w).bytes();
    if (plan.weights(w).bytes() > 0 && plan.weights(w + 1).offset() > end) {
      in_weight = data_start + static_cast<size_t>(plan.weights(w).offset());
      in_padding = data_start + static_cast<size_t>(end);
      break;
    }
  }
  ASSERT_GT(in_weight, 0u);
  struct Case {
    const char* what;
    size_t position;
  };
  for (const Case& c : {Case{"digest", 30}, Case{"body", 60}, Case{"weight", in_weight},
                        Case{"padding", in_padding}}) {
    std::string bad = good;
    bad[c.position] = static_cast<char>(bad[c.position] ^ 0x10);
    WriteRaw(path, bad);
    auto opened = PlanFile::Open(path);
    Status status = opened.status();
    if (opened.ok()) {  // a weight's bytes are checked when they are read
      auto loaded = LoadPlanFile(std::move(opened).value(), CpuKernelCaps());
      status = loaded.status();
    }
    ASSERT_FALSE(status.ok()) << c.what;
    EXPECT_EQ(status.code(), StatusCode::kInvalidInput) << c.what;
    EXPECT_NE(status.message().find("plan is corrupted"), std::string::npos)
        << c.what << ": " << status.message();
  }
  WriteRaw(path, good + "x");
  auto appended = ReadPlanFile(path);
  ASSERT_FALSE(appended.ok());
  EXPECT_NE(appended.status().message().find("bytes after its last weight"), std::string::npos);

  // Skipping the checks loads a flipped weight (so that the measurement below means something).
  std::string flipped = good;
  flipped[in_weight] = static_cast<char>(flipped[in_weight] ^ 0x10);
  WriteRaw(path, flipped);
  auto unchecked = PlanFile::Open(path, PlanVerify::kSkip);
  ASSERT_TRUE(unchecked.ok()) << unchecked.status().message();
  EXPECT_TRUE(LoadPlanFile(std::move(unchecked).value(), CpuKernelCaps()).ok());
  std::remove(path.c_str());
}

TEST(PlanIoTest, FormatTwoPlansWithTheirWeightsInsideStillLoad) {
  plan::Plan plan = BuildSmallPlan();
  plan.set_format_major(2);
  std::string path = TempPath("format2.iosplan");
  WriteRaw(path, plan.SerializeAsString());  // what ios wrote before format 3
  auto read = ReadPlanFile(path);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->format_major(), 2u);
  auto loaded = LoadPlan(read.value(), path, CpuKernelCaps());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  std::remove(path.c_str());
}

TEST(PlanIoTest, RejectsWeightsOutsideTheDataSectionAndAnUnknownContainer) {
  plan::Plan plan = BuildSmallPlan();
  std::string path = TempPath("bad_container.iosplan");
  ASSERT_TRUE(WritePlanFile(plan, path).ok());
  std::string bytes = ReadFileToString(path).value();
  // A body whose second weight overlaps the first: rewrite the body with a bad offset.
  ASSERT_GE(plan.weights_size(), 2);
  plan::Plan body = plan;
  for (plan::Weight& weight : *body.mutable_weights()) weight.clear_data();
  body.mutable_weights(1)->set_offset(0);
  const std::string new_body = body.SerializeAsString();
  std::string header = bytes.substr(0, 16);
  for (int i = 0; i < 8; ++i)
    header.push_back(static_cast<char>((new_body.size() >> (8 * i)) & 255));
  header += Sha256Bytes(new_body.data(), new_body.size());
  const size_t data_start = (56 + new_body.size() + 63) / 64 * 64;
  std::string rebuilt = header + new_body + std::string(data_start - 56 - new_body.size(), '\0') +
                        std::string(4096, '\0');
  WriteRaw(path, rebuilt);
  auto overlap = ReadPlanFile(path);
  ASSERT_FALSE(overlap.ok());
  EXPECT_NE(overlap.status().message().find("weight 1's bytes lie outside"), std::string::npos)
      << overlap.status().message();
  // A container version from the future.
  std::string future = bytes;
  future[8] = 7;
  WriteRaw(path, future);
  auto version = ReadPlanFile(path);
  ASSERT_FALSE(version.ok());
  EXPECT_NE(version.status().message().find("container version 7"), std::string::npos)
      << version.status().message();
  std::remove(path.c_str());
}

TEST(PlanIoTest, RejectsRandomBytes) {
  std::string path = TempPath("random.iosplan");
  std::mt19937 rng(42);
  for (int trial = 0; trial < 20; ++trial) {
    std::string bytes(1 + rng() % 4096, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    WriteRaw(path, bytes);
    auto read = ReadPlanFile(path);
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.status().code(), StatusCode::kInvalidInput);
    EXPECT_EQ(read.status().message().rfind(path + ": ", 0), 0u) << read.status().message();
  }
  WriteRaw(path, "");
  auto empty = ReadPlanFile(path);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), path + ": not an ios plan (truncated or corrupted)");
  std::remove(path.c_str());
}

TEST(PlanIoTest, MissingFileIsAnIoError) {
  auto read = ReadPlanFile(TempPath("does_not_exist.iosplan"));
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), StatusCode::kIoError);
}

TEST(PlanInfoTest, SummaryNamesTheEssentials) {
  plan::Plan plan = BuildSmallPlan();
  std::string summary = FormatPlanSummary(plan);
  const std::string format =
      "plan format " + std::to_string(kPlanFormatMajor) + "." + std::to_string(kPlanFormatMinor);
  EXPECT_NE(summary.find(format), std::string::npos) << summary;
  EXPECT_NE(summary.find(IOS_VERSION), std::string::npos) << summary;
  EXPECT_NE(summary.find(plan.model_sha256()), std::string::npos) << summary;
  EXPECT_NE(summary.find("batch 1"), std::string::npos) << summary;
  EXPECT_NE(summary.find("greedy"), std::string::npos) << summary;
  EXPECT_NE(summary.find("cpu-profiler"), std::string::npos) << summary;
  EXPECT_NE(summary.find("ops: " + std::to_string(plan.ops_size())), std::string::npos) << summary;
}

TEST(PlanInfoTest, JsonLeavesOutWeightDataButKeepsSizes) {
  plan::Plan plan = BuildSmallPlan();
  auto json = PlanInfoJson(plan);
  ASSERT_TRUE(json.ok()) << json.status().message();
  plan::Plan parsed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json.value(), &parsed).ok());
  ASSERT_EQ(parsed.weights_size(), plan.weights_size());
  for (int w = 0; w < plan.weights_size(); ++w) {
    EXPECT_TRUE(parsed.weights(w).data().empty());
    EXPECT_EQ(parsed.weights(w).bytes(), static_cast<int64_t>(plan.weights(w).data().size()));
  }
  EXPECT_EQ(parsed.tensors_size(), plan.tensors_size());
  EXPECT_EQ(parsed.memory().placements_size(), plan.memory().placements_size());
  EXPECT_NE(json->find("\"format_major\": " + std::to_string(kPlanFormatMajor)), std::string::npos);
  // The input weights are still in the caller's plan.
  EXPECT_FALSE(plan.weights(0).data().empty());
}

}  // namespace
}  // namespace ios

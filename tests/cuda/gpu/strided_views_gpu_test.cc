// Strided views on a device: at batch 3, two convs and a max pool write their channel slices of
// a Concat's output in place, and two convs and a Sum read their slices of a Split's input in
// place (cuDNN descriptors with the wider batch stride, plan/tensor_views.h); the outputs equal
// the reference evaluator's, with a CUDA Graph and with replayed streams, with cuDNN's heuristic
// algorithms and with the algorithms iosc measures on the same layout (channels of 9x9 put the
// second and third slices 32 and 64 bytes past a 256-byte boundary, on the 16-byte one that
// views need). The plan's views are checked before the GPU skip, so the CPU build checks them too.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "../../test_graph_builder.h"
#include "gpu_test_util.h"
#include "ir/fused_activation.h"
#include "kernels/reference/reference_graph.h"
#include "plan/memory_plan.h"
#include "plan/plan_builder.h"
#include "plan/plan_loader.h"
#include "profile/cuda/conv_algorithm_selection.h"
#include "runtime/cuda/cuda_session.h"
#include "runtime/cuda/kernels/cuda_kernel_table.h"
#include "sched/blocks.h"

namespace ios {
namespace {

// x -> {conv 8ch + Relu, conv 8ch + Sigmoid (epilogue kernel), MaxPool 4ch} -> Concat -> conv
// 16ch -> Split [8, 8] -> a conv on each slice, and a Sum of the slices.
Graph StridedGraph() {
  testing::GraphBuilder b;
  ValueId x = b.Input("x", {3, 4, 9, 9});
  ValueId left = b.Conv(x, 8, 3, 1, 1, 1, "left");
  ValueId right = b.Conv(x, 8, 1, 0, 1, 1, "right");
  // Producers are linked only by Finish: find the branch convs by name.
  for (Node& node : b.graph().nodes) {
    if (node.name == "left") SetFusedActivation(node.attrs, {ActivationKind::kRelu, 0.f, 0.f});
    if (node.name == "right") SetFusedActivation(node.attrs, {ActivationKind::kSigmoid, 0.f, 0.f});
  }
  AttributeMap window;
  window.Set("kernel_shape", std::vector<int64_t>{3, 3});
  window.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  ValueId pooled = b.Op("MaxPool", {x}, window, "pool");
  AttributeMap axis;
  axis.Set("axis", int64_t{1});
  ValueId cat = b.Op("Concat", {left, right, pooled}, axis, "concat");
  ValueId wide = b.Conv(cat, 16, 1, 0, 1, 1, "wide");
  std::vector<ValueId> slices = b.Split(wide, {8, 8}, 1, "split");
  return b.Finish({b.Conv(slices[0], 4, 3, 1, 1, 1, "a"), b.Conv(slices[1], 4, 1, 0, 1, 1, "c"),
                   b.Op("Sum", {slices[0], slices[1], slices[0]}, {}, "sum")});
}

TEST(StridedViewsGpuTest, PlanWithStridedViewsMatchesTheReference) {
  Graph graph = StridedGraph();
  auto blocks = PartitionIntoBlocks(graph, BlockOptions{});
  ASSERT_TRUE(blocks.ok()) << blocks.status().message();
  const Schedule schedule = GreedySchedule(*blocks, 0);
  auto memory = PlanMemory(graph, schedule, CudaKernelCaps());
  ASSERT_TRUE(memory.ok()) << memory.status().message();
  int strided = 0;
  for (const TensorPlacement& p : memory->placements) strided += p.pitch != 0;
  ASSERT_EQ(strided, 5) << "the three branches of the Concat and both slices of the Split";
  const Status checked = CheckMemoryPlan(graph, schedule, *memory, CudaKernelCaps());
  ASSERT_TRUE(checked.ok()) << checked.message();
  IOS_SKIP_WITHOUT_GPU();

  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  Tensor input(DType::kFloat32, {3, 4, 9, 9});
  for (int64_t i = 0; i < input.num_elements(); ++i) input.data<float>()[i] = dist(rng);
  auto expected = EvaluateGraphReference(graph, {input});
  ASSERT_TRUE(expected.ok()) << expected.status().message();

  PlanMetadata meta;
  meta.batch = 3;
  meta.device.set_kind("sim");
  meta.device.set_sim_model("A100");
  auto built = BuildPlan(graph, schedule, *memory, meta);
  ASSERT_TRUE(built.ok()) << built.status().message();
  ConvAlgorithmSelectionOptions selection;
  selection.allow_tf32 = false;
  auto measured = SelectConvAlgorithms(graph, *memory, selection);
  ASSERT_TRUE(measured.ok()) << measured.status().message();
  for (int run = 0; run < 4; ++run) {
    const bool use_graph = run % 2 == 0;
    const bool use_measured = run >= 2;
    SCOPED_TRACE(std::string(use_graph ? "CUDA Graph" : "replayed") +
                 (use_measured ? ", measured algorithms" : ", heuristic algorithms"));
    plan::Plan plan = *built;
    if (use_measured) *plan.mutable_cuda() = *measured;
    auto loaded = LoadPlan(plan, "strided.iosplan", CudaKernelCaps());
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    CudaSessionOptions options;
    options.use_cuda_graph = use_graph;
    auto session = CudaSession::Create(std::move(*loaded), options);
    ASSERT_TRUE(session.ok()) << session.status().message();
    ASSERT_TRUE((*session)->SetInputs({input}).ok());
    ASSERT_TRUE((*session)->Run().ok());
    auto outputs = (*session)->GetOutputs();
    ASSERT_TRUE(outputs.ok()) << outputs.status().message();
    ASSERT_EQ(outputs->size(), expected->size());
    for (size_t o = 0; o < outputs->size(); ++o) {
      for (int64_t i = 0; i < (*outputs)[o].num_elements(); ++i) {
        const float got = (*outputs)[o].data<float>()[i];
        const float want = (*expected)[o].data<float>()[i];
        ASSERT_LE(std::fabs(got - want), 1e-3f + 1e-3f * std::fabs(want))
            << "output " << o << " element " << i;
      }
    }
  }
}

}  // namespace
}  // namespace ios

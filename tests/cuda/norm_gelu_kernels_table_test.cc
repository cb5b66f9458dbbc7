// Device-free checks of the own CUDA kernels for Erf, Gelu and LayerNormalization: the table
// lists them, and CreateCudaKernel accepts the cases they cover and refuses the rest with
// Unsupported (or InvalidInput for a malformed node) naming the node and op.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "own_kernel_test_graph.h"
#include "runtime/cuda/kernels/cuda_kernel.h"

namespace ios {
namespace {

using testing::ExpectAccepted;
using testing::ExpectRefused;
using testing::OneNodeGraph;
using testing::Zeros;

TEST(NormGeluCudaKernelsTest, TheTableListsThem) {
  for (const char* op : {"Erf", "Gelu", "LayerNormalization"})
    EXPECT_TRUE(CudaSupportsOp(op)) << op;
}

TEST(NormGeluCudaKernelsTest, ErfAndGeluAreFloat32) {
  OneNodeGraph erf("Erf", 13);
  erf.Input(Zeros({2, 3, 4}));
  ExpectAccepted(erf);
  for (const char* approximate : {"none", "tanh"}) {
    OneNodeGraph gelu("Gelu", 20);
    gelu.Input(Zeros({2, 3, 4})).Attr("approximate", std::string(approximate));
    ExpectAccepted(gelu);
  }
  OneNodeGraph gelu_default("Gelu", 20);
  gelu_default.Input(Zeros({5}));
  ExpectAccepted(gelu_default);
  OneNodeGraph double_gelu("Gelu", 20);
  double_gelu.Input(Zeros({5}, DType::kFloat64));
  ExpectRefused(double_gelu, StatusCode::kUnsupported, "only float32");
  OneNodeGraph double_erf("Erf", 13);
  double_erf.Input(Zeros({5}, DType::kFloat64));
  ExpectRefused(double_erf, StatusCode::kUnsupported, "only float32");
}

TEST(NormGeluCudaKernelsTest, GeluRefusesAnUnknownApproximation) {
  // Shape inference rejects it too; the kernel factory does not rely on that.
  OneNodeGraph g("Gelu", 20);
  g.Input(Zeros({4}));
  ASSERT_TRUE(g.Build().ok());
  Node node = g.node();
  node.attrs.Set("approximate", std::string("fast"));
  CudaKernelContext context = g.Context();
  context.node = &node;
  auto kernel = CreateCudaKernel(context);
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(kernel.status().message().find("'approximate' is 'fast'"), std::string::npos)
      << kernel.status().message();
  EXPECT_NE(kernel.status().message().find("(Gelu)"), std::string::npos);
}

TEST(NormGeluCudaKernelsTest, LayerNormalizationShapes) {
  struct Case {
    Dims x;
    int64_t axis;
    Dims scale;
    bool bias;
    int outputs;
  };
  for (const Case& c : std::vector<Case>{{{2, 50, 96}, -1, {96}, true, 1},
                                         {{2, 50, 96}, -1, {96}, false, 3},
                                         {{2, 8, 6, 6}, 1, {8, 1, 1}, true, 1},
                                         {{3, 4, 5}, 0, {}, true, 3},
                                         {{7}, 0, {7}, false, 2}}) {
    OneNodeGraph g("LayerNormalization", 17);
    g.Input(Zeros(c.x)).Constant(Zeros(c.scale));
    if (c.bias) g.Constant(Zeros(c.scale));
    g.Attr("axis", c.axis).Outputs(c.outputs);
    SCOPED_TRACE(DimsToString(c.x) + " axis " + std::to_string(c.axis));
    ExpectAccepted(g);
  }
}

TEST(NormGeluCudaKernelsTest, LayerNormalizationRefusals) {
  {
    OneNodeGraph g("LayerNormalization", 17);
    g.Input(Zeros({2, 8}, DType::kFloat64)).Constant(Zeros({8}, DType::kFloat64));
    ExpectRefused(g, StatusCode::kUnsupported, "only float32");
  }
  {  // A malformed node that reaches the factory (shape inference would reject it first).
    OneNodeGraph g("LayerNormalization", 17);
    g.Input(Zeros({2, 8})).Constant(Zeros({8}));
    ASSERT_TRUE(g.Build().ok());
    CudaKernelContext context = g.Context();
    context.input_types[1].dims = {3};
    auto kernel = CreateCudaKernel(context);
    ASSERT_FALSE(kernel.ok());
    EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(kernel.status().message().find("does not broadcast"), std::string::npos)
        << kernel.status().message();
    EXPECT_NE(kernel.status().message().find("(LayerNormalization)"), std::string::npos);
    Node node = g.node();
    node.attrs.Set("stash_type", int64_t{11});
    context = g.Context();
    context.node = &node;
    kernel = CreateCudaKernel(context);
    ASSERT_FALSE(kernel.ok());
    EXPECT_EQ(kernel.status().code(), StatusCode::kUnsupported);
    EXPECT_NE(kernel.status().message().find("stash_type=11"), std::string::npos)
        << kernel.status().message();
  }
}

}  // namespace
}  // namespace ios

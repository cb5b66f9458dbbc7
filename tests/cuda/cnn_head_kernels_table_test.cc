// Device-free checks of the own CUDA kernels of the ops that recent CNN exports brought (one test
// per op family): the table lists them, CreateCudaKernel accepts the cases they cover and refuses
// the rest with Unsupported (or InvalidInput for a malformed node) naming the node and op.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/fused_activation.h"
#include "own_kernel_test_graph.h"
#include "runtime/cuda/cuda_kernel.h"

namespace ios {
namespace {

using testing::OneNodeGraph;

Tensor Floats(Dims dims) {
  Tensor t(DType::kFloat32, std::move(dims));
  for (int64_t i = 0; i < t.num_elements(); ++i)
    t.data<float>()[i] = 0.5f * static_cast<float>(i % 5) - 1.f;
  return t;
}

StatusOr<std::unique_ptr<CudaKernel>> Create(OneNodeGraph& g, int runtime_input = -1) {
  Status built = g.Build();
  EXPECT_TRUE(built.ok()) << built.message();
  CudaKernelContext context = g.Context();
  if (runtime_input >= 0) context.constants.at(runtime_input) = nullptr;
  return CreateCudaKernel(context);
}

void ExpectAccepted(OneNodeGraph& g) {
  auto kernel = Create(g);
  EXPECT_TRUE(kernel.ok()) << g.node().op_type << ": " << kernel.status().message();
}

void ExpectRefused(const StatusOr<std::unique_ptr<CudaKernel>>& kernel, const Node& node,
                   StatusCode code, const std::string& what) {
  ASSERT_FALSE(kernel.ok()) << node.op_type;
  const std::string& message = kernel.status().message();
  EXPECT_EQ(kernel.status().code(), code) << message;
  EXPECT_NE(message.find("'" + node.name + "'"), std::string::npos) << message;
  EXPECT_NE(message.find("(" + node.op_type + ")"), std::string::npos) << message;
  EXPECT_NE(message.find(what), std::string::npos) << message;
}

// Creates the kernel first: the node exists only once the graph is built.
void ExpectRefused(OneNodeGraph& g, StatusCode code, const std::string& what,
                   int runtime_input = -1) {
  auto kernel = Create(g, runtime_input);
  ExpectRefused(kernel, g.node(), code, what);
}

TEST(CnnHeadCudaKernelsTest, ActivationsAreFloat32) {
  for (const char* op : {"Softplus", "Mish", "Selu", "Celu", "Softsign", "ThresholdedRelu"}) {
    EXPECT_TRUE(CudaSupportsOp(op)) << op;
    OneNodeGraph g(op, 22);
    g.Input(Floats({2, 8, 5, 5}));
    ExpectAccepted(g);
    OneNodeGraph doubles(op, 22);
    doubles.Input(Tensor(DType::kFloat64, {4}));
    ExpectRefused(doubles, StatusCode::kUnsupported, "only float32");
  }
}

// A conv carrying an activation it may not fuse is refused before cuDNN is asked anything.
TEST(CnnHeadCudaKernelsTest, AConvRefusesAnActivationItMayNotFuse) {
  for (ActivationKind kind : {ActivationKind::kSelu, ActivationKind::kCelu,
                              ActivationKind::kSoftsign, ActivationKind::kThresholdedRelu}) {
    OneNodeGraph conv("Conv", 13);
    conv.Input(Floats({1, 4, 6, 6})).Constant(Floats({4, 4, 3, 3}));
    Status built = conv.Build();
    ASSERT_TRUE(built.ok()) << built.message();
    Node node = conv.node();
    SetFusedActivation(node.attrs, Activation{kind, 1.f, 1.f});
    CudaKernelContext context = conv.Context();
    context.node = &node;
    ExpectRefused(CreateCudaKernel(context), node, StatusCode::kInvalidInput,
                  "is not one a conv can carry");
  }
}

Tensor Ints(const std::vector<int64_t>& values) {
  return Tensor::FromInt64(values, {static_cast<int64_t>(values.size())});
}

TEST(CnnHeadCudaKernelsTest, PReluIsTheBroadcastingBinaryKernel) {
  EXPECT_TRUE(CudaSupportsOp("PRelu"));
  OneNodeGraph prelu("PRelu", 16);
  prelu.Input(Floats({2, 8, 5, 5})).Constant(Floats({8, 1, 1}));
  ExpectAccepted(prelu);
  OneNodeGraph runtime_slope("PRelu", 9);
  runtime_slope.Input(Floats({2, 8, 5, 5})).Input(Floats({1}));
  ExpectAccepted(runtime_slope);
  OneNodeGraph int_prelu("PRelu", 16);
  int_prelu.Input(Ints({1, -2})).Input(Ints({3}));
  ExpectRefused(int_prelu, StatusCode::kUnsupported, "only float32");
}

}  // namespace
}  // namespace ios

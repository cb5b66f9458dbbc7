// Device-free checks of the own CUDA kernels of the ops that recent CNN exports brought (one test
// per op family): the table lists them, CreateCudaKernel accepts the cases they cover and refuses
// the rest with Unsupported (or InvalidInput for a malformed node) naming the node and op.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/fused_activation.h"
#include "own_kernel_test_graph.h"
#include "runtime/cuda/kernels/cuda_kernel.h"

namespace ios {
namespace {

using testing::ExpectAccepted;
using testing::ExpectRefused;
using testing::Ints;
using testing::OneNodeGraph;

Tensor CenteredFloats(Dims dims) {
  Tensor t(DType::kFloat32, std::move(dims));
  for (int64_t i = 0; i < t.num_elements(); ++i)
    t.data<float>()[i] = 0.5f * static_cast<float>(i % 5) - 1.f;
  return t;
}

TEST(CnnHeadCudaKernelsTest, ActivationsAreFloat32) {
  for (const char* op : {"Softplus", "Mish", "Selu", "Celu", "Softsign", "ThresholdedRelu"}) {
    EXPECT_TRUE(CudaSupportsOp(op)) << op;
    OneNodeGraph g(op, 22);
    g.Input(CenteredFloats({2, 8, 5, 5}));
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
    conv.Input(CenteredFloats({1, 4, 6, 6})).Constant(CenteredFloats({4, 4, 3, 3}));
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

TEST(CnnHeadCudaKernelsTest, PReluIsTheBroadcastingBinaryKernel) {
  EXPECT_TRUE(CudaSupportsOp("PRelu"));
  OneNodeGraph prelu("PRelu", 16);
  prelu.Input(CenteredFloats({2, 8, 5, 5})).Constant(CenteredFloats({8, 1, 1}));
  ExpectAccepted(prelu);
  OneNodeGraph runtime_slope("PRelu", 9);
  runtime_slope.Input(CenteredFloats({2, 8, 5, 5})).Input(CenteredFloats({1}));
  ExpectAccepted(runtime_slope);
  OneNodeGraph int_prelu("PRelu", 16);
  int_prelu.Input(Ints({1, -2})).Input(Ints({3}));
  ExpectRefused(int_prelu, StatusCode::kUnsupported, "only float32");
}

TEST(CnnHeadCudaKernelsTest, LogSoftmaxTakesBothAxisForms) {
  EXPECT_TRUE(CudaSupportsOp("LogSoftmax"));
  for (int64_t opset : {11, 13}) {
    OneNodeGraph g("LogSoftmax", opset);
    g.Input(CenteredFloats({2, 3, 4})).Attr("axis", int64_t{1});
    ExpectAccepted(g);
  }
}

const char* const kReductions[] = {"ReduceMean", "ReduceSum",       "ReduceMax",
                                   "ReduceMin",  "ReduceProd",      "ReduceL1",
                                   "ReduceL2",   "ReduceSumSquare", "ReduceLogSumExp"};

TEST(CnnHeadCudaKernelsTest, ReductionsTakeEveryConstantAxesForm) {
  for (const char* op : kReductions) {
    EXPECT_TRUE(CudaSupportsOp(op)) << op;
    const std::string name = op;
    const int64_t since = name == "ReduceSum" ? 13 : 18;
    OneNodeGraph attr(op, since - 1);
    attr.Input(CenteredFloats({2, 8, 5, 5})).Attr("axes", Dims{2, 3}).Attr("keepdims", int64_t{0});
    ExpectAccepted(attr);
    OneNodeGraph input(op, since);
    input.Input(CenteredFloats({2, 8, 5, 5})).Constant(Ints({1}));
    ExpectAccepted(input);
    OneNodeGraph all(op, since);
    all.Input(CenteredFloats({2, 8, 5, 5}));
    ExpectAccepted(all);
    OneNodeGraph noop(op, since);
    noop.Input(CenteredFloats({2, 8})).Constant(Ints({})).Attr("noop_with_empty_axes", int64_t{1});
    ExpectAccepted(noop);
    // Axes that only a run would know (shape inference had them as a constant).
    OneNodeGraph runtime(op, since);
    runtime.Input(CenteredFloats({2, 8})).Constant(Ints({1}));
    ExpectRefused(runtime, StatusCode::kUnsupported, "input 'axes' computed at run time", 1);
    OneNodeGraph ints(op, since);
    ints.Input(Ints({1, 2, 3}));
    ExpectRefused(ints, StatusCode::kUnsupported, "only float32");
  }
  // Nine reduced dims between kept ones cannot merge: more than an index map holds.
  OneNodeGraph deep("ReduceSum", 13);
  deep.Input(CenteredFloats(Dims(18, 2))).Constant(Ints({0, 2, 4, 6, 8, 10, 12, 14, 16}));
  ExpectRefused(deep, StatusCode::kUnsupported, "kept or reduced dimensions");
}

TEST(CnnHeadCudaKernelsTest, ArgMaxAndArgMinTakeFloat32AndGiveInt64) {
  for (const char* op : {"ArgMax", "ArgMin"}) {
    EXPECT_TRUE(CudaSupportsOp(op)) << op;
    OneNodeGraph g(op, 13);
    g.Input(CenteredFloats({2, 10, 4}))
        .Attr("axis", int64_t{1})
        .Attr("select_last_index", int64_t{1});
    ExpectAccepted(g);
    OneNodeGraph ints(op, 13);
    ints.Input(Ints({3, 1, 2}));
    ExpectRefused(ints, StatusCode::kUnsupported, "only float32");
  }
}

TEST(CnnHeadCudaKernelsTest, DepthToSpaceAndSpaceToDepthMoveAnyElementSize) {
  EXPECT_TRUE(CudaSupportsOp("DepthToSpace"));
  EXPECT_TRUE(CudaSupportsOp("SpaceToDepth"));
  for (const char* mode : {"DCR", "CRD"}) {
    OneNodeGraph to_space("DepthToSpace", 13);
    to_space.Input(CenteredFloats({2, 12, 3, 3}))
        .Attr("blocksize", int64_t{2})
        .Attr("mode", std::string(mode));
    ExpectAccepted(to_space);
    OneNodeGraph to_depth("SpaceToDepth", 28);
    to_depth.Input(CenteredFloats({2, 3, 6, 6}))
        .Attr("blocksize", int64_t{3})
        .Attr("mode", std::string(mode));
    ExpectAccepted(to_depth);
  }
  OneNodeGraph ints("SpaceToDepth", 13);
  ints.Input(Tensor::FromInt64({1, 2, 3, 4}, {1, 1, 2, 2})).Attr("blocksize", int64_t{2});
  ExpectAccepted(ints);
}

}  // namespace
}  // namespace ios

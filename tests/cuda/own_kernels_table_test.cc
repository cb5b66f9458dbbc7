// Device-free checks of ios's own CUDA kernels: the table lists them, and CreateCudaKernel
// accepts what they cover and refuses the rest with Unsupported naming the node and op. Kernel
// creation needs no device (this machine has none), so every case runs here.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "own_kernel_test_graph.h"
#include "runtime/cuda/kernels/cuda_kernel.h"

namespace ios {
namespace {

using testing::CreateKernel;
using testing::ExpectAccepted;
using testing::ExpectRefused;
using testing::Ints;
using testing::OneNodeGraph;

Tensor Floats(Dims dims) {
  Tensor t(DType::kFloat32, std::move(dims));
  for (int64_t i = 0; i < t.num_elements(); ++i)
    t.data<float>()[i] = 0.25f * static_cast<float>(i % 7);
  return t;
}

TEST(OwnCudaKernelsTest, TheTableListsEveryOwnOp) {
  const std::vector<std::string> ops = CudaSupportedOps();
  for (const char* op : {"Relu",      "LeakyRelu",   "Clip",       "Sigmoid",
                         "Tanh",      "HardSigmoid", "HardSwish",  "Elu",
                         "Add",       "Sub",         "Mul",        "Div",
                         "Pow",       "Max",         "Min",        "Sum",
                         "Neg",       "Concat",      "Split",      "Slice",
                         "Transpose", "Pad",         "Expand",     "Reshape",
                         "Flatten",   "Squeeze",     "Unsqueeze",  "Identity",
                         "Dropout",   "Softmax",     "ReduceMean", "BatchNormalization"}) {
    EXPECT_NE(std::find(ops.begin(), ops.end(), op), ops.end()) << op;
    EXPECT_TRUE(CudaSupportsOp(op)) << op;
  }
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
  EXPECT_EQ(std::adjacent_find(ops.begin(), ops.end()), ops.end()) << "an op is listed twice";
}

TEST(OwnCudaKernelsTest, AcceptsTheCasesItCovers) {
  {
    OneNodeGraph g("Relu");
    g.Input(Floats({1, 8, 4, 4}));
    ExpectAccepted(g);
  }
  {  // Clip with a runtime bound: read by the kernel from device memory.
    OneNodeGraph g("Clip");
    g.Input(Floats({2, 3})).Constant(Tensor::FromFloat({0.f}, {})).Omitted();
    auto kernel = CreateKernel(g, 1);
    EXPECT_TRUE(kernel.ok()) << kernel.status().message();
  }
  {
    OneNodeGraph g("Add", 14);
    g.Input(Floats({2, 8, 5, 5})).Constant(Floats({1, 8, 1, 1}));
    ExpectAccepted(g);
  }
  {
    OneNodeGraph g("Sum");
    g.Input(Floats({2, 3})).Input(Floats({3})).Input(Floats({2, 1}));
    ExpectAccepted(g);
  }
  {  // Data movement works on any element size: int64 shape tensors included.
    OneNodeGraph g("Concat");
    g.Input(Ints({1, 2})).Input(Ints({3})).Attr("axis", int64_t{0});
    ExpectAccepted(g);
  }
  {
    OneNodeGraph g("Split", 13);
    g.Input(Floats({2, 6, 3})).Constant(Ints({2, 4})).Attr("axis", int64_t{1}).Outputs(2);
    ExpectAccepted(g);
  }
  {
    OneNodeGraph g("Slice", 13);
    g.Input(Floats({4, 9}))
        .Constant(Ints({1, -1}))
        .Constant(Ints({3, -8}))
        .Constant(Ints({0, 1}))
        .Constant(Ints({1, -2}));
    ExpectAccepted(g);
  }
  {
    OneNodeGraph g("Pad", 13);
    g.Input(Floats({1, 2, 4, 4}))
        .Constant(Ints({0, 0, 1, 1, 0, 0, 1, 1}))
        .Attr("mode", std::string("reflect"));
    ExpectAccepted(g);
  }
  {
    OneNodeGraph g("Reshape", 13);
    g.Input(Floats({2, 3, 4})).Constant(Ints({6, -1}));
    ExpectAccepted(g);
  }
  {
    OneNodeGraph g("Softmax", 11);
    g.Input(Floats({2, 3, 4}));
    ExpectAccepted(g);
  }
  {
    OneNodeGraph g("ReduceMean", 13);
    g.Input(Floats({2, 3, 4, 4})).Attr("axes", std::vector<int64_t>{2, 3});
    ExpectAccepted(g);
  }
  {
    OneNodeGraph g("BatchNormalization", 15);
    g.Input(Floats({1, 3, 2, 2}));
    for (int i = 0; i < 4; ++i) g.Constant(Floats({3}));
    ExpectAccepted(g);
  }
}

TEST(OwnCudaKernelsTest, RefusesWhatItDoesNotCoverNamingTheNode) {
  {  // Math ops are float32 only.
    OneNodeGraph g("Relu");
    g.Input(Ints({1, -2, 3}));
    ExpectRefused(g, StatusCode::kUnsupported, "int64");
  }
  {
    OneNodeGraph g("Add", 14);
    g.Input(Ints({1, 2})).Input(Ints({3, 4}));
    ExpectRefused(g, StatusCode::kUnsupported, "int64");
  }
  {  // Slice needs constant starts.
    OneNodeGraph g("Slice", 13);
    g.Input(Floats({4, 9})).Constant(Ints({1})).Constant(Ints({3}));
    auto kernel = CreateKernel(g, 1);  // builds the node first
    ExpectRefused(kernel, g.node(), StatusCode::kUnsupported, "runtime starts");
  }
  {  // Pad needs constant pads.
    OneNodeGraph g("Pad", 13);
    g.Input(Floats({2, 2})).Constant(Ints({1, 1, 1, 1}));
    auto kernel = CreateKernel(g, 1);  // builds the node first
    ExpectRefused(kernel, g.node(), StatusCode::kUnsupported, "runtime pads");
  }
  {  // Dropout's training_mode must be known to be false.
    OneNodeGraph g("Dropout", 13);
    Tensor training(DType::kBool, {});
    training.data<uint8_t>()[0] = 0;
    g.Input(Floats({2, 2})).Constant(Tensor::FromFloat({0.5f}, {})).Constant(training);
    auto kernel = CreateKernel(g, 2);  // builds the node first
    ExpectRefused(kernel, g.node(), StatusCode::kUnsupported, "runtime training_mode");
  }
  {  // Training-mode batch normalisation (inference rejects it; the factory does too).
    OneNodeGraph g("BatchNormalization", 15);
    g.Input(Floats({1, 3, 2, 2}));
    for (int i = 0; i < 4; ++i) g.Constant(Floats({3}));
    ASSERT_TRUE(g.Build().ok());
    Node training = g.node();
    training.attrs.Set("training_mode", int64_t{1});
    CudaKernelContext context = g.Context();
    context.node = &training;
    ExpectRefused(CreateCudaKernel(context), training, StatusCode::kUnsupported, "training_mode");
  }
  {  // Nine dims that no collapsing can merge: beyond what an index map holds.
    OneNodeGraph g("Transpose", 13);
    g.Input(Floats({2, 3, 2, 3, 2, 3, 2, 3, 2}))
        .Attr("perm", std::vector<int64_t>{8, 7, 6, 5, 4, 3, 2, 1, 0});
    ExpectRefused(g, StatusCode::kUnsupported, "dimensions");
  }
}

TEST(OwnCudaKernelsTest, RejectsInvalidNodesAsInvalidInput) {
  OneNodeGraph g("Concat");
  g.Input(Floats({2, 3})).Input(Floats({2, 3})).Attr("axis", int64_t{1});
  ASSERT_TRUE(g.Build().ok());
  CudaKernelContext context = g.Context();
  context.output_types[0].dims = {2, 7};  // a plan whose output disagrees with the inputs
  auto kernel = CreateCudaKernel(context);
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidInput) << kernel.status().message();
}

}  // namespace
}  // namespace ios

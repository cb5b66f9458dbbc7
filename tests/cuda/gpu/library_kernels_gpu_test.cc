// The cuDNN/cuBLAS kernels (Conv, pools, Gemm, MatMul) against the reference kernels on random
// data, on a device: one node per case, its inputs uploaded, the kernel enqueued on a stream of a
// CudaStreamSet exactly as a session does, the output compared with the reference's. Also the
// algorithm measurement (MeasureConvAlgorithm) and running the conv with the measured choice.
// Every test skips without a device.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "../../random_tensor.h"
#include "../../test_graph_builder.h"
#include "gpu_test_util.h"
#include "ir/fused_activation.h"
#include "kernels/reference/reference_kernels.h"
#include "runtime/cuda/kernels/conv_algorithm.h"
#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/kernels/cuda_kernel.h"
#include "runtime/cuda/cuda_streams.h"
#include "runtime/cuda/kernels/cudnn_descriptors.h"

namespace ios {
namespace {

using testing::GraphBuilder;
using testing::RandomTensor;

struct RunOptions {
  bool allow_tf32 = false;
  const plan::ConvAlgorithm* conv_algorithm = nullptr;
};

// Runs node 0 of `graph` on the device; graph inputs get random values.
void CheckAgainstReference(const Graph& graph, const RunOptions& options = {},
                           float tolerance = 1e-4f) {
  const Node& node = graph.nodes[0];
  CudaStreamSetOptions set_options;
  set_options.num_streams = 1;
  set_options.allow_tf32 = options.allow_tf32;
  auto set = CudaStreamSet::Create(set_options);
  ASSERT_TRUE(set.ok()) << set.status().message();
  CudaKernelContext context = MakeCudaKernelContext(graph, node);
  context.cudnn = (*set)->stream(0).cudnn;
  context.allow_tf32 = options.allow_tf32;
  context.conv_algorithm = options.conv_algorithm;
  auto kernel = CreateCudaKernel(context);
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  Status reserved = (*set)->Reserve(1, 0, (*kernel)->WorkspaceBytes());
  ASSERT_TRUE(reserved.ok()) << reserved.message();
  const CudaStreamContext& stream = (*set)->stream(0);  // with the reserved workspace

  std::vector<Tensor> host;
  std::vector<DeviceBuffer> device;
  std::vector<const Tensor*> reference_inputs;
  std::vector<const void*> inputs;
  host.reserve(node.inputs.size());
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const Value& value = graph.values[static_cast<size_t>(node.inputs[i])];
    host.push_back(value.constant ? *value.constant
                                  : RandomTensor(value.dims, 17u + static_cast<uint32_t>(i)));
  }
  for (const Tensor& t : host) {
    const size_t bytes = static_cast<size_t>(t.num_elements()) * sizeof(float);
    auto buffer = DeviceBuffer::Allocate(bytes);
    ASSERT_TRUE(buffer.ok()) << buffer.status().message();
    ASSERT_EQ(testing::UploadOn(stream.stream, buffer->data(), t.raw(), bytes), cudaSuccess);
    inputs.push_back(buffer->data());
    device.push_back(std::move(*buffer));
    reference_inputs.push_back(&t);
  }
  const Value& out_value = graph.values[static_cast<size_t>(node.outputs[0])];
  const size_t out_bytes = static_cast<size_t>(NumElements(out_value.dims)) * sizeof(float);
  auto out = DeviceBuffer::Allocate(out_bytes);
  ASSERT_TRUE(out.ok()) << out.status().message();
  // NaN bytes: an element the kernel does not write fails the comparison.
  ASSERT_EQ(testing::FillOn(stream.stream, out->data(), 0xFF, out_bytes), cudaSuccess);

  Status enqueued = (*kernel)->Enqueue(inputs, {out->data()}, stream);
  ASSERT_TRUE(enqueued.ok()) << enqueued.message();
  ASSERT_EQ(cudaStreamSynchronize(stream.stream), cudaSuccess);
  Tensor result(DType::kFloat32, out_value.dims);
  ASSERT_EQ(testing::DownloadOn(stream.stream, result.raw(), out->data(), out_bytes), cudaSuccess);

  std::vector<Tensor> expected(1);
  Status reference = EvaluateReference(node, reference_inputs, &expected);
  ASSERT_TRUE(reference.ok()) << reference.message();
  ASSERT_EQ(expected[0].dims(), out_value.dims);
  int64_t bad = 0;
  for (int64_t i = 0; i < result.num_elements(); ++i) {
    const float want = expected[0].data<float>()[i];
    const float got = result.data<float>()[i];
    if (!(std::fabs(got - want) <= tolerance * (1.f + std::fabs(want)))) {
      if (++bad <= 5)
        ADD_FAILURE() << node.op_type << " element " << i << ": " << got << " vs " << want;
    }
  }
  EXPECT_EQ(bad, 0) << node.name << " (" << node.op_type << ")";
}

struct ConvSpec {
  Dims x;
  int64_t out = 4;
  std::vector<int64_t> kernel = {3, 3};
  std::vector<int64_t> pads = {1, 1, 1, 1};
  std::vector<int64_t> strides = {1, 1};
  std::vector<int64_t> dilations = {1, 1};
  int64_t group = 1;
  bool bias = true;
  std::string activation;  // fused, as the fusion pass records it
  float alpha = 0.f, beta = 0.f;
};

Graph ConvGraph(const ConvSpec& s) {
  GraphBuilder b(13);
  ValueId x = b.Input("x", s.x);
  Dims w = {s.out, s.x[1] / s.group};
  w.insert(w.end(), s.kernel.begin(), s.kernel.end());
  std::vector<ValueId> inputs = {x, b.Constant("w", b.Random(w))};
  if (s.bias) inputs.push_back(b.Constant("b", b.Random({s.out})));
  AttributeMap attrs;
  attrs.Set("kernel_shape", s.kernel);
  attrs.Set("pads", s.pads);
  attrs.Set("strides", s.strides);
  attrs.Set("dilations", s.dilations);
  attrs.Set("group", s.group);
  if (!s.activation.empty()) {
    Activation act;
    act.kind = *ActivationKindFromOpType(s.activation);
    act.alpha = s.alpha;
    act.beta = s.beta;
    SetFusedActivation(attrs, act);
  }
  ValueId y = b.Op("Conv", inputs, attrs, "conv");
  return b.Finish({y});
}

TEST(LibraryKernelsGpuTest, ConvConfigurations) {
  IOS_SKIP_WITHOUT_GPU();
  std::vector<ConvSpec> specs;
  specs.push_back({{2, 8, 12, 11}, 16, {3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}, 1, true, "Relu"});
  specs.push_back({{1, 8, 15, 16}, 6, {3, 3}, {1, 1, 1, 1}, {2, 2}, {1, 1}, 1, false, "Sigmoid"});
  specs.push_back({{1, 8, 13, 13}, 8, {3, 3}, {2, 2, 2, 2}, {1, 1}, {2, 2}, 1, true, ""});
  specs.push_back({{1, 16, 11, 11}, 16, {3, 3}, {1, 1, 1, 1}, {2, 2}, {1, 1}, 16, true, "Relu"});
  specs.push_back(
      {{1, 12, 9, 9}, 6, {3, 3}, {0, 0, 0, 0}, {1, 1}, {1, 1}, 3, true, "Clip", 0.f, 6.f});
  specs.push_back(
      {{1, 3, 8, 9}, 4, {3, 3}, {0, 1, 1, 0}, {2, 2}, {1, 1}, 1, true, "LeakyRelu", 0.1f});
  specs.push_back({{2, 5, 7, 7}, 3, {1, 7}, {0, 3, 0, 3}, {1, 1}, {1, 1}, 1, true, "Tanh"});
  specs.push_back({{1, 4, 20}, 5, {3}, {1, 1}, {1}, {1}, 1, true, "HardSwish"});
  specs.push_back({{1, 8, 12, 12}, 8, {3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}, 1, true, "Softplus"});
  specs.push_back({{2, 6, 10, 10}, 6, {3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}, 1, true, "Mish"});
  for (const ConvSpec& s : specs) {
    SCOPED_TRACE("conv x=" + DimsToString(s.x) + " k=" + DimsToString(s.kernel));
    CheckAgainstReference(ConvGraph(s));
  }
}

TEST(LibraryKernelsGpuTest, ConvWithRecordedImplicitPrecompGemmUsesTheFusedIdentityPath) {
  IOS_SKIP_WITHOUT_GPU();
  plan::ConvAlgorithm recorded;
  recorded.set_algo(CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
  recorded.set_math_type(CUDNN_FMA_MATH);
  RunOptions options;
  options.conv_algorithm = &recorded;
  // The fused call reads z = y with alpha2 = 0, and y starts as NaN bytes here: a NaN in the
  // result would mean cuDNN multiplies z by zero rather than skipping it.
  CheckAgainstReference(ConvGraph({{1, 8, 10, 10}, 8}), options);
  CheckAgainstReference(
      ConvGraph({{2, 8, 10, 10}, 8, {3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}, 1, true, "Relu"}),
      options);
}

TEST(LibraryKernelsGpuTest, MeasuredAlgorithmRunsAndMatches) {
  IOS_SKIP_WITHOUT_GPU();
  Graph graph =
      ConvGraph({{2, 16, 14, 14}, 32, {3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}, 1, true, "Relu"});
  const Node& node = graph.nodes[0];
  CudaStreamSetOptions set_options;
  auto set = CudaStreamSet::Create(set_options);
  ASSERT_TRUE(set.ok()) << set.status().message();
  auto descriptors = BuildConvDescriptors(node, graph.values[node.inputs[0]].dims,
                                          graph.values[node.inputs[1]].dims,
                                          graph.values[node.outputs[0]].dims, ConvMathType(false));
  ASSERT_TRUE(descriptors.ok()) << descriptors.status().message();
  const size_t x_bytes = static_cast<size_t>(NumElements(graph.values[node.inputs[0]].dims)) * 4;
  const size_t w_bytes = static_cast<size_t>(NumElements(graph.values[node.inputs[1]].dims)) * 4;
  auto x = DeviceBuffer::Allocate(x_bytes);
  auto w = DeviceBuffer::Allocate(w_bytes);
  auto y = DeviceBuffer::Allocate(ConvMeasureOutputBytes(*descriptors));
  auto workspace = DeviceBuffer::Allocate(size_t{16} << 20);
  ASSERT_TRUE(x.ok() && w.ok() && y.ok() && workspace.ok());
  const cudaStream_t stream = (*set)->stream(0).stream;  // the handle's stream
  ASSERT_EQ(testing::FillOn(stream, x->data(), 0, x_bytes), cudaSuccess);
  ASSERT_EQ(testing::FillOn(stream, w->data(), 0, w_bytes), cudaSuccess);
  ConvMeasureBuffers buffers;
  buffers.x = x->data();
  buffers.w = w->data();
  buffers.y = y->data();
  buffers.workspace = workspace->data();
  buffers.workspace_bytes = workspace->bytes();
  auto measured = MeasureConvAlgorithm((*set)->stream(0).cudnn, *descriptors, 7, false, buffers);
  ASSERT_TRUE(measured.ok()) << measured.status().message();
  EXPECT_EQ(measured->op(), 7);
  EXPECT_GE(measured->algo(), 0);
  EXPECT_LT(measured->algo(), CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
  EXPECT_LE(static_cast<size_t>(measured->workspace_bytes()), buffers.workspace_bytes);
  EXPECT_EQ(measured->math_type(), CUDNN_FMA_MATH);
  RunOptions options;
  options.conv_algorithm = &*measured;
  CheckAgainstReference(graph, options);
}

Graph PoolGraph(const std::string& op, const Dims& x_dims, AttributeMap attrs) {
  GraphBuilder b(13);
  ValueId x = b.Input("x", x_dims);
  ValueId y = b.Op(op, {x}, std::move(attrs), "pool");
  return b.Finish({y});
}

TEST(LibraryKernelsGpuTest, Pools) {
  IOS_SKIP_WITHOUT_GPU();
  AttributeMap max;
  max.Set("kernel_shape", std::vector<int64_t>{3, 3});
  max.Set("strides", std::vector<int64_t>{2, 2});
  max.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  CheckAgainstReference(PoolGraph("MaxPool", {2, 4, 9, 10}, max));
  AttributeMap ceil = max;
  ceil.Set("pads", std::vector<int64_t>{0, 0, 0, 0});
  ceil.Set("ceil_mode", int64_t{1});
  CheckAgainstReference(PoolGraph("MaxPool", {1, 4, 8, 8}, ceil));
  CheckAgainstReference(PoolGraph("AveragePool", {1, 4, 8, 8}, ceil));
  AttributeMap same;
  same.Set("kernel_shape", std::vector<int64_t>{3, 3});
  same.Set("strides", std::vector<int64_t>{2, 2});
  same.Set("auto_pad", std::string("SAME_UPPER"));
  CheckAgainstReference(PoolGraph("MaxPool", {1, 3, 10, 9}, same));
  AttributeMap include;
  include.Set("kernel_shape", std::vector<int64_t>{3, 3});
  include.Set("pads", std::vector<int64_t>{1, 0, 0, 1});
  include.Set("count_include_pad", int64_t{1});
  CheckAgainstReference(PoolGraph("AveragePool", {2, 3, 7, 7}, include));
  AttributeMap exclude = include;
  exclude.Set("count_include_pad", int64_t{0});
  exclude.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  CheckAgainstReference(PoolGraph("AveragePool", {2, 3, 7, 7}, exclude));
  CheckAgainstReference(PoolGraph("GlobalAveragePool", {2, 16, 7, 5}, AttributeMap{}));
  CheckAgainstReference(PoolGraph("GlobalMaxPool", {1, 8, 3, 3}, AttributeMap{}));
}

Graph GemmGraph(Dims a, Dims b_dims, Dims c, int64_t trans_a, int64_t trans_b, float alpha,
                float beta) {
  GraphBuilder b(13);
  std::vector<ValueId> inputs = {b.Input("a", a), b.Constant("b", b.Random(b_dims))};
  if (!c.empty() || beta != 0.f) inputs.push_back(b.Constant("c", b.Random(c)));
  AttributeMap attrs;
  attrs.Set("transA", trans_a);
  attrs.Set("transB", trans_b);
  attrs.Set("alpha", alpha);
  attrs.Set("beta", beta);
  ValueId y = b.Op("Gemm", inputs, attrs, "gemm");
  return b.Finish({y});
}

TEST(LibraryKernelsGpuTest, Gemm) {
  IOS_SKIP_WITHOUT_GPU();
  CheckAgainstReference(GemmGraph({3, 5}, {5, 7}, {7}, 0, 0, 1.f, 1.f));
  CheckAgainstReference(GemmGraph({5, 3}, {7, 5}, {3, 7}, 1, 1, 0.5f, 2.f));
  CheckAgainstReference(GemmGraph({4, 6}, {10, 6}, {4, 1}, 0, 1, 1.f, -1.f));
  CheckAgainstReference(GemmGraph({2, 9}, {9, 3}, {}, 0, 0, 1.5f, 0.f));
  CheckAgainstReference(GemmGraph({1, 64}, {1000, 64}, {1000}, 0, 1, 1.f, 1.f));
}

Graph MatMulGraph(Dims a, Dims b_dims) {
  GraphBuilder b(13);
  ValueId y = b.Op("MatMul", {b.Input("a", a), b.Input("b", b_dims)}, AttributeMap{}, "matmul");
  return b.Finish({y});
}

TEST(LibraryKernelsGpuTest, MatMul) {
  IOS_SKIP_WITHOUT_GPU();
  CheckAgainstReference(MatMulGraph({3, 5}, {5, 7}));
  CheckAgainstReference(MatMulGraph({2, 3, 4, 5}, {2, 3, 5, 6}));
  CheckAgainstReference(MatMulGraph({2, 3, 4, 5}, {5, 6}));
  CheckAgainstReference(MatMulGraph({4, 5}, {3, 5, 2}));
  CheckAgainstReference(MatMulGraph({5}, {2, 5, 3}));
  CheckAgainstReference(MatMulGraph({2, 4, 5}, {5}));
}

TEST(LibraryKernelsGpuTest, Tf32StaysWithinTf32Tolerance) {
  IOS_SKIP_WITHOUT_GPU();
  RunOptions options;
  options.allow_tf32 = true;
  // TF32 keeps 10 mantissa bits: about 1e-3 relative per product, more over a sum of 72.
  CheckAgainstReference(ConvGraph({{1, 8, 12, 12}, 16}), options, 2e-2f);
  CheckAgainstReference(MatMulGraph({2, 16, 32}, {32, 8}), options, 2e-2f);
}

}  // namespace
}  // namespace ios

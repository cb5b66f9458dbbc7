// The cuDNN/cuBLAS kernels without a device: the kernel table, the row-major to column-major
// GEMM mapping (checked by running the cuBLAS call's documented column-major semantics on the
// host against the reference kernels), and what kernel creation accepts, refuses and reserves.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "../random_tensor.h"
#include "../test_graph_builder.h"
#include "kernels/reference/reference_kernels.h"
#include "runtime/cuda/kernels/cuda_kernel.h"
#include "runtime/cuda/kernels/cudnn_descriptors.h"
#include "runtime/cuda/kernels/gemm_cublas.h"
#include "runtime/cuda/kernels/library_kernel_factories.h"

namespace ios {
namespace {

using testing::GraphBuilder;
using testing::RandomTensor;

TEST(LibraryKernelsTest, TableListsTheLibraryOps) {
  for (const char* op :
       {"Conv", "MaxPool", "AveragePool", "GlobalMaxPool", "GlobalAveragePool", "Gemm", "MatMul"}) {
    EXPECT_TRUE(CudaSupportsOp(op)) << op;
  }
}

// cublasGemmStridedBatchedEx as the cuBLAS documentation defines it (column-major):
// C_i = alpha op(A_i) op(B_i) + beta C_i with X_i = X + i * stride_x.
void ColumnMajorGemm(const CublasGemmCall& call, float alpha, const float* a, const float* b,
                     float beta, float* c) {
  for (int i = 0; i < call.batch; ++i) {
    const float* ai = a + i * call.stride_a;
    const float* bi = b + i * call.stride_b;
    float* ci = c + i * call.stride_c;
    for (int row = 0; row < call.m; ++row) {
      for (int col = 0; col < call.n; ++col) {
        double acc = 0;
        for (int p = 0; p < call.k; ++p) {
          const float av =
              call.transa == CUBLAS_OP_N ? ai[row + p * call.lda] : ai[p + row * call.lda];
          const float bv =
              call.transb == CUBLAS_OP_N ? bi[p + col * call.ldb] : bi[col + p * call.ldb];
          acc += static_cast<double>(av) * bv;
        }
        float& out = ci[row + col * call.ldc];
        out = static_cast<float>(alpha * acc + (beta != 0.f ? beta * out : 0.f));
      }
    }
  }
}

// Emulates the kernel's cuBLAS call for node 0 (inputs a, b) and compares with the reference.
void CheckProduct(const Graph& graph, const RowMajorGemm& gemm) {
  const Node& node = graph.nodes[0];
  const Tensor a = RandomTensor(graph.values[node.inputs[0]].dims, 3);
  const Tensor b = RandomTensor(graph.values[node.inputs[1]].dims, 5);
  std::vector<Tensor> expected(1);
  Status status = EvaluateReference(node, {&a, &b}, &expected);
  ASSERT_TRUE(status.ok()) << status.message();
  Tensor y(DType::kFloat32, expected[0].dims());
  // The kernel passes B as cuBLAS's first operand and A as its second.
  ColumnMajorGemm(ToCublasCall(gemm), gemm.alpha, b.data<float>(), a.data<float>(), gemm.beta,
                  y.data<float>());
  ASSERT_EQ(y.num_elements(), expected[0].num_elements());
  for (int64_t i = 0; i < y.num_elements(); ++i) {
    ASSERT_NEAR(y.data<float>()[i], expected[0].data<float>()[i], 1e-4f)
        << node.op_type << " element " << i;
  }
}

TEST(LibraryKernelsTest, GemmMappingMatchesTheReference) {
  struct Case {
    Dims a, b;
    int64_t trans_a, trans_b;
    float alpha;
  };
  for (const Case& c : {Case{{3, 5}, {5, 7}, 0, 0, 1.f}, Case{{5, 3}, {5, 7}, 1, 0, 2.f},
                        Case{{3, 5}, {7, 5}, 0, 1, -0.5f}, Case{{5, 3}, {7, 5}, 1, 1, 1.f},
                        Case{{1, 64}, {10, 64}, 0, 1, 1.f}}) {
    GraphBuilder builder(13);
    AttributeMap attrs;
    attrs.Set("transA", c.trans_a);
    attrs.Set("transB", c.trans_b);
    attrs.Set("alpha", c.alpha);
    ValueId y =
        builder.Op("Gemm", {builder.Input("a", c.a), builder.Input("b", c.b)}, attrs, "gemm");
    Graph graph = builder.Finish({y});
    auto gemm = PlanGemmProduct(graph.nodes[0], c.a, c.b);
    ASSERT_TRUE(gemm.ok()) << gemm.status().message();
    SCOPED_TRACE("Gemm " + DimsToString(c.a) + " x " + DimsToString(c.b));
    CheckProduct(graph, *gemm);
  }
}

TEST(LibraryKernelsTest, MatMulMappingMatchesTheReference) {
  const std::vector<std::pair<Dims, Dims>> cases = {
      {{3, 5}, {5, 7}},          {{2, 3, 4, 5}, {2, 3, 5, 6}},
      {{2, 3, 4, 5}, {5, 6}},    {{4, 5}, {3, 5, 2}},
      {{5}, {2, 5, 3}},          {{2, 4, 5}, {5}},
      {{1, 3, 4, 5}, {3, 5, 2}}, {{5}, {5}}};
  for (const auto& [a, b] : cases) {
    GraphBuilder builder(13);
    ValueId y = builder.Op("MatMul", {builder.Input("a", a), builder.Input("b", b)}, {}, "matmul");
    Graph graph = builder.Finish({y});
    auto gemm = PlanMatMul(graph.nodes[0], a, b);
    ASSERT_TRUE(gemm.ok()) << gemm.status().message();
    SCOPED_TRACE("MatMul " + DimsToString(a) + " x " + DimsToString(b));
    CheckProduct(graph, *gemm);
  }
}

TEST(LibraryKernelsTest, MatMulRefusesPartialBatchBroadcast) {
  GraphBuilder builder(13);
  ValueId y = builder.Op(
      "MatMul", {builder.Input("a", {2, 1, 4, 5}), builder.Input("b", {1, 3, 5, 6})}, {}, "matmul");
  Graph graph = builder.Finish({y});
  CudaKernelContext context = MakeCudaKernelContext(graph, graph.nodes[0]);
  auto kernel = CreateCudaKernel(context);
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(kernel.status().message().find("node 'matmul' (MatMul)"), std::string::npos)
      << kernel.status().message();
}

Graph AsymmetricConv() {
  GraphBuilder b(13);
  ValueId x = b.Input("x", {1, 3, 8, 9});
  AttributeMap attrs;
  attrs.Set("kernel_shape", std::vector<int64_t>{3, 3});
  attrs.Set("strides", std::vector<int64_t>{2, 2});
  attrs.Set("pads", std::vector<int64_t>{0, 1, 1, 0});
  ValueId y = b.Op("Conv", {x, b.Constant("w", b.Random({4, 3, 3, 3}))}, attrs, "conv");
  return b.Finish({y});
}

TEST(LibraryKernelsTest, ConvWithARecordedAlgorithmReservesCropAndAlgorithmWorkspace) {
  Graph graph = AsymmetricConv();
  CudaKernelContext context = MakeCudaKernelContext(graph, graph.nodes[0]);
  plan::ConvAlgorithm recorded;
  recorded.set_algo(CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM);
  recorded.set_math_type(CUDNN_DEFAULT_MATH);
  recorded.set_workspace_bytes(1000);
  context.conv_algorithm = &recorded;
  auto kernel = CreateCudaKernel(context);
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  // cuDNN writes [1, 4, 5, 5] floats into workspace for the crop, then the algorithm's 1000 bytes.
  EXPECT_EQ((*kernel)->WorkspaceBytes(), AlignWorkspace(100 * sizeof(float)) + 1000);
}

TEST(LibraryKernelsTest, ConvRefusesABadRecordedAlgorithmAndNeedsAHandleOtherwise) {
  Graph graph = AsymmetricConv();
  CudaKernelContext context = MakeCudaKernelContext(graph, graph.nodes[0]);
  plan::ConvAlgorithm recorded;
  recorded.set_algo(CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
  context.conv_algorithm = &recorded;
  auto bad = CreateCudaKernel(context);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidInput);

  context.conv_algorithm = nullptr;  // and no cuDNN handle to ask the heuristics
  auto no_handle = CreateCudaKernel(context);
  ASSERT_FALSE(no_handle.ok());
  EXPECT_NE(no_handle.status().message().find("node 'conv' (Conv)"), std::string::npos);
}

TEST(LibraryKernelsTest, PoolWorkspaceHoldsTheFullOutputOnlyWhenCropped) {
  GraphBuilder b(13);
  AttributeMap ceil;
  ceil.Set("kernel_shape", std::vector<int64_t>{3, 3});
  ceil.Set("strides", std::vector<int64_t>{2, 2});
  ceil.Set("ceil_mode", int64_t{1});
  ValueId y1 = b.Op("MaxPool", {b.Input("x", {1, 4, 8, 8})}, ceil, "ceil_pool");
  ValueId y2 = b.Op("GlobalAveragePool", {b.Input("x2", {1, 4, 8, 8})}, {}, "global_pool");
  Graph graph = b.Finish({y1, y2});
  auto cropped = CreateCudaKernel(MakeCudaKernelContext(graph, graph.nodes[0]));
  ASSERT_TRUE(cropped.ok()) << cropped.status().message();
  // ios: 4 x 4 outputs; cuDNN with pad 2 on both sides: 5 x 5.
  EXPECT_EQ((*cropped)->WorkspaceBytes(), AlignWorkspace(4 * 25 * sizeof(float)));
  auto global = CreateCudaKernel(MakeCudaKernelContext(graph, graph.nodes[1]));
  ASSERT_TRUE(global.ok()) << global.status().message();
  EXPECT_EQ((*global)->WorkspaceBytes(), 0u);
}

}  // namespace
}  // namespace ios

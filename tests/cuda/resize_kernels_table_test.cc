// Device-free checks of the own CUDA kernel for Resize and Upsample: the table lists both, and
// CreateCudaKernel accepts the modes and layouts it covers and refuses the rest with
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

Tensor Scales(const std::vector<float>& values) {
  return Tensor::FromFloat(values, {static_cast<int64_t>(values.size())});
}

// A Resize (opset 13) of a runtime X with constant scales.
OneNodeGraph ResizeGraph(Dims x, const std::vector<float>& scales, DType dtype = DType::kFloat32) {
  OneNodeGraph g("Resize", 13);
  g.Input(Zeros(std::move(x), dtype)).Omitted().Constant(Scales(scales));
  return g;
}

TEST(ResizeCudaKernelsTest, TheTableListsThem) {
  EXPECT_TRUE(CudaSupportsOp("Resize"));
  EXPECT_TRUE(CudaSupportsOp("Upsample"));
}

TEST(ResizeCudaKernelsTest, ModesAndLayouts) {
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    for (const char* coordinate : {"half_pixel", "pytorch_half_pixel", "align_corners",
                                   "asymmetric", "tf_half_pixel_for_nn"}) {
      SCOPED_TRACE(std::string(mode) + " " + coordinate);
      OneNodeGraph g = ResizeGraph({1, 3, 5, 7}, {1, 1, 2, 0.5f});
      g.Attr("mode", std::string(mode))
          .Attr("coordinate_transformation_mode", std::string(coordinate));
      ExpectAccepted(g);
    }
  }
  // NHWC, 3-D, four resized axes, nothing resized; sizes; Upsample 7 and 9; Resize 10.
  for (const std::vector<float>& scales :
       {std::vector<float>{1, 2, 2, 1}, {2, 2, 2, 2}, {1, 1, 1, 1}}) {
    OneNodeGraph g = ResizeGraph({2, 4, 6, 3}, scales);
    ExpectAccepted(g);
  }
  OneNodeGraph trilinear = ResizeGraph({1, 2, 3, 4, 5}, {1, 1, 2, 2, 2});
  trilinear.Attr("mode", std::string("linear"));
  ExpectAccepted(trilinear);
  OneNodeGraph sizes("Resize", 19);
  sizes.Input(Zeros({1, 3, 5, 7})).Omitted().Omitted().Constant(Tensor::FromInt64({9, 13}, {2}));
  sizes.Attr("axes", std::vector<int64_t>{2, 3}).Attr("mode", std::string("linear"));
  ExpectAccepted(sizes);
  OneNodeGraph upsample7("Upsample", 7);
  upsample7.Input(Zeros({1, 2, 3, 3})).Attr("scales", std::vector<float>{1, 1, 2, 2});
  ExpectAccepted(upsample7);
  OneNodeGraph upsample9("Upsample", 9);
  upsample9.Input(Zeros({1, 2, 3, 3})).Constant(Scales({1, 1, 2, 2}));
  upsample9.Attr("mode", std::string("linear"));
  ExpectAccepted(upsample9);
  OneNodeGraph resize10("Resize", 10);
  resize10.Input(Zeros({1, 2, 3, 3})).Constant(Scales({1, 1, 2, 2}));
  ExpectAccepted(resize10);
}

TEST(ResizeCudaKernelsTest, Refusals) {
  {  // Only float32.
    OneNodeGraph g = ResizeGraph({1, 2, 3, 3}, {1, 1, 2, 2}, DType::kInt64);
    ASSERT_TRUE(g.Build().ok());
    ExpectRefused(g.Context(), StatusCode::kUnsupported, "only float32");
  }
  {  // Five resized axes: more than the launch holds.
    OneNodeGraph g = ResizeGraph({2, 2, 2, 2, 2}, {2, 2, 2, 2, 2});
    ASSERT_TRUE(g.Build().ok());
    ExpectRefused(g.Context(), StatusCode::kUnsupported, "more than 4 axes");
  }
  {  // Scales known only at run time (shape inference wants them constant, so the context is
     // edited): the kernel could not plan the launch.
    OneNodeGraph g = ResizeGraph({1, 2, 3, 3}, {1, 1, 2, 2});
    ASSERT_TRUE(g.Build().ok());
    CudaKernelContext context = g.Context();
    context.constants[2] = nullptr;
    ExpectRefused(context, StatusCode::kUnsupported, "computed at run time");
  }
  {  // Attributes shape inference rejects, reaching the factory anyway.
    OneNodeGraph g = ResizeGraph({1, 2, 3, 3}, {1, 1, 2, 2});
    ASSERT_TRUE(g.Build().ok());
    Node node = g.node();
    CudaKernelContext context = g.Context();
    context.node = &node;
    node.attrs.Set("coordinate_transformation_mode", std::string("tf_crop_and_resize"));
    ExpectRefused(context, StatusCode::kUnsupported, "tf_crop_and_resize");
    node.attrs.Set("coordinate_transformation_mode", std::string("half_pixel"));
    node.attrs.Set("mode", std::string("area"));
    ExpectRefused(context, StatusCode::kInvalidInput, "mode 'area'");
    node.attrs.Set("mode", std::string("nearest"));
    context.output_types[0].dims = {1, 2, 5, 5};
    ExpectRefused(context, StatusCode::kInvalidInput, "but the plan has [1,2,5,5]");
  }
}

}  // namespace
}  // namespace ios

// The symmetric-pad-and-crop geometry (cudnn_descriptors.h) computes ONNX's result: cuDNN's
// convolution and pooling, as their documentation defines them (symmetric zero padding for
// convs; padding ignored by max pooling and by average pooling that excludes it, counted by the
// one that includes it), emulated on the host with the planned pads, strides and crop, must
// equal the reference kernels for asymmetric pads, auto_pad and ceil_mode.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "../random_tensor.h"
#include "../test_graph_builder.h"
#include "kernels/reference/reference_kernels.h"
#include "runtime/cuda/kernels/cudnn_descriptors.h"

namespace ios {
namespace {

using testing::GraphBuilder;
using testing::RandomTensor;

// Reads ios's output out of cuDNN's full output at the crop (NCHW, 2-D windows).
Tensor Crop(const std::vector<float>& full, const CudnnWindowGeometry& g) {
  Tensor y(DType::kFloat32, g.output);
  const Dims& f = g.full_output;
  const Dims& o = g.output;
  for (int64_t n = 0; n < o[0]; ++n)
    for (int64_t c = 0; c < o[1]; ++c)
      for (int64_t i = 0; i < o[2]; ++i)
        for (int64_t j = 0; j < o[3]; ++j)
          y.data<float>()[((n * o[1] + c) * o[2] + i) * o[3] + j] = full[static_cast<size_t>(
              ((n * f[1] + c) * f[2] + i + g.crop_begin[0]) * f[3] + j + g.crop_begin[1])];
  return y;
}

// cuDNN's cross-correlation with symmetric zero padding, groups and dilation.
std::vector<float> EmulateConv(const Tensor& x, const Tensor& w, const CudnnWindowGeometry& g,
                               int64_t groups) {
  const Dims& xd = x.dims();
  const Dims& f = g.full_output;
  const int64_t cg = xd[1] / groups, mg = f[1] / groups;
  std::vector<float> out(static_cast<size_t>(NumElements(f)));
  for (int64_t n = 0; n < f[0]; ++n)
    for (int64_t m = 0; m < f[1]; ++m)
      for (int64_t oh = 0; oh < f[2]; ++oh)
        for (int64_t ow = 0; ow < f[3]; ++ow) {
          double acc = 0;
          const int64_t group = m / mg;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t kh = 0; kh < g.kernel[0]; ++kh)
              for (int64_t kw = 0; kw < g.kernel[1]; ++kw) {
                const int64_t h = oh * g.strides[0] - g.pads[0] + kh * g.dilations[0];
                const int64_t wi = ow * g.strides[1] - g.pads[1] + kw * g.dilations[1];
                if (h < 0 || h >= xd[2] || wi < 0 || wi >= xd[3]) continue;
                acc +=
                    static_cast<double>(
                        x.data<float>()[((n * xd[1] + group * cg + c) * xd[2] + h) * xd[3] + wi]) *
                    w.data<float>()[((m * cg + c) * g.kernel[0] + kh) * g.kernel[1] + kw];
              }
          out[static_cast<size_t>(((n * f[1] + m) * f[2] + oh) * f[3] + ow)] =
              static_cast<float>(acc);
        }
  return out;
}

std::vector<float> EmulatePool(const Tensor& x, const CudnnWindowGeometry& g,
                               cudnnPoolingMode_t mode) {
  const Dims& xd = x.dims();
  const Dims& f = g.full_output;
  std::vector<float> out(static_cast<size_t>(NumElements(f)));
  for (int64_t n = 0; n < f[0]; ++n)
    for (int64_t c = 0; c < f[1]; ++c)
      for (int64_t oh = 0; oh < f[2]; ++oh)
        for (int64_t ow = 0; ow < f[3]; ++ow) {
          double sum = 0;
          float best = -std::numeric_limits<float>::infinity();
          int64_t inside = 0;
          for (int64_t kh = 0; kh < g.kernel[0]; ++kh)
            for (int64_t kw = 0; kw < g.kernel[1]; ++kw) {
              const int64_t h = oh * g.strides[0] - g.pads[0] + kh;
              const int64_t wi = ow * g.strides[1] - g.pads[1] + kw;
              if (h < 0 || h >= xd[2] || wi < 0 || wi >= xd[3]) continue;
              const float v = x.data<float>()[((n * xd[1] + c) * xd[2] + h) * xd[3] + wi];
              sum += v;
              best = std::max(best, v);
              ++inside;
            }
          float value = best;
          if (mode == CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING)
            value = static_cast<float>(sum / static_cast<double>(std::max<int64_t>(inside, 1)));
          if (mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING)
            value = static_cast<float>(sum / (g.kernel[0] * g.kernel[1]));
          out[static_cast<size_t>(((n * f[1] + c) * f[2] + oh) * f[3] + ow)] = value;
        }
  return out;
}

void ExpectNear(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.dims(), want.dims());
  for (int64_t i = 0; i < got.num_elements(); ++i)
    ASSERT_NEAR(got.data<float>()[i], want.data<float>()[i], 1e-4f) << "element " << i;
}

void CheckConv(const Dims& x_dims, int64_t out, const std::vector<int64_t>& kernel,
               AttributeMap attrs, int64_t group, bool expect_crop) {
  GraphBuilder b(13);
  ValueId x = b.Input("x", x_dims);
  attrs.Set("kernel_shape", kernel);
  attrs.Set("group", group);
  ValueId y =
      b.Op("Conv", {x, b.Constant("w", b.Random({out, x_dims[1] / group, kernel[0], kernel[1]}))},
           attrs, "conv");
  Graph graph = b.Finish({y});
  const Node& node = graph.nodes[0];
  const Tensor& w = *graph.values[node.inputs[1]].constant;
  auto d = BuildConvDescriptors(node, x_dims, w.dims(), graph.values[y].dims, CUDNN_FMA_MATH);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->geometry.cropped(), expect_crop);
  const Tensor xv = RandomTensor(x_dims, 11);
  std::vector<Tensor> expected(1);
  ASSERT_TRUE(EvaluateReference(node, {&xv, &w}, &expected).ok());
  ExpectNear(Crop(EmulateConv(xv, w, d->geometry, group), d->geometry), expected[0]);
}

void CheckPool(const std::string& op, const Dims& x_dims, const AttributeMap& attrs,
               bool expect_crop) {
  GraphBuilder b(13);
  ValueId y = b.Op(op, {b.Input("x", x_dims)}, attrs, "pool");
  Graph graph = b.Finish({y});
  const Node& node = graph.nodes[0];
  auto d = BuildPoolDescriptors(node, x_dims, graph.values[y].dims);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->geometry.cropped(), expect_crop);
  const Tensor xv = RandomTensor(x_dims, 13);
  std::vector<Tensor> expected(1);
  ASSERT_TRUE(EvaluateReference(node, {&xv}, &expected).ok());
  ExpectNear(Crop(EmulatePool(xv, d->geometry, d->mode), d->geometry), expected[0]);
}

AttributeMap Window(std::vector<int64_t> pads, std::vector<int64_t> strides) {
  AttributeMap attrs;
  attrs.Set("pads", std::move(pads));
  attrs.Set("strides", std::move(strides));
  return attrs;
}

TEST(CudnnWindowCropTest, ConvsWithAsymmetricAndAutoPads) {
  CheckConv({1, 3, 8, 9}, 4, {3, 3}, Window({0, 1, 1, 0}, {2, 2}), 1, true);
  CheckConv({2, 4, 7, 7}, 4, {3, 3}, Window({2, 0, 0, 2}, {1, 1}), 2, true);
  CheckConv({1, 6, 10, 10}, 6, {5, 5}, Window({1, 2, 3, 2}, {3, 2}), 6, true);
  CheckConv({1, 3, 9, 9}, 4, {3, 3}, Window({1, 1, 1, 1}, {2, 2}), 1, false);
  AttributeMap dilated = Window({3, 1, 1, 3}, {2, 1});
  dilated.Set("dilations", std::vector<int64_t>{2, 2});
  CheckConv({1, 2, 11, 9}, 3, {3, 3}, dilated, 1, true);
  // Total padding 1: SAME_UPPER puts it at the end (pads 0/1: cuDNN pad 2, crop 1); SAME_LOWER
  // at the beginning (pads 1/0: cuDNN pad 1 gives no extra window, so no crop).
  for (const char* mode : {"SAME_UPPER", "SAME_LOWER"}) {
    AttributeMap same;
    same.Set("auto_pad", std::string(mode));
    same.Set("strides", std::vector<int64_t>{2, 2});
    CheckConv({1, 3, 8, 8}, 4, {3, 3}, same, 1, std::string(mode) == "SAME_UPPER");
  }
}

TEST(CudnnWindowCropTest, PoolsWithCeilModeAsymmetricAndAutoPads) {
  AttributeMap ceil = Window({0, 0, 0, 0}, {2, 2});
  ceil.Set("kernel_shape", std::vector<int64_t>{3, 3});
  ceil.Set("ceil_mode", int64_t{1});
  CheckPool("MaxPool", {1, 2, 8, 8}, ceil, true);
  CheckPool("AveragePool", {1, 2, 8, 8}, ceil, true);  // excludes padding by default

  AttributeMap asym = Window({1, 0, 0, 1}, {1, 1});
  asym.Set("kernel_shape", std::vector<int64_t>{3, 3});
  asym.Set("count_include_pad", int64_t{1});
  CheckPool("AveragePool", {2, 3, 7, 7}, asym, true);
  asym.Set("count_include_pad", int64_t{0});
  CheckPool("AveragePool", {2, 3, 7, 7}, asym, true);
  CheckPool("MaxPool", {2, 3, 7, 7}, asym, true);

  AttributeMap symmetric = Window({1, 1, 1, 1}, {2, 2});
  symmetric.Set("kernel_shape", std::vector<int64_t>{3, 3});
  symmetric.Set("count_include_pad", int64_t{1});
  CheckPool("AveragePool", {1, 2, 9, 9}, symmetric, false);

  for (const char* mode : {"SAME_UPPER", "SAME_LOWER"}) {
    AttributeMap same;
    same.Set("kernel_shape", std::vector<int64_t>{2, 2});
    same.Set("strides", std::vector<int64_t>{2, 2});
    same.Set("auto_pad", std::string(mode));
    CheckPool("MaxPool", {1, 2, 7, 6}, same, std::string(mode) == "SAME_UPPER");
  }
  CheckPool("GlobalAveragePool", {2, 3, 5, 4}, AttributeMap{}, false);
  CheckPool("GlobalMaxPool", {2, 3, 5, 4}, AttributeMap{}, false);
}

}  // namespace
}  // namespace ios

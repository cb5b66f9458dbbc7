// ConvTranspose's cuDNN descriptors without a device (runtime/cuda/kernels/conv_transpose_descriptors.h):
// for ConvTranspose nodes of many shapes (strides, dilations, groups, output_padding, asymmetric
// pads, output_shape, every auto_pad, 1-D to 3-D), cuDNN accepts the descriptors, and the
// forward convolution they describe, run on the planned dx, gives back X's dims
// (cudnnGetConvolutionNdForwardOutputDim needs no device) while ios's inferred output lies inside
// dx at the planned crop. The backward-data semantics (dx[j] gathers dy[i] * w[k] over
// i * stride - pad + k * dilation = j) are then run on the host with the planned geometry, and
// the crop plus bias must equal the reference ConvTranspose. Also what the factory refuses.
#include "runtime/cuda/kernels/conv_transpose_descriptors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "../random_tensor.h"
#include "../test_graph_builder.h"
#include "kernels/reference/reference_kernels.h"
#include "own_kernel_test_graph.h"
#include "runtime/cuda/kernels/conv_algorithm.h"
#include "runtime/cuda/kernels/cuda_kernel.h"

namespace ios {
namespace {

using testing::GraphBuilder;
using testing::OneNodeGraph;
using testing::RandomTensor;

struct TransposeSpec {
  Dims x;
  int64_t out_per_group = 4;  // M / group
  Dims kernel = {3, 3};
  int64_t group = 1;
  AttributeMap attrs;  // strides, pads, dilations, output_padding, output_shape, auto_pad
  bool bias = true;
};

Graph TransposeGraph(const TransposeSpec& s) {
  GraphBuilder b(13);
  ValueId x = b.Input("x", s.x);
  Dims w = {s.x[1], s.out_per_group};
  w.insert(w.end(), s.kernel.begin(), s.kernel.end());
  std::vector<ValueId> inputs = {x, b.Constant("w", b.Random(w))};
  if (s.bias) inputs.push_back(b.Constant("b", b.Random({s.out_per_group * s.group})));
  AttributeMap attrs = s.attrs;
  attrs.Set("group", s.group);
  ValueId y = b.Op("ConvTranspose", inputs, attrs, "deconv");
  return b.Finish({y});
}

AttributeMap Attrs(std::vector<std::pair<std::string, std::vector<int64_t>>> lists,
                   const std::string& auto_pad = "") {
  AttributeMap attrs;
  for (auto& [name, values] : lists) attrs.Set(name, values);
  if (!auto_pad.empty()) attrs.Set("auto_pad", auto_pad);
  return attrs;
}

std::vector<TransposeSpec> Specs() {
  std::vector<TransposeSpec> specs;
  // DCGAN/U-Net upsampling: k 4, stride 2, pad 1 (no crop).
  specs.push_back(
      {{2, 8, 5, 6}, 4, {4, 4}, 1, Attrs({{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}})});
  // k 3, stride 2, pad 1, output_padding 1: exactly twice the input.
  specs.push_back(
      {{1, 6, 7, 7},
       3,
       {3, 3},
       1,
       Attrs({{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}, {"output_padding", {1, 1}}})});
  // k 2, stride 2, no pads (FCN / U-Net 2x2 up-convolution), no bias.
  specs.push_back({{1, 4, 6, 5}, 5, {2, 2}, 1, Attrs({{"strides", {2, 2}}}), false});
  // Groups: depthwise (C = group, one output per group) and two groups of several channels.
  specs.push_back(
      {{1, 6, 5, 5}, 1, {3, 3}, 6, Attrs({{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}})});
  specs.push_back({{2, 8, 4, 4}, 3, {3, 3}, 2, Attrs({{"pads", {1, 1, 1, 1}}})});
  // Dilation, stride 1, output_padding below the dilation.
  specs.push_back(
      {{1, 3, 6, 6}, 2, {3, 3}, 1, Attrs({{"dilations", {2, 2}}, {"pads", {2, 2, 2, 2}}})});
  specs.push_back(
      {{1, 3, 5, 6},
       2,
       {3, 3},
       1,
       Attrs({{"dilations", {2, 2}}, {"output_padding", {1, 1}}, {"pads", {0, 1, 1, 2}}})});
  // Asymmetric pads (crop), also with output_padding eaten by the end pad.
  specs.push_back(
      {{1, 4, 6, 7}, 3, {3, 3}, 1, Attrs({{"strides", {2, 2}}, {"pads", {0, 1, 2, 0}}})});
  specs.push_back(
      {{1, 4, 5, 5},
       3,
       {3, 3},
       1,
       Attrs({{"strides", {2, 3}}, {"pads", {1, 0, 2, 2}}, {"output_padding", {1, 2}}})});
  // Rectangular kernel and strides.
  specs.push_back(
      {{1, 2, 4, 9}, 3, {1, 5}, 1, Attrs({{"strides", {1, 3}}, {"pads", {0, 2, 0, 1}}})});
  // output_shape (spatial and full forms) and every auto_pad.
  specs.push_back(
      {{1, 4, 5, 5}, 2, {3, 3}, 1, Attrs({{"strides", {2, 2}}, {"output_shape", {10, 11}}})});
  specs.push_back(
      {{1, 4, 5, 5}, 2, {3, 3}, 1, Attrs({{"strides", {2, 2}}, {"output_shape", {1, 2, 9, 10}}})});
  specs.push_back({{1, 4, 5, 6}, 2, {3, 3}, 1, Attrs({{"strides", {2, 2}}}, "SAME_UPPER")});
  specs.push_back({{1, 4, 5, 6}, 2, {4, 4}, 1, Attrs({{"strides", {2, 2}}}, "SAME_LOWER")});
  specs.push_back(
      {{1, 4, 5, 6}, 2, {3, 3}, 1, Attrs({{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}, "VALID")});
  // 1-D and 3-D.
  specs.push_back({{2, 3, 9}, 4, {4}, 1, Attrs({{"strides", {2}}, {"pads", {1, 2}}})});
  specs.push_back(
      {{1, 2, 3, 4, 5},
       2,
       {3, 3, 3},
       1,
       Attrs(
           {{"strides", {2, 2, 1}}, {"pads", {1, 1, 0, 1, 0, 1}}, {"output_padding", {1, 0, 0}}})});
  return specs;
}

const Dims& DimsOf(const Graph& graph, ValueId v) {
  return graph.values[static_cast<size_t>(v)].dims;
}

// Advances a row-major multi-index over `dims`; false after the last one.
bool NextIndexIn(Dims& index, const Dims& dims) {
  for (size_t a = index.size(); a-- > 0;) {
    if (++index[a] < dims[a]) return true;
    index[a] = 0;
  }
  return false;
}

// cudnnConvolutionBackwardData's definition on the host: dx[n, m, j] = sum over the input
// channels c of m's group, input positions i and kernel taps k with
// i * stride - pad + k * dilation = j (every spatial axis) of dy[n, c, i] * w[c, m % Mg, k].
// Then ios's output is dx cropped at crop_begin, plus the bias.
Tensor EmulateTranspose(const ConvTransposeGeometry& g, int64_t groups, const Tensor& x,
                        const Tensor& w, const Tensor* bias) {
  const Dims& dy = g.input;
  const Dims& dx = g.full_output;
  const size_t axes = dy.size() - 2;
  Dims w_dims = w.dims();
  while (w_dims.size() < dy.size()) w_dims.push_back(1);
  const Dims dy_strides = DenseStrides(dy);
  const Dims dx_strides = DenseStrides(dx);
  const Dims w_strides = DenseStrides(w_dims);
  std::vector<double> full(static_cast<size_t>(NumElements(dx)), 0.0);
  const int64_t in_per_group = dy[1] / groups;
  const int64_t out_per_group = w_dims[1];
  const Dims in_spatial(dy.begin() + 2, dy.end());
  const Dims kernel(w_dims.begin() + 2, w_dims.end());
  for (int64_t n = 0; n < dy[0]; ++n) {
    for (int64_t c = 0; c < dy[1]; ++c) {
      const int64_t group = c / in_per_group;
      Dims i(axes, 0);
      do {
        int64_t x_offset = n * dy_strides[0] + c * dy_strides[1];
        for (size_t a = 0; a < axes; ++a) x_offset += i[a] * dy_strides[2 + a];
        const double xv = x.data<float>()[x_offset];
        Dims k(axes, 0);
        do {
          bool inside = true;
          int64_t dx_offset = n * dx_strides[0];
          int64_t w_offset = c * w_strides[0];
          for (size_t a = 0; a < axes; ++a) {
            const int64_t j = i[a] * g.strides[a] - g.pads[a] + k[a] * g.dilations[a];
            if (j < 0 || j >= dx[2 + a]) inside = false;
            dx_offset += j * dx_strides[2 + a];
            w_offset += k[a] * w_strides[2 + a];
          }
          if (!inside) continue;
          for (int64_t mo = 0; mo < out_per_group; ++mo) {
            const int64_t m = group * out_per_group + mo;
            full[dx_offset + m * dx_strides[1]] +=
                xv * w.data<float>()[w_offset + mo * w_strides[1]];
          }
        } while (NextIndexIn(k, kernel));
      } while (NextIndexIn(i, in_spatial));
    }
  }
  Tensor y(DType::kFloat32, g.output);
  const Dims y_strides = DenseStrides(g.output);
  for (int64_t e = 0; e < y.num_elements(); ++e) {
    int64_t rest = e;
    int64_t dx_offset = 0;
    int64_t channel = 0;
    for (size_t a = 0; a < g.output.size(); ++a) {
      const int64_t index = rest / y_strides[a];
      rest %= y_strides[a];
      if (a == 1) channel = index;
      dx_offset += (index + (a >= 2 ? g.crop_begin[a - 2] : 0)) * dx_strides[a];
    }
    y.data<float>()[e] = static_cast<float>(full[dx_offset] +
                                            (bias != nullptr ? bias->data<float>()[channel] : 0.f));
  }
  return y;
}

TEST(ConvTransposeDescriptorsTest, CudnnAcceptsThemAndTheForwardConvGivesBackTheInput) {
  int cropped = 0;
  for (const TransposeSpec& spec : Specs()) {
    const Graph graph = TransposeGraph(spec);
    const Node& node = graph.nodes[0];
    const Dims& x = DimsOf(graph, node.inputs[0]);
    const Dims& w = DimsOf(graph, node.inputs[1]);
    const Dims& y = DimsOf(graph, node.outputs[0]);
    SCOPED_TRACE("x " + DimsToString(x) + " w " + DimsToString(w) + " y " + DimsToString(y));
    for (bool tf32 : {false, true}) {
      auto d = BuildConvTransposeDescriptors(node, x, w, y, ConvMathType(tf32));
      ASSERT_TRUE(d.ok()) << d.status().message();
      const ConvTransposeGeometry& g = d->geometry;
      auto forward = CudnnTransposeForwardDims(*d);
      ASSERT_TRUE(forward.ok()) << forward.status().message();
      EXPECT_EQ(*forward, PadToCudnnRank(x))
          << "cuDNN's forward conv of dx " << DimsToString(g.full_output);
      auto full = ReadTensorDescriptor(d->y_full.get());
      ASSERT_TRUE(full.ok()) << full.status().message();
      EXPECT_EQ(full->dims, g.full_output);
      EXPECT_EQ(g.output, PadToCudnnRank(y));
      ASSERT_EQ(g.full_output[0], g.output[0]);
      ASSERT_EQ(g.full_output[1], g.output[1]);
      for (size_t a = 2; a < g.output.size(); ++a) {
        EXPECT_GE(g.crop_begin[a - 2], 0);
        EXPECT_LE(g.crop_begin[a - 2] + g.output[a], g.full_output[a]) << "axis " << a;
      }
      if (g.cropped()) {
        auto view = ReadTensorDescriptor(d->y_crop_view.get());
        ASSERT_TRUE(view.ok()) << view.status().message();
        EXPECT_EQ(view->dims, g.output);
        EXPECT_EQ(view->strides, DenseStrides(g.full_output));
      }
      if (!tf32 && g.cropped()) ++cropped;
    }
  }
  EXPECT_GE(cropped, 3) << "the specs should exercise the crop";
}

TEST(ConvTransposeDescriptorsTest, BackwardDataOnThePlannedGeometryMatchesTheReference) {
  for (const TransposeSpec& spec : Specs()) {
    const Graph graph = TransposeGraph(spec);
    const Node& node = graph.nodes[0];
    const Dims& x_dims = DimsOf(graph, node.inputs[0]);
    SCOPED_TRACE("x " + DimsToString(x_dims) + " y " +
                 DimsToString(DimsOf(graph, node.outputs[0])));
    auto g = PlanConvTransposeWindow(node, x_dims, DimsOf(graph, node.inputs[1]),
                                     DimsOf(graph, node.outputs[0]));
    ASSERT_TRUE(g.ok()) << g.status().message();
    const Tensor x = RandomTensor(x_dims, 7);
    const Tensor& w = *graph.values[static_cast<size_t>(node.inputs[1])].constant;
    const Tensor* bias =
        spec.bias ? &*graph.values[static_cast<size_t>(node.inputs[2])].constant : nullptr;
    std::vector<Tensor> expected(1);
    std::vector<const Tensor*> inputs = {&x, &w};
    if (bias != nullptr) inputs.push_back(bias);
    Status status = EvaluateReference(node, inputs, &expected);
    ASSERT_TRUE(status.ok()) << status.message();
    const Tensor got = EmulateTranspose(*g, spec.group, x, w, bias);
    ASSERT_EQ(NumElements(got.dims()), expected[0].num_elements());
    for (int64_t i = 0; i < got.num_elements(); ++i) {
      ASSERT_NEAR(got.data<float>()[i], expected[0].data<float>()[i], 1e-5f) << "element " << i;
    }
  }
}

TEST(ConvTransposeDescriptorsTest, TheFactoryRefusesWhatCudnnCannotDo) {
  auto expect_refused = [](const Graph& graph, const std::string& what) {
    auto kernel = CreateCudaKernel(MakeCudaKernelContext(graph, graph.nodes[0]));
    ASSERT_FALSE(kernel.ok());
    const std::string& message = kernel.status().message();
    EXPECT_EQ(kernel.status().code(), StatusCode::kUnsupported) << message;
    EXPECT_NE(message.find("node 'deconv' (ConvTranspose)"), std::string::npos) << message;
    EXPECT_NE(message.find(what), std::string::npos) << message;
  };
  // An output_shape larger than the full transposed output: negative pads.
  expect_refused(
      TransposeGraph(
          {{1, 2, 4, 4}, 2, {3, 3}, 1, Attrs({{"strides", {2, 2}}, {"output_shape", {12, 12}}})}),
      "negative pads");
  // output_padding 1 with stride 1 (allowed by a dilation of 2): dx would need an extra stride.
  expect_refused(
      TransposeGraph(
          {{1, 2, 4, 4}, 2, {3, 3}, 1, Attrs({{"dilations", {2, 2}}, {"output_padding", {1, 1}}})}),
      "output_padding");
  // More than 3 spatial axes.
  expect_refused(TransposeGraph({{1, 2, 3, 3, 3, 3}, 2, {2, 2, 2, 2}, 1, Attrs({})}),
                 "spatial axes");
  // float64.
  Tensor x64(DType::kFloat64, {1, 2, 4, 4});
  Tensor w64(DType::kFloat64, {2, 3, 3, 3});
  OneNodeGraph f64("ConvTranspose", 13);
  f64.Input(x64).Constant(w64);
  ASSERT_TRUE(f64.Build().ok());
  auto kernel = CreateCudaKernel(f64.Context());
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(kernel.status().message().find("float32 only"), std::string::npos)
      << kernel.status().message();
}

TEST(ConvTransposeDescriptorsTest, TheFactoryBuildsTheDescriptorsThenNeedsAHandle) {
  EXPECT_TRUE(CudaSupportsOp("ConvTranspose"));
  const Graph graph = TransposeGraph(Specs()[0]);
  auto kernel = CreateCudaKernel(MakeCudaKernelContext(graph, graph.nodes[0]));
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInternal);
  EXPECT_NE(kernel.status().message().find("needs a cuDNN handle"), std::string::npos)
      << kernel.status().message();
}

}  // namespace
}  // namespace ios

#include "passes/conv_transpose_as_conv.h"

#include <cstring>
#include <string>
#include <vector>

#include "ops/conv_transpose_params.h"

namespace ios {
namespace {

// W' [M, C/g, k...] from W [C, M/g, k...]: W'[g·Mg + mo, ci, t] = W[g·Cg + ci, mo, K - 1 - t],
// the taps' flattened index reversed (every axis flipped).
Tensor FlippedTransposedWeights(const Tensor& w, int64_t group) {
  const Dims& dims = w.dims();
  const int64_t in_channels = dims[0];
  const int64_t group_out = dims[1];
  const int64_t group_in = in_channels / group;
  const int64_t taps = NumElements(Dims(dims.begin() + 2, dims.end()));
  Dims out_dims = {group_out * group, group_in};
  out_dims.insert(out_dims.end(), dims.begin() + 2, dims.end());
  Tensor out(w.dtype(), out_dims);
  const size_t element = DTypeSize(w.dtype());
  for (int64_t g = 0; g < group; ++g)
    for (int64_t ci = 0; ci < group_in; ++ci)
      for (int64_t mo = 0; mo < group_out; ++mo)
        for (int64_t t = 0; t < taps; ++t) {
          const int64_t from = (((g * group_in + ci) * group_out + mo) * taps) + (taps - 1 - t);
          const int64_t to = (((g * group_out + mo) * group_in + ci) * taps) + t;
          std::memcpy(out.raw() + to * element, w.raw() + from * element, element);
        }
  return out;
}

bool TryConvTransposeAsConv(Graph& graph, NodeId id) {
  Node& node = graph.nodes[id];
  if (node.dead || node.op_type != "ConvTranspose" || node.inputs.size() < 2 ||
      node.outputs.size() != 1 || node.inputs[0] == kNoValue || node.inputs[1] == kNoValue)
    return false;
  const Value& x = graph.values[node.inputs[0]];
  const Value& w = graph.values[node.inputs[1]];
  if (!x.has_shape || !w.constant ||
      (w.constant->dtype() != DType::kFloat32 && w.constant->dtype() != DType::kFloat64))
    return false;
  StatusOr<ConvTransposeParams> parsed = ParseConvTranspose(node, x.dims, w.constant->dims());
  if (!parsed.ok()) return false;  // shape inference reports it
  const ConvTransposeParams& p = *parsed;
  const size_t n = p.spatial_rank();
  Dims pads(2 * n);
  for (size_t d = 0; d < n; ++d) {
    const int64_t extent = (p.kernel[d] - 1) * p.dilations[d];
    if (p.strides[d] != 1 || p.output_padding[d] != 0 || p.pads_begin[d] < 0 ||
        p.pads_end[d] < 0 || p.pads_begin[d] > extent || p.pads_end[d] > extent)
      return false;
    pads[d] = extent - p.pads_begin[d];
    pads[n + d] = extent - p.pads_end[d];
  }
  const std::string name = node.name.empty() ? "conv_transpose" : node.name;
  Tensor flipped = FlippedTransposedWeights(*w.constant, p.group);
  // Adding a value may move graph.values (x and w): only `node` is used from here on.
  const ValueId weights = graph.AddConstant(name + "/as_conv_weights", std::move(flipped));
  AttributeMap attrs;
  attrs.Set("kernel_shape", p.kernel);
  attrs.Set("strides", Dims(n, 1));
  attrs.Set("dilations", p.dilations);
  attrs.Set("pads", pads);
  attrs.Set("group", p.group);
  node.op_type = "Conv";
  node.attrs = std::move(attrs);
  node.inputs[1] = weights;
  return true;
}

}  // namespace

int RewriteStrideOneConvTransposes(Graph& graph) {
  int rewritten = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n)
    rewritten += TryConvTransposeAsConv(graph, static_cast<NodeId>(n)) ? 1 : 0;
  if (rewritten > 0) graph.RebuildUses();
  return rewritten;
}

}  // namespace ios

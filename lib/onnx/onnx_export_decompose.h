// For the ONNX exporter: writes a node whose op is newer than the model's opset as the subgraph
// it stands for. The fusion passes make Gelu (opset 20) and LayerNormalization (opset 17) nodes
// in models of older opsets (passes/fuse_gelu.h, passes/fuse_layer_norm.h); an exported file
// must stay loadable at the model's opset, so those nodes become the exporters' spelling again.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>

#include "ir/graph.h"
#include "util/status.h"

namespace ios {

// Appends the nodes (and the initializers they need) that compute `node` with ops of `opset`.
// Unsupported for another op, or for a LayerNormalization with its Mean/InvStdDev outputs.
Status ExportDecomposed(const Graph& graph, const Node& node, int64_t opset, onnx::GraphProto* out);

}  // namespace ios

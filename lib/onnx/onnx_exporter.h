// ios graph → ONNX, to check the canonicalisation passes against onnxruntime on the original
// file. Fused activations are written back as separate activation nodes, since ONNX's Conv has
// none; constants become initializers; the batch dimension stays fixed. A fused node whose op is
// newer than the model's opset (Gelu, LayerNormalization) is written as the subgraph it replaced.
#pragma once

#include <string>

#include "ir/graph.h"
#include "util/status.h"

namespace ios {

StatusOr<std::string> ExportOnnxBytes(const Graph& graph);
// Writes atomically.
Status ExportOnnxFile(const Graph& graph, const std::string& path);

}  // namespace ios

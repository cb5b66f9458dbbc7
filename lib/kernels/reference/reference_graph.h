// Runs a whole graph with the reference kernels, node by node in topological order. Slow; it is
// the oracle for passes and backends on small graphs.
#pragma once

#include <vector>

#include "ir/graph.h"
#include "ir/tensor.h"
#include "util/status.h"

namespace ios {

// `inputs` follow graph.inputs; the result follows graph.outputs.
StatusOr<std::vector<Tensor>> EvaluateGraphReference(const Graph& graph,
                                                     const std::vector<Tensor>& inputs);

// The same with every float32 (and float16) value widened to float64: constants and inputs become
// float64, and Cast or ConstantOfShape nodes that would make float32 make float64, so that
// nothing is rounded to float32 on the way and each op's own double arithmetic carries through.
// Its outputs (float64 where the graph's are float32) are an oracle that float32 runtimes,
// onnxruntime included, can be measured against (iosc --reference-outputs).
StatusOr<std::vector<Tensor>> EvaluateGraphInFloat64(const Graph& graph,
                                                     const std::vector<Tensor>& inputs);

// A float32 or float16 tensor widened to float64 (exactly); any other tensor as it is.
Tensor WidenToFloat64(const Tensor& tensor);

}  // namespace ios

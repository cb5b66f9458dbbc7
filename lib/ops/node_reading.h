// Reading a node: its opset, a label for messages, an axis against a rank, an integer input. The
// op parsers (ops/op_params.h and its kin) and every backend's kernels share them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/tensor.h"
#include "util/status.h"

namespace ios {

// True when the node's opset is known and older than `version` (a node built by hand with
// opset 0 gets the newest form of every op).
inline bool OpsetBefore(const Node& node, int64_t version) {
  return node.opset != 0 && node.opset < version;
}

// An error message prefix naming the node: "Conv 'conv1': ".
std::string NodeLabel(const Node& node);

// Maps an axis in [-rank, rank) to [0, rank); InvalidInput naming the node when out of range.
StatusOr<int64_t> NormalizeAxis(const Node& node, int64_t axis, int64_t rank);

// The int64 values of an integer tensor input (axes, pads, shapes, repeats, ...). InvalidInput
// when the input is not int32/int64.
StatusOr<std::vector<int64_t>> ReadIntsInput(const Node& node, const Tensor& tensor,
                                             const char* what);

}  // namespace ios

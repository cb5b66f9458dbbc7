// Small queries for the passes that recognise an exporter's decomposition of an op (fuse_gelu,
// fuse_layer_norm): who reads a value, which operand of a binary node is a scalar constant, and
// whether it is near an expected value. Uses must be current (Graph::RebuildUses).
#pragma once

#include <optional>

#include "ir/graph.h"

namespace ios {

// True when `value` is read by `reader` alone and is no graph output: a fusion may then remove it.
bool OnlyReadBy(const Graph& graph, ValueId value, NodeId reader);

// The sole reader of `value` when it is a live node of `op_type` and `value` is no graph output.
std::optional<NodeId> SoleReaderOfType(const Graph& graph, ValueId value, const char* op_type);

// The producer of `value` when it is a live node of `op_type`.
std::optional<NodeId> ProducerOfType(const Graph& graph, ValueId value, const char* op_type);

// True when `value` is a one-element float or integer constant within a relative 1e-5 of `want`
// (exporters write constants such as sqrt(2) with float32 or decimal rounding).
bool IsScalarNear(const Graph& graph, ValueId value, double want);

// The value of a one-element float32 constant, or nullopt.
std::optional<float> FloatScalar(const Graph& graph, ValueId value);

// For a node with exactly two inputs, one of which is `operand`: the other one (nullopt when the
// node reads `operand` twice or not at all).
std::optional<ValueId> OtherInput(const Node& node, ValueId operand);

// For a binary node with a scalar constant near `want` as one operand (the second one only, when
// `constant_second`): the other operand.
std::optional<ValueId> OperandBesideScalar(const Graph& graph, const Node& node, double want,
                                           bool constant_second = false);

}  // namespace ios

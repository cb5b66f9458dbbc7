#include "ops/reduce_params.h"

#include "ops/node_reading.h"
#include "ops/op_util.h"

namespace ios {
namespace {

struct ReduceEntry {
  const char* op_type;
  ReduceKind kind;
};

constexpr ReduceEntry kReductions[] = {
    {"ReduceMean", ReduceKind::kMean},
    {"ReduceSum", ReduceKind::kSum},
    {"ReduceMax", ReduceKind::kMax},
    {"ReduceMin", ReduceKind::kMin},
    {"ReduceProd", ReduceKind::kProd},
    {"ReduceL1", ReduceKind::kL1},
    {"ReduceL2", ReduceKind::kL2},
    {"ReduceSumSquare", ReduceKind::kSumSquare},
    {"ReduceLogSumExp", ReduceKind::kLogSumExp},
};

// The reduction's axes in the node's opset form.
StatusOr<std::vector<int64_t>> ReadAxes(const Node& node, bool axes_present,
                                        const Tensor* axes_constant) {
  const int64_t since = ReduceAxesInputSince(node.op_type);
  if (OpsetBefore(node, since)) {
    if (axes_present)
      return InvalidInput("'axes' is an input only from opset " + std::to_string(since) +
                          "; opset " + std::to_string(node.opset) + " takes it as an attribute");
    return node.attrs.GetInts("axes", {});
  }
  if (node.attrs.Has("axes"))
    return InvalidInput("'axes' is an input from opset " + std::to_string(since) +
                        ", not an attribute (this node uses opset " + std::to_string(node.opset) +
                        ")");
  if (!axes_present) return std::vector<int64_t>{};
  if (axes_constant == nullptr) return Unsupported("input 'axes' computed at run time");
  return ReadIntsInput(node, *axes_constant, "axes");
}

}  // namespace

std::optional<ReduceKind> ReduceKindOf(const std::string& op_type) {
  for (const ReduceEntry& entry : kReductions)
    if (op_type == entry.op_type) return entry.kind;
  return std::nullopt;
}

int64_t ReduceAxesInputSince(const std::string& op_type) {
  return op_type == "ReduceSum" ? 13 : 18;
}

StatusOr<ReduceParams> ParseReduce(const Node& node, const Dims& in, bool axes_present,
                                   const Tensor* axes_constant) {
  std::optional<ReduceKind> kind = ReduceKindOf(node.op_type);
  if (!kind) return Internal(node.op_type + " is not a reduction");
  IOS_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ReadAxes(node, axes_present, axes_constant));
  IOS_ASSIGN_OR_RETURN(int64_t keepdims, node.attrs.GetInt("keepdims", 1));
  IOS_ASSIGN_OR_RETURN(int64_t noop_with_empty_axes, node.attrs.GetInt("noop_with_empty_axes", 0));
  const int64_t rank = static_cast<int64_t>(in.size());
  ReduceParams params;
  params.kind = *kind;
  if (axes.empty() && noop_with_empty_axes != 0) {
    params.identity = true;
    params.reduced.assign(in.size(), false);
    params.out_dims = in;
    return params;
  }
  IOS_ASSIGN_OR_RETURN(std::vector<int64_t> normalized, NormalizeAxes(axes, rank, "axis"));
  params.reduced.assign(in.size(), axes.empty());
  for (int64_t axis : normalized) params.reduced[axis] = true;
  for (int64_t d = 0; d < rank; ++d) {
    if (!params.reduced[d]) {
      params.out_dims.push_back(in[d]);
    } else if (keepdims != 0) {
      params.out_dims.push_back(1);
    }
  }
  return params;
}

StatusOr<ArgReduceParams> ParseArgReduce(const Node& node, const Dims& in) {
  ArgReduceParams params;
  params.is_max = node.op_type == "ArgMax";
  if (!params.is_max && node.op_type != "ArgMin")
    return Internal(node.op_type + " is not ArgMax or ArgMin");
  IOS_ASSIGN_OR_RETURN(int64_t axis, node.attrs.GetInt("axis", 0));
  IOS_ASSIGN_OR_RETURN(int64_t keepdims, node.attrs.GetInt("keepdims", 1));
  if (OpsetBefore(node, 12) && node.attrs.Has("select_last_index"))
    return InvalidInput("'select_last_index' is an attribute from opset 12; this node is opset " +
                        std::to_string(node.opset));
  IOS_ASSIGN_OR_RETURN(int64_t select_last, node.attrs.GetInt("select_last_index", 0));
  params.select_last_index = select_last != 0;
  IOS_ASSIGN_OR_RETURN(params.axis, NormalizeAxis(axis, static_cast<int64_t>(in.size()), "axis"));
  if (in[params.axis] == 0)
    return InvalidInput("axis " + std::to_string(params.axis) + " of the input " +
                        DimsToString(in) + " is empty: there is no index to give");
  for (size_t d = 0; d < in.size(); ++d) {
    if (static_cast<int64_t>(d) != params.axis) {
      params.out_dims.push_back(in[d]);
    } else if (keepdims != 0) {
      params.out_dims.push_back(1);
    }
  }
  return params;
}

}  // namespace ios

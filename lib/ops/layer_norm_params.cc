#include "ops/layer_norm_params.h"

#include <string>

#include "ops/op_util.h"

namespace ios {
namespace {

// Scale and B broadcast (numpy, right-aligned) to one row: the dims [axis, rank) of X.
StatusOr<OperandMap> RowOperand(const Dims& param, const Dims& row, const char* name) {
  StatusOr<Dims> joined = BroadcastDims(param, row);
  if (!joined.ok() || joined.value() != row)
    return InvalidInput(std::string("input ") + name + " has shape " + DimsToString(param) +
                        ", which does not broadcast to the normalised dims " + DimsToString(row));
  OperandMap map;
  if (!BuildOperandMap(param, row, &map))
    return Unsupported(std::string("input ") + name + " " + DimsToString(param) +
                       " broadcasts over more than " + std::to_string(kMaxIndexRank) + " dims");
  return map;
}

}  // namespace

StatusOr<LayerNormParams> ParseLayerNorm(const Node& node, const Dims& x, const Dims& scale,
                                         const Dims* bias) {
  const int64_t rank = static_cast<int64_t>(x.size());
  if (rank < 1) return InvalidInput("input X must have rank >= 1");
  LayerNormParams params;
  IOS_ASSIGN_OR_RETURN(int64_t axis, node.attrs.GetInt("axis", -1));
  IOS_ASSIGN_OR_RETURN(params.axis, NormalizeAxis(axis, rank, "axis"));
  IOS_ASSIGN_OR_RETURN(params.epsilon, node.attrs.GetFloat("epsilon", 1e-5f));
  IOS_ASSIGN_OR_RETURN(int64_t stash_type, node.attrs.GetInt("stash_type", 1));
  if (stash_type != 1)
    return Unsupported("stash_type=" + std::to_string(stash_type) +
                       " is not supported; only 1 (float32 statistics)");
  params.shape = MakeLayerNormShape(x, params.axis);
  params.row_dims.assign(x.begin() + params.axis, x.end());
  params.stats_dims.assign(x.begin(), x.begin() + params.axis);
  params.stats_dims.resize(x.size(), 1);
  IOS_ASSIGN_OR_RETURN(params.scale_map, RowOperand(scale, params.row_dims, "Scale"));
  if (bias != nullptr) {
    params.has_bias = true;
    IOS_ASSIGN_OR_RETURN(params.bias_map, RowOperand(*bias, params.row_dims, "B"));
  }
  return params;
}

}  // namespace ios

// Gemm and MatMul: shape checks and 2·M·N·K FLOPs.
#include <string>
#include <vector>

#include "ops/op_registry.h"
#include "ops/op_util.h"

namespace ios {
namespace {

StatusOr<bool> ReadTransposeFlag(const Node& node, const std::string& name) {
  IOS_ASSIGN_OR_RETURN(int64_t value, node.attrs.GetInt(name, 0));
  if (value != 0 && value != 1) {
    return InvalidInput("attribute '" + name + "' is " + std::to_string(value) +
                        "; expected 0 or 1");
  }
  return value == 1;
}

// Y = alpha · op(A) · op(B) + beta · C, with C unidirectionally broadcastable to [M, N].
Status InferGemm(const Node& node, const std::vector<InferInput>& inputs,
                 std::vector<TensorType>* outputs) {
  IOS_RETURN_IF_ERROR(CheckRank(inputs[0], "A", 2));
  IOS_RETURN_IF_ERROR(CheckRank(inputs[1], "B", 2));
  IOS_RETURN_IF_ERROR(CheckSameDType(inputs));
  IOS_ASSIGN_OR_RETURN(bool trans_a, ReadTransposeFlag(node, "transA"));
  IOS_ASSIGN_OR_RETURN(bool trans_b, ReadTransposeFlag(node, "transB"));
  IOS_RETURN_IF_ERROR(node.attrs.GetFloat("alpha", 1.f).status());
  IOS_RETURN_IF_ERROR(node.attrs.GetFloat("beta", 1.f).status());
  const Dims& a = inputs[0].type.dims;
  const Dims& b = inputs[1].type.dims;
  const int64_t m = trans_a ? a[1] : a[0];
  const int64_t k = trans_a ? a[0] : a[1];
  const int64_t k_b = trans_b ? b[1] : b[0];
  const int64_t n = trans_b ? b[0] : b[1];
  if (k != k_b) {
    return InvalidInput("A " + DimsToString(a) + (trans_a ? " (transposed)" : "") + " and B " +
                        DimsToString(b) + (trans_b ? " (transposed)" : "") +
                        " have different inner dimensions " + std::to_string(k) + " and " +
                        std::to_string(k_b));
  }
  if (const InferInput* c = OptionalInput(inputs, 2)) {
    const Dims& cd = c->type.dims;
    const Dims target = {m, n};
    bool ok = cd.size() <= 2;
    for (size_t i = 0; ok && i < cd.size(); ++i) {
      const int64_t want = target[2 - cd.size() + i];
      ok = cd[i] == want || cd[i] == 1;
    }
    if (!ok) {
      return InvalidInput("C has shape " + DimsToString(cd) + ", which does not broadcast to " +
                          DimsToString(target));
    }
  }
  (*outputs)[0] = TensorType{inputs[0].type.dtype, {m, n}};
  return Status::Ok();
}

// 2·M·N·K for the product, plus one add per output for C.
OpCost GemmCost(const Node& node, const std::vector<TensorType>& inputs,
                const std::vector<TensorType>& outputs) {
  auto trans_a = node.attrs.GetInt("transA", 0);
  const Dims& a = inputs[0].dims;
  const double k = static_cast<double>(trans_a.ok() && trans_a.value() ? a[0] : a[1]);
  const double mn = static_cast<double>(NumElements(outputs[0].dims));
  OpCost cost;
  cost.flops = 2 * mn * k;
  if (inputs.size() > 2 && inputs[2].dtype != DType::kUndefined) cost.flops += mn;
  cost.bytes_moved = BytesMoved(inputs, outputs);
  return cost;
}

// numpy.matmul: 1-D operands gain a dim of 1 (dropped again from the result); the batch dims
// (all but the last two) broadcast.
Status InferMatMul(const Node& node, const std::vector<InferInput>& inputs,
                   std::vector<TensorType>* outputs) {
  IOS_RETURN_IF_ERROR(CheckSameDType(inputs));
  Dims a = inputs[0].type.dims;
  Dims b = inputs[1].type.dims;
  if (a.empty() || b.empty()) {
    return InvalidInput("MatMul operands must have at least 1 dim; got " + DimsToString(a) +
                        " and " + DimsToString(b));
  }
  const bool a_vector = a.size() == 1;
  const bool b_vector = b.size() == 1;
  if (a_vector) a.insert(a.begin(), 1);
  if (b_vector) b.push_back(1);
  if (a[a.size() - 1] != b[b.size() - 2]) {
    return InvalidInput("A " + DimsToString(inputs[0].type.dims) + " and B " +
                        DimsToString(inputs[1].type.dims) + " have different inner dimensions " +
                        std::to_string(a.back()) + " and " + std::to_string(b[b.size() - 2]));
  }
  IOS_ASSIGN_OR_RETURN(Dims out,
                       BroadcastDims(Dims(a.begin(), a.end() - 2), Dims(b.begin(), b.end() - 2)));
  if (!a_vector) out.push_back(a[a.size() - 2]);
  if (!b_vector) out.push_back(b.back());
  (*outputs)[0] = TensorType{inputs[0].type.dtype, out};
  return Status::Ok();
}

// 2·K per output element, where K is A's last dim.
OpCost MatMulCost(const Node& node, const std::vector<TensorType>& inputs,
                  const std::vector<TensorType>& outputs) {
  const double k = inputs[0].dims.empty() ? 0 : static_cast<double>(inputs[0].dims.back());
  return PerOutputElementCost(inputs, outputs, 2 * k);
}

}  // namespace

void RegisterMatmulOps(OpRegistry& registry) {
  RegisterOp(registry, OpSchema{"Gemm", 2, 3, 1, 1, InferGemm, GemmCost});
  RegisterOp(registry, OpSchema{"MatMul", 2, 2, 1, 1, InferMatMul, MatMulCost});
}

}  // namespace ios

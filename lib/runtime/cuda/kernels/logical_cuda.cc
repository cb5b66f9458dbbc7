// Comparisons and selection: Equal, Less and Greater (numpy broadcasting, a bool output; Equal
// also on bool), Not (bool), Where (a bool condition, any element type moved by size, three-way
// broadcasting). Each operand's read pattern is planned once at creation
// (kernels/math/broadcast_math.h), so Enqueue only launches.
#include <memory>
#include <string>
#include <vector>

#include "ops/op_util.h"
#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/kernels/logical_impl.h"
#include "runtime/cuda/kernels/own_kernel_factories.h"
#include "runtime/cuda/kernels/own_kernel_util.h"

namespace ios {
namespace {

class CompareCudaKernel : public CudaKernel {
 public:
  CompareCudaKernel(CompareOpKind op, CastType type, OperandMap a_map, OperandMap b_map,
                    int64_t count)
      : op_(op), type_(type), a_map_(a_map), b_map_(b_map), count_(count) {}

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    IOS_CUDA_RETURN_IF_ERROR(LaunchCompare(op_, type_, a_map_, inputs[0], b_map_, inputs[1],
                                           static_cast<uint8_t*>(outputs[0]), count_,
                                           stream.stream));
    return Status::Ok();
  }

 private:
  CompareOpKind op_;
  CastType type_;
  OperandMap a_map_;
  OperandMap b_map_;
  int64_t count_;
};

class NotCudaKernel : public CudaKernel {
 public:
  explicit NotCudaKernel(int64_t count) : count_(count) {}

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    IOS_CUDA_RETURN_IF_ERROR(LaunchNot(static_cast<const uint8_t*>(inputs[0]),
                                       static_cast<uint8_t*>(outputs[0]), count_, stream.stream));
    return Status::Ok();
  }

 private:
  int64_t count_;
};

class WhereCudaKernel : public CudaKernel {
 public:
  WhereCudaKernel(OperandMap condition_map, OperandMap x_map, OperandMap y_map, int64_t count,
                  size_t elem)
      : condition_map_(condition_map), x_map_(x_map), y_map_(y_map), count_(count), elem_(elem) {}

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    IOS_CUDA_RETURN_IF_ERROR(LaunchWhere(condition_map_, static_cast<const uint8_t*>(inputs[0]),
                                         x_map_, inputs[1], y_map_, inputs[2], outputs[0], count_,
                                         elem_, stream.stream));
    return Status::Ok();
  }

 private:
  OperandMap condition_map_;
  OperandMap x_map_;
  OperandMap y_map_;
  int64_t count_;
  size_t elem_;
};

struct CompareEntry {
  const char* op_type;
  CompareOpKind op;
};

constexpr CompareEntry kCompareOps[] = {{"Equal", CompareOpKind::kEqual},
                                        {"Less", CompareOpKind::kLess},
                                        {"Greater", CompareOpKind::kGreater}};

// Refuses unless inputs [0, count) are present and the node has an output.
Status RequireInputs(const CudaKernelContext& context, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (!CudaInputPresent(context, i)) return InvalidOnCuda(*context.node, "an input is omitted");
  }
  if (context.output_types.empty()) return InvalidOnCuda(*context.node, "needs an output");
  return Status::Ok();
}

// The maps reading every input along the output's shape, which must be their broadcast.
Status BuildBroadcastMaps(const CudaKernelContext& context, size_t count,
                          std::vector<OperandMap>* maps) {
  const Node& node = *context.node;
  const Dims& out = context.output_types[0].dims;
  Dims broadcast = context.input_types[0].dims;
  for (size_t i = 1; i < count; ++i) {
    StatusOr<Dims> next = BroadcastDims(broadcast, context.input_types[i].dims);
    if (!next.ok()) return InvalidOnCuda(node, next.status().message());
    broadcast = *next;
  }
  if (broadcast != out)
    return InvalidOnCuda(node, "the inputs broadcast to " + DimsToString(broadcast) +
                                   ", not to the output " + DimsToString(out));
  maps->assign(count, OperandMap());
  for (size_t i = 0; i < count; ++i) {
    if (!BuildOperandMap(context.input_types[i].dims, out, &(*maps)[i]))
      return RefuseOnCuda(
          node, "broadcasting over more than " + std::to_string(kMaxIndexRank) + " dimensions");
  }
  return Status::Ok();
}

}  // namespace

CudaKernelOr CreateCompareCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  const CompareEntry* entry = nullptr;
  for (const CompareEntry& e : kCompareOps)
    if (node.op_type == e.op_type) entry = &e;
  if (entry == nullptr) return Internal("not a comparison op: " + node.op_type);
  IOS_RETURN_IF_ERROR(RequireInputs(context, 2));
  const DType dtype = context.input_types[0].dtype;
  if (context.input_types[1].dtype != dtype)
    return InvalidOnCuda(node, "inputs differ in element type");
  if (context.output_types[0].dtype != DType::kBool)
    return InvalidOnCuda(node, "output type " + DTypeName(context.output_types[0].dtype) +
                                   " (comparisons give bool)");
  // Every element type the device kernels load but float16; bool for Equal only.
  CastType type = CastType::kUint8;
  const bool refused = !CastTypeOf(dtype, &type) || type == CastType::kFloat16 ||
                       (type == CastType::kBool && entry->op != CompareOpKind::kEqual);
  if (refused)
    return RefuseOnCuda(node, "input type " + DTypeName(dtype) +
                                  " (float32, float64, int64, int32, int8, uint8; bool for Equal)");
  std::vector<OperandMap> maps;
  IOS_RETURN_IF_ERROR(BuildBroadcastMaps(context, 2, &maps));
  return CudaKernelOr(std::make_unique<CompareCudaKernel>(
      entry->op, type, maps[0], maps[1], NumElements(context.output_types[0].dims)));
}

CudaKernelOr CreateNotCudaKernel(const CudaKernelContext& context) {
  IOS_RETURN_IF_ERROR(RequireMainDType(context, DType::kBool));
  const int64_t count = NumElements(context.input_types[0].dims);
  if (NumElements(context.output_types[0].dims) != count)
    return InvalidOnCuda(*context.node, "output " + DimsToString(context.output_types[0].dims) +
                                            " does not match input " +
                                            DimsToString(context.input_types[0].dims));
  return CudaKernelOr(std::make_unique<NotCudaKernel>(count));
}

CudaKernelOr CreateWhereCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  IOS_RETURN_IF_ERROR(RequireInputs(context, 3));
  if (context.input_types[0].dtype != DType::kBool)
    return InvalidOnCuda(
        node, "condition type " + DTypeName(context.input_types[0].dtype) + " (Where needs bool)");
  const DType dtype = context.input_types[1].dtype;
  if (context.input_types[2].dtype != dtype || context.output_types[0].dtype != dtype)
    return InvalidOnCuda(node, "x, y and the output differ in element type");
  const size_t elem = DTypeSize(dtype);
  if (elem != 1 && elem != 2 && elem != 4 && elem != 8)
    return RefuseOnCuda(node, "element type " + DTypeName(dtype));
  std::vector<OperandMap> maps;
  IOS_RETURN_IF_ERROR(BuildBroadcastMaps(context, 3, &maps));
  return CudaKernelOr(std::make_unique<WhereCudaKernel>(
      maps[0], maps[1], maps[2], NumElements(context.output_types[0].dims), elem));
}

}  // namespace ios

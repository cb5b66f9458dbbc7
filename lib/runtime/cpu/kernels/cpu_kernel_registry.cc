// CreateCpuKernel / CpuKernelCaps: one explicit table of the fast kernels; every other op
// (and every node a fast kernel declines, such as a non-float Add) runs its reference kernel.
#include <algorithm>
#include <iterator>
#include <optional>
#include <string>

#include "ir/fused_activation.h"
#include "ops/kernel_caps.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "runtime/cpu/kernels/cpu_kernel_factories.h"
#include "runtime/cpu/kernels/layout_adapter_cpu.h"

namespace ios {
namespace {

// Whether a factory's kernel takes the context's layouts (ir/layout.h) as they are; null: only
// row-major, so that a node with channels-last tensors runs it behind a layout adapter.
using CpuLayoutPredicate = bool (*)(const CpuKernelContext&);

// One op's kernel: its factory, the layouts it takes, and what else it can do (ops/kernel_caps.h).
struct FastKernelEntry {
  const char* op_type;
  CpuKernelFactory create;
  CpuLayoutPredicate takes_layouts = nullptr;
  KernelCaps caps = {};
};

// Conv (conv_cpu.cc): takes its X and Y as strided batch slices (oneDNN's descriptors carry the
// strides), adds a fused residual as oneDNN's sum post-op over Y (so Y may take the residual's
// bytes), and carries the activations oneDNN has an exact algorithm for as post-ops.
constexpr KernelCaps kConvCaps{StridedSlices::kWindow, InPlaceFusedResidual, ConvFusesActivation};
// MaxPool and AveragePool (pool_cpu.cc): their loops take a batch stride for X and Y.
constexpr KernelCaps kWindowCaps{StridedSlices::kWindow};
// Add, Sub, Mul, Div, Max, Min, Sum (elementwise_cpu.cc): the broadcast walk takes any
// operand's batch stride, and computes element i from element i of each input, so the output
// may take a same-shape input's bytes.
constexpr KernelCaps kSameShapeCaps{StridedSlices::kElementwise, InPlaceEitherOfTwo};
// The activations (activation_cpu.cc; oneDNN's eltwise primitive, which some kinds run, takes
// src == dst): element i to element i.
constexpr KernelCaps kActivationCaps{StridedSlices::kNone, InPlaceFirstInput};
// BatchNormalization (batchnorm_cpu.cc) reads its per-channel parameters first, then maps
// element i to element i, in inference.
constexpr KernelCaps kBatchNormCaps{StridedSlices::kNone, InPlaceInferenceFirstInput};

// The layout of a tensor that is not stored the same way in both (ir/layout.h), else null.
std::optional<Layout> DistinctLayout(const TensorType& type, Layout layout) {
  if (type.dtype == DType::kUndefined || ChannelsLastIsRowMajor(type.dims)) return std::nullopt;
  return layout;
}

// Conv and ConvTranspose (their oneDNN descriptors say each tensor's layout) and the global pools (which read any of
// the three and write [N, C, 1, 1], the same bytes in all).
bool TakesAnyLayouts(const CpuKernelContext&) { return true; }

// One-input elementwise ops and window pools: every tensor that is stored differently in the
// layouts has the same one (constant inputs such as Clip's bounds are scalars). Both kinds take
// nChw8c too: the activations walk the bytes flat, and the pools have loops for blocked planes.
bool TakesOneLayout(const CpuKernelContext& context) {
  std::optional<Layout> seen;
  auto same = [&](const TensorType& type, Layout layout) {
    const std::optional<Layout> distinct = DistinctLayout(type, layout);
    if (!distinct) return true;
    if (!seen) seen = distinct;
    return *seen == *distinct;
  };
  for (size_t i = 0; i < context.input_types.size(); ++i)
    if (!same(context.input_types[i], context.input_layout(i))) return false;
  for (size_t i = 0; i < context.output_types.size(); ++i)
    if (!same(context.output_types[i], context.output_layout(i))) return false;
  return true;
}

constexpr FastKernelEntry kFastKernels[] = {
    // conv_cpu.cc (oneDNN)
    {"Conv", CreateConvCpuKernel, TakesAnyLayouts, kConvCaps},
    // conv_transpose_cpu.cc (oneDNN)
    {"ConvTranspose", CreateConvTransposeCpuKernel, TakesAnyLayouts},
    // matmul_cpu.cc (oneDNN)
    {"Gemm", CreateGemmCpuKernel},
    {"MatMul", CreateMatMulCpuKernel},
    // pool_cpu.cc
    {"MaxPool", CreateMaxPoolCpuKernel, TakesOneLayout, kWindowCaps},
    {"AveragePool", CreateAveragePoolCpuKernel, TakesOneLayout, kWindowCaps},
    {"GlobalAveragePool", CreateGlobalPoolCpuKernel, TakesAnyLayouts},
    {"GlobalMaxPool", CreateGlobalPoolCpuKernel, TakesAnyLayouts},
    // elementwise_cpu.cc
    {"Add", CreateElementwiseCpuKernel, ElementwiseTakesLayouts, kSameShapeCaps},
    {"Sub", CreateElementwiseCpuKernel, ElementwiseTakesLayouts, kSameShapeCaps},
    {"Mul", CreateElementwiseCpuKernel, ElementwiseTakesLayouts, kSameShapeCaps},
    {"Div", CreateElementwiseCpuKernel, ElementwiseTakesLayouts, kSameShapeCaps},
    {"Sum", CreateElementwiseCpuKernel, ElementwiseTakesLayouts, kSameShapeCaps},
    {"Max", CreateElementwiseCpuKernel, ElementwiseTakesLayouts, kSameShapeCaps},
    {"Min", CreateElementwiseCpuKernel, ElementwiseTakesLayouts, kSameShapeCaps},
    {"PRelu", CreateElementwiseCpuKernel, ElementwiseTakesLayouts},
    {"Pow", CreateElementwiseCpuKernel, ElementwiseTakesLayouts},
    {"Mean", CreateElementwiseCpuKernel, ElementwiseTakesLayouts},
    {"Mod", CreateModCpuKernel, ElementwiseTakesLayouts},
    // compare_cpu.cc
    {"Equal", CreateCompareCpuKernel, BroadcastTakesLayouts},
    {"Greater", CreateCompareCpuKernel, BroadcastTakesLayouts},
    {"Less", CreateCompareCpuKernel, BroadcastTakesLayouts},
    {"Where", CreateWhereCpuKernel, BroadcastTakesLayouts},
    // cast_cpu.cc
    {"Cast", CreateCastCpuKernel, TakesOneLayout},
    // broadcast_copy_cpu.cc
    {"Expand", CreateExpandCpuKernel, BroadcastTakesLayouts},
    {"Tile", CreateTileCpuKernel},
    // scatter_cpu.cc
    {"ScatterND", CreateScatterNDCpuKernel},
    // activation_cpu.cc
    {"Relu", CreateActivationCpuKernel, TakesOneLayout, kActivationCaps},
    {"LeakyRelu", CreateActivationCpuKernel, TakesOneLayout, kActivationCaps},
    {"Clip", CreateActivationCpuKernel, TakesOneLayout, kActivationCaps},
    {"Sigmoid", CreateActivationCpuKernel, TakesOneLayout, kActivationCaps},
    {"Tanh", CreateActivationCpuKernel, TakesOneLayout, kActivationCaps},
    {"HardSigmoid", CreateActivationCpuKernel, TakesOneLayout, kActivationCaps},
    {"HardSwish", CreateActivationCpuKernel, TakesOneLayout, kActivationCaps},
    {"Elu", CreateActivationCpuKernel, TakesOneLayout, kActivationCaps},
    {"Softplus", CreateActivationCpuKernel, TakesOneLayout, kActivationCaps},
    {"Mish", CreateActivationCpuKernel, TakesOneLayout, kActivationCaps},
    {"Selu", CreateActivationCpuKernel, TakesOneLayout, kActivationCaps},
    {"Celu", CreateActivationCpuKernel, TakesOneLayout, kActivationCaps},
    {"Softsign", CreateActivationCpuKernel, TakesOneLayout, kActivationCaps},
    {"ThresholdedRelu", CreateActivationCpuKernel, TakesOneLayout, kActivationCaps},
    // tensor_cpu.cc
    {"Concat", CreateConcatCpuKernel, ConcatSplitTakesLayouts},
    {"Split", CreateSplitCpuKernel, ConcatSplitTakesLayouts},
    {"Slice", CreateSliceCpuKernel},
    {"Transpose", CreateTransposeCpuKernel},
    {"DepthToSpace", CreateDepthSpaceCpuKernel},
    {"SpaceToDepth", CreateDepthSpaceCpuKernel},
    {"Reshape", CreateCopyCpuKernel},
    {"Flatten", CreateCopyCpuKernel},
    {"Squeeze", CreateCopyCpuKernel},
    {"Unsqueeze", CreateCopyCpuKernel},
    {"Identity", CreateCopyCpuKernel},
    {"Pad", CreatePadCpuKernel},
    {"Dropout", CreateDropoutCpuKernel, TakesOneLayout},
    // gather_cpu.cc
    {"Gather", CreateGatherCpuKernel, GatherTakesLayouts},
    // batchnorm_cpu.cc
    {"BatchNormalization", CreateBatchNormCpuKernel, BatchNormTakesLayouts, kBatchNormCaps},
    // softmax_cpu.cc
    {"Softmax", CreateSoftmaxCpuKernel},
    {"LogSoftmax", CreateSoftmaxCpuKernel},
    // reduction_cpu.cc
    {"ReduceMean", CreateReduceCpuKernel, ReduceTakesLayouts},
    {"ReduceSum", CreateReduceCpuKernel, ReduceTakesLayouts},
    {"ReduceMax", CreateReduceCpuKernel, ReduceTakesLayouts},
    {"ReduceMin", CreateReduceCpuKernel, ReduceTakesLayouts},
    {"ReduceProd", CreateReduceCpuKernel, ReduceTakesLayouts},
    {"ReduceL1", CreateReduceCpuKernel, ReduceTakesLayouts},
    {"ReduceL2", CreateReduceCpuKernel, ReduceTakesLayouts},
    {"ReduceSumSquare", CreateReduceCpuKernel, ReduceTakesLayouts},
    {"ReduceLogSumExp", CreateReduceCpuKernel, ReduceTakesLayouts},
    {"ArgMax", CreateArgReduceCpuKernel},
    {"ArgMin", CreateArgReduceCpuKernel},
    // unary_cpu.cc
    {"Abs", CreateUnaryCpuKernel, TakesOneLayout},
    {"Neg", CreateUnaryCpuKernel, TakesOneLayout},
    {"Sqrt", CreateUnaryCpuKernel, TakesOneLayout},
    {"Exp", CreateUnaryCpuKernel, TakesOneLayout},
    {"Log", CreateUnaryCpuKernel, TakesOneLayout},
    {"Reciprocal", CreateUnaryCpuKernel, TakesOneLayout},
    {"Floor", CreateUnaryCpuKernel, TakesOneLayout},
    {"Ceil", CreateUnaryCpuKernel, TakesOneLayout},
    {"Erf", CreateUnaryCpuKernel, TakesOneLayout},
    {"Sign", CreateUnaryCpuKernel, TakesOneLayout},
    {"Not", CreateUnaryCpuKernel, TakesOneLayout},
    // gelu_cpu.cc (oneDNN)
    {"Gelu", CreateGeluCpuKernel},
    // layer_norm_cpu.cc (oneDNN)
    {"LayerNormalization", CreateLayerNormCpuKernel},
    // resize_cpu.cc
    {"Resize", CreateResizeCpuKernel},
    {"Upsample", CreateResizeCpuKernel},
};

const FastKernelEntry* FindFastKernel(const std::string& op_type) {
  for (const FastKernelEntry& entry : kFastKernels)
    if (op_type == entry.op_type) return &entry;
  return nullptr;
}

}  // namespace

StatusOr<std::unique_ptr<CpuKernel>> CreateCpuKernel(const CpuKernelContext& context) {
  if (context.node == nullptr) return InvalidInput("CreateCpuKernel: no node");
  // Only some kernels take strided views (plan/tensor_views.h: TakesStridedBatchSlice).
  const FastKernelEntry* fast = FindFastKernel(context.node->op_type);
  if (context.batch_strides.any() &&
      (fast == nullptr || fast->caps.strided == StridedSlices::kNone))
    return Internal(context.node->op_type + " '" + context.node->name +
                    "' touches a strided view, which its CPU kernel cannot take");
  const std::string label = context.node->op_type + " '" + context.node->name + "' (CPU kernel)";
  const bool takes_layouts = CpuKernelTakesLayouts(context);
  // A kernel that cannot take the node's channels-last or blocked tensors runs on row-major
  // copies.
  const CpuKernelContext row_major = takes_layouts ? CpuKernelContext() : RowMajorContext(context);
  const CpuKernelContext& inner = takes_layouts ? context : row_major;
  auto adapted = [&](std::unique_ptr<CpuKernel> kernel) -> StatusOr<std::unique_ptr<CpuKernel>> {
    if (!context.any_non_row_major() || takes_layouts) return kernel;
    StatusOr<std::unique_ptr<CpuKernel>> wrapped = WrapInLayoutAdapter(std::move(kernel), context);
    if (!wrapped.ok()) return wrapped.status().WithContext(label);
    return wrapped;
  };
  if (fast != nullptr) {
    StatusOr<std::unique_ptr<CpuKernel>> kernel = fast->create(inner);
    if (!kernel.ok()) return kernel.status().WithContext(label);
    if (kernel.value() != nullptr) return adapted(std::move(kernel).value());
  }
  // The reference kernels read and write dense tensors only.
  if (context.batch_strides.any())
    return Internal(context.node->op_type + " '" + context.node->name +
                    "' touches a strided view, but runs the reference kernel, which cannot");
  if (!context.any_non_row_major()) return CreateReferenceFallbackCpuKernel(context);
  IOS_ASSIGN_OR_RETURN(std::unique_ptr<CpuKernel> reference,
                       CreateReferenceFallbackCpuKernel(RowMajorContext(context)));
  StatusOr<std::unique_ptr<CpuKernel>> wrapped = WrapInLayoutAdapter(std::move(reference), context);
  if (!wrapped.ok()) return wrapped.status().WithContext(label);
  return wrapped;
}

bool CpuKernelTakesLayouts(const CpuKernelContext& context) {
  if (!context.any_non_row_major()) return true;
  const FastKernelEntry* entry =
      context.node == nullptr ? nullptr : FindFastKernel(context.node->op_type);
  return entry != nullptr && entry->takes_layouts != nullptr && entry->takes_layouts(context);
}

namespace {

class CpuKernelCapsTable final : public KernelCapsTable {
 public:
  const char* backend() const override { return "CPU"; }
  const KernelCaps* Find(const std::string& op_type) const override {
    const FastKernelEntry* entry = FindFastKernel(op_type);
    return entry != nullptr ? &entry->caps : nullptr;
  }
  std::vector<std::string> OpTypes() const override {
    std::vector<std::string> ops;
    for (const FastKernelEntry& entry : kFastKernels) ops.push_back(entry.op_type);
    std::sort(ops.begin(), ops.end());
    return ops;
  }
  bool TakesAssignedLayouts(const Graph& graph, const Node& node) const override {
    return CpuKernelTakesLayouts(MakeCpuKernelContext(graph, node));
  }
};

}  // namespace

const KernelCapsTable& CpuKernelCaps() {
  static const CpuKernelCapsTable table;
  return table;
}

KernelPath CpuKernelPathOf(const CpuKernel& kernel) {
  if (IsReferenceFallbackCpuKernel(kernel)) return KernelPath::kReference;
  return LayoutAdapterInner(kernel) != nullptr ? KernelPath::kBehindReorder
                                               : KernelPath::kOwnKernel;
}

StatusOr<std::vector<KernelPath>> CpuKernelPaths(const Graph& graph) {
  std::vector<KernelPath> paths(graph.nodes.size(), KernelPath::kOwnKernel);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (graph.nodes[n].dead) continue;
    IOS_ASSIGN_OR_RETURN(std::unique_ptr<CpuKernel> kernel,
                         CreateCpuKernel(MakeCpuKernelContext(graph, graph.nodes[n])));
    paths[n] = CpuKernelPathOf(*kernel);
  }
  return paths;
}

}  // namespace ios

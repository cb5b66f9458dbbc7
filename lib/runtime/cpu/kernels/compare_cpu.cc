// Equal, Greater and Less (a bool per element pair; float32, float64 and the integer and bool
// types), Mod on int64 and int32, and Where (a condition selecting between two tensors of any
// element type), with numpy broadcasting walked as broadcast_walk_cpu.h plans it. The
// per-element math is the CUDA kernels' (kernels/math/compare_math.h); each thread's share is a
// function cloned per vector width (cpu_vector_clones.h), whose rows take the same-shape,
// scalar and strided cases apart so that the first two vectorise.
//
// Integer Mod divides per element (no vector division exists); a remainder by zero is the
// reference's InvalidInput error, reported when the run meets it.
#include <atomic>
#include <optional>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/math/compare_math.h"
#include "ops/op_params.h"
#include "ops/op_util.h"
#include "runtime/cpu/kernels/broadcast_walk_cpu.h"
#include "runtime/cpu/kernels/cpu_kernel_factories.h"
#include "runtime/cpu/cpu_threading.h"
#include "runtime/cpu/kernels/cpu_vector_clones.h"

namespace ios {
namespace {

using BinaryWalk = BroadcastWalk<2>;

// ---- Equal, Greater, Less --------------------------------------------------------------------

template <typename T, CompareOpKind kOp>
IOS_ALWAYS_INLINE void CompareRow(const T* a, int64_t a_step, const T* b, int64_t b_step,
                                  uint8_t* out, int64_t count) {
  if (a_step == 1 && b_step == 1) {
    for (int64_t i = 0; i < count; ++i) out[i] = ApplyCompare(kOp, a[i], b[i]);
  } else if (a_step == 1 && b_step == 0) {
    const T y = b[0];
    for (int64_t i = 0; i < count; ++i) out[i] = ApplyCompare(kOp, a[i], y);
  } else if (a_step == 0 && b_step == 1) {
    const T x = a[0];
    for (int64_t i = 0; i < count; ++i) out[i] = ApplyCompare(kOp, x, b[i]);
  } else {
    for (int64_t i = 0; i < count; ++i) out[i] = ApplyCompare(kOp, a[i * a_step], b[i * b_step]);
  }
}

template <typename T, CompareOpKind kOp>
IOS_ALWAYS_INLINE void CompareUnits(const BinaryWalk& walk, const WalkSplit& split, const void* a,
                                    const void* b, uint8_t* out, int64_t begin, int64_t end) {
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  const int64_t a_step = walk.strides[0].back();
  const int64_t b_step = walk.strides[1].back();
  WalkUnits(walk, split, begin, end,
            [&](const std::array<int64_t, 2>& at, int64_t out_at, int64_t count)
                __attribute__((always_inline)) {
                  CompareRow<T, kOp>(x + at[0], a_step, y + at[1], b_step, out + out_at, count);
                });
}

template <typename T>
IOS_ALWAYS_INLINE void CompareUnitsOf(CompareOpKind op, const BinaryWalk& walk,
                                      const WalkSplit& split, const void* a, const void* b,
                                      uint8_t* out, int64_t begin, int64_t end) {
  switch (op) {
    case CompareOpKind::kEqual:
      return CompareUnits<T, CompareOpKind::kEqual>(walk, split, a, b, out, begin, end);
    case CompareOpKind::kLess:
      return CompareUnits<T, CompareOpKind::kLess>(walk, split, a, b, out, begin, end);
    case CompareOpKind::kGreater:
      return CompareUnits<T, CompareOpKind::kGreater>(walk, split, a, b, out, begin, end);
  }
}

// One thread's share per operand type, each cloned per vector width.
#define IOS_COMPARE_UNITS(Name, T)                                                         \
  IOS_VECTOR_CLONES void Name(CompareOpKind op, const BinaryWalk& walk,                    \
                              const WalkSplit& split, const void* a, const void* b,        \
                              uint8_t* out, int64_t begin, int64_t end) {                  \
    CompareUnitsOf<T>(op, walk, split, a, b, out, begin, end);                             \
  }
IOS_COMPARE_UNITS(CompareUnitsF32, float)
IOS_COMPARE_UNITS(CompareUnitsF64, double)
IOS_COMPARE_UNITS(CompareUnitsI64, int64_t)
IOS_COMPARE_UNITS(CompareUnitsI32, int32_t)
IOS_COMPARE_UNITS(CompareUnitsI8, int8_t)
IOS_COMPARE_UNITS(CompareUnitsU8, uint8_t)
#undef IOS_COMPARE_UNITS

using CompareUnitsFn = void (*)(CompareOpKind, const BinaryWalk&, const WalkSplit&, const void*,
                                const void*, uint8_t*, int64_t, int64_t);

CompareUnitsFn CompareUnitsFor(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return CompareUnitsF32;
    case DType::kFloat64: return CompareUnitsF64;
    case DType::kInt64: return CompareUnitsI64;
    case DType::kInt32: return CompareUnitsI32;
    case DType::kInt8: return CompareUnitsI8;
    case DType::kUint8:
    case DType::kBool: return CompareUnitsU8;
    default: return nullptr;
  }
}

class CompareCpuKernel : public CpuKernel {
 public:
  CompareCpuKernel(CompareOpKind op, CompareUnitsFn units, BinaryWalk walk)
      : op_(op), units_(units), walk_(std::move(walk)) {}

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    uint8_t* out = static_cast<uint8_t*>(outputs[0]);
    const WalkSplit split = SplitWalk(walk_, threads);
    RunWalk(walk_, split, [&](int64_t begin, int64_t end) {
      units_(op_, walk_, split, inputs[0], inputs[1], out, begin, end);
    });
    return Status::Ok();
  }

 private:
  CompareOpKind op_;
  CompareUnitsFn units_;
  BinaryWalk walk_;
};

// ---- Integer Mod -----------------------------------------------------------------------------

// x mod y as the reference computes it; false for a remainder by zero.
template <typename T>
IOS_ALWAYS_INLINE bool IntegerMod(T x, T y, bool fmod, T* out) {
  if (y == 0) return false;
  if (y == T(-1)) {  // also INT_MIN % -1, which C leaves undefined
    *out = 0;
    return true;
  }
  T r = static_cast<T>(x % y);
  if (!fmod && r != 0 && ((r < 0) != (y < 0))) r = static_cast<T>(r + y);
  *out = r;
  return true;
}

template <typename T>
bool ModUnits(bool fmod, const BinaryWalk& walk, const WalkSplit& split, const void* a,
              const void* b, void* out_buffer, int64_t begin, int64_t end) {
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  T* out = static_cast<T*>(out_buffer);
  const int64_t a_step = walk.strides[0].back();
  const int64_t b_step = walk.strides[1].back();
  bool ok = true;
  WalkUnits(walk, split, begin, end,
            [&](const std::array<int64_t, 2>& at, int64_t out_at, int64_t count) {
              for (int64_t i = 0; i < count; ++i)
                ok = IntegerMod<T>(x[at[0] + i * a_step], y[at[1] + i * b_step], fmod,
                                   &out[out_at + i]) &&
                     ok;
            });
  return ok;
}

class IntegerModCpuKernel : public CpuKernel {
 public:
  IntegerModCpuKernel(std::string label, DType dtype, bool fmod, BinaryWalk walk)
      : label_(std::move(label)), dtype_(dtype), fmod_(fmod), walk_(std::move(walk)) {}

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    const WalkSplit split = SplitWalk(walk_, threads);
    std::atomic<bool> ok{true};
    RunWalk(walk_, split, [&](int64_t begin, int64_t end) {
      const bool share = dtype_ == DType::kInt64
                             ? ModUnits<int64_t>(fmod_, walk_, split, inputs[0], inputs[1],
                                                 outputs[0], begin, end)
                             : ModUnits<int32_t>(fmod_, walk_, split, inputs[0], inputs[1],
                                                 outputs[0], begin, end);
      if (!share) ok.store(false, std::memory_order_relaxed);
    });
    if (!ok.load()) return InvalidInput(label_ + ": integer remainder by zero");
    return Status::Ok();
  }

 private:
  std::string label_;
  DType dtype_;
  bool fmod_;
  BinaryWalk walk_;
};

// ---- Where -----------------------------------------------------------------------------------

using WhereWalk = BroadcastWalk<3>;

template <typename T>
IOS_ALWAYS_INLINE void WhereUnits(const WhereWalk& walk, const WalkSplit& split,
                                  const uint8_t* condition, const void* a, const void* b, void* out,
                                  int64_t begin, int64_t end) {
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  T* z = static_cast<T*>(out);
  const int64_t c_step = walk.strides[0].back();
  const int64_t x_step = walk.strides[1].back();
  const int64_t y_step = walk.strides[2].back();
  WalkUnits(walk, split, begin, end,
            [&](const std::array<int64_t, 3>& at, int64_t out_at, int64_t count)
                __attribute__((always_inline)) {
                  const uint8_t* c = condition + at[0];
                  const T* xs = x + at[1];
                  const T* ys = y + at[2];
                  T* zs = z + out_at;
                  if (c_step == 1 && x_step == 1 && y_step == 1) {
                    for (int64_t i = 0; i < count; ++i) zs[i] = ApplyWhere(c[i], xs[i], ys[i]);
                  } else if (c_step == 1 && x_step == 1 && y_step == 0) {
                    const T fill = ys[0];
                    for (int64_t i = 0; i < count; ++i) zs[i] = ApplyWhere(c[i], xs[i], fill);
                  } else {
                    for (int64_t i = 0; i < count; ++i)
                      zs[i] = ApplyWhere(c[i * c_step], xs[i * x_step], ys[i * y_step]);
                  }
                });
}

// Per element size (the selection moves bytes), each cloned per vector width.
#define IOS_WHERE_UNITS(Name, T)                                                             \
  IOS_VECTOR_CLONES void Name(const WhereWalk& walk, const WalkSplit& split,                 \
                              const uint8_t* condition, const void* a, const void* b,        \
                              void* out, int64_t begin, int64_t end) {                       \
    WhereUnits<T>(walk, split, condition, a, b, out, begin, end);                            \
  }
IOS_WHERE_UNITS(WhereUnits1, uint8_t)
IOS_WHERE_UNITS(WhereUnits2, uint16_t)
IOS_WHERE_UNITS(WhereUnits4, uint32_t)
IOS_WHERE_UNITS(WhereUnits8, uint64_t)
#undef IOS_WHERE_UNITS

using WhereUnitsFn = void (*)(const WhereWalk&, const WalkSplit&, const uint8_t*, const void*,
                              const void*, void*, int64_t, int64_t);

class WhereCpuKernel : public CpuKernel {
 public:
  WhereCpuKernel(WhereUnitsFn units, WhereWalk walk) : units_(units), walk_(std::move(walk)) {}

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    const WalkSplit split = SplitWalk(walk_, threads);
    RunWalk(walk_, split, [&](int64_t begin, int64_t end) {
      units_(walk_, split, static_cast<const uint8_t*>(inputs[0]), inputs[1], inputs[2],
             outputs[0], begin, end);
    });
    return Status::Ok();
  }

 private:
  WhereUnitsFn units_;
  WhereWalk walk_;
};

// ---- Planning --------------------------------------------------------------------------------

// Each input and the output as stored, or an error for what the walk cannot take (blocked
// tensors, strided views: the registry gives neither to these ops).
StatusOr<std::vector<StridedDims>> StoredOperands(const CpuKernelContext& context) {
  if (context.any_channels_blocked() || context.batch_strides.any())
    return Internal(context.node->op_type + " '" + context.node->name +
                    "': its CPU kernel takes no blocked tensors or strided views");
  std::vector<StridedDims> stored;
  for (size_t i = 0; i < context.input_types.size(); ++i)
    stored.push_back(StoredDims(context.input_types[i].dims, context.input_layout(i)));
  stored.push_back(StoredDims(context.output_types[0].dims, context.output_layout(0)));
  return stored;
}

std::optional<CompareOpKind> CompareOpOf(const std::string& op_type) {
  if (op_type == "Equal") return CompareOpKind::kEqual;
  if (op_type == "Greater") return CompareOpKind::kGreater;
  if (op_type == "Less") return CompareOpKind::kLess;
  return std::nullopt;
}

}  // namespace

bool BroadcastTakesLayouts(const CpuKernelContext& context) {
  return !context.any_channels_blocked();
}

StatusOr<std::unique_ptr<CpuKernel>> CreateCompareCpuKernel(const CpuKernelContext& context) {
  const Node& node = *context.node;
  const std::optional<CompareOpKind> op = CompareOpOf(node.op_type);
  if (!op) return Internal("not a comparison: " + node.op_type);
  if (context.input_types.size() != 2 || context.output_types.empty())
    return InvalidInput("needs two inputs and an output");
  const DType dtype = context.input_types[0].dtype;
  const CompareUnitsFn units = CompareUnitsFor(dtype);
  if (units == nullptr || context.input_types[1].dtype != dtype ||
      context.output_types[0].dtype != DType::kBool)
    return std::unique_ptr<CpuKernel>();  // the reference reports it
  IOS_RETURN_IF_ERROR(CheckBinaryElementwise(BinaryElementwise{}, context.input_types,
                                             context.output_types));
  IOS_ASSIGN_OR_RETURN(std::vector<StridedDims> stored, StoredOperands(context));
  return std::unique_ptr<CpuKernel>(
      new CompareCpuKernel(*op, units, PlanBroadcastWalk<2>(stored[2], {stored[0], stored[1]})));
}

StatusOr<std::unique_ptr<CpuKernel>> CreateIntegerModCpuKernel(const CpuKernelContext& context) {
  const Node& node = *context.node;
  if (context.input_types.size() != 2 || context.output_types.empty())
    return InvalidInput("needs two inputs and an output");
  const DType dtype = context.input_types[0].dtype;
  if ((dtype != DType::kInt64 && dtype != DType::kInt32) || context.input_types[1].dtype != dtype)
    return std::unique_ptr<CpuKernel>();
  IOS_RETURN_IF_ERROR(CheckBinaryElementwise(BinaryElementwise{}, context.input_types,
                                             context.output_types));
  IOS_ASSIGN_OR_RETURN(int64_t fmod, node.attrs.GetInt("fmod", 0));
  if (fmod != 0 && fmod != 1) return InvalidInput("fmod must be 0 or 1");
  IOS_ASSIGN_OR_RETURN(std::vector<StridedDims> stored, StoredOperands(context));
  return std::unique_ptr<CpuKernel>(
      new IntegerModCpuKernel("Mod '" + node.name + "'", dtype, fmod == 1,
                              PlanBroadcastWalk<2>(stored[2], {stored[0], stored[1]})));
}

StatusOr<std::unique_ptr<CpuKernel>> CreateModCpuKernel(const CpuKernelContext& context) {
  if (!context.input_types.empty() && context.input_types[0].dtype == DType::kFloat32)
    return CreateElementwiseCpuKernel(context);
  return CreateIntegerModCpuKernel(context);
}

StatusOr<std::unique_ptr<CpuKernel>> CreateWhereCpuKernel(const CpuKernelContext& context) {
  if (context.input_types.size() != 3 || context.output_types.empty())
    return InvalidInput("needs a condition, X, Y and an output");
  const DType dtype = context.output_types[0].dtype;
  if (context.input_types[0].dtype != DType::kBool || context.input_types[1].dtype != dtype ||
      context.input_types[2].dtype != dtype)
    return std::unique_ptr<CpuKernel>();  // the reference reports it
  WhereUnitsFn units = nullptr;
  switch (DTypeSize(dtype)) {
    case 1: units = WhereUnits1; break;
    case 2: units = WhereUnits2; break;
    case 4: units = WhereUnits4; break;
    case 8: units = WhereUnits8; break;
    default: return std::unique_ptr<CpuKernel>();
  }
  IOS_ASSIGN_OR_RETURN(Dims expected, BroadcastDims(context.input_types[0].dims,
                                                    context.input_types[1].dims));
  IOS_ASSIGN_OR_RETURN(expected, BroadcastDims(expected, context.input_types[2].dims));
  IOS_RETURN_IF_ERROR(CheckPlannedOutput(expected, context.output_types[0].dims));
  IOS_ASSIGN_OR_RETURN(std::vector<StridedDims> stored, StoredOperands(context));
  return std::unique_ptr<CpuKernel>(new WhereCpuKernel(
      units, PlanBroadcastWalk<3>(stored[3], {stored[0], stored[1], stored[2]})));
}

}  // namespace ios

// Gemm and MatMul through oneDNN's matmul primitive.
//
// Gemm: Y = alpha * op(A) op(B) + beta * C. Transposes are strides on the memory descriptors.
// A constant B (the usual fully connected layer) is scaled by alpha and prepacked once in the
// layout oneDNN picks; a constant C is scaled by beta and fused as the primitive's bias (C
// broadcasts like a bias: each dim 1 or full). Otherwise alpha is an output scale and beta * C
// is added after the primitive, so that no assumption about the order of scale and bias inside
// oneDNN is needed.
// MatMul: numpy semantics; 1-D operands gain a unit dim, batch dims broadcast (oneDNN supports
// that when every operand has the same rank, so leading unit dims are added).
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ops/op_util.h"
#include "runtime/cpu/kernels/cpu_kernel_factories.h"
#include "runtime/cpu/kernels/dnnl_common.h"

namespace ios {
namespace {

using dnnl::memory;

struct MatMulSetup {
  std::string label;
  Dims a_dims, a_strides;  // A as oneDNN reads it: [batch..., M, K]
  Dims b_dims, b_strides;  // [batch..., K, N]
  Dims dst_dims;           // [batch..., M, N], row-major
  float output_scale = 1.f;
  // C (Gemm only).
  bool has_c = false;
  bool c_in_primitive = false;  // as the bias; otherwise added after the primitive
  Dims c_dims;                  // C as a bias: [M or 1, N or 1]
  float c_scale = 1.f;          // beta when C is read from the input, 1 when folded
};

class MatMulCpuKernel : public CpuKernel {
 public:
  MatMulCpuKernel(MatMulSetup setup, dnnl::engine engine)
      : setup_(std::move(setup)), engine_(std::move(engine)),
        a_md_(ToDnnlDims(setup_.a_dims), memory::data_type::f32, ToDnnlDims(setup_.a_strides)),
        b_md_(ToDnnlDims(setup_.b_dims), memory::data_type::f32, ToDnnlDims(setup_.b_strides)),
        dst_md_(PlainF32(setup_.dst_dims)) {}

  // B already scaled by alpha (packed here: the kernel keeps no pointer to it), and an owned C
  // scaled by beta; either may be null.
  Status Prepare(const Tensor* b, std::optional<Tensor> c) {
    constant_c_ = std::move(c);
    has_constant_b_ = b != nullptr;
    if (b) constant_b_ = WrapMemory(b_md_, engine_, b->raw());
    StatusOr<Variant*> variant = GetVariant(1);
    constant_b_.reset();  // packed copies are owned by packed_
    return variant.status();
  }

  bool CopiedConstantInput(size_t input) const override {
    return (input == 1 && has_constant_b_) || (input == 2 && constant_c_.has_value());
  }

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    // M*N*K per matrix of the output.
    const int64_t macs = NumElements(setup_.dst_dims) * setup_.a_dims.back();
    threads = ThreadsForMacsAndBytes(threads, macs,
                                     NumElements(setup_.b_dims) * static_cast<int64_t>(sizeof(float)));
    IOS_ASSIGN_OR_RETURN(Variant * v, GetVariant(threads));
    if (inputs.size() < 2 || inputs[0] == nullptr || outputs.empty() || outputs[0] == nullptr ||
        (!has_constant_b_ && inputs[1] == nullptr) ||
        (setup_.has_c && !constant_c_ && (inputs.size() < 3 || inputs[2] == nullptr)))
      return Internal(setup_.label + ": missing input or output buffer");
    float* y = static_cast<float*>(outputs[0]);
    const float* c = nullptr;
    if (setup_.has_c) c = constant_c_ ? constant_c_->data<float>() : static_cast<const float*>(inputs[2]);
    {
      ScopedOmpThreads scope(threads);
      IOS_RETURN_IF_ERROR(CatchDnnl(setup_.label, [&]() -> Status {
        dnnl::stream stream(engine_);
        std::unordered_map<int, memory> args;
        args[DNNL_ARG_SRC] = WrapMemory(a_md_, engine_, inputs[0]);
        if (has_constant_b_) {
          args[DNNL_ARG_WEIGHTS] = v->weights;
        } else {
          memory b = WrapMemory(b_md_, engine_, inputs[1]);
          if (v->weights_reorder) {
            memory packed = ScratchMemory(v->pd.weights_desc(), 1);
            v->weights_reorder->execute(stream, b, packed);
            b = packed;
          }
          args[DNNL_ARG_WEIGHTS] = b;
        }
        if (setup_.c_in_primitive) args[DNNL_ARG_BIAS] = WrapMemory(v->pd.bias_desc(), engine_, c);
        args[DNNL_ARG_DST] = WrapMemory(dst_md_, engine_, y);
        args[DNNL_ARG_SCRATCHPAD] = ScratchMemory(v->pd.scratchpad_desc(), 3);
        v->matmul.execute(stream, args);
        stream.wait();
        return Status::Ok();
      }));
    }
    if (setup_.has_c && !setup_.c_in_primitive) AddC(c, y, threads);
    return Status::Ok();
  }

 private:
  struct Variant {
    dnnl::matmul::primitive_desc pd;
    dnnl::matmul matmul;
    std::optional<dnnl::reorder> weights_reorder;  // run-time B -> the primitive's layout
    memory weights;                                // the packed constant B
  };

  // y[i, j] += c_scale * C[i, j] with C broadcast (Gemm: no batch dims).
  void AddC(const float* c, float* y, int threads) const {
    const int64_t m = setup_.dst_dims[0];
    const int64_t n = setup_.dst_dims[1];
    const int64_t row_stride = setup_.c_dims[0] == 1 ? 0 : setup_.c_dims[1];
    const bool row_vector = setup_.c_dims[1] != 1;
    const float scale = setup_.c_scale;
    ParallelFor(m, ThreadsForWork(threads, m * n), [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const float* c_row = c + i * row_stride;
        float* y_row = y + i * n;
        if (row_vector) {
          for (int64_t j = 0; j < n; ++j) y_row[j] += scale * c_row[j];
        } else {
          const float value = scale * c_row[0];
          for (int64_t j = 0; j < n; ++j) y_row[j] += value;
        }
      }
    });
  }

  memory ScratchMemory(const memory::desc& desc, int slot) {
    void* buffer = ThreadScratch(slot, desc.get_size());
    if (buffer == nullptr) throw std::bad_alloc();
    return memory(desc, engine_, buffer);
  }

  StatusOr<Variant*> GetVariant(int threads) {
    return variants_.Get(threads, [&]() -> StatusOr<std::unique_ptr<Variant>> {
      std::unique_ptr<Variant> v;
      IOS_RETURN_IF_ERROR(CatchDnnl(setup_.label, [&]() -> Status {
        v = MakeVariant();
        return Status::Ok();
      }));
      return v;
    });
  }

  // Called with the OpenMP team size set to the variant's thread count. Throws dnnl::error.
  std::unique_ptr<Variant> MakeVariant() {
    const memory::data_type f32 = memory::data_type::f32;
    const memory::desc weights_md =
        has_constant_b_ ? memory::desc(ToDnnlDims(setup_.b_dims), f32, memory::format_tag::any)
                        : b_md_;
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (setup_.output_scale != 1.f) attr.set_output_scales(0, {setup_.output_scale});
    std::optional<dnnl::matmul::desc> desc;
    if (setup_.c_in_primitive) {
      desc.emplace(a_md_, weights_md, PlainF32(setup_.c_dims), dst_md_);
    } else {
      desc.emplace(a_md_, weights_md, dst_md_);
    }
    auto v = std::make_unique<Variant>();
    v->pd = dnnl::matmul::primitive_desc(*desc, attr, engine_);
    v->matmul = dnnl::matmul(v->pd);
    if (has_constant_b_) {
      v->weights = packed_.Get(constant_b_ ? *constant_b_ : memory(), v->pd.weights_desc(), engine_);
    } else if (v->pd.weights_desc() != b_md_) {
      v->weights_reorder.emplace(
          dnnl::reorder::primitive_desc(engine_, b_md_, engine_, v->pd.weights_desc()));
    }
    return v;
  }

  MatMulSetup setup_;
  dnnl::engine engine_;
  memory::desc a_md_;
  memory::desc b_md_;
  memory::desc dst_md_;
  bool has_constant_b_ = false;
  std::optional<memory> constant_b_;  // over the scaled copy, during Prepare only
  std::optional<Tensor> constant_c_;  // beta * C
  PackedWeights packed_;
  VariantsByThreads<Variant> variants_;
};

const Tensor* ConstantInput(const CpuKernelContext& context, size_t index) {
  return index < context.constants.size() ? context.constants[index] : nullptr;
}

// Builds and prepares the kernel; a null kernel (the reference) when oneDNN declines. `b` is
// read only while the kernel is prepared (the graph's constant itself when alpha is 1, so that a
// large weight is not copied before it is packed).
StatusOr<std::unique_ptr<CpuKernel>> Finish(MatMulSetup setup, const Tensor* b,
                                            std::optional<Tensor> c) {
  for (const Dims* dims : {&setup.a_dims, &setup.b_dims, &setup.dst_dims})
    if (NumElements(*dims) == 0 || dims->size() > 12) return std::unique_ptr<CpuKernel>();
  IOS_ASSIGN_OR_RETURN(dnnl::engine engine, CpuEngine());
  auto kernel = std::make_unique<MatMulCpuKernel>(setup, engine);
  Status status = kernel->Prepare(b, c);  // c is small: a copy for a second try
  if (!status.ok() && setup.c_in_primitive) {
    // oneDNN may not fuse this broadcast of C as a bias: add C afterwards instead.
    setup.c_in_primitive = false;
    kernel = std::make_unique<MatMulCpuKernel>(setup, engine);
    status = kernel->Prepare(b, std::move(c));
  }
  if (!status.ok()) return std::unique_ptr<CpuKernel>();
  return std::unique_ptr<CpuKernel>(std::move(kernel));
}

// A copy of a float32 tensor times `scale`.
Tensor Scaled(const Tensor& t, float scale) {
  Tensor copy = t;
  if (scale != 1.f)
    for (int64_t i = 0; i < copy.num_elements(); ++i) copy.data<float>()[i] *= scale;
  return copy;
}

}  // namespace

StatusOr<std::unique_ptr<CpuKernel>> CreateGemmCpuKernel(const CpuKernelContext& context) {
  const Node& node = *context.node;
  if (context.input_types.size() < 2 || context.output_types.empty())
    return InvalidInput("needs A, B and an output");
  const bool has_c = context.input_types.size() > 2 && node.inputs.size() > 2 &&
                     node.inputs[2] != kNoValue;
  for (size_t i = 0; i < (has_c ? 3u : 2u); ++i)
    if (context.input_types[i].dtype != DType::kFloat32) return std::unique_ptr<CpuKernel>();
  const Dims& a = context.input_types[0].dims;
  const Dims& b = context.input_types[1].dims;
  if (a.size() != 2 || b.size() != 2)
    return InvalidInput("A " + DimsToString(a) + " and B " + DimsToString(b) + " must be matrices");
  IOS_ASSIGN_OR_RETURN(int64_t trans_a, node.attrs.GetInt("transA", 0));
  IOS_ASSIGN_OR_RETURN(int64_t trans_b, node.attrs.GetInt("transB", 0));
  IOS_ASSIGN_OR_RETURN(float alpha, node.attrs.GetFloat("alpha", 1.f));
  IOS_ASSIGN_OR_RETURN(float beta, node.attrs.GetFloat("beta", 1.f));
  const int64_t m = trans_a ? a[1] : a[0];
  const int64_t k = trans_a ? a[0] : a[1];
  const int64_t n = trans_b ? b[0] : b[1];
  if ((trans_b ? b[1] : b[0]) != k)
    return InvalidInput("inner dimensions differ: A " + DimsToString(a) + ", B " + DimsToString(b));
  MatMulSetup setup;
  setup.label = "Gemm '" + node.name + "'";
  setup.a_dims = {m, k};
  setup.a_strides = trans_a ? Dims{1, m} : Dims{k, 1};
  setup.b_dims = {k, n};
  setup.b_strides = trans_b ? Dims{1, k} : Dims{n, 1};
  setup.dst_dims = {m, n};
  if (context.output_types[0].dims != setup.dst_dims)
    return InvalidInput("computed output " + DimsToString(setup.dst_dims) + " but the plan has " +
                        DimsToString(context.output_types[0].dims));

  const Tensor* b_value = ConstantInput(context, 1);
  std::optional<Tensor> scaled_b;  // alpha * B, only when alpha is not 1
  if (b_value != nullptr && alpha != 1.f) {
    scaled_b = Scaled(*b_value, alpha);
    b_value = &*scaled_b;
  }
  setup.output_scale = b_value ? 1.f : alpha;
  std::optional<Tensor> c_value;
  if (has_c) {
    const Dims& c = context.input_types[2].dims;
    IOS_ASSIGN_OR_RETURN(Dims broadcast, BroadcastDims(c, setup.dst_dims));
    if (c.size() > 2 || broadcast != setup.dst_dims)
      return InvalidInput("C " + DimsToString(c) + " does not broadcast to " +
                          DimsToString(setup.dst_dims));
    setup.has_c = true;
    setup.c_dims = c;
    while (setup.c_dims.size() < 2) setup.c_dims.insert(setup.c_dims.begin(), 1);
    if (const Tensor* t = ConstantInput(context, 2)) {
      c_value = Scaled(*t, beta);
      c_value->Reshape(setup.c_dims);
    } else {
      setup.c_scale = beta;
    }
    // Fused only when nothing scales the product after the bias could be added.
    setup.c_in_primitive = setup.output_scale == 1.f && setup.c_scale == 1.f;
  }
  return Finish(std::move(setup), b_value, std::move(c_value));
}

StatusOr<std::unique_ptr<CpuKernel>> CreateMatMulCpuKernel(const CpuKernelContext& context) {
  const Node& node = *context.node;
  if (context.input_types.size() < 2 || context.output_types.empty())
    return InvalidInput("needs A, B and an output");
  if (context.input_types[0].dtype != DType::kFloat32 ||
      context.input_types[1].dtype != DType::kFloat32)
    return std::unique_ptr<CpuKernel>();
  Dims a = context.input_types[0].dims;
  Dims b = context.input_types[1].dims;
  if (a.empty() || b.empty()) return InvalidInput("operands must not be scalars");
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  const size_t rank = std::max(a.size(), b.size());
  while (a.size() < rank) a.insert(a.begin(), 1);
  while (b.size() < rank) b.insert(b.begin(), 1);
  if (a[rank - 1] != b[rank - 2])
    return InvalidInput("inner dimensions differ: " + DimsToString(context.input_types[0].dims) +
                        " x " + DimsToString(context.input_types[1].dims));
  Dims dst(rank);
  for (size_t d = 0; d + 2 < rank; ++d) {
    if (a[d] != b[d] && a[d] != 1 && b[d] != 1)
      return InvalidInput("batch dimensions do not broadcast: " +
                          DimsToString(context.input_types[0].dims) + " x " +
                          DimsToString(context.input_types[1].dims));
    dst[d] = std::max(a[d], b[d]);
  }
  dst[rank - 2] = a[rank - 2];
  dst[rank - 1] = b[rank - 1];
  if (NumElements(dst) != NumElements(context.output_types[0].dims))
    return InvalidInput("computed output " + DimsToString(dst) + " but the plan has " +
                        DimsToString(context.output_types[0].dims));
  MatMulSetup setup;
  setup.label = "MatMul '" + node.name + "'";
  setup.a_dims = a;
  setup.a_strides = RowMajorStrides(a);
  setup.b_dims = b;
  setup.b_strides = RowMajorStrides(b);
  setup.dst_dims = dst;
  return Finish(std::move(setup), ConstantInput(context, 1), std::nullopt);
}

}  // namespace ios

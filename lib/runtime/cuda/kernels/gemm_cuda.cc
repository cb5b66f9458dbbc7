// Gemm through cuBLAS: Y = alpha * op(A) op(B) + beta * C, fp32, with transA/transB and C
// broadcast to [M, N] (a scalar, a row [N], a column [M, 1] or the full matrix). The product is
// one row-major cuBLAS call (gemm_cublas.h) writing Y; beta * C is then added with
// cudnnAddTensor, which broadcasts every dim of size 1 (the stream's cuDNN handle).
#include <memory>
#include <string>

#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/kernels/cudnn_descriptors.h"
#include "runtime/cuda/kernels/gemm_cublas.h"
#include "runtime/cuda/kernels/library_kernel_factories.h"

namespace ios {
namespace {

class GemmCudaKernel : public CudaKernel {
 public:
  GemmCudaKernel(std::string label, RowMajorGemm gemm, bool allow_tf32, float c_scale,
                 CudnnTensorDescriptor c_desc, CudnnTensorDescriptor y_desc)
      : label_(std::move(label)),
        gemm_(gemm),
        allow_tf32_(allow_tf32),
        c_scale_(c_scale),
        c_desc_(std::move(c_desc)),
        y_desc_(std::move(y_desc)) {}

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    const bool add_c = static_cast<bool>(c_desc_);
    if (inputs.size() < 2 || inputs[0] == nullptr || inputs[1] == nullptr ||
        (add_c && (inputs.size() < 3 || inputs[2] == nullptr)) || outputs.empty() ||
        outputs[0] == nullptr) {
      return Internal(label_ + "missing input or output buffer");
    }
    float* y = static_cast<float*>(outputs[0]);
    IOS_RETURN_IF_ERROR(EnqueueRowMajorGemm(stream.cublas, gemm_,
                                            static_cast<const float*>(inputs[0]),
                                            static_cast<const float*>(inputs[1]), y, allow_tf32_));
    if (add_c) {
      const float one = 1.f;
      IOS_CUDNN_RETURN_IF_ERROR(cudnnAddTensor(stream.cudnn, &c_scale_, c_desc_.get(), inputs[2],
                                               &one, y_desc_.get(), y));
    }
    return Status::Ok();
  }

 private:
  std::string label_;
  RowMajorGemm gemm_;
  bool allow_tf32_ = false;
  float c_scale_ = 1.f;
  CudnnTensorDescriptor c_desc_;  // empty when C is absent or beta is 0
  CudnnTensorDescriptor y_desc_;
};

}  // namespace

StatusOr<RowMajorGemm> PlanGemmProduct(const Node& node, const Dims& a, const Dims& b) {
  const std::string label = CudnnNodeLabel(node);
  if (a.size() != 2 || b.size() != 2) {
    return InvalidInput(label + "A " + DimsToString(a) + " and B " + DimsToString(b) +
                        " must be matrices");
  }
  auto trans_a = node.attrs.GetInt("transA", 0);
  auto trans_b = node.attrs.GetInt("transB", 0);
  auto alpha = node.attrs.GetFloat("alpha", 1.f);
  for (const Status& s : {trans_a.status(), trans_b.status(), alpha.status()}) {
    if (!s.ok()) return Status(s.code(), label + s.message());
  }
  RowMajorGemm gemm;
  gemm.trans_a = *trans_a != 0;
  gemm.trans_b = *trans_b != 0;
  gemm.m = gemm.trans_a ? a[1] : a[0];
  gemm.k = gemm.trans_a ? a[0] : a[1];
  gemm.n = gemm.trans_b ? b[0] : b[1];
  const int64_t kb = gemm.trans_b ? b[1] : b[0];
  if (kb != gemm.k) {
    return InvalidInput(label + "inner dimensions differ: A " + DimsToString(a) + ", B " +
                        DimsToString(b));
  }
  gemm.alpha = *alpha;
  gemm.beta = 0.f;  // beta * C is added after the product
  gemm.stride_c = gemm.m * gemm.n;
  IOS_RETURN_IF_ERROR(CheckRowMajorGemm(label, gemm));
  return gemm;
}

StatusOr<std::unique_ptr<CudaKernel>> CreateGemmCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  const std::string label = CudnnNodeLabel(node);
  if (context.input_types.size() < 2 || context.output_types.empty()) {
    return Internal(label + "missing input or output types");
  }
  const bool has_c =
      context.input_types.size() > 2 && context.input_types[2].dtype != DType::kUndefined;
  for (size_t i = 0; i < (has_c ? 3u : 2u); ++i) {
    if (context.input_types[i].dtype != DType::kFloat32) {
      return Unsupported(label + "the CUDA backend runs Gemm in float32 only");
    }
  }
  IOS_ASSIGN_OR_RETURN(RowMajorGemm gemm, PlanGemmProduct(node, context.input_types[0].dims,
                                                          context.input_types[1].dims));
  auto beta = node.attrs.GetFloat("beta", 1.f);
  if (!beta.ok()) return Status(beta.status().code(), label + beta.status().message());

  CudnnTensorDescriptor c_desc;
  CudnnTensorDescriptor y_desc;
  if (has_c && *beta != 0.f) {
    // C broadcasts unidirectionally to [M, N]: right-aligned, each dim 1 or equal.
    const Dims& c = context.input_types[2].dims;
    if (c.size() > 2) return InvalidInput(label + "C " + DimsToString(c) + " has rank > 2");
    Dims c2 = {1, 1};
    for (size_t i = 0; i < c.size(); ++i) c2[2 - c.size() + i] = c[i];
    if ((c2[0] != 1 && c2[0] != gemm.m) || (c2[1] != 1 && c2[1] != gemm.n)) {
      return InvalidInput(label + "C " + DimsToString(c) + " does not broadcast to [" +
                          std::to_string(gemm.m) + ", " + std::to_string(gemm.n) + "]");
    }
    IOS_ASSIGN_OR_RETURN(c_desc, MakeTensorDescriptor(Dims{1, 1, c2[0], c2[1]}));
    IOS_ASSIGN_OR_RETURN(y_desc, MakeTensorDescriptor(Dims{1, 1, gemm.m, gemm.n}));
  }
  return std::unique_ptr<CudaKernel>(std::make_unique<GemmCudaKernel>(
      label, gemm, context.allow_tf32, *beta, std::move(c_desc), std::move(y_desc)));
}

}  // namespace ios

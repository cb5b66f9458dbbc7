// MatMul through cuBLAS with numpy semantics: a 1-D A gains a leading 1 and a 1-D B a trailing 1;
// batch dims broadcast. One strided batched GEMM (gemm_cublas.h) covers the cases where each
// operand's batch is either the whole output batch (stride M*K or K*N) or a single matrix
// (stride 0, shared by every batch); a partial broadcast such as [2, 1, M, K] x [1, 3, K, N] is
// refused as Unsupported.
#include <memory>
#include <string>

#include "ops/op_util.h"
#include "runtime/cuda/kernels/cudnn_descriptors.h"
#include "runtime/cuda/kernels/gemm_cublas.h"
#include "runtime/cuda/kernels/library_kernel_factories.h"

namespace ios {
namespace {

class MatMulCudaKernel : public CudaKernel {
 public:
  MatMulCudaKernel(std::string label, RowMajorGemm gemm, bool allow_tf32)
      : label_(std::move(label)), gemm_(gemm), allow_tf32_(allow_tf32) {}

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    if (inputs.size() < 2 || inputs[0] == nullptr || inputs[1] == nullptr || outputs.empty() ||
        outputs[0] == nullptr) {
      return Internal(label_ + "missing input or output buffer");
    }
    return EnqueueRowMajorGemm(stream.cublas, gemm_, static_cast<const float*>(inputs[0]),
                               static_cast<const float*>(inputs[1]),
                               static_cast<float*>(outputs[0]), allow_tf32_);
  }

 private:
  std::string label_;
  RowMajorGemm gemm_;
  bool allow_tf32_ = false;
};

// The batch stride of an operand whose batch dims are `batch` against the output's `out_batch`:
// a full batch is dense, a single matrix is shared; anything else is a partial broadcast.
bool BatchStride(const Dims& batch, const Dims& out_batch, int64_t matrix_elements,
                 int64_t* stride) {
  if (NumElements(batch) == 1) {
    *stride = 0;
    return true;
  }
  // Right-aligned, equal once leading unit dims are dropped.
  Dims trimmed = batch;
  while (!trimmed.empty() && trimmed.front() == 1) trimmed.erase(trimmed.begin());
  Dims out_trimmed = out_batch;
  while (!out_trimmed.empty() && out_trimmed.front() == 1) out_trimmed.erase(out_trimmed.begin());
  if (trimmed != out_trimmed) return false;
  *stride = matrix_elements;
  return true;
}

}  // namespace

StatusOr<RowMajorGemm> PlanMatMul(const Node& node, const Dims& a_in, const Dims& b_in) {
  const std::string label = CudnnNodeLabel(node);
  Dims a = a_in;
  Dims b = b_in;
  if (a.empty() || b.empty()) return InvalidInput(label + "operands must not be scalars");
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  RowMajorGemm gemm;
  gemm.m = a[a.size() - 2];
  gemm.k = a.back();
  gemm.n = b.back();
  if (b[b.size() - 2] != gemm.k) {
    return InvalidInput(label + "inner dimensions differ: " + DimsToString(a_in) + " x " +
                        DimsToString(b_in));
  }
  const Dims a_batch(a.begin(), a.end() - 2);
  const Dims b_batch(b.begin(), b.end() - 2);
  IOS_ASSIGN_OR_RETURN(Dims batch, BroadcastDims(a_batch, b_batch));
  gemm.batch = NumElements(batch);
  gemm.stride_c = gemm.m * gemm.n;
  if (!BatchStride(a_batch, batch, gemm.m * gemm.k, &gemm.stride_a) ||
      !BatchStride(b_batch, batch, gemm.k * gemm.n, &gemm.stride_b)) {
    return Unsupported(label + "batch dims " + DimsToString(a_batch) + " and " +
                       DimsToString(b_batch) +
                       " broadcast partially; the CUDA MatMul takes full or single batches");
  }
  IOS_RETURN_IF_ERROR(CheckRowMajorGemm(label, gemm));
  return gemm;
}

StatusOr<std::unique_ptr<CudaKernel>> CreateMatMulCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  const std::string label = CudnnNodeLabel(node);
  if (context.input_types.size() < 2 || context.output_types.empty()) {
    return Internal(label + "missing input or output types");
  }
  for (size_t i = 0; i < 2; ++i) {
    if (context.input_types[i].dtype != DType::kFloat32) {
      return Unsupported(label + "the CUDA backend runs MatMul in float32 only");
    }
  }
  IOS_ASSIGN_OR_RETURN(RowMajorGemm gemm,
                       PlanMatMul(node, context.input_types[0].dims, context.input_types[1].dims));
  return std::unique_ptr<CudaKernel>(
      std::make_unique<MatMulCudaKernel>(label, gemm, context.allow_tf32));
}

}  // namespace ios

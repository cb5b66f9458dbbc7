// Cast between float32, float64, float16, int64, int32, int8, uint8 and bool, element by element
// exactly as the reference converts (kernels/math/cast_math.h). A cast to the same type (other
// than bool, which the reference normalises to 0/1) is a device-to-device copy.
#include <memory>
#include <string>
#include <vector>

#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/kernels/cast_impl.h"
#include "runtime/cuda/kernels/own_kernel_factories.h"
#include "runtime/cuda/kernels/own_kernel_util.h"

namespace ios {
namespace {

class CastCudaKernel : public CudaKernel {
 public:
  CastCudaKernel(CastType from, CastType to, int64_t count, size_t copy_bytes)
      : from_(from), to_(to), count_(count), copy_bytes_(copy_bytes) {}

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    if (copy_bytes_ > 0) {
      if (inputs[0] != outputs[0]) {
        IOS_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(outputs[0], inputs[0], copy_bytes_,
                                                 cudaMemcpyDeviceToDevice, stream.stream));
      }
      return Status::Ok();
    }
    IOS_CUDA_RETURN_IF_ERROR(LaunchCast(from_, inputs[0], to_, outputs[0], count_, stream.stream));
    return Status::Ok();
  }

 private:
  CastType from_;
  CastType to_;
  int64_t count_;
  size_t copy_bytes_;  // > 0: the cast is a copy of this many bytes
};

}  // namespace

CudaKernelOr CreateCastCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  if (!CudaInputPresent(context, 0) || context.output_types.empty())
    return InvalidOnCuda(node, "needs an input and an output");
  const TensorType& in = context.input_types[0];
  const TensorType& out = context.output_types[0];
  CastType from = CastType::kFloat32;
  CastType to = CastType::kFloat32;
  if (!CastTypeOf(in.dtype, &from) || !CastTypeOf(out.dtype, &to))
    return RefuseOnCuda(node, DTypeName(in.dtype) + " -> " + DTypeName(out.dtype) +
                                  " (float32, float64, float16, int64, int32, int8, uint8, bool)");
  const int64_t count = NumElements(in.dims);
  if (NumElements(out.dims) != count)
    return InvalidOnCuda(node, "output " + DimsToString(out.dims) + " does not match input " +
                                   DimsToString(in.dims));
  const size_t copy_bytes = in.dtype == out.dtype && in.dtype != DType::kBool
                                ? static_cast<size_t>(count) * DTypeSize(in.dtype)
                                : 0;
  return CudaKernelOr(std::make_unique<CastCudaKernel>(from, to, count, copy_bytes));
}

}  // namespace ios

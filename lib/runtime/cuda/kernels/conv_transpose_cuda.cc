// ConvTranspose through cuDNN: fp32 NCHW (1-D to 3-D), groups, strides, dilations, pads,
// output_padding, output_shape and auto_pad (resolved as the reference kernel does), as
// cudnnConvolutionBackwardData with the descriptors of conv_transpose_descriptors.h, then the
// crop copy (cudnnTransformTensor) when cuDNN's symmetric padding gives a larger output, then
// cudnnAddTensor for the bias.
//
// Algorithm: cuDNN's backward-data heuristic with context.cudnn (iosc measures forward convs
// only, so the plan records nothing for ConvTranspose), within the same workspace bound as a
// heuristically chosen Conv; math type as for Conv (TF32 only when the plan allows it).
#include <memory>
#include <string>

#include "ir/fused_activation.h"
#include "runtime/cuda/kernels/conv_algorithm.h"
#include "runtime/cuda/kernels/conv_transpose_descriptors.h"
#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/kernels/library_kernel_factories.h"

namespace ios {
namespace {

class ConvTransposeCudaKernel : public CudaKernel {
 public:
  ConvTransposeCudaKernel(std::string label, ConvTransposeDescriptors descriptors,
                          ConvTransposeAlgorithm algorithm, bool has_bias)
      : label_(std::move(label)),
        d_(std::move(descriptors)),
        algorithm_(algorithm),
        has_bias_(has_bias) {
    crop_bytes_ = CropWorkspaceBytes(d_.geometry.full_output, d_.geometry.cropped());
  }

  size_t WorkspaceBytes() const override { return crop_bytes_ + algorithm_.workspace_bytes; }

  Status Enqueue(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                 const CudaStreamContext& stream) override {
    if (inputs.size() < 2 || inputs[0] == nullptr || inputs[1] == nullptr ||
        (has_bias_ && (inputs.size() < 3 || inputs[2] == nullptr)) || outputs.empty() ||
        outputs[0] == nullptr) {
      return Internal(label_ + "missing input or output buffer");
    }
    IOS_RETURN_IF_ERROR(CheckStreamWorkspace(label_, stream, WorkspaceBytes()));
    float* y = static_cast<float*>(outputs[0]);
    char* scratch = static_cast<char*>(stream.workspace);
    void* cudnn_workspace = algorithm_.workspace_bytes > 0 ? scratch + crop_bytes_ : nullptr;
    float* full = d_.geometry.cropped() ? reinterpret_cast<float*>(scratch) : y;
    const float one = 1.f;
    const float zero = 0.f;
    // dx = 1 * backward_data(W, dy = X) + 0 * dx.
    IOS_CUDNN_RETURN_IF_ERROR(
        cudnnConvolutionBackwardData(stream.cudnn, &one, d_.w.get(), inputs[1], d_.x.get(),
                                     inputs[0], d_.conv.get(), algorithm_.algo, cudnn_workspace,
                                     algorithm_.workspace_bytes, &zero, d_.y_full.get(), full));
    if (d_.geometry.cropped()) {
      IOS_CUDNN_RETURN_IF_ERROR(cudnnTransformTensor(stream.cudnn, &one, d_.y_crop_view.get(),
                                                     full + d_.geometry.CropOffset(), &zero,
                                                     d_.y.get(), y));
    }
    if (has_bias_) {
      IOS_CUDNN_RETURN_IF_ERROR(
          cudnnAddTensor(stream.cudnn, &one, d_.bias.get(), inputs[2], &one, d_.y.get(), y));
    }
    return Status::Ok();
  }

 private:
  std::string label_;
  ConvTransposeDescriptors d_;
  ConvTransposeAlgorithm algorithm_;
  bool has_bias_ = false;
  size_t crop_bytes_ = 0;
};

}  // namespace

StatusOr<std::unique_ptr<CudaKernel>> CreateConvTransposeCudaKernel(
    const CudaKernelContext& context) {
  const Node& node = *context.node;
  const std::string label = CudnnNodeLabel(node);
  if (!KernelHasInput(context, 0) || !KernelHasInput(context, 1) || context.output_types.empty()) {
    return Internal(label + "missing input or output types");
  }
  const bool has_bias = KernelHasInput(context, 2);
  for (size_t i = 0; i < (has_bias ? 3u : 2u); ++i) {
    if (context.input_types[i].dtype != DType::kFloat32) {
      return Unsupported(label + "the CUDA kernel does not support " +
                         DTypeName(context.input_types[i].dtype) +
                         " (the CUDA backend runs ConvTranspose in float32 only)");
    }
  }
  if (context.output_types[0].dtype != DType::kFloat32) {
    return Unsupported(label + "the CUDA kernel does not support output type " +
                       DTypeName(context.output_types[0].dtype) + " (float32 only)");
  }
  if (GetFusedActivation(node.attrs).kind != ActivationKind::kNone) {
    return Unsupported(label + "the CUDA kernel does not support a fused activation");
  }
  IOS_ASSIGN_OR_RETURN(ConvTransposeDescriptors descriptors,
                       BuildConvTransposeDescriptors(
                           node, context.input_types[0].dims, context.input_types[1].dims,
                           context.output_types[0].dims, ConvMathType(context.allow_tf32)));
  if (context.cudnn == nullptr) {
    return Internal(label + "needs a cuDNN handle to choose its backward-data algorithm");
  }
  auto algorithm = ChooseConvTransposeAlgorithm(context.cudnn, descriptors, context.allow_tf32,
                                                kHeuristicConvWorkspaceLimit);
  if (!algorithm.ok())
    return Status(algorithm.status().code(), label + algorithm.status().message());
  return std::unique_ptr<CudaKernel>(std::make_unique<ConvTransposeCudaKernel>(
      label, std::move(descriptors), *algorithm, has_bias));
}

}  // namespace ios

// Conv through cuDNN: fp32 NCHW (1-D to 3-D), groups (depthwise included), dilation, bias and
// ios's fused activation.
//
// Epilogue. cudnnConvolutionBiasActivationForward computes act(conv(x) + bias) in one call, but
// only for ReLU and identity, and identity only with IMPLICIT_PRECOMP_GEMM (cuDNN API
// reference); it is used then, when the conv has a bias and its output needs no crop. Otherwise:
// cudnnConvolutionForward, the crop copy (cudnnTransformTensor) when cuDNN's symmetric padding
// gives a larger output (cudnn_descriptors.h), cudnnAddTensor for the bias, and the shared
// LaunchActivation epilogue for any other activation.
//
// Algorithm: the plan's (context.conv_algorithm) when recorded, else cuDNN's heuristic with
// context.cudnn; math type per conv_algorithm.h (TF32 as onnxruntime's default).
//
// Strided views (plan/tensor_views.h): X or Y may be a channel slice of a wider tensor at batch
// > 1; the descriptors then carry its batch stride, and the epilogue walks the batch slices.
// Such a slice is an NCHW tensor packed in C, H and W, which every 2-D forward algorithm takes
// (the FFT ones ask for "NCHW HW-packed"; only the 3-D IMPLICIT_PRECOMP_GEMM wants fully packed
// tensors, which is why TakesStridedBatchSlice admits 1-D and 2-D convs only). So an algorithm
// that iosc measured on dense tensors also runs on the views.
#include <memory>
#include <string>

#include "ir/fused_activation.h"
#include "runtime/cuda/kernels/activation_impl.h"
#include "runtime/cuda/kernels/conv_algorithm.h"
#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/kernels/cudnn_descriptors.h"
#include "runtime/cuda/kernels/library_kernel_factories.h"

namespace ios {
namespace {

class ConvCudaKernel : public CudaKernel {
 public:
  ConvCudaKernel(std::string label, ConvDescriptors descriptors, ConvAlgorithmChoice algorithm,
                 Activation activation, bool has_bias, CudnnActivationDescriptor fused_activation)
      : label_(std::move(label)),
        d_(std::move(descriptors)),
        algorithm_(algorithm),
        activation_(activation),
        has_bias_(has_bias),
        fused_activation_(std::move(fused_activation)) {
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
    const void* x = inputs[0];
    const void* w = inputs[1];
    const void* bias = has_bias_ ? inputs[2] : nullptr;
    float* y = static_cast<float*>(outputs[0]);
    char* scratch = static_cast<char*>(stream.workspace);
    void* cudnn_workspace = algorithm_.workspace_bytes > 0 ? scratch + crop_bytes_ : nullptr;
    const float one = 1.f;
    const float zero = 0.f;

    if (fused_activation_) {
      // z = y with alpha2 = 0: the term is required but contributes nothing.
      const cudnnStatus_t status = cudnnConvolutionBiasActivationForward(
          stream.cudnn, &one, d_.x.get(), x, d_.w.get(), w, d_.conv.get(), algorithm_.algo,
          cudnn_workspace, algorithm_.workspace_bytes, &zero, d_.y.get(), y, d_.bias.get(), bias,
          fused_activation_.get(), d_.y.get(), y);
      // cuDNN declines some configurations of the fused call: fall back to the separate steps,
      // for this and every later run. The session and the profiler run every command list once
      // before capturing it, so this happens outside a capture.
      if (!IsCudnnNotSupported(status)) {
        IOS_CUDNN_RETURN_IF_ERROR(status);
        return Status::Ok();
      }
      fused_activation_ = CudnnActivationDescriptor();
    }

    float* conv_out = d_.geometry.cropped() ? reinterpret_cast<float*>(scratch) : y;
    IOS_CUDNN_RETURN_IF_ERROR(cudnnConvolutionForward(
        stream.cudnn, &one, d_.x.get(), x, d_.w.get(), w, d_.conv.get(), algorithm_.algo,
        cudnn_workspace, algorithm_.workspace_bytes, &zero, d_.y_full.get(), conv_out));
    if (d_.geometry.cropped()) {
      IOS_CUDNN_RETURN_IF_ERROR(cudnnTransformTensor(stream.cudnn, &one, d_.y_crop_view.get(),
                                                     conv_out + d_.geometry.CropOffset(), &zero,
                                                     d_.y.get(), y));
    }
    if (has_bias_) {
      IOS_CUDNN_RETURN_IF_ERROR(
          cudnnAddTensor(stream.cudnn, &one, d_.bias.get(), bias, &one, d_.y.get(), y));
    }
    if (activation_.kind != ActivationKind::kNone) {
      const int64_t count = NumElements(d_.geometry.output);
      if (d_.batch_strides.y == 0) {
        IOS_CUDA_RETURN_IF_ERROR(LaunchActivation(activation_, y, y, count, stream.stream));
      } else {
        const int64_t items = d_.geometry.output[0];
        IOS_CUDA_RETURN_IF_ERROR(LaunchActivationInBatchSlices(activation_, y, items, count / items,
                                                               d_.batch_strides.y, stream.stream));
      }
    }
    return Status::Ok();
  }

 private:
  std::string label_;
  ConvDescriptors d_;
  ConvAlgorithmChoice algorithm_;
  Activation activation_;
  bool has_bias_ = false;
  CudnnActivationDescriptor fused_activation_;  // set when the one-call path applies
  size_t crop_bytes_ = 0;
};

}  // namespace

StatusOr<std::unique_ptr<CudaKernel>> CreateConvCudaKernel(const CudaKernelContext& context) {
  const Node& node = *context.node;
  const std::string label = CudnnNodeLabel(node);
  if (!KernelHasInput(context, 0) || !KernelHasInput(context, 1) || context.output_types.empty()) {
    return Internal(label + "missing input or output types");
  }
  if (HasFusedResidual(node))
    return Unsupported(label + "a conv with a fused residual add (iosc lowers CPU plans so) "
                               "does not run on the CUDA backend; compile for the GPU");
  const bool has_bias = KernelHasInput(context, 2);
  for (size_t i = 0; i < (has_bias ? 3u : 2u); ++i) {
    if (context.input_types[i].dtype != DType::kFloat32) {
      return Unsupported(label + "the CUDA backend runs Conv in float32 only");
    }
  }
  if (context.output_types[0].dtype != DType::kFloat32) {
    return Unsupported(label + "the CUDA backend runs Conv in float32 only");
  }
  Status fusable = CheckConvFusedActivation(node.attrs);
  if (!fusable.ok()) return Status(fusable.code(), label + fusable.message());
  WindowBatchStrides batch_strides;
  if (!context.batch_strides.inputs.empty()) batch_strides.x = context.batch_strides.inputs[0];
  if (!context.batch_strides.outputs.empty()) batch_strides.y = context.batch_strides.outputs[0];
  IOS_ASSIGN_OR_RETURN(
      ConvDescriptors descriptors,
      BuildConvDescriptors(node, context.input_types[0].dims, context.input_types[1].dims,
                           context.output_types[0].dims, ConvMathType(context.allow_tf32),
                           batch_strides));

  ConvAlgorithmChoice algorithm;
  if (context.conv_algorithm != nullptr) {
    IOS_ASSIGN_OR_RETURN(algorithm,
                         ConvAlgorithmFromPlan(*context.conv_algorithm, context.allow_tf32));
    IOS_CUDNN_RETURN_IF_ERROR(
        cudnnSetConvolutionMathType(descriptors.conv.get(), algorithm.math_type));
    if (context.cudnn != nullptr) {
      IOS_ASSIGN_OR_RETURN(algorithm.workspace_bytes,
                           ConvWorkspaceBytes(context.cudnn, descriptors, algorithm.algo));
    }
  } else if (context.cudnn != nullptr) {
    auto chosen = ChooseConvAlgorithmByHeuristic(context.cudnn, descriptors, context.allow_tf32);
    if (!chosen.ok()) return Status(chosen.status().code(), label + chosen.status().message());
    algorithm = *chosen;
  } else {
    return Internal(label + "needs a plan-recorded algorithm or a cuDNN handle to choose one");
  }

  const Activation activation = GetFusedActivation(node.attrs);
  CudnnActivationDescriptor fused;
  const bool relu = activation.kind == ActivationKind::kRelu;
  const bool identity = activation.kind == ActivationKind::kNone &&
                        algorithm.algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
  if (has_bias && !descriptors.geometry.cropped() && (relu || identity)) {
    IOS_ASSIGN_OR_RETURN(fused, CudnnActivationDescriptor::Make());
    IOS_CUDNN_RETURN_IF_ERROR(cudnnSetActivationDescriptor(
        fused.get(), relu ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY,
        CUDNN_NOT_PROPAGATE_NAN, 0.0));
  }
  return std::unique_ptr<CudaKernel>(std::make_unique<ConvCudaKernel>(
      label, std::move(descriptors), algorithm, activation, has_bias, std::move(fused)));
}

}  // namespace ios

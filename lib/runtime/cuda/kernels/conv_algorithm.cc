#include "runtime/cuda/kernels/conv_algorithm.h"

#include <string>
#include <vector>

#include "runtime/cuda/cuda_check.h"

namespace ios {
namespace {

bool ValidMathType(int value) {
  return value == CUDNN_DEFAULT_MATH || value == CUDNN_TENSOR_OP_MATH ||
         value == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION || value == CUDNN_FMA_MATH;
}

// cuDNN may report a conversion math type (fp32 data computed in fp16); ios only allows TF32.
cudnnMathType_t AllowedMathType(cudnnMathType_t reported, bool allow_tf32) {
  if (!allow_tf32) return CUDNN_FMA_MATH;
  return reported == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION ? CUDNN_DEFAULT_MATH : reported;
}

}  // namespace

cudnnMathType_t ConvMathType(bool allow_tf32) {
  return allow_tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
}

StatusOr<ConvAlgorithmChoice> ConvAlgorithmFromPlan(const plan::ConvAlgorithm& recorded,
                                                    bool allow_tf32) {
  if (recorded.algo() < 0 || recorded.algo() >= CUDNN_CONVOLUTION_FWD_ALGO_COUNT) {
    return InvalidInput("the plan's conv algorithm " + std::to_string(recorded.algo()) +
                        " for op " + std::to_string(recorded.op()) + " is not a cuDNN algorithm");
  }
  if (!ValidMathType(recorded.math_type())) {
    return InvalidInput("the plan's conv math type " + std::to_string(recorded.math_type()) +
                        " for op " + std::to_string(recorded.op()) + " is not a cuDNN math type");
  }
  if (recorded.workspace_bytes() < 0) {
    return InvalidInput("the plan's conv workspace for op " + std::to_string(recorded.op()) +
                        " is negative");
  }
  ConvAlgorithmChoice choice;
  choice.algo = static_cast<cudnnConvolutionFwdAlgo_t>(recorded.algo());
  choice.math_type =
      AllowedMathType(static_cast<cudnnMathType_t>(recorded.math_type()), allow_tf32);
  choice.workspace_bytes = static_cast<size_t>(recorded.workspace_bytes());
  return choice;
}

StatusOr<size_t> ConvWorkspaceBytes(cudnnHandle_t handle, const ConvDescriptors& descriptors,
                                    cudnnConvolutionFwdAlgo_t algo) {
  size_t bytes = 0;
  IOS_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionForwardWorkspaceSize(
      handle, descriptors.x.get(), descriptors.w.get(), descriptors.conv.get(),
      descriptors.y_full.get(), algo, &bytes));
  return bytes;
}

StatusOr<ConvAlgorithmChoice> ChooseConvAlgorithmByHeuristic(cudnnHandle_t handle,
                                                             const ConvDescriptors& descriptors,
                                                             bool allow_tf32,
                                                             size_t workspace_limit) {
  if (handle == nullptr) return Internal("choosing a conv algorithm needs a cuDNN handle");
  IOS_CUDNN_RETURN_IF_ERROR(
      cudnnSetConvolutionMathType(descriptors.conv.get(), ConvMathType(allow_tf32)));
  cudnnConvolutionFwdAlgoPerf_t perfs[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  IOS_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionForwardAlgorithm_v7(
      handle, descriptors.x.get(), descriptors.w.get(), descriptors.conv.get(),
      descriptors.y_full.get(), CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perfs));
  for (int i = 0; i < returned && i < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; ++i) {
    if (perfs[i].status != CUDNN_STATUS_SUCCESS) continue;
    ConvAlgorithmChoice choice;
    choice.algo = perfs[i].algo;
    choice.math_type = AllowedMathType(perfs[i].mathType, allow_tf32);
    IOS_CUDNN_RETURN_IF_ERROR(
        cudnnSetConvolutionMathType(descriptors.conv.get(), choice.math_type));
    IOS_ASSIGN_OR_RETURN(choice.workspace_bytes,
                         ConvWorkspaceBytes(handle, descriptors, choice.algo));
    if (choice.workspace_bytes > workspace_limit) continue;
    return choice;
  }
  return Unsupported("cuDNN's heuristics offer no forward algorithm for this convolution within " +
                     std::to_string(workspace_limit) + " bytes of workspace");
}

size_t ConvMeasureOutputBytes(const ConvDescriptors& descriptors) {
  return static_cast<size_t>(NumElements(descriptors.geometry.full_output)) * sizeof(float);
}

StatusOr<std::vector<plan::ConvAlgorithm>> FindConvAlgorithms(
    cudnnHandle_t handle, const ConvDescriptors& descriptors, int op_index, bool allow_tf32,
    const ConvMeasureBuffers& buffers) {
  if (handle == nullptr || buffers.x == nullptr || buffers.w == nullptr || buffers.y == nullptr) {
    return Internal("measuring conv algorithms needs a cuDNN handle and x, w and y buffers");
  }
  IOS_CUDNN_RETURN_IF_ERROR(
      cudnnSetConvolutionMathType(descriptors.conv.get(), ConvMathType(allow_tf32)));
  cudnnConvolutionFwdAlgoPerf_t perfs[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  // Results come sorted by time; algorithms that need more workspace than given fail and are
  // reported with a non-success status.
  IOS_CUDNN_RETURN_IF_ERROR(cudnnFindConvolutionForwardAlgorithmEx(
      handle, descriptors.x.get(), buffers.x, descriptors.w.get(), buffers.w,
      descriptors.conv.get(), descriptors.y_full.get(), buffers.y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
      &returned, perfs, buffers.workspace,
      buffers.workspace == nullptr ? 0 : buffers.workspace_bytes));
  std::vector<plan::ConvAlgorithm> found;
  for (int i = 0; i < returned && i < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; ++i) {
    const cudnnConvolutionFwdAlgoPerf_t& perf = perfs[i];
    if (perf.status != CUDNN_STATUS_SUCCESS || perf.memory > buffers.workspace_bytes) continue;
    // A conversion math type would compute fp32 in fp16: skip it rather than change numerics.
    if (perf.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) continue;
    if (!allow_tf32 && perf.mathType != CUDNN_FMA_MATH && perf.mathType != CUDNN_DEFAULT_MATH)
      continue;
    plan::ConvAlgorithm result;
    result.set_op(op_index);
    result.set_algo(static_cast<int32_t>(perf.algo));
    result.set_workspace_bytes(static_cast<int64_t>(perf.memory));
    result.set_math_type(static_cast<int32_t>(AllowedMathType(perf.mathType, allow_tf32)));
    found.push_back(result);
  }
  if (found.empty())
    return Unsupported("no cuDNN forward algorithm ran for op " + std::to_string(op_index) +
                       " within a workspace of " + std::to_string(buffers.workspace_bytes) +
                       " bytes");
  return found;
}

StatusOr<plan::ConvAlgorithm> MeasureConvAlgorithm(cudnnHandle_t handle,
                                                   const ConvDescriptors& descriptors, int op_index,
                                                   bool allow_tf32,
                                                   const ConvMeasureBuffers& buffers) {
  IOS_ASSIGN_OR_RETURN(std::vector<plan::ConvAlgorithm> found,
                       FindConvAlgorithms(handle, descriptors, op_index, allow_tf32, buffers));
  return found.front();
}

plan::ConvAlgorithm ToPlanConvAlgorithm(const ConvAlgorithmChoice& choice, int op_index) {
  plan::ConvAlgorithm result;
  result.set_op(op_index);
  result.set_algo(static_cast<int32_t>(choice.algo));
  result.set_workspace_bytes(static_cast<int64_t>(choice.workspace_bytes));
  result.set_math_type(static_cast<int32_t>(choice.math_type));
  return result;
}

}  // namespace ios

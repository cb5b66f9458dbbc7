// Reference BatchNormalization (inference form).
#include <cmath>

#include "kernels/reference/reference_kernel_table.h"
#include "kernels/reference/reference_util.h"

namespace ios {
namespace {

// Y = scale * (X - mean) / sqrt(var + epsilon) + B, per channel (dimension 1).
Status BatchNormalizationKernel(const Node& node, const std::vector<const Tensor*>& inputs,
                                std::vector<Tensor>* outputs) {
  for (size_t i = 0; i < 5; ++i) IOS_RETURN_IF_ERROR(RequireInput(node, inputs, i));
  IOS_RETURN_IF_ERROR(RequireOutputs(node, outputs, 1));
  const std::string label = NodeLabel(node);
  IOS_ASSIGN_OR_RETURN(int64_t training_mode, node.attrs.GetInt("training_mode", 0));
  if (training_mode != 0)
    return Unsupported(label + "training_mode=1 is not supported (inference only)");
  IOS_ASSIGN_OR_RETURN(int64_t spatial, node.attrs.GetInt("spatial", 1));
  if (spatial != 1) return Unsupported(label + "spatial=0 is not supported");
  IOS_ASSIGN_OR_RETURN(float epsilon, node.attrs.GetFloat("epsilon", 1e-5f));

  const Tensor& x = *inputs[0];
  if (x.rank() < 2)
    return InvalidInput(label + "input must have rank >= 2, has " + DimsToString(x.dims()));
  const int64_t channels = x.dims()[1];
  for (size_t i = 1; i < 5; ++i) {
    if (inputs[i]->dtype() != x.dtype())
      return InvalidInput(label + "all inputs must have the same element type");
    if (inputs[i]->num_elements() != channels)
      return InvalidInput(label + "input " + std::to_string(i) + " " +
                          DimsToString(inputs[i]->dims()) + " must have " +
                          std::to_string(channels) + " elements");
  }
  const int64_t inner = NumElements(Dims(x.dims().begin() + 2, x.dims().end()));
  const int64_t batch = x.dims()[0];

  return DispatchFloat(x.dtype(), node.op_type, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    const T* scale = inputs[1]->data<T>();
    const T* bias = inputs[2]->data<T>();
    const T* mean = inputs[3]->data<T>();
    const T* var = inputs[4]->data<T>();
    Tensor y(x.dtype(), x.dims());
    const T* xd = x.data<T>();
    T* yd = y.data<T>();
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t c = 0; c < channels; ++c) {
        const double inv_std = 1.0 / std::sqrt(static_cast<double>(var[c]) + epsilon);
        for (int64_t i = 0; i < inner; ++i) {
          const int64_t offset = (n * channels + c) * inner + i;
          yd[offset] = static_cast<T>(static_cast<double>(scale[c]) *
                                          (static_cast<double>(xd[offset]) - mean[c]) * inv_std +
                                      bias[c]);
        }
      }
    }
    (*outputs)[0] = std::move(y);
    return Status::Ok();
  });
}

}  // namespace

void AddNormalizationReferenceKernels(ReferenceKernelTable& table) {
  table["BatchNormalization"] = BatchNormalizationKernel;
}

}  // namespace ios

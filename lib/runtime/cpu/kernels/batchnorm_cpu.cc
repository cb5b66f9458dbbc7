// Inference BatchNormalization on float32, with the activation a CPU plan fuses into it
// (passes/fuse_activation.h): y = act(x * s[c] + t[c]), s = scale / sqrt(var + epsilon) and
// t = B - mean * s per channel, worked out once when the parameters are constants. One pass over
// memory in any layout: row-major walks a plane per channel, channels-last a row of channels
// per pixel, channels-blocked-8 a run of 8 channels per pixel. The per-channel affines that the
// CPU lowering writes as such BNs (passes/channel_affine.h, DenseNet's pre-activations) and the
// BNs exporters write after a Concat then run as one pass with their Relu, in the layout of the
// convs around them, instead of three passes (or the reference kernel behind a layout adapter).
#include <cmath>
#include <string>
#include <vector>

#include "ir/fused_activation.h"
#include "kernels/math/activation_math.h"
#include "runtime/cpu/kernels/cpu_kernel_factories.h"
#include "runtime/cpu/cpu_threading.h"
#include "runtime/cpu/kernels/cpu_vector_clones.h"

namespace ios {
namespace {

// y[i] = act(x[i] * s + t) over a plane of one channel (row-major).
IOS_VECTOR_CLONES void AffinePlane(const float* x, float* y, int64_t count, float s, float t,
                                   bool relu) {
  if (relu) {
    for (int64_t i = 0; i < count; ++i) {
      const float v = x[i] * s + t;
      y[i] = v > 0.f ? v : 0.f;
    }
  } else {
    for (int64_t i = 0; i < count; ++i) y[i] = x[i] * s + t;
  }
}

// y[p, c] = act(x[p, c] * s[c] + t[c]) over `pixels` rows of `channels` (channels-last, or
// blocked with channels = 8 and s, t the block's).
IOS_VECTOR_CLONES void AffineRows(const float* x, float* y, int64_t pixels, int64_t channels,
                                  const float* s, const float* t, bool relu) {
  for (int64_t p = 0; p < pixels; ++p) {
    const float* in = x + p * channels;
    float* out = y + p * channels;
    if (relu) {
      for (int64_t c = 0; c < channels; ++c) {
        const float v = in[c] * s[c] + t[c];
        out[c] = v > 0.f ? v : 0.f;
      }
    } else {
      for (int64_t c = 0; c < channels; ++c) out[c] = in[c] * s[c] + t[c];
    }
  }
}

// The same over `pixels` rows of one block of 8 channels (channels-blocked-8), with the trip
// count of 8 in sight of the compiler, so that a row is one vector. y may be x (the memory plan
// runs a BN in place, plan/in_place.h): element i is read before it is written.
IOS_VECTOR_CLONES void AffineBlockRows(const float* x, float* y, int64_t pixels, const float* s,
                                       const float* t) {
  for (int64_t p = 0; p < pixels; ++p)
    for (int c = 0; c < 8; ++c) y[p * 8 + c] = x[p * 8 + c] * s[c] + t[c];
}

IOS_VECTOR_CLONES void AffineReluBlockRows(const float* x, float* y, int64_t pixels, const float* s,
                                           const float* t) {
  for (int64_t p = 0; p < pixels; ++p) {
    for (int c = 0; c < 8; ++c) {
      const float v = x[p * 8 + c] * s[c] + t[c];
      y[p * 8 + c] = v > 0.f ? v : 0.f;
    }
  }
}

class BatchNormCpuKernel : public CpuKernel {
 public:
  BatchNormCpuKernel(Dims dims, Layout layout, float epsilon, Activation act,
                     std::vector<const Tensor*> constants)
      : dims_(std::move(dims)), layout_(layout), epsilon_(epsilon), act_(act) {
    channels_ = dims_[1];
    inner_ = 1;
    for (size_t d = 2; d < dims_.size(); ++d) inner_ *= dims_[d];
    bool all_constant = constants.size() == 5;
    for (size_t i = 1; i < constants.size(); ++i) all_constant &= constants[i] != nullptr;
    if (all_constant) {
      Fold(constants[1]->data<float>(), constants[2]->data<float>(), constants[3]->data<float>(),
           constants[4]->data<float>(), &scale_, &shift_);
      folded_ = true;
    }
  }

  Status Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
             int threads) override {
    std::vector<float> run_scale;
    std::vector<float> run_shift;
    const std::vector<float>* s = &scale_;
    const std::vector<float>* t = &shift_;
    if (!folded_) {
      Fold(static_cast<const float*>(inputs[1]), static_cast<const float*>(inputs[2]),
           static_cast<const float*>(inputs[3]), static_cast<const float*>(inputs[4]), &run_scale,
           &run_shift);
      s = &run_scale;
      t = &run_shift;
    }
    const float* x = static_cast<const float*>(inputs[0]);
    float* y = static_cast<float*>(outputs[0]);
    const int64_t batch = dims_[0];
    const int team = ThreadsForWork(threads, batch * channels_ * inner_);
    const bool relu = act_.kind == ActivationKind::kRelu;
    if (layout_ == Layout::kChannelsLast) {
      ParallelFor(batch * inner_, team, [&](int64_t begin, int64_t end) {
        AffineRows(x + begin * channels_, y + begin * channels_, end - begin, channels_, s->data(),
                   t->data(), relu);
        Activate(y + begin * channels_, (end - begin) * channels_);
      });
    } else if (layout_ == Layout::kChannelsBlocked8) {
      // [N, C/8, inner, 8]: each (n, block) is `inner` rows of 8 channels.
      const int64_t blocks = channels_ / 8;
      ParallelFor(batch * blocks, team, [&](int64_t begin, int64_t end) {
        for (int64_t nb = begin; nb < end; ++nb) {
          const int64_t c0 = (nb % blocks) * 8;
          const int64_t offset = nb * inner_ * 8;
          if (relu) {
            AffineReluBlockRows(x + offset, y + offset, inner_, s->data() + c0, t->data() + c0);
          } else {
            AffineBlockRows(x + offset, y + offset, inner_, s->data() + c0, t->data() + c0);
          }
          Activate(y + offset, inner_ * 8);
        }
      });
    } else {
      ParallelFor(batch * channels_, team, [&](int64_t begin, int64_t end) {
        for (int64_t nc = begin; nc < end; ++nc) {
          const int64_t c = nc % channels_;
          AffinePlane(x + nc * inner_, y + nc * inner_, inner_, (*s)[c], (*t)[c], relu);
          Activate(y + nc * inner_, inner_);
        }
      });
    }
    return Status::Ok();
  }

 private:
  // s = scale / sqrt(var + epsilon), t = B - mean * s, in double as the reference.
  void Fold(const float* scale, const float* bias, const float* mean, const float* var,
            std::vector<float>* s, std::vector<float>* t) const {
    s->resize(static_cast<size_t>(channels_));
    t->resize(static_cast<size_t>(channels_));
    for (int64_t c = 0; c < channels_; ++c) {
      const double inv_std = 1.0 / std::sqrt(static_cast<double>(var[c]) + epsilon_);
      const double sc = static_cast<double>(scale[c]) * inv_std;
      (*s)[c] = static_cast<float>(sc);
      (*t)[c] = static_cast<float>(static_cast<double>(bias[c]) - mean[c] * sc);
    }
  }

  // Any fused activation but Relu (which the loops apply), in place.
  void Activate(float* y, int64_t count) const {
    if (act_.kind == ActivationKind::kNone || act_.kind == ActivationKind::kRelu) return;
    for (int64_t i = 0; i < count; ++i) y[i] = ApplyActivation(act_, y[i]);
  }

  Dims dims_;
  Layout layout_;
  float epsilon_;
  Activation act_;
  int64_t channels_ = 0;
  int64_t inner_ = 1;
  bool folded_ = false;
  std::vector<float> scale_;  // s and t, when the parameters are constants
  std::vector<float> shift_;
};

}  // namespace

bool BatchNormTakesLayouts(const CpuKernelContext& context) {
  if (context.node == nullptr || context.input_types.empty() || context.output_types.empty() ||
      context.input_types[0].dtype != DType::kFloat32)
    return false;
  // Training mode runs the reference kernel: row-major.
  StatusOr<int64_t> training = context.node->attrs.GetInt("training_mode", 0);
  if (!training.ok() || training.value() != 0) return false;
  const Layout x = context.input_layout(0);
  const Layout y = context.output_layout(0);
  if (x != y) return false;
  for (size_t i = 1; i < context.input_types.size(); ++i)
    if (context.input_layout(i) != Layout::kRowMajor) return false;
  return x != Layout::kChannelsBlocked8 || HasChannelsBlocked8Form(context.input_types[0].dims);
}

StatusOr<std::unique_ptr<CpuKernel>> CreateBatchNormCpuKernel(const CpuKernelContext& context) {
  const Node& node = *context.node;
  // Training mode, other dtypes and malformed nodes: the reference kernel's.
  StatusOr<int64_t> training = node.attrs.GetInt("training_mode", 0);
  StatusOr<float> epsilon = node.attrs.GetFloat("epsilon", 1e-5f);
  if (!training.ok() || training.value() != 0 || !epsilon.ok() || context.input_types.size() != 5 ||
      context.output_types.size() != 1)
    return std::unique_ptr<CpuKernel>();
  const TensorType& x = context.input_types[0];
  if (x.dtype != DType::kFloat32 || x.dims.size() < 2 || context.output_types[0].dims != x.dims)
    return std::unique_ptr<CpuKernel>();
  for (size_t i = 1; i < 5; ++i)
    if (context.input_types[i].dtype != DType::kFloat32 ||
        context.input_types[i].dims != Dims{x.dims[1]})
      return std::unique_ptr<CpuKernel>();
  // Both layouts are one (BatchNormTakesLayouts); a layout that is row-major for these dims
  // walks as row-major.
  Layout layout = context.input_layout(0);
  if (layout == Layout::kChannelsLast && ChannelsLastIsRowMajor(x.dims)) layout = Layout::kRowMajor;
  std::vector<const Tensor*> constants = context.constants;
  constants.resize(5, nullptr);
  return std::unique_ptr<CpuKernel>(new BatchNormCpuKernel(
      x.dims, layout, epsilon.value(), GetFusedActivation(node.attrs), std::move(constants)));
}

}  // namespace ios

// Sigmoid and SiLU over float arrays, vectorised: the CPU's standalone Sigmoid and SiLU and the
// SiLU or Sigmoid after a conv on AVX-512 CPUs (there oneDNN 2.6's swish and logistic post-ops
// cost 1.2-1.6 ms on EfficientNet-B0's 3.6M-element batch-8 depthwise output, this pass about
// 0.7 ms; SigmoidPostOpsBeatOwnPass).
#pragma once

#include <cstdint>

namespace ios {

// out[i] = 1 / (1 + exp(-in[i])); in == out is allowed.
void SigmoidLoop(const float* in, float* out, int64_t count);
// out[i] = in[i] * Sigmoid(in[i]); in == out is allowed.
void SiluLoop(const float* in, float* out, int64_t count);

}  // namespace ios

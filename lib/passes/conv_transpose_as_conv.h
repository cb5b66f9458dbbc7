// A ConvTranspose of stride 1 on every axis (no output padding) is the Conv whose weights are
// its own with each group's input and output channels swapped and the window flipped, padded
// by (k - 1)·d - p on each side: output position o sums x[o + p - t·d] · W[t] over the taps t,
// which is the convolution with the flipped window. Convs are what every backend runs fastest
// (oneDNN's brgconv, cuDNN's forward algorithms; a 16 -> 1 channel 3x3 ConvTranspose at 640x640
// took oneDNN's deconvolution 6.8 ms on NHWC), and the passes after this one (BatchNormalization
// folding, activation fusion, layouts, merges) know Convs. The rewrite needs constant weights,
// and pads no larger than (k - 1)·d (a Conv pads by a non-negative amount); other ConvTransposes
// stay.
#pragma once

#include "ir/graph.h"

namespace ios {

// Shapes must be inferred. Returns the number of ConvTransposes rewritten.
int RewriteStrideOneConvTransposes(Graph& graph);

}  // namespace ios

"""MobileNetV3-Large (Howard et al., "Searching for MobileNetV3", 2019).

Input 3x224x224, width multiplier 1.0.  BatchNorm is folded into each conv's bias
(the builder's convention); h-swish is one HardSwish node and the squeeze-and-excitation
gate one HardSigmoid (alpha 1/6, beta 0.5), as PyTorch exports nn.Hardswish and
F.hardsigmoid at opset 14 and later.  Table 1 of the paper:

* stem: conv 3x3/16 stride 2, h-swish -> 16x112x112;
* 15 bneck blocks, rows (kernel, expanded channels, output channels, SE, activation,
  stride) below.  A block is an expansion conv 1x1 to the expanded channels with the
  activation (absent when they equal the input's, the first block), a depthwise conv
  k x k (pad k // 2) with the activation, squeeze-and-excitation where marked
  (GlobalAveragePool, conv 1x1 to the expanded channels / 4 rounded to a multiple of 8,
  ReLU, conv 1x1 back, HardSigmoid, Mul broadcast over H x W), and a linear projection
  conv 1x1; the block input is added when the stride is 1 and the channels match;
* head: conv 1x1/960 with h-swish -> 960x7x7; global average pool, Flatten, Gemm to
  1280 with h-swish, Gemm to 1000 classes (dropout is the identity at inference).

Output: [N, 1000] logits.  5.48M parameters (5,483,032 with BN's gamma and beta, as
torchvision's mobilenet_v3_large).
"""

from .onnx_builder import OnnxBuilder

NAME = "mobilenet_v3_large"
VERSION = "1"
INPUT_SHAPE = (3, 224, 224)
CLASSES = 1000
STEM = 16
HEAD = 960
LAST = 1280
# (kernel, expanded channels, output channels, squeeze-and-excitation, activation, stride)
BLOCKS = [(3, 16, 16, False, "relu", 1), (3, 64, 24, False, "relu", 2), (3, 72, 24, False, "relu", 1),
          (5, 72, 40, True, "relu", 2), (5, 120, 40, True, "relu", 1), (5, 120, 40, True, "relu", 1),
          (3, 240, 80, False, "hardswish", 2), (3, 200, 80, False, "hardswish", 1),
          (3, 184, 80, False, "hardswish", 1), (3, 184, 80, False, "hardswish", 1),
          (3, 480, 112, True, "hardswish", 1), (3, 672, 112, True, "hardswish", 1),
          (5, 672, 160, True, "hardswish", 2), (5, 960, 160, True, "hardswish", 1),
          (5, 960, 160, True, "hardswish", 1)]


def make_divisible(channels, divisor=8):
    """The paper's rounding of channel counts: to the nearest multiple of ``divisor``, never
    more than 10% below ``channels``."""
    rounded = max(divisor, int(channels + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * channels else rounded


def build(seed=0, calibrate=True, **_):
    b = OnnxBuilder(NAME, INPUT_SHAPE, seed, calibrate=calibrate)
    x = b.conv_act(b.input, STEM, 3, stride=2, act="hardswish", name="stem")
    assert x.shape == (STEM, 112, 112), x.shape
    for i, (kernel, hidden, channels, se, act, stride) in enumerate(BLOCKS):
        x = b.inverted_residual(x, None, channels, kernel, stride, act, "block%d" % i, hidden=hidden,
                                squeeze=make_divisible(hidden // 4) if se else 0, se_act="relu",
                                se_gate="hardsigmoid")
    assert x.shape == (160, 7, 7), x.shape
    x = b.conv_act(x, HEAD, 1, act="hardswish", name="head")
    p = b.global_avgpool(x, "fc/avgpool")
    x = b.gemm(b.flatten(p, "fc/flatten"), LAST, "fc/hidden")
    x = b.hardswish(x, "fc/hidden/hardswish")
    out = b.gemm(x, CLASSES, "fc")
    return b.make_model(out, doc_string="MobileNetV3-Large 1.0 (Howard et al. 2019), BatchNorm folded into the convs")

"""MobileNetV2 (Sandler et al., "MobileNetV2: Inverted Residuals and Linear Bottlenecks", 2018).

Input 3x224x224, width multiplier 1.0.  BatchNorm is folded into each conv's bias
(the builder's convention).  Table 2 of the paper:

* stem: conv 3x3/32 stride 2, ReLU6 (Clip 0..6) -> 32x112x112;
* 17 inverted residual blocks, rows (t, c, n, s) = (1, 16, 1, 1), (6, 24, 2, 2),
  (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1): the first
  block of a row has stride s, the others stride 1.  A block is an expansion conv 1x1 to
  t * C_in channels with ReLU6 (absent when t = 1), a depthwise conv 3x3 (group =
  channels, pad 1) with ReLU6, and a linear bottleneck conv 1x1 to c channels (no
  activation); the block input is added (Add) when the stride is 1 and C_in = c;
* conv 1x1/1280, ReLU6 -> 1280x7x7; global average pool, Flatten, Gemm to 1000 classes
  (dropout is the identity at inference).

Output: [N, 1000] logits.  3.50M parameters (3,504,872 with BN's gamma and beta).
"""

from .onnx_builder import OnnxBuilder

NAME = "mobilenet_v2"
VERSION = "1"
INPUT_SHAPE = (3, 224, 224)
CLASSES = 1000
# (expansion t, output channels c, repeats n, stride s of the first block)
SETTINGS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
            (6, 320, 1, 1)]


def build(seed=0, calibrate=True, **_):
    b = OnnxBuilder(NAME, INPUT_SHAPE, seed, calibrate=calibrate)
    x = b.conv_act(b.input, 32, 3, stride=2, act="relu6", name="stem")
    assert x.shape == (32, 112, 112), x.shape
    block = 0
    for t, c, n, s in SETTINGS:
        for i in range(n):
            x = b.inverted_residual(x, t, c, 3, s if i == 0 else 1, "relu6", "block%d" % block)
            block += 1
    assert block == 17 and x.shape == (320, 7, 7), (block, x.shape)
    x = b.conv_act(x, 1280, 1, act="relu6", name="head")
    out = b.classifier(x, CLASSES, "fc")
    return b.make_model(out, doc_string="MobileNetV2 1.0 (Sandler et al. 2018), BatchNorm folded into the convs")

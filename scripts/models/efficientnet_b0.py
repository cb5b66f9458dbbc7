"""EfficientNet-B0 (Tan & Le, "EfficientNet: Rethinking Model Scaling for CNNs", 2019).

Input 3x224x224.  BatchNorm is folded into each conv's bias (the builder's convention);
SiLU (Swish) is x * Sigmoid(x), a Sigmoid and a Mul node, as PyTorch exports it.
Table 1 of the paper:

* stem: conv 3x3/32 stride 2, SiLU -> 32x112x112;
* 16 MBConv blocks in 7 stages, rows (expansion, kernel, stride, channels, layers) =
  (1, 3, 1, 16, 1), (6, 3, 2, 24, 2), (6, 5, 2, 40, 2), (6, 3, 2, 80, 3), (6, 5, 1, 112, 3),
  (6, 5, 2, 192, 4), (6, 3, 1, 320, 1); the first block of a stage has its stride.  A
  block: expansion conv 1x1 to e * C_in with SiLU (absent when e = 1), depthwise conv
  k x k (pad k // 2) with SiLU, squeeze-and-excitation with ratio 0.25 of the block's
  input channels (GlobalAveragePool, conv 1x1 to C_in / 4 with SiLU, conv 1x1 back to
  e * C_in, Sigmoid, Mul broadcast over H x W), projection conv 1x1 to the stage's
  channels (linear); the block input is added when the stride is 1 and the channels
  match (stochastic depth is the identity at inference);
* head: conv 1x1/1280 with SiLU -> 1280x7x7; global average pool, Flatten, Gemm to
  1000 classes (dropout is the identity at inference).

Output: [N, 1000] logits.  5.29M parameters (5,288,548 with BN's gamma and beta).
"""

from .onnx_builder import OnnxBuilder

NAME = "efficientnet_b0"
VERSION = "1"
INPUT_SHAPE = (3, 224, 224)
CLASSES = 1000
STEM = 32
HEAD = 1280
SE_RATIO = 0.25
# (expansion, kernel, stride of the first block, output channels, layers)
STAGES = [(1, 3, 1, 16, 1), (6, 3, 2, 24, 2), (6, 5, 2, 40, 2), (6, 3, 2, 80, 3), (6, 5, 1, 112, 3),
          (6, 5, 2, 192, 4), (6, 3, 1, 320, 1)]


def build(seed=0, calibrate=True, **_):
    b = OnnxBuilder(NAME, INPUT_SHAPE, seed, calibrate=calibrate)
    x = b.conv_act(b.input, STEM, 3, stride=2, act="silu", name="stem")
    assert x.shape == (STEM, 112, 112), x.shape
    block = 0
    for expansion, kernel, stride, channels, layers in STAGES:
        for i in range(layers):
            x = b.inverted_residual(x, expansion, channels, kernel, stride if i == 0 else 1, "silu",
                                    "block%d" % block, squeeze=max(1, int(x.channels * SE_RATIO)))
            block += 1
    assert block == 16 and x.shape == (320, 7, 7), (block, x.shape)
    x = b.conv_act(x, HEAD, 1, act="silu", name="head")
    out = b.classifier(x, CLASSES, "fc")
    return b.make_model(out, doc_string="EfficientNet-B0 (Tan & Le 2019), BatchNorm folded into the convs")

"""ResNet-50 (He et al., "Deep Residual Learning for Image Recognition", 2016), v1.5.

Input 3x224x224.  BatchNorm is folded into each conv's bias (the builder's convention).
Table 1 of the paper, with the stride of a downsampling bottleneck on its 3x3 conv
(v1.5, as torchvision has it) instead of on its first 1x1:

* stem: conv 7x7/64 stride 2 pad 3, ReLU -> 64x112x112; max pool 3x3 stride 2 pad 1
  -> 64x56x56;
* four stages of [3, 4, 6, 3] bottleneck blocks of width 64, 128, 256, 512 (output 4 x
  width); stages 2 to 4 start with stride 2.  A block: conv 1x1/width, ReLU; conv
  3x3/width (stride of the block, pad 1), ReLU; conv 1x1/4 width (no activation); the
  shortcut is the block input, or a projection conv 1x1/4 width with the block's stride
  on the first block of a stage; Add, then ReLU;
* global average pool, Flatten, Gemm 2048 -> 1000.

Output: [N, 1000] logits.  25.56M parameters (25,557,032 with BN's gamma and beta).
"""

from .onnx_builder import OnnxBuilder

NAME = "resnet50"
VERSION = "1"
INPUT_SHAPE = (3, 224, 224)
CLASSES = 1000
EXPANSION = 4
# (blocks, width, stride of the first block)
STAGES = [(3, 64, 1), (4, 128, 2), (6, 256, 2), (3, 512, 2)]


def _bottleneck(b, x, width, stride, n):
    out_channels = width * EXPANSION
    y = b.conv(x, width, 1, name=n + "/conv1")
    y = b.conv(y, width, 3, stride=stride, pad=1, name=n + "/conv2")
    y = b.conv(y, out_channels, 1, act="identity", name=n + "/conv3")
    shortcut = x
    if stride != 1 or x.channels != out_channels:
        shortcut = b.conv(x, out_channels, 1, stride=stride, act="identity", name=n + "/downsample")
    return b.relu(b.add(y, shortcut, n + "/add"), n + "/relu")


def build(seed=0, calibrate=True, **_):
    b = OnnxBuilder(NAME, INPUT_SHAPE, seed, calibrate=calibrate)
    x = b.conv(b.input, 64, 7, stride=2, pad=3, name="conv1")
    x = b.maxpool(x, 3, 2, pad=1, name="maxpool")
    assert x.shape == (64, 56, 56), x.shape
    for stage, (blocks, width, stride) in enumerate(STAGES, start=1):
        for i in range(blocks):
            x = _bottleneck(b, x, width, stride if i == 0 else 1, "layer%d.%d" % (stage, i))
    assert x.shape == (2048, 7, 7), x.shape
    out = b.classifier(x, CLASSES, "fc")
    return b.make_model(out, doc_string="ResNet-50 v1.5 (He et al. 2016), BatchNorm folded into the convs")

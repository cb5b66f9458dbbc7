"""ShuffleNetV2 1.0x (Ma et al., "ShuffleNet V2: Practical Guidelines for Efficient CNN
Architecture Design", 2018).

Input 3x224x224.  BatchNorm is folded into each conv's bias (the builder's convention).
Table 5 of the paper, 1x column:

* conv1 3x3/24 stride 2 pad 1, ReLU -> 24x112x112; max pool 3x3 stride 2 pad 1 -> 56x56;
* stages 2, 3, 4 of [4, 8, 4] units with [116, 232, 464] output channels; the first unit
  of a stage has stride 2 (Figure 3d), the others stride 1 (Figure 3c).  Each branch
  has B = out / 2 channels: conv 1x1/B with ReLU, depthwise conv 3x3 (group = channels,
  pad 1, no activation), conv 1x1/B with ReLU.  A stride-1 unit splits its input into
  two halves (Split, axis 1): the first passes through, the second goes through the
  branch.  A stride-2 unit feeds its whole input to the branch and to a second one:
  depthwise conv 3x3 stride 2 (no activation), conv 1x1/B with ReLU.  The two halves
  are concatenated (passthrough or second branch first) and channel-shuffled with 2
  groups: Reshape [N, 2, C/2, H, W], Transpose (0, 2, 1, 3, 4), Reshape [N, C, H, W];
* conv5 1x1/1024, ReLU -> 1024x7x7; global average pool, Flatten, Gemm 1024 -> 1000.

Output: [N, 1000] logits.  2.28M parameters (2,278,604 with BN's gamma and beta).
"""

from .onnx_builder import OnnxBuilder

NAME = "shufflenet_v2"
VERSION = "1"
INPUT_SHAPE = (3, 224, 224)
CLASSES = 1000
STEM = 24
REPEATS = [4, 8, 4]
CHANNELS = [116, 232, 464]
CONV5 = 1024
GROUPS = 2


def _branch(b, x, channels, stride, n):
    y = b.conv(x, channels, 1, name=n + "/pw1")
    y = b.conv(y, channels, 3, stride=stride, pad=1, group=channels, act="identity", name=n + "/dw")
    return b.conv(y, channels, 1, name=n + "/pw2")


def _unit(b, x, out_channels, stride, n):
    half = out_channels // 2
    if stride == 1:
        assert x.channels == out_channels, (n, x.shape)
        left, right = b.split(x, [half, half], n + "/split")
        right = _branch(b, right, half, 1, n + "/branch2")
    else:
        left = b.conv(x, x.channels, 3, stride=stride, pad=1, group=x.channels, act="identity",
                      name=n + "/branch1/dw")
        left = b.conv(left, half, 1, name=n + "/branch1/pw")
        right = _branch(b, x, half, stride, n + "/branch2")
    y = b.concat([left, right], n + "/concat")
    return b.channel_shuffle(y, GROUPS, n + "/shuffle")


def build(seed=0, calibrate=True, **_):
    b = OnnxBuilder(NAME, INPUT_SHAPE, seed, calibrate=calibrate)
    x = b.conv(b.input, STEM, 3, stride=2, pad=1, name="conv1")
    x = b.maxpool(x, 3, 2, pad=1, name="maxpool")
    assert x.shape == (STEM, 56, 56), x.shape
    for stage, (repeats, channels) in enumerate(zip(REPEATS, CHANNELS), start=2):
        for i in range(repeats):
            x = _unit(b, x, channels, 2 if i == 0 else 1, "stage%d.%d" % (stage, i))
    assert x.shape == (CHANNELS[-1], 7, 7), x.shape
    x = b.conv(x, CONV5, 1, name="conv5")
    out = b.classifier(x, CLASSES, "fc")
    return b.make_model(out, doc_string="ShuffleNetV2 1.0x (Ma et al. 2018), BatchNorm folded into the convs")

"""GoogLeNet / Inception v1 (Szegedy et al., "Going Deeper with Convolutions", 2015).

Input 3x224x224; convs with bias and ReLU, as in the paper.  Table 1 of the paper:

* conv 7x7/64 stride 2 pad 3 -> 64x112x112; max pool 3x3 stride 2 -> 56x56;
  conv 1x1/64, conv 3x3/192 pad 1 -> 192x56x56; max pool 3x3 stride 2 -> 28x28;
* inception 3a, 3b; max pool -> 14x14; 4a to 4e; max pool -> 7x7; 5a, 5b -> 1024x7x7.
  A module has four branches, concatenated in this order: conv 1x1; conv 1x1 ("3x3
  reduce") -> conv 3x3 pad 1; conv 1x1 ("5x5 reduce") -> conv 5x5 pad 2; max pool 3x3
  stride 1 pad 1 -> conv 1x1 ("pool proj"); channel counts from Table 1 (MODULES);
* average pool 7x7 (a global average pool), Flatten, Gemm 1024 -> 1000 (dropout is the
  identity at inference).

The max pools between stages pad 1 (the paper gives only their sizes; this reproduces
them, as Caffe's ceil rounding does).  Left out: the two auxiliary classifiers (used
only in training) and the local response normalisations after the first max pool and
the 3x3 conv (not supported by ios and dropped by every later port).

Output: [N, 1000] logits.  7.00M parameters (6,998,552).  Table 1's parameter column
counts this network in units of 1024 and sums to about 6.8 of those "M".  The 6.62M
often quoted is torchvision's GoogLeNet, whose "5x5" branch has a 3x3 conv (a known
porting slip kept for its weights, pytorch/vision#906); this generator follows the paper.
"""

from .onnx_builder import OnnxBuilder

NAME = "googlenet"
VERSION = "1"
INPUT_SHAPE = (3, 224, 224)
CLASSES = 1000
# name: (#1x1, #3x3 reduce, #3x3, #5x5 reduce, #5x5, pool proj), Table 1; None = max pool.
MODULES = [
    ("inception3a", (64, 96, 128, 16, 32, 32)),
    ("inception3b", (128, 128, 192, 32, 96, 64)),
    ("maxpool3", None),
    ("inception4a", (192, 96, 208, 16, 48, 64)),
    ("inception4b", (160, 112, 224, 24, 64, 64)),
    ("inception4c", (128, 128, 256, 24, 64, 64)),
    ("inception4d", (112, 144, 288, 32, 64, 64)),
    ("inception4e", (256, 160, 320, 32, 128, 128)),
    ("maxpool4", None),
    ("inception5a", (256, 160, 320, 32, 128, 128)),
    ("inception5b", (384, 192, 384, 48, 128, 128)),
]


def _inception(b, x, channels, n):
    c1, c3r, c3, c5r, c5, cp = channels
    b1 = b.conv(x, c1, 1, name=n + "/branch1x1")
    b3 = b.conv(x, c3r, 1, name=n + "/branch3x3_reduce")
    b3 = b.conv(b3, c3, 3, pad=1, name=n + "/branch3x3")
    b5 = b.conv(x, c5r, 1, name=n + "/branch5x5_reduce")
    b5 = b.conv(b5, c5, 5, pad=2, name=n + "/branch5x5")
    bp = b.maxpool(x, 3, 1, pad=1, name=n + "/branch_pool/maxpool")
    bp = b.conv(bp, cp, 1, name=n + "/branch_pool")
    return b.concat([b1, b3, b5, bp], n + "/concat")


def build(seed=0, calibrate=True, **_):
    b = OnnxBuilder(NAME, INPUT_SHAPE, seed, calibrate=calibrate)
    x = b.conv(b.input, 64, 7, stride=2, pad=3, name="conv1")
    x = b.maxpool(x, 3, 2, pad=1, name="maxpool1")
    x = b.conv(x, 64, 1, name="conv2_reduce")
    x = b.conv(x, 192, 3, pad=1, name="conv2")
    x = b.maxpool(x, 3, 2, pad=1, name="maxpool2")
    assert x.shape == (192, 28, 28), x.shape
    for n, channels in MODULES:
        x = b.maxpool(x, 3, 2, pad=1, name=n) if channels is None else _inception(b, x, channels, n)
    assert x.shape == (1024, 7, 7), x.shape
    out = b.classifier(x, CLASSES, "fc")
    return b.make_model(out, doc_string="GoogLeNet / Inception v1 (Szegedy et al. 2015), no auxiliary heads")

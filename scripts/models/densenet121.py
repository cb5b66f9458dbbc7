"""DenseNet-121 (Huang et al., "Densely Connected Convolutional Networks", 2017), DenseNet-BC.

Input 3x224x224, growth rate k = 32, bottleneck width 4k, compression 0.5.  Table 1 of
the paper:

* stem: conv 7x7/64 stride 2 pad 3, ReLU -> 64x112x112; max pool 3x3 stride 2 pad 1
  -> 64x56x56;
* four dense blocks of [6, 12, 24, 16] layers.  Layer i of a block reads the Concat
  (axis 1) of the block input and the i - 1 layers' outputs before it (the first layer
  reads the block input itself) and computes BN -> ReLU -> conv 1x1/4k -> BN -> ReLU ->
  conv 3x3/k (pad 1); the block's output is the Concat of its input and all its layers'
  outputs;
* a transition after blocks 1 to 3: BN -> ReLU -> conv 1x1 to half the channels ->
  average pool 2x2 stride 2;
* BN -> ReLU -> global average pool, Flatten, Gemm 1024 -> 1000.

A BN that follows a conv directly (the stem's, each layer's second) is folded into that
conv's bias, the builder's convention.  A pre-activation BN that reads a Concat (each
layer's first, the transitions', the final one) cannot be folded: it is a per-channel
Mul and Add by C x 1 x 1 constants (OnnxBuilder.channel_affine), BN's inference form,
with BN's 2 parameters per channel.

Output: [N, 1000] logits.  7.98M parameters (7,978,856 with BN's gamma and beta).
"""

from .onnx_builder import OnnxBuilder

NAME = "densenet121"
VERSION = "1"
INPUT_SHAPE = (3, 224, 224)
CLASSES = 1000
GROWTH = 32
BOTTLENECK = 4
BLOCKS = [6, 12, 24, 16]
STEM = 64


def _bn_relu(b, x, n):
    return b.relu(b.channel_affine(x, n + "/norm"), n + "/relu")


def _dense_layer(b, features, n):
    x = features[0] if len(features) == 1 else b.concat(features, n + "/concat")
    y = _bn_relu(b, x, n + "/1")
    y = b.conv(y, BOTTLENECK * GROWTH, 1, name=n + "/conv1")
    return b.conv(y, GROWTH, 3, pad=1, act="identity", name=n + "/conv2")


def _dense_block(b, x, layers, n):
    features = [x]
    for i in range(1, layers + 1):
        features.append(_dense_layer(b, features, "%s/layer%d" % (n, i)))
    return b.concat(features, n + "/concat")


def _transition(b, x, n):
    y = _bn_relu(b, x, n)
    y = b.conv(y, x.channels // 2, 1, act="identity", name=n + "/conv")
    return b.avgpool(y, 2, 2, name=n + "/pool")


def build(seed=0, calibrate=True, **_):
    b = OnnxBuilder(NAME, INPUT_SHAPE, seed, calibrate=calibrate)
    x = b.conv(b.input, STEM, 7, stride=2, pad=3, name="conv0")
    x = b.maxpool(x, 3, 2, pad=1, name="pool0")
    assert x.shape == (STEM, 56, 56), x.shape
    for i, layers in enumerate(BLOCKS, start=1):
        x = _dense_block(b, x, layers, "denseblock%d" % i)
        if i != len(BLOCKS):
            x = _transition(b, x, "transition%d" % i)
    assert x.shape == (1024, 7, 7), x.shape
    x = _bn_relu(b, x, "norm5")
    out = b.classifier(x, CLASSES, "fc")
    return b.make_model(out, doc_string="DenseNet-121 (Huang et al. 2017); BatchNorm after a conv folded into "
                                        "it, pre-activation BatchNorm as per-channel Mul + Add")

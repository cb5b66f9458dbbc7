"""SqueezeNet with complex bypass, as the IOS reference defines it.

Input 3x224x224.  front: conv96 7x7 s2 p3 + maxpool 3x3 s2; eight fire modules
(squeeze 1x1, expand 3x3 p1 and expand 1x1 on the squeeze, concat [3x3, 1x1],
exit = Sum(concat, bypass) where the bypass is the block input when it already
has 2*ex channels, otherwise a conv 1x1/2ex (relu) of it); two maxpools;
tail conv1000 1x1 (relu) -> global average pool.  Output 1000x1x1.
"""

from .onnx_builder import OnnxBuilder

NAME = "squeezenet"
VERSION = "1"
INPUT_SHAPE = (3, 224, 224)


def _fire(b, x, squeeze, expand, n):
    s = b.conv(x, squeeze, 1, name=n + "/squeeze")
    e3 = b.conv(s, expand, 3, pad=1, name=n + "/expand3x3")
    e1 = b.conv(s, expand, 1, name=n + "/expand1x1")
    cat = b.aggregate([[e3], [e1]], n + "/concat")
    if x.channels == 2 * expand:
        bypass = x
    else:
        bypass = b.conv(x, 2 * expand, 1, name=n + "/bypass")
    return b.aggregate([[cat, bypass]], n + "/sum")


def build(seed=0, calibrate=True, **_):
    b = OnnxBuilder(NAME, INPUT_SHAPE, seed, calibrate=calibrate)
    x = b.conv(b.input, 96, 7, stride=2, pad=3, name="conv1")
    x = b.maxpool(x, 3, 2, name="maxpool1")
    assert x.shape == (96, 55, 55), x.shape
    x = _fire(b, x, 16, 64, "fire2")
    x = _fire(b, x, 16, 64, "fire3")
    x = _fire(b, x, 32, 128, "fire4")
    x = b.maxpool(x, 3, 2, name="maxpool4")
    x = _fire(b, x, 32, 128, "fire5")
    x = _fire(b, x, 48, 192, "fire6")
    x = _fire(b, x, 48, 192, "fire7")
    x = _fire(b, x, 64, 256, "fire8")
    x = b.maxpool(x, 3, 2, name="maxpool8")
    x = _fire(b, x, 64, 256, "fire9")
    assert x.shape == (512, 13, 13), x.shape
    x = b.conv(x, 1000, 1, name="conv10")
    out = b.global_avgpool(x, "avgpool")
    return b.make_model(out, doc_string="SqueezeNet with complex bypass (IOS reference definition)")

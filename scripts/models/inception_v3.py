"""Inception V3 as the IOS reference defines it (no BatchNorm, conv + bias + relu).

Input 3x299x299; blocks front, A x3, B, C x4, D, E x2, head (global average
pool); output 2048x1x1.  Average pools count padding.  Branch and node order
follow the reference's definition order.
"""

from .onnx_builder import OnnxBuilder

NAME = "inception_v3"
VERSION = "1"
INPUT_SHAPE = (3, 299, 299)


def _front(b, x):
    x = b.conv(x, 32, 3, stride=2, name="Conv2d_1a_3x3")  # 32x149x149
    x = b.conv(x, 32, 3, name="Conv2d_2a_3x3")  # 32x147x147
    x = b.conv(x, 64, 3, pad=1, name="Conv2d_2b_3x3")  # 64x147x147
    x = b.maxpool(x, 3, 2, name="maxpool1")  # 64x73x73
    x = b.conv(x, 80, 1, name="Conv2d_3b_1x1")  # 80x73x73
    x = b.conv(x, 192, 3, name="Conv2d_4a_3x3")  # 192x71x71
    return b.maxpool(x, 3, 2, name="maxpool2")  # 192x35x35


def _block_a(b, x, pool_features, n):
    b1 = b.conv(x, 64, 1, name=n + "/branch1x1")
    b5 = b.conv(x, 48, 1, name=n + "/branch5x5_1")
    b5 = b.conv(b5, 64, 5, pad=2, name=n + "/branch5x5_2")
    b3 = b.conv(x, 64, 1, name=n + "/branch3x3dbl_1")
    b3 = b.conv(b3, 96, 3, pad=1, name=n + "/branch3x3dbl_2")
    b3 = b.conv(b3, 96, 3, pad=1, name=n + "/branch3x3dbl_3")
    bp = b.avgpool(x, 3, 1, pad=1, name=n + "/branch_pool/avgpool")
    bp = b.conv(bp, pool_features, 1, name=n + "/branch_pool")
    return b.aggregate([[b1], [b5], [b3], [bp]], n + "/concat")


def _block_b(b, x, n):
    b3 = b.conv(x, 384, 3, stride=2, name=n + "/branch3x3")
    bd = b.conv(x, 64, 1, name=n + "/branch3x3dbl_1")
    bd = b.conv(bd, 96, 3, pad=1, name=n + "/branch3x3dbl_2")
    bd = b.conv(bd, 96, 3, stride=2, name=n + "/branch3x3dbl_3")
    bp = b.maxpool(x, 3, 2, name=n + "/branch_pool/maxpool")
    return b.aggregate([[b3], [bd], [bp]], n + "/concat")


def _block_c(b, x, c7, n):
    b1 = b.conv(x, 192, 1, name=n + "/branch1x1")
    b7 = b.conv(x, c7, 1, name=n + "/branch7x7_1")
    b7 = b.conv(b7, c7, (1, 7), pad=(0, 3), name=n + "/branch7x7_2")
    b7 = b.conv(b7, 192, (7, 1), pad=(3, 0), name=n + "/branch7x7_3")
    bd = b.conv(x, c7, 1, name=n + "/branch7x7dbl_1")
    bd = b.conv(bd, c7, (7, 1), pad=(3, 0), name=n + "/branch7x7dbl_2")
    bd = b.conv(bd, c7, (1, 7), pad=(0, 3), name=n + "/branch7x7dbl_3")
    bd = b.conv(bd, c7, (7, 1), pad=(3, 0), name=n + "/branch7x7dbl_4")
    bd = b.conv(bd, 192, (1, 7), pad=(0, 3), name=n + "/branch7x7dbl_5")
    bp = b.avgpool(x, 3, 1, pad=1, name=n + "/branch_pool/avgpool")
    bp = b.conv(bp, 192, 1, name=n + "/branch_pool")
    return b.aggregate([[b1], [b7], [bd], [bp]], n + "/concat")


def _block_d(b, x, n):
    b3 = b.conv(x, 192, 1, name=n + "/branch3x3_1")
    b3 = b.conv(b3, 320, 3, stride=2, name=n + "/branch3x3_2")
    b7 = b.conv(x, 192, 1, name=n + "/branch7x7x3_1")
    b7 = b.conv(b7, 192, (1, 7), pad=(0, 3), name=n + "/branch7x7x3_2")
    b7 = b.conv(b7, 192, (7, 1), pad=(3, 0), name=n + "/branch7x7x3_3")
    b7 = b.conv(b7, 192, 3, stride=2, name=n + "/branch7x7x3_4")
    bp = b.maxpool(x, 3, 2, name=n + "/branch_pool/maxpool")
    return b.aggregate([[b3], [b7], [bp]], n + "/concat")


def _block_e(b, x, n):
    b1 = b.conv(x, 320, 1, name=n + "/branch1x1")
    b3 = b.conv(x, 384, 1, name=n + "/branch3x3_1")
    b3a = b.conv(b3, 384, (1, 3), pad=(0, 1), name=n + "/branch3x3_2a")
    b3b = b.conv(b3, 384, (3, 1), pad=(1, 0), name=n + "/branch3x3_2b")
    bd = b.conv(x, 448, 1, name=n + "/branch3x3dbl_1")
    bd = b.conv(bd, 384, 3, pad=1, name=n + "/branch3x3dbl_2")
    bda = b.conv(bd, 384, (1, 3), pad=(0, 1), name=n + "/branch3x3dbl_3a")
    bdb = b.conv(bd, 384, (3, 1), pad=(1, 0), name=n + "/branch3x3dbl_3b")
    bp = b.avgpool(x, 3, 1, pad=1, name=n + "/branch_pool/avgpool")
    bp = b.conv(bp, 192, 1, name=n + "/branch_pool")
    return b.aggregate([[b1], [b3a], [b3b], [bda], [bdb], [bp]], n + "/concat")


def build(seed=0, calibrate=True, **_):
    b = OnnxBuilder(NAME, INPUT_SHAPE, seed, calibrate=calibrate)
    x = _front(b, b.input)
    assert x.shape == (192, 35, 35), x.shape
    for n, pf in (("Mixed_5b", 32), ("Mixed_5c", 64), ("Mixed_5d", 64)):
        x = _block_a(b, x, pf, n)
    assert x.shape == (288, 35, 35), x.shape
    x = _block_b(b, x, "Mixed_6a")
    assert x.shape == (768, 17, 17), x.shape
    for n, c7 in (("Mixed_6b", 128), ("Mixed_6c", 160), ("Mixed_6d", 160), ("Mixed_6e", 192)):
        x = _block_c(b, x, c7, n)
    x = _block_d(b, x, "Mixed_7a")
    assert x.shape == (1280, 8, 8), x.shape
    x = _block_e(b, x, "Mixed_7b")
    x = _block_e(b, x, "Mixed_7c")
    assert x.shape == (2048, 8, 8), x.shape
    out = b.global_avgpool(x, "avgpool")
    return b.make_model(out, doc_string="Inception V3 (IOS reference definition, no BatchNorm)")

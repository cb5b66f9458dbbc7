"""A segmentation-style decoder whose time goes to its transposed convolutions, as in U-Net
decoders and text detectors' heads (DBNet: ConvTranspose 2x2 stride 2 twice, then Sigmoid).

Input [N, 64, 80, 80] (a backbone's stride-8 feature map) -> ConvTranspose 2x2 s2 (64) + ReLU
-> 160x160 -> ConvTranspose 2x2 s2 (32) + ReLU -> 320x320 -> ConvTranspose 4x4 s2 pad 1 (16) +
ReLU -> 640x640 -> ConvTranspose 3x3 s1 pad 1 (1) + Sigmoid: a probability map at 640x640. The
model's files are made at test time, never committed.
"""

from .onnx_builder import OnnxBuilder

NAME = "upsampling_decoder"
VERSION = "1"
INPUT_SHAPE = (64, 80, 80)


def build(seed=0, calibrate=True, **_):
    b = OnnxBuilder(NAME, INPUT_SHAPE, seed, calibrate=calibrate)
    x = b.relu(b.conv_transpose(b.input, 64, 2, 2, name="up1"), name="up1/relu")
    x = b.relu(b.conv_transpose(x, 32, 2, 2, name="up2"), name="up2/relu")
    x = b.relu(b.conv_transpose(x, 16, 4, 2, pad=1, name="up3"), name="up3/relu")
    x = b.sigmoid(b.conv_transpose(x, 1, 3, 1, pad=1, name="head"), name="probability")
    return b.make_model(x, doc_string="ios upsampling decoder (ConvTranspose-bound)")

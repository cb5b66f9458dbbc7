"""A small fully convolutional detection-style network with free input size, as detection,
segmentation and OCR models are exported: input [N, 3, "height", "width"].

Stem conv 3x3 s2 (16) -> conv 3x3 s2 (32) -> two branches (3x3 and 1x1 convs, 32 each) joined
by Sum with the trunk and concatenated with a maxpool + 3x3 context branch -> 1x1 head (6 channels: box
and class logits per location). Built and calibrated at 64x64; every spatial size that is a
multiple of 4 runs. The model's files are made at test time, never committed.
"""

from .onnx_builder import OnnxBuilder

NAME = "detection_fcn"
VERSION = "1"
INPUT_SHAPE = (3, 64, 64)


def build(seed=0, calibrate=True, **_):
    b = OnnxBuilder(NAME, INPUT_SHAPE, seed, calibrate=calibrate)
    x = b.conv(b.input, 16, 3, stride=2, pad=1, name="stem")
    x = b.conv(x, 32, 3, stride=2, pad=1, name="down")
    wide = b.conv(x, 32, 3, pad=1, name="branch3x3")
    narrow = b.conv(x, 32, 1, name="branch1x1")
    joined = b.aggregate([[x, wide, narrow]], "join")
    context = b.conv(b.maxpool(joined, 3, 1, pad=1, name="pool"), 16, 3, pad=1, name="context")
    cat = b.aggregate([[joined], [context]], "neck")
    head = b.conv(cat, 6, 1, act="identity", name="head")
    model = b.make_model(head, doc_string="ios detection-style FCN with free height and width")
    # Free spatial dims, as exporters write them for detection models.
    for value, names in ((model.graph.input[0], ("N", None, "height", "width")),
                         (model.graph.output[0], ("N", None, "out_height", "out_width"))):
        dims = value.type.tensor_type.shape.dim
        for dim, name in zip(dims, names):
            if name is not None:
                dim.Clear()
                dim.dim_param = name
    return model


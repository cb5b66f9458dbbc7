#!/usr/bin/env python3
"""Small detection-neck models (an FPN with a DBNet-style fused head) for checking Resize and
Upsample against onnxruntime.

    fpn_neck.py --out DIR [--variants NAME,...] [--seed 0]

Every variant is the same network, input [N, 3, 64, 64] (the free_hw variant: [N, 3, "height",
"width"], any height and width that are multiples of 8), with six upsampling sites:

* backbone: three Conv 3x3 stride 2 + Relu (16, 32 and 48 channels): c1 at stride 2, c2 at 4 and
  c3 at 8, and a 1x1 lateral conv (16 channels) on each: l1, l2, l3.
* top-down: p2 = l2 + Up(l3) (site "top_down": scales x2, added); p1 = Conv 1x1(Concat(l1,
  Up(p2))) (site "lateral": resized to l1's size by sizes, concatenated).
* fused head (DBNet's neck): Concat(p1, Up(p2) (site "fuse_2x": scales x2), Up(l3) (site
  "fuse_4x": scales x4)) -> Conv 3x3 (8 channels) = "output" [N, 8, H/2, W/2].
* two side heads where the scale is not a whole number, so that every nearest_mode reads
  different pixels than the others: Conv 3x3 (8) on Up(p2) (site "head": scales x1.5) =
  "p2_head" [N, 8, 3H/8, 3W/8], and Conv 3x3 (8) on l1 resized to 2/3 of its size, rounded down
  (site "aux": sizes, a downsampling; x1.5 by scales where sizes do not exist) = "aux_head".

The sizes are what exporters write: at opsets 11 and 13 the N and C of the resized tensor and
the (scaled) H and W of the tensor it must match, read by Shape/Slice/Mul/Div/Concat (iosc
folds them once the input shape is fixed); at opsets 18 and 19 a constant [H, W] with axes
[2, 3]. Opset 10 Resize and Upsample have no sizes: their "lateral" site uses scales x2, so it
resizes p2 as "fuse_2x" does, and the two need different modes to be two computations (iosc
merges repeated ones into one op).

Variants differ in the opset and in each site's interpolation (VARIANTS). Together the "head"
and "aux" sites cover nearest with every nearest_mode on every coordinate_transformation_mode
(half_pixel, pytorch_half_pixel, align_corners, asymmetric, half_pixel_symmetric), the other
sites tf_half_pixel_for_nn, and both linear and cubic (with exclude_outside and cubic_coeff_a)
appear on every coordinate mode; with scales and sizes, axes and keep_aspect_ratio_policy,
Resize at opsets 10, 11, 13, 18 and 19 and Upsample at opsets 7 and 9. Weights come from
numpy's default_rng(seed); generated at test time, never committed.
"""

import argparse
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SITES = ("top_down", "lateral", "fuse_2x", "fuse_4x", "head", "aux")
INPUT_HW = (64, 64)
COORDINATE_MODES = ("half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                    "half_pixel_symmetric")
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


def nearest(coordinate, rounding):
    return {"mode": "nearest", "coordinate_transformation_mode": coordinate,
            "nearest_mode": rounding}


def linear(coordinate, **extra):
    return dict({"mode": "linear", "coordinate_transformation_mode": coordinate}, **extra)


def cubic(coordinate, **extra):
    return dict({"mode": "cubic", "coordinate_transformation_mode": coordinate}, **extra)


def sites(*configs):
    return dict(zip(SITES, configs))


NEAREST, LINEAR = {"mode": "nearest"}, {"mode": "linear"}

# name: (opset, op, {site: attributes}, free height and width)
VARIANTS = {
    "resize11_nearest": (11, "Resize", sites(
        nearest("asymmetric", "round_prefer_floor"),
        nearest("tf_half_pixel_for_nn", "round_prefer_floor"),
        nearest("tf_half_pixel_for_nn", "ceil"), nearest("half_pixel", "round_prefer_ceil"),
        nearest("asymmetric", "floor"), nearest("asymmetric", "ceil")), False),
    "resize13_nearest_asymmetric": (13, "Resize", sites(
        nearest("asymmetric", "floor"), nearest("asymmetric", "round_prefer_ceil"),
        nearest("asymmetric", "ceil"), nearest("half_pixel", "floor"),
        nearest("asymmetric", "round_prefer_floor"), nearest("asymmetric", "round_prefer_ceil")),
        False),
    "resize13_nearest_half_pixel": (13, "Resize", sites(
        nearest("half_pixel", "round_prefer_floor"), nearest("half_pixel", "ceil"),
        nearest("pytorch_half_pixel", "floor"), nearest("pytorch_half_pixel", "round_prefer_floor"),
        nearest("half_pixel", "round_prefer_floor"), nearest("half_pixel", "round_prefer_ceil")),
        False),
    "resize13_nearest_half_pixel_b": (13, "Resize", sites(
        nearest("align_corners", "round_prefer_floor"), nearest("half_pixel", "floor"),
        nearest("align_corners", "ceil"), nearest("asymmetric", "round_prefer_ceil"),
        nearest("half_pixel", "floor"), nearest("half_pixel", "ceil")), False),
    "resize18_nearest_pytorch": (18, "Resize", sites(
        nearest("pytorch_half_pixel", "round_prefer_ceil"), nearest("pytorch_half_pixel", "ceil"),
        nearest("align_corners", "floor"), nearest("align_corners", "round_prefer_floor"),
        nearest("pytorch_half_pixel", "round_prefer_floor"),
        nearest("pytorch_half_pixel", "round_prefer_ceil")), False),
    "resize18_nearest_pytorch_b": (18, "Resize", sites(
        nearest("asymmetric", "floor"), nearest("pytorch_half_pixel", "floor"),
        nearest("half_pixel", "ceil"), nearest("align_corners", "round_prefer_ceil"),
        nearest("pytorch_half_pixel", "floor"), nearest("pytorch_half_pixel", "ceil")), False),
    "resize19_nearest_align_corners": (19, "Resize", sites(
        nearest("align_corners", "round_prefer_ceil"),
        dict(nearest("align_corners", "floor"), keep_aspect_ratio_policy="not_smaller"),
        nearest("half_pixel_symmetric", "round_prefer_ceil"), nearest("asymmetric", "ceil"),
        nearest("align_corners", "floor"), nearest("align_corners", "round_prefer_ceil")), False),
    "resize19_nearest_align_corners_b": (19, "Resize", sites(
        nearest("half_pixel", "floor"), nearest("align_corners", "ceil"),
        nearest("pytorch_half_pixel", "ceil"), nearest("half_pixel_symmetric", "floor"),
        nearest("align_corners", "ceil"), nearest("align_corners", "round_prefer_floor")), False),
    "resize19_nearest_symmetric": (19, "Resize", sites(
        nearest("half_pixel_symmetric", "round_prefer_floor"),
        dict(nearest("half_pixel_symmetric", "round_prefer_floor"),
             keep_aspect_ratio_policy="not_larger"),
        nearest("half_pixel_symmetric", "ceil"), nearest("asymmetric", "round_prefer_floor"),
        nearest("half_pixel_symmetric", "round_prefer_floor"),
        nearest("half_pixel_symmetric", "round_prefer_ceil")), False),
    "resize19_nearest_symmetric_b": (19, "Resize", sites(
        nearest("asymmetric", "round_prefer_ceil"), nearest("half_pixel_symmetric", "ceil"),
        nearest("pytorch_half_pixel", "round_prefer_ceil"), nearest("half_pixel", "round_prefer_floor"),
        nearest("half_pixel_symmetric", "floor"), nearest("half_pixel_symmetric", "ceil")), False),
    "resize13_linear": (13, "Resize", sites(
        linear("pytorch_half_pixel"), linear("align_corners"), linear("half_pixel"),
        linear("asymmetric"), linear("half_pixel"), linear("pytorch_half_pixel")), False),
    "resize19_linear": (19, "Resize", sites(
        linear("half_pixel"), linear("half_pixel_symmetric", keep_aspect_ratio_policy="not_larger"),
        linear("asymmetric"), linear("half_pixel_symmetric"), linear("align_corners"),
        linear("asymmetric")), False),
    "resize13_cubic": (13, "Resize", sites(
        cubic("half_pixel"), cubic("align_corners"), cubic("asymmetric", exclude_outside=1),
        cubic("pytorch_half_pixel", cubic_coeff_a=-0.5), cubic("half_pixel"),
        cubic("align_corners", exclude_outside=1)), False),
    "resize10": (10, "Resize", sites(NEAREST, LINEAR, NEAREST, NEAREST, NEAREST, LINEAR), False),
    "upsample7": (7, "Upsample", sites(NEAREST, LINEAR, NEAREST, LINEAR, LINEAR, NEAREST), False),
    "upsample9": (9, "Upsample", sites(LINEAR, NEAREST, LINEAR, NEAREST, NEAREST, LINEAR), False),
    # Free height and width (iosc --input-shape), the way DBNet and YOLO necks upsample.
    "resize13_free_hw": (13, "Resize", sites(
        nearest("asymmetric", "floor"), linear("half_pixel"), linear("pytorch_half_pixel"),
        nearest("half_pixel", "round_prefer_floor"), nearest("asymmetric", "round_prefer_ceil"),
        linear("align_corners")), True),
}


# Per site, for the 64 x 64 input: the length of the resized axis and its scale (float) or
# output length (int, sizes). Opset 10 Resize and Upsample use x2 and x1.5 where sizes are.
SITE_AXES = {"top_down": (8, 2.0), "lateral": (16, 32), "fuse_2x": (16, 2.0),
             "fuse_4x": (8, 4.0), "head": (16, 1.5), "aux": (32, 21)}


def covered_nearest_combinations():
    """The (coordinate mode, nearest_mode) pairs that some variant's head or aux site uses."""
    found = set()
    for _, _, configs, _ in VARIANTS.values():
        for site in ("head", "aux"):
            c = configs[site]
            if c.get("mode") == "nearest" and "nearest_mode" in c:
                found.add((c["coordinate_transformation_mode"], c["nearest_mode"]))
    return found


class Builder:
    def __init__(self, opset, op, seed):
        self.opset = opset
        self.op_type = op
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.initializers = []
        self.count = 0

    def name(self, prefix):
        self.count += 1
        return "%s_%d" % (prefix, self.count)

    def const(self, prefix, array, dtype=np.float32):
        name = self.name(prefix)
        self.initializers.append(numpy_helper.from_array(np.asarray(array, dtype=dtype), name))
        return name

    def op(self, op_type, inputs, **attrs):
        out = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, **attrs))
        return out

    def conv(self, x, cin, cout, k, stride=1, relu=False):
        w = self.const("w", self.rng.standard_normal((cout, cin, k, k)) * math.sqrt(2.0 / (cin * k * k)))
        b = self.const("b", 0.05 * self.rng.standard_normal(cout))
        y = self.op("Conv", [x, w, b], kernel_shape=[k, k], strides=[stride, stride],
                    pads=[k // 2] * 4)
        return self.op("Relu", [y]) if relu else y

    def shape_sizes(self, x, like, numerator=1, denominator=1):
        """sizes = x's N and C, and `like`'s H and W times numerator / denominator, read from the
        shapes as PyTorch's export writes F.interpolate(x, size=...)."""
        def dims(t, start, end):
            return self.op("Slice", [self.op("Shape", [t]), self.const("s", [start], np.int64),
                                     self.const("e", [end], np.int64),
                                     self.const("a", [0], np.int64)])
        hw = dims(like, 2, 4)
        if numerator != denominator:
            hw = self.op("Div", [self.op("Mul", [hw, self.const("n", [numerator], np.int64)]),
                                 self.const("d", [denominator], np.int64)])
        return self.op("Concat", [dims(x, 0, 2), hw], axis=0)

    def upsample(self, x, attrs, factor=None, like=None, like_hw=None, ratio=(1, 1)):
        """x resized by `factor` (scales), or to `like`'s size times `ratio` (sizes; like_hw is
        that size for a fixed input)."""
        attrs = dict(attrs)
        if self.op_type == "Upsample" or self.opset == 10:
            # No sizes before opset 11: the lateral site is x2, the aux site x1.5.
            factor = factor or (2.0 if ratio == (1, 1) else 1.5)
            scales = [1.0, 1.0, float(factor), float(factor)]
            if self.opset < 9:
                return self.op("Upsample", [x], scales=scales, **attrs)
            return self.op(self.op_type, [x, self.const("scales", scales)], **attrs)
        axes = self.opset >= 18
        if axes:
            attrs["axes"] = [2, 3]
        empty = self.const("roi", np.zeros(0))
        if factor is not None:
            scales = self.const("scales", [float(factor)] * 2 if axes else [1.0, 1.0, factor, factor])
            return self.op("Resize", [x, empty, scales], **attrs)
        if axes:
            sizes = self.const("sizes", like_hw, np.int64)
        else:
            sizes = self.shape_sizes(x, like, *ratio)
        # Opset 11 and 12 need a scales input: an empty one says "use sizes".
        scales = self.const("no_scales", np.zeros(0)) if self.opset < 13 else ""
        return self.op("Resize", [x, empty if self.opset < 13 else "", scales, sizes], **attrs)


def build(variant, seed=0):
    opset, op, configs, free_hw = VARIANTS[variant]
    b = Builder(opset, op, seed)
    c1 = b.conv("input", 3, 16, 3, stride=2, relu=True)
    c2 = b.conv(c1, 16, 32, 3, stride=2, relu=True)
    c3 = b.conv(c2, 32, 48, 3, stride=2, relu=True)
    l1, l2, l3 = b.conv(c1, 16, 16, 1), b.conv(c2, 32, 16, 1), b.conv(c3, 48, 16, 1)
    h, w = INPUT_HW
    p2 = b.op("Add", [l2, b.upsample(l3, configs["top_down"], factor=2)])
    up = b.upsample(p2, configs["lateral"], like=l1, like_hw=[h // 2, w // 2])
    p1 = b.conv(b.op("Concat", [l1, up], axis=1), 32, 16, 1)
    fused = b.op("Concat", [p1, b.upsample(p2, configs["fuse_2x"], factor=2),
                            b.upsample(l3, configs["fuse_4x"], factor=4)], axis=1)
    heads = [("output", fused, 48, (1, 2)),
             ("p2_head", b.upsample(p2, configs["head"], factor=1.5), 16, (3, 8)),
             ("aux_head", b.upsample(l1, configs["aux"], like=l1,
                                     like_hw=[h // 2 * 2 // 3, w // 2 * 2 // 3], ratio=(2, 3)),
              16, None)]
    outputs = []
    for name, x, channels, fraction in heads:
        b.conv(x, channels, 8, 3)
        b.nodes[-1].output[0] = name
        if fraction is None:  # aux: l1 (H/2) to 2/3, or x1.5 where there are no sizes
            size = [v // 2 * 2 // 3 for v in (h, w)]
            if op == "Upsample" or opset == 10:
                size = [v // 2 * 3 // 2 for v in (h, w)]
        else:
            size = [v * fraction[0] // fraction[1] for v in (h, w)]
        dims = [None, None] if free_hw else size
        outputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, ["N", 8] + dims))
    height, width = ("height", "width") if free_hw else (h, w)
    graph = helper.make_graph(
        b.nodes, "fpn_neck_" + variant,
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 3, height, width])],
        outputs, b.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="ios-fpn-neck")
    model.ir_version = 7 if opset < 13 else (8 if opset < 19 else 9)
    onnx.checker.check_model(model, full_check=True)
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for variant in args.variants.split(","):
        path = os.path.join(args.out, "fpn_neck_%s.onnx" % variant)
        onnx.save(build(variant, args.seed), path)
        print("wrote", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

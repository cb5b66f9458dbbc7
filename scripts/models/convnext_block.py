#!/usr/bin/env python3
"""Small ConvNeXt-style models for checking Gelu, LayerNormalization and their fusions.

    convnext_block.py --out DIR [--variants opset20_ops,opset17_erf,opset13_decomposed] [--seed 0]

Each variant is the same network (input [N, 3, 32, 32], output [N, 10]) written the way a
different exporter writes it:

* stem: Conv 4x4 stride 4 (3 -> 32 channels) and a channels-first LayerNorm (over C alone, at
  every pixel, as ConvNeXt's stem and downsampling layers normalise). ONNX's LayerNormalization
  cannot express that (it normalises trailing dims), so every variant spells it out with
  ReduceMean over axis 1; the fusion must leave it alone.
* block A (ConvNeXt's block): depthwise Conv 7x7, Transpose to NHWC, LayerNorm over the last
  axis, MatMul to 4C + bias, GELU, MatMul back to C + bias, layer scale (Mul), Transpose back to
  NCHW, residual Add.
* block B (the pointwise-conv form): depthwise Conv 7x7, LayerNorm over C, H and W (axis 1, a
  per-channel [C, 1, 1] scale and bias), Conv 1x1 to 4C, GELU, Conv 1x1 back to C, residual Add.
* head: GlobalAveragePool, Flatten, Gemm to 10 classes. Block B's output is a second graph
  output ("features", [N, 32, 8, 8]), so that a check sees every element before the pooling
  averages errors away.

Variants:
* opset20_ops: LayerNormalization and Gelu ops (Gelu needs opset 20); block B's GELU is the tanh
  form. Nothing to fuse.
* opset17_erf: LayerNormalization ops, GELU as PyTorch exports it at opset < 20:
  x * 0.5 * (1 + Erf(x / 1.4142135)) (block A) and (x * 0.5) * (1 + Erf(x * 0.70710678))
  (block B). Two GELUs to fuse.
* opset13_decomposed: LayerNorm as exporters write it before opset 17 (ReduceMean, Sub, Pow,
  ReduceMean, Add, Sqrt, Div, Mul, Add; block B squares with Mul(d, d)), GELU as the Erf
  subgraph (block A) and the tanh form with Pow(x, 3) (block B). Two GELUs and two LayerNorms
  to fuse.

Weights come from numpy's default_rng(seed) (He-scaled normals, small biases, scales near 1).
Generated at test time, never committed.
"""

import argparse
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

VARIANTS = {
    # name: (opset, layer norm spelling, GELU spelling of block A, of block B)
    "opset20_ops": (20, "op", "op", "op_tanh"),
    "opset17_erf": (17, "op", "erf_div", "erf_mul"),
    "opset13_decomposed": (13, "decomposed", "erf_div", "tanh_pow"),
}
# What iosc's canonicalisation should find in each variant: (GELUs fused, LayerNorms fused).
EXPECTED_FUSIONS = {"opset20_ops": (0, 0), "opset17_erf": (2, 0), "opset13_decomposed": (2, 2)}
CHANNELS = 32
CLASSES = 10
INPUT_SHAPE = (3, 32, 32)


class Builder:
    def __init__(self, opset, seed):
        self.opset = opset
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.initializers = []
        self.count = 0

    def name(self, prefix):
        self.count += 1
        return "%s_%d" % (prefix, self.count)

    def const(self, prefix, array):
        name = self.name(prefix)
        self.initializers.append(numpy_helper.from_array(np.asarray(array, dtype=np.float32), name))
        return name

    def weight(self, prefix, shape, fan_in):
        return self.const(prefix, self.rng.standard_normal(shape) * math.sqrt(2.0 / fan_in))

    def near_one(self, prefix, shape):
        return self.const(prefix, 1.0 + 0.1 * self.rng.standard_normal(shape))

    def small(self, prefix, shape):
        return self.const(prefix, 0.05 * self.rng.standard_normal(shape))

    def op(self, op_type, inputs, **attrs):
        out = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, **attrs))
        return out

    def reduce_mean(self, x, axes):
        if self.opset >= 18:
            return self.op("ReduceMean", [x, self.const_int("axes", axes)], keepdims=1)
        return self.op("ReduceMean", [x], axes=axes, keepdims=1)

    def const_int(self, prefix, values):
        name = self.name(prefix)
        self.initializers.append(numpy_helper.from_array(np.asarray(values, dtype=np.int64), name))
        return name

    # -- the spellings ---------------------------------------------------------------------

    def decomposed_layer_norm(self, x, axes, scale, bias, square_by_mul=False):
        d = self.op("Sub", [x, self.reduce_mean(x, axes)])
        square = self.op("Mul", [d, d]) if square_by_mul else self.op("Pow", [d, self.const("two", 2.0)])
        variance = self.reduce_mean(square, axes)
        std = self.op("Sqrt", [self.op("Add", [variance, self.const("eps", 1e-6)])])
        y = self.op("Div", [d, std])
        return self.op("Add", [self.op("Mul", [y, scale]), bias])

    def layer_norm(self, x, axis, axes, scale, bias, spelling, square_by_mul=False):
        if spelling == "op":
            return self.op("LayerNormalization", [x, scale, bias], axis=axis, epsilon=1e-6)
        return self.decomposed_layer_norm(x, axes, scale, bias, square_by_mul)

    def gelu(self, x, spelling):
        if spelling == "op":
            return self.op("Gelu", [x])
        if spelling == "op_tanh":
            return self.op("Gelu", [x], approximate="tanh")
        one = self.const("one", 1.0)
        half = self.const("half", 0.5)
        if spelling == "erf_div":  # PyTorch: x * 0.5 * (1.0 + erf(x / sqrt(2)))
            erf = self.op("Erf", [self.op("Div", [x, self.const("sqrt2", 1.4142135)])])
            return self.op("Mul", [self.op("Mul", [x, half]), self.op("Add", [erf, one])])
        if spelling == "erf_mul":  # (1 + erf(x * 1/sqrt(2))) * (0.5 * x)
            erf = self.op("Erf", [self.op("Mul", [x, self.const("inv_sqrt2", 0.70710678)])])
            return self.op("Mul", [self.op("Add", [one, erf]), self.op("Mul", [half, x])])
        if spelling == "tanh_pow":  # 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
            cube = self.op("Pow", [x, self.const("three", 3.0)])
            inner = self.op("Add", [x, self.op("Mul", [self.const("c", 0.044715), cube])])
            k = self.const("sqrt_2_over_pi", math.sqrt(2.0 / math.pi))
            tanh = self.op("Tanh", [self.op("Mul", [k, inner])])
            return self.op("Mul", [self.op("Mul", [half, x]), self.op("Add", [one, tanh])])
        raise ValueError(spelling)

    # -- the network -----------------------------------------------------------------------

    def conv(self, x, cin, cout, k, stride=1, group=1):
        w = self.weight("w", (cout, cin // group, k, k), cin // group * k * k)
        return self.op("Conv", [x, w, self.small("b", (cout,))], kernel_shape=[k, k],
                       strides=[stride, stride], pads=[k // 2 * (stride == 1)] * 4, group=group)

    def channels_first_layer_norm(self, x, c):
        scale = self.near_one("ln_cf_scale", (c, 1, 1))
        return self.decomposed_layer_norm(x, [1], scale, self.small("ln_cf_bias", (c, 1, 1)))

    def block_a(self, x, c, ln, gelu):
        y = self.conv(x, c, c, 7, group=c)
        y = self.op("Transpose", [y], perm=[0, 2, 3, 1])
        y = self.layer_norm(y, -1, [-1], self.near_one("ln_scale", (c,)), self.small("ln_bias", (c,)), ln)
        y = self.op("Add", [self.op("MatMul", [y, self.weight("fc1", (c, 4 * c), c)]), self.small("fc1_b", (4 * c,))])
        y = self.gelu(y, gelu)
        y = self.op("Add", [self.op("MatMul", [y, self.weight("fc2", (4 * c, c), 4 * c)]), self.small("fc2_b", (c,))])
        y = self.op("Mul", [y, self.near_one("layer_scale", (c,))])
        y = self.op("Transpose", [y], perm=[0, 3, 1, 2])
        return self.op("Add", [x, y])

    def block_b(self, x, c, ln, gelu):
        y = self.conv(x, c, c, 7, group=c)
        y = self.layer_norm(y, 1, [1, 2, 3], self.near_one("ln_scale", (c, 1, 1)),
                            self.small("ln_bias", (c, 1, 1)), ln, square_by_mul=True)
        y = self.gelu(self.conv(y, c, 4 * c, 1), gelu)
        return self.op("Add", [x, self.conv(y, 4 * c, c, 1)])


def build(variant, seed=0):
    opset, ln, gelu_a, gelu_b = VARIANTS[variant]
    b = Builder(opset, seed)
    x = b.conv("input", INPUT_SHAPE[0], CHANNELS, 4, stride=4)
    x = b.channels_first_layer_norm(x, CHANNELS)
    x = b.block_a(x, CHANNELS, ln, gelu_a)
    features = b.block_b(x, CHANNELS, ln, gelu_b)
    x = b.op("Flatten", [b.op("GlobalAveragePool", [features])])
    b.op("Gemm", [x, b.weight("head", (CLASSES, CHANNELS), CHANNELS), b.small("head_b", (CLASSES,))],
         transB=1)
    b.nodes[-1].output[0] = "output"
    side = INPUT_SHAPE[1] // 4
    graph = helper.make_graph(
        b.nodes, "convnext_" + variant,
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N"] + list(INPUT_SHAPE))],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, ["N", CLASSES]),
         helper.make_tensor_value_info(features, TensorProto.FLOAT, ["N", CHANNELS, side, side])],
        b.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="ios-convnext-block")
    model.ir_version = 8 if opset < 19 else 9
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
        path = os.path.join(args.out, "convnext_%s.onnx" % variant)
        onnx.save(build(variant, args.seed), path)
        print("wrote", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Small CNNs that spell one operation the ways PyTorch's two ONNX exporters (and others) do, for
issue 50's canonicalisation: every spelling of an idiom should compile to the same plan.

    exporter_spellings.py --out DIR [--seed 0]   # writes DIR/<idiom>.<spelling>.onnx

Idioms (the first spelling is the TorchScript exporter's where it has one):
* global_pool: squeeze-excite pooling and the head's pooling as GlobalAveragePool + Flatten; as
  ReduceMean over axes [-1, -2] with keepdims (axes an input, opset 18) and the head's
  x.mean([2, 3]) with keepdims=0 (the dynamo exporter); as ReduceMean with an axes attribute
  (opset 13) and a Reshape (timm's SE under the TorchScript exporter).
* global_max_pool: the head's pooling as GlobalMaxPool, ReduceMax with keepdims, or ReduceMax
  without (then no Flatten).
* hard_swish: conv + HardSwish, a squeeze-excite gate of HardSigmoid(1/6, 1/2) and a HardSwish
  after a residual Add (not after a conv), as the ops; as x * HardSigmoid(x); as
  x * Clip(x + 3, 0, 6) / 6 with the gate Clip(x + 3, 0, 6) / 6; as Min(Max(x + 3, 0), 6) * (1/6).
* silu: SiLU after a conv and after a residual Add, as x * Sigmoid(x) and Sigmoid(x) * x.
* linear: the classifier as Flatten + Gemm(transB=1); as Reshape + MatMul + Add(bias); with the
  bias added first.
* conv_transpose_bn: ConvTranspose (stride 2, 2 groups) + BatchNormalization + Relu; the same
  with the BatchNormalization folded into the weights beforehand.
* chunk: ShuffleNetV2's x.chunk(2, dim=1) as two Slices (TorchScript, opset 17; the end of the
  second one past the axis, as x[:, c:] exports) or one Split with num_outputs (dynamo, opset 18).
* copies: GhostNet's Concat then a Slice of all its channels, and DenseNet's one-input Concat
  (TorchScript); without them (dynamo).
* as_strided: the pooled features as they are (TorchScript), or flattened and gathered back to
  [1, C, 1, 1] with constant indices 0..C-1 (ConvNeXt's head under dynamo: torch's as_strided).

Input "input" [N, 3, 16, 16] (symbolic N), float32; He-scaled weights from numpy's
default_rng(seed), the same for every spelling of an idiom; ir_version 8. Generated at test time
by tests/python/test_exporter_spellings.py.
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

INPUT_SHAPE = (3, 16, 16)
CHANNELS = 16
CLASSES = 10


class Builder:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits = [], []
        self.count = 0

    def const(self, array, dtype=np.float32):
        name = f"c{len(self.inits)}"
        self.inits.append(numpy_helper.from_array(np.asarray(array, dtype), name))
        return name

    def node(self, op, inputs, output=None, **attrs):
        self.count += 1
        output = output or f"{op.lower()}_{self.count}"
        self.nodes.append(helper.make_node(op, inputs, [output], name=output, **attrs))
        return output

    def weights(self, cout, cin_per_group, k):
        std = np.sqrt(2.0 / (cin_per_group * k * k))
        w = (std * self.rng.standard_normal((cout, cin_per_group, k, k))).astype(np.float32)
        b = (0.1 * self.rng.standard_normal(cout)).astype(np.float32)
        return w, b

    def conv(self, x, cin, cout, k=3, stride=1, group=1):
        w, b = self.weights(cout, cin // group, k)
        return self.node("Conv", [x, self.const(w), self.const(b)], kernel_shape=[k, k],
                         strides=[stride, stride], pads=[k // 2] * 4, group=group)

    def fc(self):
        w = (self.rng.standard_normal((CLASSES, CHANNELS)) / np.sqrt(CHANNELS)).astype(np.float32)
        b = (0.1 * self.rng.standard_normal(CLASSES)).astype(np.float32)
        return w, b

    def model(self, name, opset, outputs):
        graph = helper.make_graph(
            self.nodes, name,
            [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", *INPUT_SHAPE])],
            [helper.make_tensor_value_info(o, TensorProto.FLOAT,
                                           ["N", CLASSES] if o == "logits" else [None] * 4)
             for o in outputs],
            self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                                  producer_name="ios exporter_spellings.py")
        model.ir_version = 8
        onnx.checker.check_model(model)
        return model


def classifier(b, pooled_2d, spelling="gemm"):
    """[N, CHANNELS] -> logits, as Gemm(transB=1) or MatMul + Add."""
    w, bias = b.fc()
    if spelling == "gemm":
        return b.node("Gemm", [pooled_2d, b.const(w), b.const(bias)], "logits", transB=1)
    product = b.node("MatMul", [pooled_2d, b.const(w.T.copy())])
    operands = [b.const(bias), product] if spelling == "bias_first" else [product, b.const(bias)]
    return b.node("Add", operands, "logits")


def global_pool(seed, spelling):
    b = Builder(seed)
    opset = {"global_average_pool": 17, "reduce_mean_axes_input": 18,
             "reduce_mean_axes_attribute": 13}[spelling]

    def mean(x, keepdims, head):
        if spelling == "global_average_pool":
            return b.node("GlobalAveragePool", [x])
        if spelling == "reduce_mean_axes_input":
            axes = [2, 3] if head else [-1, -2]
            return b.node("ReduceMean", [x, b.const(axes, np.int64)], keepdims=keepdims)
        return b.node("ReduceMean", [x], axes=[2, 3], keepdims=keepdims)

    x = b.node("Relu", [b.conv("input", 3, CHANNELS, stride=2)])
    squeeze = b.node("Relu", [b.conv(mean(x, 1, False), CHANNELS, 4, k=1)])
    gate = b.node("Sigmoid", [b.conv(squeeze, 4, CHANNELS, k=1)])
    x = b.node("Mul", [x, gate])
    if spelling == "global_average_pool":
        pooled = b.node("Flatten", [mean(x, 1, True)], axis=1)
    elif spelling == "reduce_mean_axes_input":
        pooled = mean(x, 0, True)
    else:
        pooled = b.node("Reshape", [mean(x, 1, True), b.const([-1, CHANNELS], np.int64)])
    classifier(b, pooled)
    return b.model("global_pool_" + spelling, opset, ["logits"])


def global_max_pool(seed, spelling):
    b = Builder(seed)
    x = b.node("Relu", [b.conv("input", 3, CHANNELS, stride=2)])
    if spelling == "global_max_pool":
        pooled = b.node("Flatten", [b.node("GlobalMaxPool", [x])], axis=1)
    elif spelling == "reduce_max_keepdims":
        pooled = b.node("Flatten", [b.node("ReduceMax", [x, b.const([2, 3], np.int64)],
                                           keepdims=1)], axis=1)
    else:
        pooled = b.node("ReduceMax", [x, b.const([3, 2], np.int64)], keepdims=0)
    classifier(b, pooled)
    return b.model("global_max_pool_" + spelling, 18, ["logits"])


def hard_swish(seed, spelling):
    b = Builder(seed)

    def relu6_plus3(x):
        t = b.node("Add", [x, b.const(3.0)])
        if spelling == "clip":
            return b.node("Clip", [t, b.const(0.0), b.const(6.0)])
        return b.node("Min", [b.node("Max", [t, b.const(0.0)]), b.const(6.0)])

    def sixth(r):
        if spelling == "clip":
            return b.node("Div", [r, b.const(6.0)])
        return b.node("Mul", [b.const(1.0 / 6.0), r])

    def hsigmoid(x):
        if spelling in ("ops", "hard_sigmoid_mul"):
            return b.node("HardSigmoid", [x], alpha=1.0 / 6.0, beta=0.5)
        return sixth(relu6_plus3(x))

    def hswish(x):
        if spelling == "ops":
            return b.node("HardSwish", [x])
        if spelling == "hard_sigmoid_mul":
            return b.node("Mul", [x, hsigmoid(x)])
        if spelling == "clip":
            return sixth(b.node("Mul", [x, relu6_plus3(x)]))
        return b.node("Mul", [x, sixth(relu6_plus3(x))])

    x = hswish(b.conv("input", 3, CHANNELS, stride=2))
    y = b.conv(x, CHANNELS, CHANNELS, k=3, group=CHANNELS)
    pooled = b.node("GlobalAveragePool", [y])
    squeeze = b.node("Relu", [b.conv(pooled, CHANNELS, 4, k=1)])
    y = b.node("Mul", [y, hsigmoid(b.conv(squeeze, 4, CHANNELS, k=1))])
    x = hswish(b.node("Add", [x, y]))
    features = b.conv(x, CHANNELS, CHANNELS, k=1)
    b.node("Identity", [features], "features")
    classifier(b, b.node("Flatten", [b.node("GlobalAveragePool", [x])], axis=1))
    return b.model("hard_swish_" + spelling, 17, ["logits", "features"])


def silu(seed, spelling):
    b = Builder(seed)

    def swish(x):
        gate = b.node("Sigmoid", [x])
        return b.node("Mul", [x, gate] if spelling == "mul_x_sigmoid" else [gate, x])

    x = swish(b.conv("input", 3, CHANNELS, stride=2))
    y = b.conv(x, CHANNELS, CHANNELS, k=3)
    x = swish(b.node("Add", [x, y]))
    classifier(b, b.node("Flatten", [b.node("GlobalAveragePool", [x])], axis=1))
    return b.model("silu_" + spelling, 17, ["logits"])


def linear(seed, spelling):
    b = Builder(seed)
    x = b.node("Relu", [b.conv("input", 3, CHANNELS, stride=2)])
    pooled = b.node("GlobalAveragePool", [x])
    if spelling == "gemm":
        classifier(b, b.node("Flatten", [pooled], axis=1))
    else:
        flat = b.node("Reshape", [pooled, b.const([-1, CHANNELS], np.int64)])
        classifier(b, flat, spelling)
    return b.model("linear_" + spelling, 17, ["logits"])


def conv_transpose_bn(seed, spelling):
    b = Builder(seed)
    x = b.node("Relu", [b.conv("input", 3, CHANNELS, stride=2)])
    cout, group = 8, 2
    w = (0.3 * b.rng.standard_normal((CHANNELS, cout // group, 2, 2))).astype(np.float32)
    bias = (0.1 * b.rng.standard_normal(cout)).astype(np.float32)
    gamma = (0.5 + b.rng.random(cout)).astype(np.float32)
    beta = (0.1 * b.rng.standard_normal(cout)).astype(np.float32)
    mean = (0.1 * b.rng.standard_normal(cout)).astype(np.float32)
    var = (0.5 + b.rng.random(cout)).astype(np.float32)
    attrs = dict(kernel_shape=[2, 2], strides=[2, 2], group=group)
    if spelling == "batch_norm":
        up = b.node("ConvTranspose", [x, b.const(w), b.const(bias)], **attrs)
        up = b.node("BatchNormalization", [up, b.const(gamma), b.const(beta), b.const(mean),
                                           b.const(var)], epsilon=1e-5)
    else:
        scale = gamma.astype(np.float64) / np.sqrt(var.astype(np.float64) + 1e-5)
        per_group = CHANNELS // group
        folded = w.astype(np.float64).copy()
        for ci in range(CHANNELS):
            for j in range(cout // group):
                folded[ci, j] *= scale[ci // per_group * (cout // group) + j]
        new_bias = (bias - mean) * scale + beta
        up = b.node("ConvTranspose", [x, b.const(folded), b.const(new_bias)], **attrs)
    b.node("Relu", [up], "features")
    return b.model("conv_transpose_bn_" + spelling, 17, ["features"])


def copies(seed, spelling):
    b = Builder(seed)
    half = CHANNELS // 2
    primary = b.node("Relu", [b.conv("input", 3, half, stride=2)])
    cheap = b.node("Relu", [b.conv(primary, half, half, k=3, group=half)])
    ghost = b.node("Concat", [primary, cheap], axis=1)
    if spelling == "with_copies":
        ghost = b.node("Slice", [ghost, b.const([0], np.int64), b.const([CHANNELS], np.int64),
                                 b.const([1], np.int64), b.const([1], np.int64)])
    pooled = b.node("AveragePool", [ghost], kernel_shape=[2, 2], strides=[2, 2])
    if spelling == "with_copies":
        pooled = b.node("Concat", [pooled], axis=1)
    channels = (0.5 + b.rng.random(CHANNELS)).astype(np.float32)
    shift = (0.1 * b.rng.standard_normal(CHANNELS)).astype(np.float32)
    normed = b.node("BatchNormalization", [pooled, b.const(channels), b.const(shift),
                                           b.const(np.zeros(CHANNELS)), b.const(np.ones(CHANNELS))])
    b.node("Relu", [b.conv(b.node("Relu", [normed]), CHANNELS, CHANNELS, k=1)], "features")
    return b.model("copies_" + spelling, 17, ["features"])


def chunk(seed, spelling):
    b = Builder(seed)
    half = CHANNELS // 2
    x = b.node("Relu", [b.conv("input", 3, CHANNELS, stride=2)])
    if spelling == "slices":
        axis = b.const([1], np.int64)
        left = b.node("Slice", [x, b.const([0], np.int64), b.const([half], np.int64), axis])
        right = b.node("Slice", [x, b.const([half], np.int64),
                                 b.const([np.iinfo(np.int64).max], np.int64), axis])
    else:
        b.count += 1
        left, right = f"split_{b.count}_0", f"split_{b.count}_1"
        b.nodes.append(helper.make_node("Split", [x], [left, right], name=left, axis=1,
                                        num_outputs=2))
    right = b.node("Relu", [b.conv(right, half, half, k=3, group=half)])
    b.node("Concat", [left, right], "features", axis=1)
    return b.model("chunk_" + spelling, 17 if spelling == "slices" else 18, ["features"])


def as_strided(seed, spelling):
    b = Builder(seed)
    pooled = b.node("GlobalAveragePool", [b.node("Relu", [b.conv("input", 3, CHANNELS, stride=2)])])
    if spelling == "gather":
        flat = b.node("Reshape", [pooled, b.const([-1], np.int64)])
        iota = b.const(np.arange(CHANNELS).reshape(1, CHANNELS, 1, 1), np.int64)
        pooled = b.node("Gather", [flat, iota], axis=0)
    classifier(b, b.node("Flatten", [b.node("Relu", [pooled])], axis=1))
    return b.model("as_strided_" + spelling, 18, ["logits"])


IDIOMS = {
    "global_pool": (global_pool, ["global_average_pool", "reduce_mean_axes_input",
                                  "reduce_mean_axes_attribute"]),
    "global_max_pool": (global_max_pool, ["global_max_pool", "reduce_max_keepdims",
                                          "reduce_max"]),
    "hard_swish": (hard_swish, ["ops", "hard_sigmoid_mul", "clip", "min_max"]),
    "silu": (silu, ["mul_x_sigmoid", "mul_sigmoid_x"]),
    "linear": (linear, ["gemm", "matmul_add", "bias_first"]),
    "conv_transpose_bn": (conv_transpose_bn, ["batch_norm", "folded"]),
    "chunk": (chunk, ["slices", "split"]),
    "copies": (copies, ["with_copies", "without_copies"]),
    "as_strided": (as_strided, ["direct", "gather"]),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for idiom, (build, spellings) in IDIOMS.items():
        for spelling in spellings:
            path = os.path.join(args.out, f"{idiom}.{spelling}.onnx")
            tmp = path + ".tmp"
            onnx.save(build(args.seed, spelling), tmp)
            os.replace(tmp, path)
            print(path)


if __name__ == "__main__":
    main()

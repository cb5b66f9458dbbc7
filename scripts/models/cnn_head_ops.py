#!/usr/bin/env python3
"""A small CNN with the activations, heads and upsampling of today's exports that ios took last:

    cnn_head_ops.py --out DIR [--seed 0]   # writes DIR/cnn_head_ops.onnx

* Stem: SpaceToDepth (blocksize 2, [N, 3, 32, 32] -> [N, 12, 16, 16]), Conv, PRelu with a
  per-channel slope [C, 1, 1] (PyTorch's nn.PReLU(C)).
* Two branches: Conv -> Mish and Conv -> Softplus (both fuse into their conv: oneDNN has them),
  added, then Conv -> Selu (which must stay an op of its own).
* Classifier head: ReduceMax and ReduceSum over H and W (opset 18: axes as an input), Concat,
  Gemm to 10 classes, LogSoftmax ("log_probs") and ArgMax ("label", int64, keepdims 0).
* Upsampling head: Conv to 4 * 2 * 2 channels, then DepthToSpace (blocksize 2, CRD: PyTorch's
  pixel_shuffle) to [N, 4, 32, 32] ("upsampled").

Opset 18, ir_version 8, weights from numpy's default_rng(seed). Generated at test time.
"""

import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

NAME = "cnn_head_ops"
OPSET = 18
CHANNELS = 16
CLASSES = 10
UPSAMPLE = 2
OUT_CHANNELS = 4
INPUT_SHAPE = (3, 32, 32)


def build(seed=0):
    rng = np.random.default_rng(seed)
    nodes, inits = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(op, inputs, outputs, **attrs):
        nodes.append(helper.make_node(op, inputs, outputs, name=outputs[0], **attrs))
        return outputs[0]

    def conv(x, name, cin, cout, k):
        w = rng.standard_normal((cout, cin, k, k)) * np.sqrt(2.0 / (cin * k * k))
        b = 0.1 * rng.standard_normal(cout)
        return node("Conv", [x, const(name + "_w", w.astype(np.float32)),
                             const(name + "_b", b.astype(np.float32))], [name],
                    kernel_shape=[k, k], pads=[k // 2] * 4)

    x = node("SpaceToDepth", ["input"], ["s2d"], blocksize=2)
    x = conv(x, "stem", 12, CHANNELS, 3)
    slope = (0.25 + 0.05 * rng.standard_normal((CHANNELS, 1, 1))).astype(np.float32)
    x = node("PRelu", [x, const("prelu_slope", slope)], ["stem_prelu"])

    a = node("Mish", [conv(x, "branch_a", CHANNELS, CHANNELS, 3)], ["branch_a_mish"])
    b = node("Softplus", [conv(x, "branch_b", CHANNELS, CHANNELS, 1)], ["branch_b_softplus"])
    y = node("Add", [a, b], ["merged"])
    y = node("Selu", [conv(y, "body", CHANNELS, CHANNELS, 3)], ["features"])

    hw = const("hw_axes", np.array([2, 3], np.int64))
    peak = node("ReduceMax", [y, hw], ["peak"], keepdims=0)
    total = node("ReduceSum", [y, hw], ["total"], keepdims=0)
    pooled = node("Concat", [peak, total], ["pooled"], axis=1)
    # Small weights: ReduceSum adds 256 values, and the log-probabilities should stay moderate.
    wf = (rng.standard_normal((CLASSES, 2 * CHANNELS)) / (64 * np.sqrt(CHANNELS))).astype(np.float32)
    logits = node("Gemm", [pooled, const("fc_w", wf),
                           const("fc_b", np.zeros(CLASSES, np.float32))], ["logits"], transB=1)
    node("LogSoftmax", [logits], ["log_probs"], axis=1)
    node("ArgMax", [logits], ["label"], axis=1, keepdims=0)

    up = conv(y, "to_pixels", CHANNELS, OUT_CHANNELS * UPSAMPLE * UPSAMPLE, 3)
    node("DepthToSpace", [up], ["upsampled"], blocksize=UPSAMPLE, mode="CRD")

    graph = helper.make_graph(
        nodes, NAME,
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", *INPUT_SHAPE])],
        [helper.make_tensor_value_info("log_probs", TensorProto.FLOAT, ["N", CLASSES]),
         helper.make_tensor_value_info("label", TensorProto.INT64, ["N"]),
         helper.make_tensor_value_info("upsampled", TensorProto.FLOAT,
                                       ["N", OUT_CHANNELS, INPUT_SHAPE[1], INPUT_SHAPE[2]])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="ios cnn_head_ops.py")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, NAME + ".onnx")
    tmp = path + ".tmp"
    onnx.save(build(args.seed), tmp)
    os.replace(tmp, path)
    print(path)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A small CNN written with the idioms today's PyTorch exporters emit around convolutions:

    exporter_idioms.py --out DIR [--seed 0]   # writes DIR/exporter_idioms.onnx

* Swin/ViT-style padding to a multiple of the window (8): Shape -> Gather -> Mod (int64,
  fmod=0) -> Sub -> Mod -> Concat -> Pad. The input is [N, 3, 30, 30], so it pads to 32.
* NFNet-style weight standardisation (timm's ScaledStdConv, legacy exporter):
  Reshape(W, [1, Cout, -1]) -> BatchNormalization(training_mode=1, three outputs) -> Reshape ->
  Mul(gain) -> Conv. The weights are constants, so all of it folds.
* A Swin-style attention mask: ConstantOfShape -> ScatterND (constant indices, `x[.., a:b] = v`)
  -> added to the activation. Folds too.
* At run time, on activations: ScatterND with reduction add (channels 3 and 7 of the
  channel-first view get channels 0 and 1 added) and a float Mod (fmod=1).
* Head: GlobalAveragePool, Flatten, Gemm to 10 classes ("logits"), and the feature map before
  the pooling as a second output ("features"), so that a check sees every element.

Opset 20, ir_version 9, weights from numpy's default_rng(seed). Generated at test time.
"""

import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

NAME = "exporter_idioms"
OPSET = 20
WINDOW = 8
CHANNELS = 16
CLASSES = 10
INPUT_SHAPE = (3, 30, 30)


def build(seed=0):
    rng = np.random.default_rng(seed)
    nodes, inits = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(op, inputs, outputs, **attrs):
        nodes.append(helper.make_node(op, inputs, outputs, name=outputs[0], **attrs))
        return outputs[0]

    # Pad H and W up to a multiple of WINDOW, the amount computed from the input's shape.
    shape = node("Shape", ["input"], ["in_shape"])
    hw = node("Gather", [shape, const("hw_axes", np.array([2, 3], np.int64))], ["in_hw"], axis=0)
    window = const("window", np.array(WINDOW, np.int64))
    rem = node("Mod", [hw, window], ["hw_rem"], fmod=0)
    short = node("Sub", [window, rem], ["hw_short"])
    pad_hw = node("Mod", [short, window], ["hw_pad"], fmod=0)
    pads = node("Concat", [const("pads_begin", np.zeros(6, np.int64)), pad_hw], ["pads"], axis=0)
    x = node("Pad", ["input", pads], ["padded"], mode="constant")

    # Weight-standardised conv: BatchNormalization in training mode over the weight.
    w = rng.standard_normal((CHANNELS, 3, 3, 3)).astype(np.float32)
    flat = node("Reshape", [const("w_raw", w), const("w_flat_shape", np.array([1, CHANNELS, -1],
                                                                                np.int64))],
                ["w_flat"])
    zeros = np.zeros(CHANNELS, np.float32)
    ones = np.ones(CHANNELS, np.float32)
    nodes.append(helper.make_node(
        "BatchNormalization",
        [flat, const("bn_scale", ones), const("bn_bias", zeros), const("bn_mean", zeros),
         const("bn_var", ones)],
        ["w_std_flat", "w_running_mean", "w_running_var"], name="w_standardise", epsilon=1e-5,
        momentum=0.0, training_mode=1))
    w_std = node("Reshape", ["w_std_flat", const("w_shape", np.array(w.shape, np.int64))],
                 ["w_std"])
    gain = const("w_gain", (0.2 * np.ones((CHANNELS, 1, 1, 1))).astype(np.float32))
    w_scaled = node("Mul", [w_std, gain], ["w_scaled"])
    y = node("Conv", [x, w_scaled, const("b1", (0.1 * rng.standard_normal(CHANNELS))
                                         .astype(np.float32))], ["conv1"],
             kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    y = node("Relu", [y], ["relu1"])

    # Attention-style mask: zeros with the last two rows set, built by ScatterND from constants.
    side = (INPUT_SHAPE[1] + WINDOW - 1) // WINDOW * WINDOW // 2
    mask = node("ConstantOfShape", [const("mask_shape", np.array([1, 1, side, side], np.int64))],
                ["mask_zeros"], value=numpy_helper.from_array(np.zeros(1, np.float32)))
    rows = np.array([[0, 0, side - 2], [0, 0, side - 1]], np.int64)
    mask = node("ScatterND", [mask, const("mask_rows", rows),
                              const("mask_values", np.full((2, side), -0.5, np.float32))],
                ["mask"])
    y = node("Add", [y, mask], ["masked"])

    # Run-time ScatterND (add) on the channel-first view, and a float Mod.
    t = node("Transpose", [y], ["chan_first"], perm=[1, 0, 2, 3])
    src = node("Slice", [t, const("s_start", np.array([0], np.int64)),
                         const("s_end", np.array([2], np.int64)),
                         const("s_axes", np.array([0], np.int64))], ["chan_01"])
    t = node("ScatterND", [t, const("add_rows", np.array([[3], [7]], np.int64)), src],
             ["scattered"], reduction="add")
    y = node("Transpose", [t], ["scattered_nchw"], perm=[1, 0, 2, 3])
    y = node("Mod", [y, const("period", np.array(0.75, np.float32))], ["wrapped"], fmod=1)
    w2 = (rng.standard_normal((CHANNELS, CHANNELS, 3, 3)) * np.sqrt(2 / (9 * CHANNELS)))
    y = node("Conv", [y, const("w2", w2.astype(np.float32)),
                      const("b2", np.zeros(CHANNELS, np.float32))], ["features"],
             kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    p = node("GlobalAveragePool", [y], ["pooled"])
    p = node("Flatten", [p], ["flat"], axis=1)
    wf = (rng.standard_normal((CLASSES, CHANNELS)) / np.sqrt(CHANNELS)).astype(np.float32)
    node("Gemm", [p, const("fc_w", wf), const("fc_b", np.zeros(CLASSES, np.float32))],
         ["logits"], transB=1)

    graph = helper.make_graph(
        nodes, NAME,
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", *INPUT_SHAPE])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", CLASSES]),
         helper.make_tensor_value_info("features", TensorProto.FLOAT, ["N", CHANNELS, side, side])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="ios exporter_idioms.py")
    model.ir_version = 9
    onnx.checker.check_model(model)
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

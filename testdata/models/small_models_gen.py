#!/usr/bin/env python3
"""Generate the small committed ONNX test models of ios.

    small_models_gen.py [--out DIR] [--only NAME[,NAME...]] [--verify] [--list]

Writes into DIR (default: the directory of this script) a handful of small
float32 NCHW CNNs, each exercising the op forms one ONNX producer (PyTorch's
exporter, tf2onnx, onnx's helper API at old and new opsets) writes:

  pytorch_style_opset14.onnx    torch.onnx.export-like graph (HardSwish needs
                                opset 14, hence not opset 13)
  opset7_legacy.onnx            opset 7, ir_version 3 (initializers listed in
                                graph.input too), attribute forms of old ops
  opset11_tf2onnx_style.onnx    NHWC input + Transpose, auto_pad SAME_*, ...
  opset21_inputs_form.onnx      opset 21, ir_version 10: the input forms of
                                Split/Squeeze/Unsqueeze/Pad/Clip/ReduceMean/...
  residual_blocks_opset17.onnx  mini ResNet: Conv-BN-Relu, residual Adds

Every model has a symbolic batch dimension "N" on input 0, one output named
"output", passes onnx.checker.check_model(full_check=True) and runs in
onnxruntime (--verify runs each model at batch 1 and 2 and prints the largest
activation magnitude).  Weights come from numpy.random.default_rng with a fixed
seed per model and He scaling (std = sqrt(2 / fan_in)), so activations stay
O(1).  Output is deterministic (same bytes on every run) and every file is
written atomically (temporary file in DIR, then os.replace).
"""

import argparse
import collections
import os
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

PRODUCER = "ios testdata/models/small_models_gen.py"
PRODUCER_VERSION = "1"


# ----------------------------------------------------------------------------
# Builder


class Builder:
    """Collects nodes and initializers of one graph; names are deterministic."""

    def __init__(self, seed, scope_names=True):
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.initializers = []
        self.counts = collections.Counter()
        self.scope_names = scope_names

    # -- names ---------------------------------------------------------------
    def _node_name(self, op):
        i = self.counts[op]
        self.counts[op] += 1
        return "/%s_%d" % (op, i) if self.scope_names else "%s_%d" % (op, i)

    # -- tensors ---------------------------------------------------------------
    def const(self, name, array):
        """Adds an initializer; returns its name."""
        self.initializers.append(numpy_helper.from_array(np.array(array, order="C"), name))
        return name

    def i64(self, name, values):
        return self.const(name, np.asarray(values, dtype=np.int64))

    def f32(self, name, values):
        return self.const(name, np.asarray(values, dtype=np.float32))

    def he(self, shape, fan_in, gain=2.0):
        std = np.sqrt(gain / fan_in)
        return (self.rng.standard_normal(shape) * std).astype(np.float32)

    def small(self, shape, scale=0.05):
        return (self.rng.standard_normal(shape) * scale).astype(np.float32)

    # -- nodes -----------------------------------------------------------------
    def node(self, op, inputs, n_out=1, outputs=None, domain=None, **attrs):
        name = self._node_name(op)
        if outputs is None:
            outputs = ["%s_output_%d" % (name, i) for i in range(n_out)]
        kwargs = {}
        if domain is not None:
            kwargs["domain"] = domain
        self.nodes.append(helper.make_node(op, list(inputs), list(outputs), name=name, **kwargs,
                                           **attrs))
        return outputs[0] if len(outputs) == 1 else outputs

    def constant_node(self, array):
        """A Constant node (value attribute) as PyTorch's exporter emits it."""
        name = self._node_name("Constant")
        out = "%s_output_0" % name
        tensor = numpy_helper.from_array(np.array(array, order="C"), "")
        self.nodes.append(helper.make_node("Constant", [], [out], name=name, value=tensor))
        return out

    def conv(self, x, cin, cout, k, stride=1, pads=None, group=1, dilation=1, bias=True,
             auto_pad=None, kernel_shape_attr=True, gain=2.0):
        kh, kw = (k, k) if isinstance(k, int) else k
        name = "w%d" % len(self.initializers)
        w = self.const(name, self.he((cout, cin // group, kh, kw), cin // group * kh * kw, gain))
        inputs = [x, w]
        if bias:
            inputs.append(self.const("b%d" % len(self.initializers), self.small((cout,))))
        attrs = {}
        if kernel_shape_attr:
            attrs["kernel_shape"] = [kh, kw]
        if stride != 1:
            attrs["strides"] = [stride, stride]
        if dilation != 1:
            attrs["dilations"] = [dilation, dilation]
        if group != 1:
            attrs["group"] = group
        if auto_pad is not None:
            attrs["auto_pad"] = auto_pad
        elif pads is None:
            p = dilation * (kh // 2)
            if p:
                attrs["pads"] = [p, p, p, p]
        elif any(pads):
            attrs["pads"] = list(pads)
        return self.node("Conv", inputs, **attrs)

    def bn(self, x, c, opset7=False, gamma_scale=1.0):
        idx = len(self.initializers)
        scale = self.const("bn%d_scale" % idx, (self.rng.uniform(0.5, 1.5, c) * gamma_scale)
                           .astype(np.float32))
        bias = self.const("bn%d_bias" % idx, self.small((c,), 0.1))
        mean = self.const("bn%d_mean" % idx, self.small((c,), 0.1))
        var = self.const("bn%d_var" % idx, self.rng.uniform(0.5, 1.5, c).astype(np.float32))
        attrs = {"epsilon": 1e-5, "momentum": 0.9}
        if opset7:
            attrs["spatial"] = 1
        return self.node("BatchNormalization", [x, scale, bias, mean, var], **attrs)


def make_model(b, name, opset, inputs, outputs, ir_version=None, initializers_as_inputs=False,
               doc=""):
    graph_inputs = list(inputs)
    if initializers_as_inputs:
        for init in b.initializers:
            graph_inputs.append(helper.make_tensor_value_info(init.name, init.data_type,
                                                              list(init.dims)))
    graph = helper.make_graph(b.nodes, name, graph_inputs, outputs, initializer=b.initializers,
                              doc_string=doc)
    kwargs = {"opset_imports": [helper.make_opsetid("", opset)],
              "producer_name": PRODUCER, "producer_version": PRODUCER_VERSION}
    if ir_version is not None:
        kwargs["ir_version"] = ir_version
    else:
        kwargs["ir_version"] = onnx.helper.find_min_ir_version_for([helper.make_opsetid("", opset)])
    return helper.make_model(graph, **kwargs)


def nchw_input(name="input", c=3, h=32, w=32):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, ["N", c, h, w])


def output_info(dims):
    return helper.make_tensor_value_info("output", TensorProto.FLOAT, dims)


# ----------------------------------------------------------------------------
# Models


def pytorch_style_opset14():
    """What torch.onnx.export emits for a small MobileNet-ish CNN (opset 14)."""
    b = Builder(seed=14)
    x = "input"
    # Conv -> BN -> Relu
    t = b.node("Relu", [b.bn(b.conv(x, 3, 16, 3), 16)])
    t = b.node("Identity", [t])
    # Conv -> BN -> Clip(0, 6) with min / max as constant inputs (ReLU6)
    lo = b.f32("clip_min", np.float32(0.0))
    hi = b.f32("clip_max", np.float32(6.0))
    t = b.node("Clip", [b.bn(b.conv(t, 16, 16, 3), 16), lo, hi])
    t = b.node("Dropout", [t])  # inference: ratio / training_mode defaulted
    # MaxPool with ceil_mode (32 -> 16 with ceil)
    t = b.node("MaxPool", [t], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)
    # depthwise Conv -> BN -> HardSwish, then pointwise Conv
    t = b.node("HardSwish", [b.bn(b.conv(t, 16, 16, 3, group=16, gain=0.5), 16)])
    t = b.conv(t, 16, 32, 1, gain=0.5)
    # residual-ish Add of a per-channel constant [1, C, 1, 1] (broadcast)
    t = b.node("Add", [t, b.const("channel_offset", b.small((1, 32, 1, 1), 0.1))])
    # two branches, Concat
    br_a = b.node("Relu", [b.conv(t, 32, 16, 1, gain=0.5)])
    br_b = b.node("AveragePool", [t], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1],
                  count_include_pad=0)
    br_b = b.conv(br_b, 32, 16, 1, gain=0.5)
    t = b.node("Concat", [br_a, br_b], axis=1)
    t = b.node("GlobalAveragePool", [t])                               # [N, 32, 1, 1]
    # flatten the exporter's way: Shape -> Gather(0) -> Unsqueeze -> Concat(-1) -> Reshape
    shape = b.node("Shape", [t])
    idx0 = b.constant_node(np.array(0, dtype=np.int64))
    batch = b.node("Gather", [shape, idx0], axis=0)
    batch = b.node("Unsqueeze", [batch, b.i64("unsqueeze_axes", [0])])
    minus1 = b.constant_node(np.array([-1], dtype=np.int64))
    new_shape = b.node("Concat", [batch, minus1], axis=0)              # [N, -1]
    # ... and a ConstantOfShape of that shape's shape (ones) multiplied in,
    # then a Cast to int64: all of it folds away once N is known.
    ones = b.node("ConstantOfShape", [b.node("Shape", [new_shape])],
                  value=numpy_helper.from_array(np.array([1], dtype=np.int64), ""))
    new_shape = b.node("Mul", [new_shape, ones])
    new_shape = b.node("Cast", [new_shape], to=TensorProto.INT64)
    t = b.node("Reshape", [t, new_shape])                              # [N, 32]
    wfc = b.const("fc_weight", b.he((10, 32), 32, gain=1.0))
    bfc = b.const("fc_bias", b.small((10,)))
    t = b.node("Gemm", [t, wfc, bfc], alpha=1.0, beta=1.0, transB=1)
    b.node("Softmax", [t], outputs=["output"], axis=1)
    return make_model(b, "pytorch_style", 14, [nchw_input()], [output_info(["N", 10])],
                      doc="torch.onnx.export-style small CNN")


def opset7_legacy():
    """opset 7, ir_version 3: initializers are graph inputs too; attribute forms."""
    b = Builder(seed=7, scope_names=False)
    x = "input"
    # Pad-2 form: pads / value attributes
    t = b.node("Pad", [x], mode="constant", pads=[0, 0, 1, 1, 0, 0, 1, 1], value=0.0)
    t = b.conv(t, 3, 16, 3, pads=[0, 0, 0, 0])                        # 34 -> 32
    t = b.node("Relu", [b.bn(t, 16, opset7=True)])
    # Clip-6 form: min / max attributes
    t = b.node("Clip", [b.conv(t, 16, 16, 3)], min=0.0, max=6.0)
    # Split-2 form: split attribute
    a, c = b.node("Split", [t], n_out=2, axis=1, split=[8, 8])
    a = b.node("Relu", [b.conv(a, 8, 8, 3)])
    c = b.node("Relu", [b.conv(c, 8, 8, 1)])
    t = b.node("Concat", [a, c], axis=1)                               # [N, 16, 32, 32]
    t = b.node("AveragePool", [t], kernel_shape=[2, 2], strides=[2, 2])
    t = b.node("AveragePool", [t], kernel_shape=[2, 2], strides=[2, 2])  # [N, 16, 8, 8]
    t = b.node("Flatten", [t], axis=1)                                 # [N, 1024]
    wfc = b.const("fc_weight", b.he((10, 1024), 1024, gain=1.0))
    bfc = b.const("fc_bias", b.small((10,)))
    t = b.node("Gemm", [t, wfc, bfc], transB=1)
    b.node("Softmax", [t], outputs=["output"], axis=1)
    return make_model(b, "opset7_legacy", 7, [nchw_input()], [output_info(["N", 10])],
                      ir_version=3, initializers_as_inputs=True,
                      doc="opset 7 / ir_version 3 legacy forms")


def opset11_tf2onnx_style():
    """tf2onnx-like opset-11 graph: NHWC input, Transpose, SAME padding, MatMul+Add."""
    b = Builder(seed=11, scope_names=False)
    x = "input_nhwc"
    # normalisation in NHWC with broadcast constants
    t = b.node("Sub", [x, b.f32("mean", np.array([[[[0.1, -0.2, 0.05]]]], dtype=np.float32))])
    t = b.node("Div", [t, b.f32("std", np.array([[[[0.9, 1.1, 1.0]]]], dtype=np.float32))])
    t = b.node("Mul", [t, b.f32("scale", np.float32(1.0 / 1.2))])
    t = b.node("Transpose", [t], perm=[0, 3, 1, 2])                    # [N, 3, 32, 32]
    c1 = b.node("LeakyRelu", [b.conv(t, 3, 16, 3, stride=2, auto_pad="SAME_UPPER")], alpha=0.1)
    c2 = b.node("Elu", [b.conv(c1, 16, 16, 3, dilation=2)], alpha=1.0)  # explicit pads 2
    c3 = b.node("Sigmoid", [b.conv(c1, 16, 16, 4, auto_pad="SAME_LOWER")])
    t = b.node("Sum", [c1, c2, c3])                                    # [N, 16, 16, 16]
    t = b.node("Tanh", [b.conv(t, 16, 32, 3, stride=2, auto_pad="SAME_UPPER")])  # [N,32,8,8]
    # channel Slice (inputs form, opset 10+)
    lo = b.node("Slice", [t, b.i64("sl0_starts", [0]), b.i64("sl0_ends", [16]),
                          b.i64("sl0_axes", [1])])
    hi = b.node("Slice", [t, b.i64("sl1_starts", [16]), b.i64("sl1_ends", [32]),
                          b.i64("sl1_axes", [1]), b.i64("sl1_steps", [1])])
    gate = b.node("HardSigmoid", [b.conv(lo, 16, 16, 3, auto_pad="SAME_UPPER")], alpha=0.2,
                  beta=0.5)
    t = b.node("Mul", [gate, hi])                                      # [N, 16, 8, 8]
    t = b.node("MaxPool", [t], kernel_shape=[2, 2], strides=[2, 2], auto_pad="VALID")
    t = b.node("Relu", [b.conv(t, 16, 32, 1, auto_pad="SAME_UPPER")])  # [N, 32, 4, 4]
    # squeeze-excitation with Squeeze / Unsqueeze attribute axes, MatMul + Add
    s = b.node("Squeeze", [b.node("GlobalMaxPool", [t])], axes=[2, 3])  # [N, 32]
    s = b.node("MatMul", [s, b.const("se_w", b.he((32, 32), 32, gain=1.0))])
    s = b.node("Sigmoid", [b.node("Add", [s, b.const("se_b", b.small((32,)))])])
    s = b.node("Unsqueeze", [s], axes=[2, 3])                          # [N, 32, 1, 1]
    t = b.node("Mul", [t, s])
    g = b.node("Squeeze", [b.node("GlobalMaxPool", [t])], axes=[2, 3])  # [N, 32]
    g = b.node("MatMul", [g, b.const("fc_w", b.he((32, 10), 32, gain=1.0))])
    b.node("Add", [g, b.const("fc_b", b.small((10,)))], outputs=["output"])
    inp = helper.make_tensor_value_info("input_nhwc", TensorProto.FLOAT, ["N", 32, 32, 3])
    return make_model(b, "tf2onnx_style", 11, [inp], [output_info(["N", 10])],
                      doc="tf2onnx-style opset 11 graph with NHWC input")


def opset21_inputs_form():
    """opset 21, ir_version 10: the input forms of Split/Squeeze/Unsqueeze/Pad/Clip/..."""
    b = Builder(seed=21)
    x = "input"
    # Pad-18+: pads input, constant_value input, axes input
    t = b.node("Pad", [x, b.i64("pad_pads", [1, 1, 1, 1]), b.f32("pad_value", np.float32(0.0)),
                       b.i64("pad_axes", [2, 3])], mode="constant")      # [N, 3, 34, 34]
    t = b.conv(t, 3, 16, 3, pads=[0, 0, 0, 0])                          # [N, 16, 32, 32]
    t = b.node("Clip", [t, b.f32("clip_min", np.float32(0.0)), b.f32("clip_max", np.float32(6.0))])
    t = b.node("Dropout", [t, b.f32("dropout_ratio", np.float32(0.25))])  # inference
    t = b.node("Identity", [t])
    a, c = b.node("Split", [t, b.i64("split_sizes", [8, 8])], n_out=2, axis=1)
    a = b.node("Relu", [b.conv(a, 8, 8, 3)])
    c = b.node("MaxPool", [c], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1])
    c = b.node("Relu", [b.conv(c, 8, 8, 1)])
    t = b.node("Concat", [a, c], axis=1)                                # [N, 16, 32, 32]
    p = b.node("MaxPool", [t], kernel_shape=[2, 2], strides=[2, 2])     # [N, 16, 16, 16]
    # ConvTranspose stride 2 (upsample), then a strided conv back, residual Add
    wct = b.const("convT_weight", b.he((16, 8, 2, 2), 16))
    u = b.node("ConvTranspose", [p, wct, b.const("convT_bias", b.small((8,)))],
               kernel_shape=[2, 2], strides=[2, 2])                     # [N, 8, 32, 32]
    u = b.node("Relu", [u])
    u = b.conv(u, 8, 16, 3, stride=2)                                   # [N, 16, 16, 16]
    t = b.node("Relu", [b.node("Add", [u, p])])
    # channel shuffle: Reshape to 5-D, Transpose, Reshape back
    t = b.node("Reshape", [t, b.i64("shuffle_shape5", [0, 2, 8, 16, 16])])
    t = b.node("Transpose", [t], perm=[0, 2, 1, 3, 4])
    t = b.node("Reshape", [t, b.i64("shuffle_shape4", [-1, 16, 16, 16])])
    # squeeze-excitation: ReduceMean-18 (axes input), Unsqueeze-13 (axes input)
    s = b.node("ReduceMean", [t, b.i64("rm_axes", [2, 3])], keepdims=0)  # [N, 16]
    s = b.node("Unsqueeze", [s, b.i64("unsq_axes", [2, 3])])           # [N, 16, 1, 1]
    s = b.node("Sigmoid", [b.conv(s, 16, 16, 1, gain=1.0)])
    t = b.node("Mul", [t, s])
    t = b.node("AveragePool", [t], kernel_shape=[2, 2], strides=[2, 2])  # [N, 16, 8, 8]
    t = b.node("Relu", [b.conv(t, 16, 32, 3)])
    g = b.node("GlobalAveragePool", [t])
    g = b.node("Squeeze", [g, b.i64("sq_axes", [2, 3])])                # [N, 32]
    wfc = b.const("fc_weight", b.he((10, 32), 32, gain=1.0))
    bfc = b.const("fc_bias", b.small((10,)))
    b.node("Gemm", [g, wfc, bfc], outputs=["output"], transB=1)
    return make_model(b, "opset21_inputs_form", 21, [nchw_input()], [output_info(["N", 10])],
                      ir_version=10, doc="opset 21 input forms")


def residual_blocks_opset17():
    """A mini ResNet: stem, identity block, downsample block, identity block."""
    b = Builder(seed=17)

    def conv_bn(x, cin, cout, k, stride=1, relu=True, gamma_scale=1.0):
        t = b.bn(b.conv(x, cin, cout, k, stride=stride, bias=False), cout, gamma_scale=gamma_scale)
        return b.node("Relu", [t]) if relu else t

    def block(x, cin, cout, stride):
        t = conv_bn(x, cin, cout, 3, stride)
        t = conv_bn(t, cout, cout, 3, relu=False, gamma_scale=0.5)
        short = x if stride == 1 and cin == cout else conv_bn(x, cin, cout, 1, stride, relu=False)
        return b.node("Relu", [b.node("Add", [t, short])])

    t = conv_bn("input", 3, 16, 3)
    t = block(t, 16, 16, 1)
    t = block(t, 16, 32, 2)
    t = block(t, 32, 32, 1)
    t = b.node("GlobalAveragePool", [t])
    t = b.node("Flatten", [t], axis=1)
    wfc = b.const("fc_weight", b.he((10, 32), 32, gain=1.0))
    bfc = b.const("fc_bias", b.small((10,)))
    b.node("Gemm", [t, wfc, bfc], outputs=["output"], transB=1)
    return make_model(b, "residual_blocks", 17, [nchw_input()], [output_info(["N", 10])],
                      doc="mini ResNet with BN and residual joins")


MODELS = collections.OrderedDict([
    ("pytorch_style_opset14", pytorch_style_opset14),
    ("opset7_legacy", opset7_legacy),
    ("opset11_tf2onnx_style", opset11_tf2onnx_style),
    ("opset21_inputs_form", opset21_inputs_form),
    ("residual_blocks_opset17", residual_blocks_opset17),
])


# ----------------------------------------------------------------------------
# Writing and checking


def serialize(model):
    return model.SerializeToString(deterministic=True)


def write_atomic(path, data):
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp_", suffix=".onnx", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def op_histogram(model):
    return collections.Counter(n.op_type for n in model.graph.node)


def verify(model, batches=(1, 2)):
    """Runs onnxruntime with every intermediate float tensor as an extra output;
    returns {batch: (output shape, max |intermediate|)}."""
    import onnxruntime as ort

    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    known = {o.name for o in probe.graph.output}
    for vi in inferred.graph.value_info:
        if vi.type.tensor_type.elem_type == TensorProto.FLOAT and vi.name not in known:
            probe.graph.output.append(vi)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 2
    sess = ort.InferenceSession(serialize(probe), so, providers=["CPUExecutionProvider"])
    result = {}
    for batch in batches:
        rng = np.random.default_rng(0)
        feeds = {}
        for info in sess.get_inputs():
            if info.name in {i.name for i in model.graph.initializer}:
                continue
            shape = [d if isinstance(d, int) else batch for d in info.shape]
            feeds[info.name] = rng.standard_normal(shape).astype(np.float32)
        outs = sess.run(None, feeds)
        biggest = max(float(np.max(np.abs(o))) for o in outs if o.size)
        if not all(np.all(np.isfinite(o)) for o in outs):
            raise RuntimeError("non-finite values")
        result[batch] = (tuple(outs[0].shape), biggest)
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--only", default="", help="comma-separated model names")
    parser.add_argument("--verify", action="store_true",
                        help="run every model in onnxruntime at batch 1 and 2")
    parser.add_argument("--list", action="store_true", help="print the model names and exit")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(MODELS))
        return 0
    names = [n for n in args.only.split(",") if n] or list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error("unknown model(s): %s (known: %s)" % (", ".join(unknown), ", ".join(MODELS)))
    os.makedirs(args.out, exist_ok=True)
    for name in names:
        model = MODELS[name]()
        onnx.checker.check_model(model, full_check=True)
        data = serialize(model)
        path = os.path.join(args.out, name + ".onnx")
        write_atomic(path, data)
        hist = op_histogram(model)
        line = "%s: %d bytes, opset %d, ir_version %d, %d nodes: %s" % (
            path, len(data), model.opset_import[0].version, model.ir_version,
            len(model.graph.node), ", ".join("%s=%d" % kv for kv in sorted(hist.items())))
        print(line)
        if args.verify:
            for batch, (shape, biggest) in verify(model).items():
                print("  onnxruntime batch %d: output %s, max |activation| %.3g"
                      % (batch, shape, biggest))
    return 0


if __name__ == "__main__":
    sys.exit(main())

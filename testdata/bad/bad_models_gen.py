#!/usr/bin/env python3
"""Generate the malformed / unsupported ONNX inputs that iosc must reject.

    bad_models_gen.py [--out DIR] [--list]

Writes into DIR (default: the directory of this script) one file per case
listed in CASES below; README.md next to this script says what each file is
and which error iosc must report.  iosc must reject every one of them cleanly:
exit status 2 and a one-line message naming the file and the problem, never a
crash, an abort or an internal error.

Most files are built by hand (no onnx.checker), because the checker refuses
them by design.  Output is deterministic (same bytes on every run) and every
file is written atomically (temporary file in DIR, then os.replace).
"""

import argparse
import collections
import os
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

PRODUCER = "ios testdata/bad/bad_models_gen.py"
PRODUCER_VERSION = "1"


def _w(rng, shape):
    fan_in = int(np.prod(shape[1:]))
    return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)


def _model(nodes, inputs, outputs, initializers=(), opset=13, ir_version=None, extra_opsets=(),
           name="bad"):
    graph = helper.make_graph(list(nodes), name, list(inputs), list(outputs),
                              initializer=list(initializers))
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in extra_opsets]
    if ir_version is None:
        ir_version = helper.find_min_ir_version_for([helper.make_opsetid("", min(opset, 21))])
    return helper.make_model(graph, opset_imports=opsets, ir_version=ir_version,
                             producer_name=PRODUCER, producer_version=PRODUCER_VERSION)


def _in(name, dims):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)


def _out(dims, name="output"):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)


def conv_relu(opset=13, in_dims=("N", 3, 8, 8), cin=3, cout=8, ir_version=None,
              initializers_as_inputs=False, seed=0):
    """input -> Conv 3x3 pad 1 (weight, bias) -> Relu -> output: the base of most cases."""
    rng = np.random.default_rng(seed)
    w = numpy_helper.from_array(_w(rng, (cout, cin, 3, 3)), "conv_weight")
    b = numpy_helper.from_array((rng.standard_normal(cout) * 0.05).astype(np.float32), "conv_bias")
    nodes = [
        helper.make_node("Conv", ["input", "conv_weight", "conv_bias"], ["conv_out"], name="conv",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["conv_out"], ["output"], name="relu"),
    ]
    inputs = [_in("input", list(in_dims))]
    if initializers_as_inputs:
        inputs += [_in("conv_weight", [cout, cin, 3, 3]), _in("conv_bias", [cout])]
    out_dims = [in_dims[0], cout] + list(in_dims[2:])
    return _model(nodes, inputs, [_out(out_dims)], [w, b], opset=opset, ir_version=ir_version)


def serialize(model):
    return model.SerializeToString(deterministic=True)


# ----------------------------------------------------------------------------
# Cases: each returns the bytes of the file


def not_onnx():
    return b"This is a plain text file, not an ONNX model.\nios must refuse to import it.\n"


def truncated():
    data = serialize(conv_relu(cin=3, cout=32, seed=1))
    return data[:len(data) // 2]


def empty():
    return b""


def unsupported_ops():
    """Three unsupported ops at once: LSTM, NonMaxSuppression and com.example:FancyOp."""
    rng = np.random.default_rng(2)
    hidden, feat = 4, 8
    inits = [
        numpy_helper.from_array(_w(rng, (8, 3, 3, 3)), "conv_weight"),
        numpy_helper.from_array(_w(rng, (1, 4 * hidden, feat)), "lstm_W"),
        numpy_helper.from_array(_w(rng, (1, 4 * hidden, hidden)), "lstm_R"),
        numpy_helper.from_array(np.array([5], dtype=np.int64), "nms_max_boxes"),
    ]
    nodes = [
        helper.make_node("Conv", ["input", "conv_weight"], ["conv_out"], name="conv",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("FancyOp", ["conv_out"], ["output"], name="fancy", domain="com.example"),
        helper.make_node("LSTM", ["sequence", "lstm_W", "lstm_R"], ["lstm_Y"], name="lstm",
                         hidden_size=hidden),
        helper.make_node("NonMaxSuppression", ["boxes", "scores", "nms_max_boxes"], ["selected"],
                         name="nms"),
    ]
    # LSTM's input is [seq_length, batch, input_size]: batch is not dimension 0, so it is
    # fixed here (only dimension 0 may be symbolic for iosc).
    inputs = [_in("input", ["N", 3, 8, 8]), _in("sequence", [5, 1, feat]),
              _in("boxes", ["N", 10, 4]), _in("scores", ["N", 1, 10])]
    outputs = [_out(["N", 8, 8, 8]), _out([5, 1, 1, hidden], "lstm_Y"),
               helper.make_tensor_value_info("selected", TensorProto.INT64, [None, 3])]
    return serialize(_model(nodes, inputs, outputs, inits, opset=13,
                            extra_opsets=[("com.example", 1)]))


def missing_initializer():
    m = conv_relu()
    keep = [t for t in m.graph.initializer if t.name != "conv_weight"]
    del m.graph.initializer[:]
    m.graph.initializer.extend(keep)
    return serialize(m)


def dangling_input():
    m = conv_relu()
    # the Relu reads a tensor no node produces (and that is no input / initializer)
    m.graph.node[1].input[0] = "nobody_produces_this"
    return serialize(m)


def cycle():
    nodes = [
        helper.make_node("Relu", ["loop_b"], ["loop_a"], name="relu_a"),
        helper.make_node("Relu", ["loop_a"], ["loop_b"], name="relu_b"),
        helper.make_node("Add", ["input", "loop_a"], ["output"], name="add"),
    ]
    return serialize(_model(nodes, [_in("input", ["N", 3, 8, 8])], [_out(["N", 3, 8, 8])]))


def zero_dim():
    return serialize(conv_relu(in_dims=("N", 3, 0, 8)))


def negative_dim():
    m = conv_relu()
    dim = m.graph.input[0].type.tensor_type.shape.dim[2]
    dim.dim_value = -1
    return serialize(m)


def unknown_dim():
    return serialize(conv_relu(in_dims=("N", 3, "H", 8)))


def opset_too_new():
    return serialize(conv_relu(opset=29, ir_version=10))


def opset_too_old():
    return serialize(conv_relu(opset=6, ir_version=3, initializers_as_inputs=True))


def bad_conv_channels():
    m = conv_relu(cin=4)  # weight [8, 4, 3, 3] but the input has 3 channels
    return serialize(m)


def wrong_initializer_size():
    m = conv_relu()
    w = next(t for t in m.graph.initializer if t.name == "conv_weight")
    w.raw_data = w.raw_data[:100]  # dims [8, 3, 3, 3] say 864 bytes
    return serialize(m)


CASES = collections.OrderedDict([
    ("not_onnx", not_onnx),
    ("truncated", truncated),
    ("empty", empty),
    ("unsupported_ops", unsupported_ops),
    ("missing_initializer", missing_initializer),
    ("dangling_input", dangling_input),
    ("cycle", cycle),
    ("zero_dim", zero_dim),
    ("negative_dim", negative_dim),
    ("unknown_dim", unknown_dim),
    ("opset_too_new", opset_too_new),
    ("opset_too_old", opset_too_old),
    ("bad_conv_channels", bad_conv_channels),
    ("wrong_initializer_size", wrong_initializer_size),
])


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


def checker_verdict(data):
    """What onnx says about the bytes (for the log only)."""
    try:
        model = onnx.load_from_string(data)
    except Exception as e:  # noqa: BLE001
        return "onnx.load fails (%s)" % type(e).__name__
    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception as e:  # noqa: BLE001
        return "checker refuses: %s" % str(e).strip().splitlines()[0][:100]
    return "checker accepts"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--list", action="store_true", help="print the file names and exit")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(name + ".onnx" for name in CASES))
        return 0
    os.makedirs(args.out, exist_ok=True)
    for name, make in CASES.items():
        data = make()
        path = os.path.join(args.out, name + ".onnx")
        write_atomic(path, data)
        print("%s: %d bytes; %s" % (path, len(data), checker_verdict(data)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

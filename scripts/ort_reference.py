#!/usr/bin/env python3
"""Write an onnxruntime reference input/output pair for an ONNX model.

    ort_reference.py MODEL --out DIR [--batch N] [--input-shape NAME:DIMS ...]
                     [--seed S] [--threads T] [--float64 [--engine ios|onnxruntime]]

Runs onnxruntime (CPU, default session options, intra_op_num_threads = T) on
random inputs (fixed seed; float inputs are standard normal float32) with every
symbolic or unknown dimension set to N, except for the inputs given a whole
shape with --input-shape (as iosc takes it, e.g. images:1x3x640x640), and writes DIR/input_<i>.pb and
DIR/output_<i>.pb as serialised onnx.TensorProto files (one per graph input /
output, in order; each TensorProto carries the graph name of its value), the
layout of ONNX's backend test data.  Files are written atomically.

With --float64 the outputs are a float64 reference instead, an oracle that
float32 runtimes (onnxruntime's float32 outputs included) can be measured
against: `--engine ios` (the default) has `iosc --reference-outputs` evaluate
the model with ios's reference kernels in float64 (slow, but every op ios
supports); `--engine onnxruntime` converts the model to float64 and runs
onnxruntime, which lacks float64 kernels for Conv and many CNN ops.
"""

import argparse
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

from ios_tools.files import write_atomically

_ORT_TYPES = {
    "tensor(float)": np.float32, "tensor(double)": np.float64, "tensor(float16)": np.float16,
    "tensor(int64)": np.int64, "tensor(int32)": np.int32, "tensor(int8)": np.int8,
    "tensor(uint8)": np.uint8, "tensor(bool)": np.bool_,
}


def concrete_shape(shape, batch):
    """Replace symbolic / unknown dimensions (strings or None) by ``batch``."""
    return tuple(d if isinstance(d, int) and d >= 0 else batch for d in shape)


def random_input(rng, ort_type, shape):
    dtype = _ORT_TYPES.get(ort_type)
    if dtype is None:
        raise SystemExit("unsupported input type %s" % ort_type)
    if np.issubdtype(dtype, np.floating):
        return rng.standard_normal(shape, dtype=np.float32).astype(dtype, copy=False)
    if dtype is np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    return rng.integers(0, 10, size=shape).astype(dtype)


def make_session(model_path, threads):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    return ort.InferenceSession(model_path, so, providers=["CPUExecutionProvider"])


def make_inputs(session, batch, seed, shapes=None):
    """Random inputs for every session input, keyed by name, in input order.

    ``shapes`` may map an input name to a concrete shape that overrides the
    model's declared one."""
    rng = np.random.default_rng(seed)
    feeds = {}
    for info in session.get_inputs():
        shape = shapes[info.name] if shapes and info.name in shapes else concrete_shape(info.shape, batch)
        feeds[info.name] = random_input(rng, info.type, shape)
    return feeds


def parse_input_shape(spec):
    """NAME:DIMS (the name is what comes before the last ':'), as iosc --input-shape."""
    name, sep, dims = spec.rpartition(":")
    if not sep or not name:
        raise argparse.ArgumentTypeError("%r: expected NAME:DIMS, e.g. images:1x3x640x640" % spec)
    try:
        shape = tuple(int(d) for d in dims.split("x")) if dims else ()
    except ValueError:
        raise argparse.ArgumentTypeError("%r: DIMS must be integers separated by 'x'" % spec)
    if any(d <= 0 for d in shape):
        raise argparse.ArgumentTypeError("%r: dimensions must be positive" % spec)
    return name, shape


def model_in_float64(path):
    """The model with every float32 tensor, input, output and cast widened to float64."""
    import onnx
    from onnx import TensorProto
    model = onnx.load(path)
    graph = model.graph

    def widen(tensor):
        if tensor.data_type == TensorProto.FLOAT:
            tensor.CopyFrom(numpy_helper.from_array(
                numpy_helper.to_array(tensor).astype(np.float64), tensor.name))

    for tensor in graph.initializer:
        widen(tensor)
    for info in list(graph.input) + list(graph.output) + list(graph.value_info):
        if info.type.tensor_type.elem_type == TensorProto.FLOAT:
            info.type.tensor_type.elem_type = TensorProto.DOUBLE
    for node in graph.node:
        for attr in node.attribute:
            if node.op_type == "Cast" and attr.name == "to" and attr.i == TensorProto.FLOAT:
                attr.i = TensorProto.DOUBLE
            if attr.HasField("t"):
                widen(attr.t)
    return model


def float64_outputs(args, feeds):
    """(names, float64 outputs) from the chosen engine for the float32 `feeds`."""
    if args.engine == "onnxruntime":
        import onnxruntime as ort
        try:
            session = ort.InferenceSession(model_in_float64(args.model).SerializeToString(),
                                           providers=["CPUExecutionProvider"])
        except Exception as e:  # noqa: BLE001: ORT says which kernel it lacks
            raise SystemExit("ort_reference: onnxruntime cannot run this model in float64 (%s);"
                             " use --engine ios" % str(e).splitlines()[0])
        names = [o.name for o in session.get_outputs()]
        wide = {k: v.astype(np.float64) if v.dtype == np.float32 else v for k, v in feeds.items()}
        return names, session.run(names, wide)
    import subprocess
    cmd = [args.iosc, args.model, "--reference-outputs", args.out]
    for name, value in feeds.items():
        cmd += ["--input-shape", "%s:%s" % (name, "x".join(str(d) for d in value.shape))]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit("ort_reference: %s failed:\n%s" % (" ".join(cmd), result.stderr))
    names, outputs = [], []
    i = 0
    while os.path.exists(os.path.join(args.out, "output_%d.pb" % i)):
        tensor = onnx.load_tensor(os.path.join(args.out, "output_%d.pb" % i))
        names.append(tensor.name)
        outputs.append(numpy_helper.to_array(tensor))
        i += 1
    return names, outputs


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", help="ONNX model file")
    parser.add_argument("--out", required=True, help="output directory (created if missing)")
    parser.add_argument("--batch", type=int, default=1, help="value of symbolic dimensions (default 1)")
    parser.add_argument("--input-shape", type=parse_input_shape, action="append", default=[],
                        metavar="NAME:DIMS", help="an input's whole shape, e.g. images:1x3x640x640")
    parser.add_argument("--seed", type=int, default=0, help="input seed (default 0)")
    parser.add_argument("--threads", type=int, default=2, help="onnxruntime intra-op threads (default 2)")
    parser.add_argument("--float64", action="store_true",
                        help="write a float64 reference (see above) instead of onnxruntime's float32")
    parser.add_argument("--engine", choices=("ios", "onnxruntime"), default="ios",
                        help="what computes the float64 reference (default ios)")
    parser.add_argument("--iosc", default=os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "build", "tools", "iosc"), help="iosc for --engine ios")
    args = parser.parse_args(argv)
    if args.batch < 1:
        parser.error("--batch must be >= 1")

    session = make_session(args.model, args.threads)
    shapes = dict(args.input_shape)
    unknown = sorted(set(shapes) - {i.name for i in session.get_inputs()})
    if unknown:
        parser.error("--input-shape names %s, not inputs of the model" % ", ".join(unknown))
    feeds = make_inputs(session, args.batch, args.seed, shapes)

    os.makedirs(args.out, exist_ok=True)
    for i in range(len(session.get_outputs()) + 16):  # no stale outputs of an earlier run
        stale = os.path.join(args.out, "output_%d.pb" % i)
        if os.path.exists(stale):
            os.remove(stale)
    for i, (name, value) in enumerate(feeds.items()):
        write_atomically(os.path.join(args.out, "input_%d.pb" % i),
                         numpy_helper.from_array(value, name).SerializeToString())
    if args.float64:
        output_names, outputs = float64_outputs(args, feeds)
    else:
        output_names = [o.name for o in session.get_outputs()]
        outputs = session.run(output_names, feeds)
    for i, (name, value) in enumerate(zip(output_names, outputs)):
        value = np.asarray(value)
        write_atomically(os.path.join(args.out, "output_%d.pb" % i),
                         numpy_helper.from_array(value, name).SerializeToString())
        finite = bool(np.isfinite(value).all()) if np.issubdtype(value.dtype, np.floating) else True
        print("%s: output %d %r shape %s finite %s mean %.6g std %.6g max |x| %.6g" % (
            os.path.basename(args.model), i, name, value.shape, finite, float(np.mean(value)),
            float(np.std(value)), float(np.max(np.abs(value))) if value.size else 0.0))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Times every op of ios's registry as a one-node model at sizes typical of CNNs, on ios's CPU
backend against onnxruntime (CPUExecutionProvider, sequential mode, the same thread count), and
prints per-op ratios.

Both sides are timed per op, not per call, so that neither's call overhead counts (Python's
binding for onnxruntime, a session's dispatch for ios): ios by `iosrun --export-profile` (the op's
median over --runs traced runs, after two untraced ones), onnxruntime by its own profiler (the
median of the node's kernel_time events over --runs runs, after three untimed ones). Rounds are
interleaved: each round times every case on both sides, back to back, on the same inputs, so that
the machine's drift hits both alike; a case's ratio is the median over rounds of that round's
ios / onnxruntime. Cases of the ops that follow convs in CNNs (convs, pools, reductions) take their
input from a 1x1 conv (not timed), so that each runtime gives them the layout it keeps between
convs rather than a graph input's.

An op's ratio is its worst case's. Ops that only move shapes or constants (Shape, Constant,
ConstantOfShape, Range) are folded into constants when the plan is compiled: their plans hold no
op, and they are reported as "folded" rather than timed.

    python3 scripts/bench_ops.py [--ops Conv,Add,...] [--rounds 3] [--runs 20] [--threads N]
        [--build-dir build] [--json FILE] [--write-speed FILE] [--list]

--write-speed FILE writes the per-op ratios (the CPU speed column of docs/operators.md,
scripts/op_table.py); --list prints the cases and exits.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from ios_tools.files import write_atomically

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

F32, I64, BOOL = np.float32, np.int64, np.bool_
_ONNX_TYPES = {F32: TensorProto.FLOAT, I64: TensorProto.INT64, BOOL: TensorProto.BOOL}


class Operand:
    """One input of a case: a graph input fed random values, or an initializer (`value`)."""

    def __init__(self, shape=None, dtype=F32, value=None, positive=False, omitted=False):
        self.shape = list(value.shape) if value is not None else list(shape or [])
        self.dtype = value.dtype.type if value is not None else dtype
        self.value = value
        self.positive = positive
        self.omitted = omitted

    def random(self, rng):
        if self.dtype == BOOL:
            return rng.random(self.shape) < 0.5
        if self.dtype == I64:
            return rng.integers(0, 8, self.shape).astype(np.int64)
        data = rng.standard_normal(self.shape).astype(np.float32)
        return np.abs(data) + np.float32(0.1) if self.positive else data


def Const(values, dtype=None):
    return Operand(value=np.asarray(values, dtype=dtype))


OMITTED = Operand(omitted=True)


# The name prefix of a case's context node (not timed).
CONTEXT = "context"


class Case:
    """A one-node model of `op`. With `after_conv`, its first input comes from a 1x1 Conv and its
    first output goes into one (identities, the context nodes, not timed), as inside a CNN: each
    runtime then gives the op the layout it keeps between convs (ios channels-last, onnxruntime
    NCHWc) instead of a graph input's and output's."""

    def __init__(self, op, name, inputs, attrs=None, opset=17, outputs=1, after_conv=False):
        self.op, self.name, self.inputs = op, name, inputs
        self.attrs, self.opset, self.outputs = attrs or {}, opset, outputs
        self.after_conv = after_conv

    def shapes(self):
        """Each graph input's name and shape."""
        return {f"in{i}": o.shape for i, o in enumerate(self.inputs)
                if not o.omitted and o.value is None}

    def model(self):
        node_inputs, graph_inputs, inits, nodes = [], [], [], []
        for i, operand in enumerate(self.inputs):
            if operand.omitted:
                node_inputs.append("")
                continue
            name = f"in{i}"
            node_inputs.append(name)
            if operand.value is not None:
                inits.append(numpy_helper.from_array(operand.value, name))
            else:
                graph_inputs.append(helper.make_tensor_value_info(name, _ONNX_TYPES[operand.dtype],
                                                                  operand.shape))

        def identity_conv(name, channels, src, dst):
            w = np.eye(channels, dtype=np.float32).reshape(channels, channels, 1, 1)
            inits.append(numpy_helper.from_array(w, f"{name}/w"))
            nodes.append(helper.make_node("Conv", [src, f"{name}/w"], [dst], name=name))

        if self.after_conv:
            identity_conv(f"{CONTEXT}_before", self.inputs[0].shape[1], node_inputs[0],
                          f"{CONTEXT}/in")
            node_inputs[0] = f"{CONTEXT}/in"
        outputs = [f"out{i}" for i in range(self.outputs)]
        op_outputs = list(outputs)
        if self.after_conv:  # output 0 into a 1x1 conv too, as between convs
            # onnxruntime renames the nodes it moves to its blocked layout after their first
            # output: the op's keeps the op's name, the context nodes' the context's.
            op_outputs[0] = "op/out0"
            outputs[0] = f"{CONTEXT}/out0"
        nodes.append(helper.make_node(self.op, node_inputs, op_outputs, name="op", **self.attrs))
        if self.after_conv:
            probe = helper.make_model(
                helper.make_graph(list(nodes), "probe", graph_inputs,
                                  [helper.make_tensor_value_info(op_outputs[0],
                                                                 TensorProto.UNDEFINED, None)],
                                  list(inits)),
                opset_imports=[helper.make_opsetid("", self.opset)])
            inferred = onnx.shape_inference.infer_shapes(probe, strict_mode=True)
            dims = [d.dim_value for d in
                    inferred.graph.output[0].type.tensor_type.shape.dim]
            identity_conv(f"{CONTEXT}_after", dims[1], op_outputs[0], outputs[0])
        graph = helper.make_graph(nodes, f"{self.op}_{self.name}", graph_inputs,
                                  [helper.make_tensor_value_info(o, TensorProto.UNDEFINED, None)
                                   for o in outputs], inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)])
        model.ir_version = 8
        model = onnx.shape_inference.infer_shapes(model, strict_mode=True)
        onnx.checker.check_model(model)
        return model

    def feeds(self, seed=0):
        rng = np.random.default_rng(seed)
        return {f"in{i}": operand.random(rng) for i, operand in enumerate(self.inputs)
                if not operand.omitted and operand.value is None}


# The sizes of the cases: a mid-network activation of ImageNet CNNs at batch 1 ([1, 64, 56, 56],
# 200K values), its per-channel parameters, and a classifier's [1, 1000].
ACT = [1, 64, 56, 56]
CHANNEL = [1, 64, 1, 1]
rng0 = np.random.default_rng(7)


def _weights(*shape):
    return (rng0.standard_normal(shape) * 0.1).astype(np.float32)


def _cases():
    cases = []

    def add(op, name, inputs, **kw):
        cases.append(Case(op, name, inputs, **kw))

    x = Operand(ACT)
    positive = Operand(ACT, positive=True)
    for op in ("Abs", "Ceil", "Exp", "Floor", "Neg", "Erf", "Sign", "Relu", "Sigmoid", "Tanh",
               "HardSigmoid", "HardSwish", "Elu", "Softplus", "Selu", "Celu", "Softsign",
               "Identity"):
        add(op, "act", [x])
    add("Mish", "act", [x], opset=18)
    add("LeakyRelu", "act", [x], attrs={"alpha": 0.1})
    add("ThresholdedRelu", "act", [x], attrs={"alpha": 0.5})
    add("Gelu", "act", [x], opset=20)
    for op in ("Log", "Sqrt", "Reciprocal"):
        add(op, "act", [positive])
    add("Clip", "relu6", [x, Const(0.0, F32), Const(6.0, F32)])
    add("Dropout", "inference", [x])
    add("Not", "mask", [Operand(ACT, BOOL)])
    for op in ("Add", "Sub", "Mul", "Div", "Max", "Min"):
        add(op, "same shape", [x, Operand(ACT)])
        add(op, "per channel", [x, Operand(CHANNEL)])
    add("Pow", "same shape", [positive, Operand(ACT)])
    add("Pow", "scalar 2", [x, Const(2.0, F32)])
    add("Mod", "fmod", [x, Operand(ACT, positive=True)], attrs={"fmod": 1})
    add("Mod", "int64", [Operand(ACT, I64), Const(3, I64)])
    add("PRelu", "per channel", [x, Const(_weights(64, 1, 1))])
    add("Sum", "3 inputs", [x, Operand(ACT), Operand(ACT)])
    add("Mean", "3 inputs", [x, Operand(ACT), Operand(ACT)])
    for op in ("Equal", "Greater", "Less"):
        add(op, "same shape", [x, Operand(ACT)])
        add(op, "scalar", [x, Const(0.0, F32)])
    add("Equal", "int64", [Operand(ACT, I64), Operand(ACT, I64)])
    add("Where", "same shape", [Operand(ACT, BOOL), x, Operand(ACT)])
    add("Where", "broadcast mask", [Operand([1, 1, 56, 56], BOOL), x, Const(0.0, F32)])
    add("Cast", "float to int64", [x], attrs={"to": TensorProto.INT64})
    add("Cast", "int64 to float", [Operand(ACT, I64)], attrs={"to": TensorProto.FLOAT})
    add("Cast", "bool to float", [Operand(ACT, BOOL)], attrs={"to": TensorProto.FLOAT})
    add("Expand", "per channel", [Operand(CHANNEL), Const(ACT, I64)])
    add("Tile", "2x2", [Operand([1, 64, 28, 28]), Const([1, 1, 2, 2], I64)])
    add("ScatterND", "rows", [Operand([64, 56, 56]), Const([[3], [17]], I64),
                              Operand([2, 56, 56])])

    add("Conv", "3x3 64->64", [x, Const(_weights(64, 64, 3, 3)), Const(_weights(64))],
        attrs={"pads": [1, 1, 1, 1]}, after_conv=True)
    add("Conv", "1x1 64->256", [x, Const(_weights(256, 64, 1, 1)), Const(_weights(256))],
        after_conv=True)
    add("Conv", "depthwise 3x3", [x, Const(_weights(64, 1, 3, 3)), Const(_weights(64))],
        attrs={"pads": [1, 1, 1, 1], "group": 64}, after_conv=True)
    add("ConvTranspose", "2x2 s2 64->64", [Operand([1, 64, 80, 80]), Const(_weights(64, 64, 2, 2)),
                                            Const(_weights(64))], attrs={"strides": [2, 2]},
        after_conv=True)
    add("ConvTranspose", "4x4 s2 p1 128->64",
        [Operand([1, 128, 40, 40]), Const(_weights(128, 64, 4, 4)), Const(_weights(64))],
        attrs={"strides": [2, 2], "pads": [1, 1, 1, 1]}, after_conv=True)
    add("ConvTranspose", "3x3 s2 p1 op1 64->32",
        [Operand([1, 64, 80, 80]), Const(_weights(64, 32, 3, 3)), Const(_weights(32))],
        attrs={"strides": [2, 2], "pads": [1, 1, 1, 1], "output_padding": [1, 1]}, after_conv=True)
    add("ConvTranspose", "3x3 s1 p1 16->1", [Operand([1, 16, 640, 640]),
                                              Const(_weights(16, 1, 3, 3)), Const(_weights(1))],
        attrs={"pads": [1, 1, 1, 1]}, after_conv=True)
    add("Gemm", "classifier",
        [Operand([1, 1280]), Const(_weights(1000, 1280)), Const(_weights(1000))],
        attrs={"transB": 1})
    add("MatMul", "tokens", [Operand([1, 196, 384]), Const(_weights(384, 384))])
    # On an input: after a conv it folds into the conv.
    add("BatchNormalization", "standalone", [x, Const(_weights(64) + 1), Const(_weights(64)),
                                             Const(_weights(64)), Const(np.abs(_weights(64)) + 1)])
    add("LayerNormalization", "tokens", [Operand([1, 196, 384]), Const(_weights(384) + 1),
                                         Const(_weights(384))], attrs={"axis": -1})
    add("MaxPool", "3x3 s2 on an input", [Operand([1, 64, 112, 112])],
        attrs={"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]})
    add("AveragePool", "3x3 s1 on an input", [Operand([1, 192, 28, 28])],
        attrs={"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "count_include_pad": 0})
    add("MaxPool", "3x3 s2", [Operand([1, 64, 112, 112])],
        attrs={"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}, after_conv=True)
    add("AveragePool", "3x3 s1", [Operand([1, 192, 28, 28])],
        attrs={"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "count_include_pad": 0},
        after_conv=True)
    add("GlobalAveragePool", "head", [Operand([1, 1280, 7, 7])], after_conv=True)
    add("GlobalMaxPool", "head", [Operand([1, 1280, 7, 7])], after_conv=True)
    add("Softmax", "classes", [Operand([8, 1000])], attrs={"axis": -1})
    add("LogSoftmax", "classes", [Operand([8, 1000])], attrs={"axis": -1})
    for op in ("ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
               "ReduceL2", "ReduceSumSquare", "ReduceLogSumExp"):
        # Squeeze-excite's pooling as exporters write it: after a conv, over H and W.
        if op == "ReduceSum":  # axes an input since opset 13
            add(op, "spatial", [x, Const([2, 3], I64)], attrs={"keepdims": 1}, after_conv=True)
        else:
            add(op, "spatial", [x], attrs={"axes": [2, 3], "keepdims": 1}, after_conv=True)
    add("ReduceMean", "spatial on an input", [x], attrs={"axes": [2, 3], "keepdims": 1})
    add("ReduceMean", "last axis", [Operand([8, 196, 384])], attrs={"axes": [-1], "keepdims": 1})
    add("ArgMax", "classes", [Operand([8, 1000])], attrs={"axis": 1})
    add("ArgMin", "classes", [Operand([8, 1000])], attrs={"axis": 1})
    add("Concat", "4 branches", [Operand([1, 64, 28, 28]) for _ in range(4)], attrs={"axis": 1})
    add("Split", "4 ways", [Operand([1, 256, 28, 28])], attrs={"axis": 1, "num_outputs": 4},
        opset=18, outputs=4)
    add("Slice", "crop", [x, Const([1, 1], I64), Const([55, 55], I64), Const([2, 3], I64)])
    add("Transpose", "to NHWC", [x], attrs={"perm": [0, 2, 3, 1]})
    add("Reshape", "flatten", [Operand([1, 1280, 1, 1]), Const([1, 1280], I64)])
    add("Flatten", "head", [Operand([1, 1280, 1, 1])])
    add("Squeeze", "head", [Operand([1, 1280, 1, 1]), Const([2, 3], I64)])
    add("Unsqueeze", "head", [Operand([1, 1280]), Const([2, 3], I64)])
    add("DepthToSpace", "2x", [Operand([1, 64, 28, 28])], attrs={"blocksize": 2})
    add("SpaceToDepth", "2x", [Operand([1, 16, 56, 56])], attrs={"blocksize": 2})
    add("Pad", "1 pixel", [x, Const([0, 0, 1, 1, 0, 0, 1, 1], I64)])
    add("Gather", "channels", [x, Const(np.arange(63, -1, -1), I64)], attrs={"axis": 1})
    add("Resize", "nearest 2x", [x, OMITTED, Const([1, 1, 2, 2], F32)], attrs={"mode": "nearest"})
    add("Resize", "linear 2x", [x, OMITTED, Const([1, 1, 2, 2], F32)], attrs={"mode": "linear"})
    add("Upsample", "nearest 2x", [x, Const([1, 1, 2, 2], F32)], opset=9)
    add("Shape", "folded", [x])
    add("ConstantOfShape", "folded", [Const(ACT, I64)])
    add("Range", "folded", [Const(0, I64), Const(64, I64), Const(1, I64)])
    cases.append(Case("Constant", "folded", [],
                      attrs={"value": numpy_helper.from_array(_weights(64), "v")}))
    return cases


CASES = _cases()
FOLDED = {"Shape", "Constant", "ConstantOfShape", "Range"}


def ort_kernel_us(model_path, case, threads, runs, tmp):
    """Median kernel time of the node (µs) from onnxruntime's profiler."""
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.enable_profiling = True
    options.profile_file_prefix = os.path.join(tmp, "ort")
    session = ort.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])
    feeds = case.feeds()
    warmup = 3
    for _ in range(warmup + runs):
        session.run(None, feeds)
    profile = session.end_profiling()
    with open(profile) as f:
        events = json.load(f)
    os.remove(profile)
    kernel_events = sorted((e for e in events if e.get("cat") == "Node" and
                            e.get("name", "").endswith("_kernel_time")), key=lambda e: e["ts"])
    if case.after_conv:
        # Each run: the context conv before, the op (and any reorder onnxruntime puts between
        # it and the convs), the context conv after. What lies between the two is the op's.
        durations, inside, acc = [], False, 0
        for e in kernel_events:
            if e["name"].startswith(CONTEXT):
                if inside:
                    durations.append(acc)
                inside, acc = not inside, 0
            elif inside:
                acc += e["dur"]
    else:
        durations = [e["dur"] for e in kernel_events]
    if not durations:
        return 0.0  # onnxruntime folded the node away
    # One node per run, or the nodes onnxruntime's optimiser made of it: sum them per run.
    per_run = max(len(durations) // (warmup + runs), 1)
    timed = durations[-runs * per_run:]
    return statistics.median(sum(timed[i:i + per_run]) for i in range(0, len(timed), per_run))


def write_inputs(case, directory):
    """The case's feeds as DIR/input_N.pb (iosrun --load-inputs), the values onnxruntime gets."""
    os.makedirs(directory, exist_ok=True)
    for i, (name, value) in enumerate(case.feeds().items()):
        onnx.save_tensor(numpy_helper.from_array(value, name),
                         os.path.join(directory, f"input_{i}.pb"))


def ios_op_us(build_dir, model_path, shapes, inputs_dir, threads, runs, tmp):
    """Median time (µs) of the plan's op named "op" (the case's node; a context node before it
    is not counted), summed over what the plan made of it, on the inputs of `inputs_dir`; None
    when the plan holds no such op."""
    iosc = os.path.join(build_dir, "tools", "iosc")
    iosrun = os.path.join(build_dir, "tools", "iosrun")
    plan = os.path.join(tmp, "plan.iosplan")
    if not os.path.exists(plan + ".src") or open(plan + ".src").read() != model_path:
        # iosc sets every input's leading dim (the batch) to --batch unless its whole shape is
        # given: give them all.
        shape_flags = []
        for name, dims in shapes.items():
            shape_flags += ["--input-shape", f"{name}:" + "x".join(str(d) for d in dims)]
        result = subprocess.run([iosc, model_path, "--device", "cpu", "--schedule", "sequential",
                                 "-o", plan] + shape_flags, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(result.stderr.strip())
        with open(plan + ".src", "w") as f:
            f.write(model_path)
    profile = os.path.join(tmp, "profile.json")
    result = subprocess.run([iosrun, plan, "--threads", str(threads), "--export-profile", profile,
                             "--trace-runs", str(runs), "--load-inputs", inputs_dir],
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(result.stderr.strip())
    with open(profile) as f:
        ops = [op for op in json.load(f)["ops"] if not op["name"].startswith(CONTEXT)]
    if not ops:
        return None
    return 1000.0 * sum(op["ms"] for op in ops)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", help="comma-separated op types (default: all)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=20, help="timed runs per side and round")
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    parser.add_argument("--json", help="write every figure to this file")
    parser.add_argument("--write-speed", help="write the per-op ratios to this file")
    parser.add_argument("--list", action="store_true", help="print the cases and exit")
    args = parser.parse_args()
    wanted = set(args.ops.split(",")) if args.ops else None
    cases = [c for c in CASES if wanted is None or c.op in wanted]
    if args.list:
        for c in cases:
            print(f"{c.op:20s} {c.name}")
        return
    import onnxruntime as ort
    print(f"{len(cases)} cases, threads {args.threads}, {args.rounds} rounds of {args.runs} runs; "
          f"onnxruntime {ort.__version__}", flush=True)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        dirs = []
        for i, case in enumerate(cases):
            d = os.path.join(tmp, f"case{i}")
            os.makedirs(d)
            onnx.save(case.model(), os.path.join(d, "model.onnx"))
            write_inputs(case, os.path.join(d, "inputs"))
            dirs.append(d)
        samples = [{"ios": [], "ort": [], "ratio": [], "error": None} for _ in cases]
        for r in range(args.rounds):
            order = list(range(len(cases)))
            if r % 2:
                order.reverse()
            for i in order:
                case, d, s = cases[i], dirs[i], samples[i]
                if s["error"] or case.op in FOLDED:
                    continue
                model = os.path.join(d, "model.onnx")
                try:
                    ios_us = ios_op_us(args.build_dir, model, case.shapes(),
                                       os.path.join(d, "inputs"), args.threads, args.runs, d)
                    ort_us = ort_kernel_us(model, case, args.threads, args.runs, d)
                except RuntimeError as e:
                    s["error"] = str(e)
                    continue
                if ios_us is None:
                    s["error"] = "the plan holds no op"
                    continue
                s["ios"].append(ios_us)
                s["ort"].append(ort_us)
                if ort_us > 0:
                    s["ratio"].append(ios_us / ort_us)
            print(f"round {r + 1} done", file=sys.stderr, flush=True)
        print(f"{'op':20s} {'case':26s} {'ios us':>10s} {'ort us':>10s} {'ios/ort':>8s}")
        for case, s in zip(cases, samples):
            row = {"op": case.op, "case": case.name}
            if case.op in FOLDED:
                row["folded"] = True
                print(f"{case.op:20s} {case.name:26s} {'folded at compile time':>30s}")
            elif s["error"]:
                row["error"] = s["error"]
                print(f"{case.op:20s} {case.name:26s} error: {s['error'][:80]}")
            else:
                row.update(ios_us=statistics.median(s["ios"]), ort_us=statistics.median(s["ort"]),
                           ratio=statistics.median(s["ratio"]) if s["ratio"] else None,
                           ratio_range=[min(s["ratio"]), max(s["ratio"])] if s["ratio"] else None)
                ratio = f"{row['ratio']:.2f}" if row["ratio"] is not None else "-"
                print(f"{case.op:20s} {case.name:26s} {row['ios_us']:10.1f} {row['ort_us']:10.1f} "
                      f"{ratio:>8s}")
            results.append(row)
    per_op = {}
    for row in results:
        entry = per_op.setdefault(row["op"], {"ratio": None, "folded": False, "cases": 0})
        entry["cases"] += 1
        if row.get("folded"):
            entry["folded"] = True
        elif row.get("ratio") is not None:
            entry["ratio"] = max(entry["ratio"] or 0.0, row["ratio"])
    worst = sorted(((e["ratio"], op) for op, e in per_op.items() if e["ratio"]), reverse=True)
    print("worst per op: " + ", ".join(f"{op} {r:.2f}" for r, op in worst[:10]))
    if args.json:
        write_atomically(args.json, json.dumps(
            {"threads": args.threads, "rounds": args.rounds, "runs": args.runs,
             "onnxruntime": ort.__version__, "cases": results, "ops": per_op}, indent=1))
    if args.write_speed:
        speed = {op: ("folded" if e["folded"] else round(e["ratio"], 2) if e["ratio"] else None)
                 for op, e in sorted(per_op.items())}
        if args.ops and os.path.exists(args.write_speed):  # a subset updates its ops' entries
            with open(args.write_speed) as f:
                speed = {**json.load(f)["ios_over_onnxruntime"], **speed}
        write_atomically(args.write_speed, json.dumps(
            {"measured": time.strftime("%Y-%m-%d"), "threads": args.threads,
             "onnxruntime": ort.__version__, "cpu": platform_cpu(),
             "ios_over_onnxruntime": speed}, indent=1, sort_keys=True) + "\n")


def platform_cpu():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


if __name__ == "__main__":
    main()

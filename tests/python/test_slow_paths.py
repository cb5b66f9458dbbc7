#!/usr/bin/env python3
"""iosc and iosrun say when a node will be slow (issue 50): a CPU plan's nodes that run the
reference kernel or behind a layout reorder are listed in `iosc --stats-json` (slow_nodes, with
their stage's share of the predicted latency) and marked in `iosrun --export-profile` ("kernel"),
for the IOS schedule and the sequential one alike; a model whose nodes all have own kernels lists
none. The model: a conv whose channels-last output feeds a Softmax over the channels (a kernel
that takes row-major tensors only: behind a reorder), and an int64 Div (Div's kernel is float32:
the reference kernel)."""
import json
import os
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from ios_test_util import Tally, parse_args, plan_info, run


def slow_model(path):
    w = numpy_helper.from_array(np.random.default_rng(0).random((16, 8, 3, 3), np.float32), "w")
    divisor = numpy_helper.from_array(np.full((4, 8), 3, np.int64), "j")  # never 0
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        helper.make_node("Softmax", ["c"], ["probs"], name="softmax", axis=1),
        helper.make_node("Div", ["i", "j"], ["ratio"], name="int_div"),
    ]
    graph = helper.make_graph(
        nodes, "slow_paths",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 16, 16]),
         helper.make_tensor_value_info("i", TensorProto.INT64, [4, 8])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, 16, 16, 16]),
         helper.make_tensor_value_info("ratio", TensorProto.INT64, [4, 8])], [w, divisor])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def fast_model(path):
    w = numpy_helper.from_array(np.random.default_rng(1).random((16, 8, 3, 3), np.float32), "w")
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["y"], name="relu")]
    graph = helper.make_graph(nodes, "fast",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def main():
    args = parse_args()
    tally = Tally()
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "slow.onnx")
        slow_model(model)
        for schedule in ("ios", "sequential"):
            plan = os.path.join(tmp, f"{schedule}.iosplan")
            stats_path = os.path.join(tmp, f"{schedule}.json")
            compiled = run([args.iosc, model, "--device", "cpu", "--schedule", schedule, "-o",
                            plan, "--stats-json", stats_path])
            if not tally.check(f"{schedule}: iosc compiles", compiled.returncode == 0,
                               compiled.stderr):
                continue
            with open(stats_path) as f:
                stats = json.load(f)
            slow = {node["name"]: node for node in stats.get("slow_nodes", [])}
            tally.check(f"{schedule}: --stats-json lists the two slow nodes",
                        sorted(slow) == ["int_div", "softmax"], str(stats.get("slow_nodes")))
            tally.check(f"{schedule}: the int64 Div runs the reference kernel",
                        slow.get("int_div", {}).get("kernel") == "reference", str(slow))
            # Where oneDNN has no NHWC convs the conv's output stays row-major: no reorder.
            layouts = {t["name"]: t.get("layout") for t in plan_info(args, plan, tmp)["tensors"]}
            if layouts.get("c") == "CHANNELS_LAST":
                tally.check(f"{schedule}: the Softmax runs behind a reorder",
                            slow.get("softmax", {}).get("kernel") == "behind a reorder", str(slow))
            if schedule == "ios":  # profiled: each slow node's stage has a share of the latency
                shares = [node.get("share", -1) for node in slow.values()]
                tally.check("ios: each slow node has its stage's share of the prediction",
                            all(0 < s <= 1 for s in shares), str(shares))
            else:  # no cost source, no share
                tally.check("sequential: no share without a prediction",
                            all(node.get("share", -1) == -1 for node in slow.values()), str(slow))
            profile = os.path.join(tmp, f"{schedule}.profile.json")
            ran = run([args.iosrun, plan, "--export-profile", profile, "--trace-runs", "2"])
            if not tally.check(f"{schedule}: iosrun profiles", ran.returncode == 0, ran.stderr):
                continue
            with open(profile) as f:
                kernels = {op["name"]: op["kernel"] for op in json.load(f)["ops"]}
            tally.check(f"{schedule}: the profile marks the Div and the conv's kernel",
                        kernels.get("int_div") == "reference" and
                        kernels.get("conv") == "own kernel", str(kernels))
        fast = os.path.join(tmp, "fast.onnx")
        fast_model(fast)
        stats_path = os.path.join(tmp, "fast.json")
        compiled = run([args.iosc, fast, "--device", "cpu", "--schedule", "sequential", "-o",
                        os.path.join(tmp, "fast.iosplan"), "--stats-json", stats_path])
        if tally.check("own kernels only: iosc compiles", compiled.returncode == 0,
                       compiled.stderr):
            with open(stats_path) as f:
                stats = json.load(f)
            tally.check("own kernels only: no slow node", not stats.get("slow_nodes"), str(stats))
    tally.finish()


if __name__ == "__main__":
    main()

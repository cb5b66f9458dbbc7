"""Resize and Upsample end to end, against onnxruntime: the detection-neck models of
scripts/models/fpn_neck.py (an FPN with a DBNet-style fused head, six upsampling sites), in
variants that together cover every nearest_mode on every coordinate_transformation_mode, linear
and cubic, scales and sizes, axes and keep_aspect_ratio_policy, Resize at opsets 10, 11, 13, 18
and 19 and Upsample at 7 and 9. For each: iosc compiles it on the CPU (greedy and the IOS
search, batch 1; greedy at batch 2), the plan holds the six upsampling ops, and iosrun --check
matches onnxruntime on every output, as does the graph --emit-onnx writes. The free-size
variant is compiled with --input-shape at two sizes. First a check that the test has teeth: for each (coordinate mode, nearest_mode), some
site of some variant reads different pixels than the other three roundings would (asked of
onnxruntime on a 1-D ramp). Last, bad Resize nodes (scales computed at run time, antialias,
tf_crop_and_resize, Upsample past opset 9): exit status 2, a message naming the node and op,
and no plan."""
import os
import re
import sys
import tempfile

from ios_test_util import Tally, parse_args, plan_ops, run

ATOL, RTOL = "1e-5", "1e-4"
FREE_HW_SHAPES = ("1x3x96x128", "2x3x64x160")


def max_abs_errors(stdout):
    return [float(e) for e in re.findall(r"max abs error ([0-9.e+-]+)", stdout)]


def nearest_indices(coordinate, rounding, length, spec):
    """The input indices onnxruntime's nearest Resize reads along one axis of `length`, resized
    by scale `spec` (float) or to `spec` elements (int)."""
    import numpy as np
    import onnxruntime as ort
    from onnx import TensorProto, helper
    attrs = dict(mode="nearest", coordinate_transformation_mode=coordinate, nearest_mode=rounding,
                 axes=[1])
    if isinstance(spec, int):
        node = helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], **attrs)
        init = helper.make_tensor("sizes", TensorProto.INT64, [1], [spec])
    else:
        node = helper.make_node("Resize", ["x", "", "scales"], ["y"], **attrs)
        init = helper.make_tensor("scales", TensorProto.FLOAT, [1], [spec])
    graph = helper.make_graph([node], "probe",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, length])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [init])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    ramp = np.arange(length, dtype=np.float32).reshape(1, length)
    return tuple(int(v) for v in session.run(None, {"x": ramp})[0].ravel())


def check_sensitivity(tally, fpn_neck):
    told_apart = set()
    for opset, op, configs, _ in fpn_neck.VARIANTS.values():
        if op != "Resize" or opset < 11:
            continue
        for site, config in configs.items():
            coordinate = config.get("coordinate_transformation_mode")
            if config.get("mode") != "nearest" or coordinate not in fpn_neck.COORDINATE_MODES:
                continue
            length, spec = fpn_neck.SITE_AXES[site]
            mine = nearest_indices(coordinate, config["nearest_mode"], length, spec)
            if all(nearest_indices(coordinate, other, length, spec) != mine
                   for other in fpn_neck.NEAREST_MODES if other != config["nearest_mode"]):
                told_apart.add((coordinate, config["nearest_mode"]))
    wanted = {(c, r) for c in fpn_neck.COORDINATE_MODES for r in fpn_neck.NEAREST_MODES}
    tally.check(f"the variants tell every nearest_mode apart on every coordinate mode "
                f"({len(wanted)} pairs)", told_apart == wanted, sorted(wanted - told_apart))


def check_variant(tally, args, worst, tmp, variant, model, batch, schedules, shape=None):
    shape_flags = ["--input-shape", f"input:{shape}"] if shape else []
    label = f"{variant} {shape or 'b' + batch}"
    ref = os.path.join(tmp, f"ref_{variant}_{shape or batch}")
    made = run([sys.executable, os.path.join(args.source_dir, "scripts", "ort_reference.py"),
                model, "--out", ref, "--batch", batch] + shape_flags)
    if not tally.check(f"{label}: onnxruntime reference", made.returncode == 0, made.stderr):
        return
    for schedule in schedules:
        plan = os.path.join(tmp, "model.iosplan")
        compiled = run([args.iosc, model, "--batch", batch, "--schedule", schedule, "-o", plan] +
                       shape_flags)
        if not tally.check(f"{label} {schedule}: iosc", compiled.returncode == 0, compiled.stderr):
            continue
        ops = plan_ops(args, plan, tmp)
        tally.check(f"{label} {schedule}: the plan runs 6 upsampling ops",
                    ops.count("Resize") + ops.count("Upsample") == 6, str(sorted(set(ops))))
        checked = run([args.iosrun, plan, "--check", ref, "--atol", ATOL, "--rtol", RTOL])
        tally.check(f"{label} {schedule}: matches onnxruntime", checked.returncode == 0,
                    checked.stdout + checked.stderr)
        errors = max_abs_errors(checked.stdout)
        key = f"{label} {schedule}"
        worst[key] = max(errors) if errors else float("nan")


def check_emitted(tally, args, tmp, variant, model):
    """--emit-onnx writes the canonicalised graph (Resize and Upsample nodes with their folded
    scales and sizes) back as ONNX; onnxruntime must get the original's outputs from it."""
    emitted = os.path.join(tmp, f"canonical_{variant}.onnx")
    result = run([args.iosc, model, "--batch", "2", "--emit-onnx", emitted])
    if tally.check(f"{variant}: iosc --emit-onnx", result.returncode == 0, result.stderr):
        compare = run([sys.executable,
                       os.path.join(args.source_dir, "scripts", "compare_onnx_models.py"),
                       model, emitted, "--batch", "2", "--atol", ATOL, "--rtol", RTOL])
        tally.check(f"{variant}: the emitted graph matches onnxruntime", compare.returncode == 0,
                    compare.stdout + compare.stderr)


def bad_models(tmp):
    """(file, what the message must say) for Resize nodes iosc must refuse."""
    import onnx
    from onnx import TensorProto, helper
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    scales = helper.make_tensor("scales", TensorProto.FLOAT, [4], [1, 1, 2, 2])
    cases = []

    def save(name, nodes, opset, inputs=(x,), inits=(scales,)):
        graph = helper.make_graph(nodes, name, list(inputs), [y], list(inits))
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        path = os.path.join(tmp, name + ".onnx")
        onnx.save(model, path)
        return path

    runtime_scales = helper.make_tensor_value_info("scales", TensorProto.FLOAT, [4])
    cases.append((save("runtime_scales",
                       [helper.make_node("Resize", ["x", "", "scales"], ["y"], name="up")], 13,
                       inputs=(x, runtime_scales), inits=()),
                  ["node 'up' (Resize, opset 13)", "input 'scales' is computed at run time"]))
    # Scales computed from the input's values (not its shape): no folding can fix them.
    mean = helper.make_node("ReduceMean", ["x"], ["m"], name="mean", keepdims=0)
    grow = helper.make_node("Add", ["m", "one"], ["s"], name="grow")
    expand = helper.make_node("Expand", ["s", "four"], ["scales_from_x"], name="expand")
    cases.append((save("scales_from_values",
                       [mean, grow, expand,
                        helper.make_node("Resize", ["x", "", "scales_from_x"], ["y"], name="up2")],
                       13, inits=(helper.make_tensor("one", TensorProto.FLOAT, [], [1.0]),
                                  helper.make_tensor("four", TensorProto.INT64, [1], [4]))),
                  ["node 'up2' (Resize, opset 13)", "computed at run time"]))
    cases.append((save("antialias",
                       [helper.make_node("Resize", ["x", "", "scales"], ["y"], name="smooth",
                                         mode="linear", antialias=1)], 18),
                  ["node 'smooth' (Resize, opset 18)", "antialias=1"]))
    cases.append((save("tf_crop_and_resize",
                       [helper.make_node("Resize", ["x", "", "scales"], ["y"], name="crop",
                                         mode="linear",
                                         coordinate_transformation_mode="tf_crop_and_resize")],
                       13),
                  ["node 'crop' (Resize, opset 13)", "tf_crop_and_resize"]))
    cases.append((save("upsample_opset10",
                       [helper.make_node("Upsample", ["x", "scales"], ["y"], name="old")], 10),
                  ["node 'old' (Upsample, opset 10)", "deprecated from opset 10"]))
    return cases


def check_bad_inputs(tally, args, tmp):
    for path, needles in bad_models(tmp):
        name = os.path.basename(path)
        plan = os.path.join(tmp, name + ".iosplan")
        result = run([args.iosc, path, "-o", plan])
        tally.check(f"bad {name}: exit status 2", result.returncode == 2,
                    f"rc {result.returncode}: {result.stderr}")
        for needle in needles:
            tally.check(f"bad {name}: says {needle!r}", needle in result.stderr, result.stderr)
        tally.check(f"bad {name}: no plan", not os.path.exists(plan))


def main():
    args = parse_args()
    sys.path.insert(0, os.path.join(args.source_dir, "scripts"))
    from models import fpn_neck  # noqa: E402 (scripts/ is not a package on the path)

    tally = Tally()
    worst = {}
    with tempfile.TemporaryDirectory() as tmp:
        generated = run([sys.executable, os.path.join(args.source_dir, "scripts", "models",
                                                      "fpn_neck.py"), "--out", tmp])
        if not tally.check("fpn_neck.py writes the models", generated.returncode == 0,
                           generated.stderr):
            tally.finish()
        check_sensitivity(tally, fpn_neck)
        for variant, (_, _, _, free_hw) in fpn_neck.VARIANTS.items():
            model = os.path.join(tmp, f"fpn_neck_{variant}.onnx")
            if free_hw:
                for shape in FREE_HW_SHAPES:
                    schedules = ("greedy", "ios") if shape == FREE_HW_SHAPES[0] else ("greedy",)
                    check_variant(tally, args, worst, tmp, variant, model, shape[0], schedules,
                                  shape=shape)
                continue
            check_variant(tally, args, worst, tmp, variant, model, "1", ("greedy", "ios"))
            check_variant(tally, args, worst, tmp, variant, model, "2", ("greedy",))
            check_emitted(tally, args, tmp, variant, model)
        check_bad_inputs(tally, args, tmp)
    print("max abs error against onnxruntime (over the three outputs):")
    for label, error in worst.items():
        print(f"    {label}: {error:.3g}")
    tally.finish()


if __name__ == "__main__":
    main()

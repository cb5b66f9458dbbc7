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

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from ios_tools.cli import check_run, ort_reference, plan_ops, run
from models import fpn_neck

ATOL, RTOL = "1e-5", "1e-4"
FREE_HW_SHAPES = ("1x3x96x128", "2x3x64x160")


def max_abs_errors(stdout):
    return [float(e) for e in re.findall(r"max abs error ([0-9.e+-]+)", stdout)]


def nearest_indices(coordinate, rounding, length, spec):
    """The input indices onnxruntime's nearest Resize reads along one axis of `length`, resized
    by scale `spec` (float) or to `spec` elements (int)."""
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


def bad_models(tmp):
    """(file, what the message must say) for Resize nodes iosc must refuse."""
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


def test_the_variants_tell_every_nearest_mode_apart_on_every_coordinate_mode():
    """The test has teeth: for each (coordinate mode, nearest_mode), some site of some variant
    reads different pixels than the other three roundings would."""
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
    assert told_apart == wanted, sorted(wanted - told_apart)


@pytest.fixture(scope="module")
def models_dir(source_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("fpn")
    check_run([sys.executable, os.path.join(source_dir, "scripts", "models", "fpn_neck.py"),
               "--out", out], "fpn_neck.py")
    return out


def runs():
    """(variant, batch, shape or None, schedule) for every plan checked."""
    found = []
    for variant, (_, _, _, free_hw) in fpn_neck.VARIANTS.items():
        if free_hw:
            found += [(variant, FREE_HW_SHAPES[0][0], FREE_HW_SHAPES[0], s)
                      for s in ("greedy", "ios")]
            found.append((variant, FREE_HW_SHAPES[1][0], FREE_HW_SHAPES[1], "greedy"))
        else:
            found += [(variant, "1", None, "greedy"), (variant, "1", None, "ios"),
                      (variant, "2", None, "greedy")]
    return found


@pytest.fixture(scope="module")
def reference(models_dir, tmp_path_factory):
    """(variant, batch, shape) -> onnxruntime's reference folder (made once)."""
    made = {}

    def get(variant, batch, shape):
        if (variant, batch, shape) not in made:
            flags = ["--input-shape", f"input:{shape}"] if shape else []
            made[(variant, batch, shape)] = ort_reference(
                str(models_dir / f"fpn_neck_{variant}.onnx"),
                tmp_path_factory.mktemp(f"ref_{variant}"), "--batch", batch, *flags)
        return made[(variant, batch, shape)]
    return get


@pytest.mark.parametrize("variant, batch, shape, schedule", runs(),
                         ids=[f"{v}-{s or 'b' + b}-{sc}" for v, b, s, sc in runs()])
def test_plan_runs_6_upsampling_ops_and_matches_onnxruntime(variant, batch, shape, schedule,
                                                             models_dir, reference, iosc,
                                                             iosrun, tmp_path):
    shape_flags = ["--input-shape", f"input:{shape}"] if shape else []
    model = models_dir / f"fpn_neck_{variant}.onnx"
    ref = reference(variant, batch, shape)
    plan = tmp_path / "model.iosplan"
    check_run([iosc, model, "--batch", batch, "--schedule", schedule, "-o", plan] + shape_flags,
              "iosc")
    ops = plan_ops(iosrun, plan, tmp_path)
    assert ops.count("Resize") + ops.count("Upsample") == 6, sorted(set(ops))
    checked = run([iosrun, plan, "--check", ref, "--atol", ATOL, "--rtol", RTOL])
    errors = max_abs_errors(checked.stdout)
    print(f"max abs error against onnxruntime: {max(errors) if errors else float('nan'):.3g}")
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize("variant", [v for v, (_, _, _, free_hw) in fpn_neck.VARIANTS.items()
                                     if not free_hw])
def test_the_emitted_graph_matches_onnxruntime(variant, models_dir, source_dir, iosc, tmp_path):
    """--emit-onnx writes the canonicalised graph (Resize and Upsample nodes with their folded
    scales and sizes) back as ONNX; onnxruntime must get the original's outputs from it."""
    model = str(models_dir / f"fpn_neck_{variant}.onnx")
    emitted = tmp_path / "canonical.onnx"
    check_run([iosc, model, "--batch", "2", "--emit-onnx", emitted], "iosc --emit-onnx")
    compare = run([sys.executable, os.path.join(source_dir, "scripts", "compare_onnx_models.py"),
                   model, emitted, "--batch", "2", "--atol", ATOL, "--rtol", RTOL])
    assert compare.returncode == 0, compare.stdout + compare.stderr


BAD = ["runtime_scales", "scales_from_values", "antialias", "tf_crop_and_resize",
       "upsample_opset10"]


@pytest.mark.parametrize("name", BAD)
def test_bad_resize_refused(name, iosc, tmp_path):
    """Exit status 2, a message naming the node and op and what is wrong, and no plan."""
    cases = {os.path.basename(path)[:-len(".onnx")]: (path, needles)
             for path, needles in bad_models(str(tmp_path))}
    assert sorted(cases) == sorted(BAD)
    path, needles = cases[name]
    plan = tmp_path / (name + ".iosplan")
    result = run([iosc, path, "-o", plan])
    assert result.returncode == 2, f"rc {result.returncode}: {result.stderr}"
    missing = [n for n in needles if n not in result.stderr]
    assert not missing, result.stderr
    assert not plan.exists()

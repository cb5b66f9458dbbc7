"""The activations, heads and upsampling ios took last, end to end against onnxruntime
(scripts/models/cnn_head_ops.py): SpaceToDepth, PRelu, Mish and Softplus (fused into their
convs), Selu (which stays an op), ReduceMax and ReduceSum over H and W (axes as an input),
LogSoftmax, ArgMax (an int64 output) and DepthToSpace (pixel shuffle). For batch 1 and 2, greedy
and the IOS search profiled on this CPU: the plan keeps Selu, PRelu and the head ops (the
ReduceMax over H and W as the GlobalMaxPool canonicalisation makes of it), has fused Mish and
Softplus away, and iosrun --check matches onnxruntime on all three outputs (the largest errors
are printed)."""
import os
import re
import sys
from types import SimpleNamespace

import pytest

from ios_tools.cli import check_run, ort_reference, plan_ops, run

ATOL, RTOL = "1e-5", "1e-4"
KEPT = ["SpaceToDepth", "PRelu", "Selu", "GlobalMaxPool", "ReduceSum", "LogSoftmax", "ArgMax",
        "DepthToSpace"]


@pytest.fixture(scope="module")
def model(source_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("model")
    check_run([sys.executable, os.path.join(source_dir, "scripts", "models", "cnn_head_ops.py"),
               "--out", out], "cnn_head_ops.py")
    return str(out / "cnn_head_ops.onnx")


@pytest.fixture(scope="module")
def reference(model, tmp_path_factory):
    """batch -> onnxruntime's reference folder for it (made once)."""
    made = {}

    def get(batch):
        if batch not in made:
            made[batch] = ort_reference(model, tmp_path_factory.mktemp(f"ref_b{batch}"),
                                        "--batch", batch)
        return made[batch]
    return get


@pytest.fixture(scope="module", params=[("1", "greedy"), ("1", "ios"), ("2", "greedy"),
                                        ("2", "ios")], ids=lambda p: f"b{p[0]}-{p[1]}")
def plan(request, model, reference, iosc, iosrun, tmp_path_factory):
    batch, schedule = request.param
    tmp = tmp_path_factory.mktemp(f"b{batch}_{schedule}")
    path = str(tmp / "plan.iosplan")
    check_run([iosc, model, "--batch", batch, "--schedule", schedule, "--device", "cpu",
               "-o", path], "iosc")
    return SimpleNamespace(path=path, ops=plan_ops(iosrun, path, tmp),
                           ref=reference(batch))


def test_mish_and_softplus_fused_into_their_convs(plan):
    assert "Mish" not in plan.ops and "Softplus" not in plan.ops, sorted(plan.ops)


def test_selu_prelu_and_the_head_ops_stay(plan):
    assert all(plan.ops.count(op) == 1 for op in KEPT) and "ReduceMax" not in plan.ops, \
        sorted(plan.ops)


def test_matches_onnxruntime_on_3_outputs(plan, iosrun):
    checked = run([iosrun, plan.path, "--check", plan.ref, "--atol", ATOL, "--rtol", RTOL])
    errors = re.findall(r"'(\w+)': abs error max (\S+)", checked.stdout)
    print("max abs error " + ", ".join(f"{name} {value}" for name, value in errors))
    assert checked.returncode == 0 and len(errors) == 3, checked.stdout + checked.stderr

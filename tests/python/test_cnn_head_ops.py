"""The activations, heads and upsampling ios took last, end to end against onnxruntime
(scripts/models/cnn_head_ops.py): SpaceToDepth, PRelu, Mish and Softplus (fused into their
convs), Selu (which stays an op), ReduceMax and ReduceSum over H and W (axes as an input),
LogSoftmax, ArgMax (an int64 output) and DepthToSpace (pixel shuffle). For batch 1 and 2, greedy
and the IOS search profiled on this CPU: the plan keeps Selu, PRelu and the head ops (the
ReduceMax over H and W as the GlobalMaxPool canonicalisation makes of it), has fused Mish and
Softplus away, and iosrun --check matches onnxruntime on all three outputs (the largest errors
are printed)."""
import re

import pytest

from ios_tools.cli import run
from model_plans import generated_model, plan, reference  # noqa: F401 (fixtures)

ATOL, RTOL = "1e-5", "1e-4"
KEPT = ["SpaceToDepth", "PRelu", "Selu", "GlobalMaxPool", "ReduceSum", "LogSoftmax", "ArgMax",
        "DepthToSpace"]


@pytest.fixture(scope="module")
def model(source_dir, tmp_path_factory):
    return generated_model(source_dir, tmp_path_factory, "cnn_head_ops")


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

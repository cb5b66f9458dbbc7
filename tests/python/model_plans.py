"""Fixtures of the tests that run one generated model end to end against onnxruntime: the model
that a scripts/models generator writes (`generated_model`), onnxruntime's reference outputs per
batch (`reference`), and the model's CPU plans at batches 1 and 2, greedy and IOS-searched
(`plan`: its path, op types and reference). A test module imports the fixtures and defines
`model` with generated_model."""
import os
import sys
from types import SimpleNamespace

import pytest

from ios_tools.cli import check_run, ort_reference, plan_ops


def generated_model(source_dir, tmp_path_factory, name):
    """Runs scripts/models/NAME.py into a fresh folder; the path of NAME.onnx."""
    out = tmp_path_factory.mktemp("model")
    check_run([sys.executable, os.path.join(source_dir, "scripts", "models", name + ".py"),
               "--out", out], name + ".py")
    return str(out / (name + ".onnx"))


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
    return SimpleNamespace(path=path, ops=plan_ops(iosrun, path, tmp), ref=reference(batch))

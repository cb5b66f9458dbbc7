"""The four benchmark networks through the package: a plan compiled by ios.compile and run by
ios.Session gives exactly (bit for bit) what iosrun --save-outputs gives on the same plan and
inputs, and agrees with onnxruntime at iosrun --check's tolerance (tests/python/
test_iosrun_check.py's: 1e-5 absolute plus 1e-4 relative, element by element). IOS plans
profiled on this CPU for Inception V3 and NasNet, the greedy schedule (one stream per group)
for SqueezeNet and RandWire."""
import os
import subprocess
import sys

import numpy as np
import pytest
from onnx import TensorProto, numpy_helper

import ios
from conftest import IOSRUN, NETWORKS, SOURCE_DIR, generate_models

SCHEDULES = {"inception_v3": "ios", "nasnet": "ios", "squeezenet": "greedy",
             "randwire": "greedy"}
ATOL, RTOL = 1e-5, 1e-4


def read_tensor(path):
    tensor = TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return numpy_helper.to_array(tensor)


@pytest.fixture(scope="module")
def models():
    return generate_models(NETWORKS)


@pytest.mark.parametrize("name", NETWORKS)
def test_network_matches_iosrun_bit_for_bit_and_onnxruntime(name, models, tmp_path):
    model = models[name]
    ref = tmp_path / "ref"
    subprocess.run([sys.executable, os.path.join(SOURCE_DIR, "scripts", "ort_reference.py"),
                    model, "--out", str(ref), "--batch", "1"], check=True, capture_output=True)
    plan = ios.compile(model, batch=1, device="cpu", schedule=SCHEDULES[name])
    plan_path = tmp_path / f"{name}.iosplan"
    plan.save(plan_path)
    session = ios.Session(plan_path)
    feeds = {info.name: read_tensor(ref / f"input_{i}.pb")
             for i, info in enumerate(session.inputs)}
    got = session.run(feeds)

    out = tmp_path / "iosrun"
    result = subprocess.run([IOSRUN, str(plan_path), "--load-inputs", str(ref),
                             "--save-outputs", str(out)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    for i, info in enumerate(session.outputs):
        expected = read_tensor(out / f"output_{i}.pb")
        assert got[info.name].dtype == expected.dtype
        assert got[info.name].shape == expected.shape
        assert got[info.name].tobytes() == expected.tobytes(), \
            f"{name}: output '{info.name}' differs from iosrun's"

        reference = read_tensor(ref / f"output_{i}.pb")
        error = np.abs(got[info.name].astype(np.float64) - reference)
        bound = ATOL + RTOL * np.abs(reference.astype(np.float64))
        worst = int(np.argmax(error - bound))
        assert np.all(error <= bound), (
            f"{name}: output '{info.name}' element {worst} is {got[info.name].flat[worst]}, "
            f"onnxruntime's {reference.flat[worst]}")

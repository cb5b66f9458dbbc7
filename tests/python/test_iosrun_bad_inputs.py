"""iosrun refuses bad plans and bad input files with a clear message and exit status 2, and
never crashes or leaves partial outputs."""
import hashlib
import os
import shutil
from types import SimpleNamespace

import numpy as np
import pytest
from onnx import numpy_helper

from ios_tools.cli import check_run, run

KIND = b"\x0a\x03cpu"  # DeviceFingerprint.kind = "cpu", field 1, length 3


def write_tensor(path, array):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array).SerializeToString())


def assert_error(result, *needles):
    """Exit status 2 and a message saying each of `needles`."""
    assert result.returncode == 2, f"got {result.returncode}: {result.stdout} {result.stderr}"
    missing = [n for n in needles if n not in result.stderr]
    assert not missing, result.stderr


@pytest.fixture(scope="module")
def plan(iosc, residual_model, tmp_path_factory):
    """The committed model's plan: its path, bytes, and body. The container (plan/plan_io.h):
    magic, version, reserved, body size, then the body, a plan::Plan message that starts with
    its format major (field 1)."""
    path = str(tmp_path_factory.mktemp("plan") / "model.iosplan")
    check_run([iosc, residual_model, "-o", path], "iosc")
    with open(path, "rb") as f:
        data = f.read()
    body_size = int.from_bytes(data[16:24], "little")
    return SimpleNamespace(path=path, data=data, body_size=body_size,
                           body=data[56:56 + body_size])


@pytest.fixture
def own_plan(plan, tmp_path):
    """A copy of the plan that a test may have overwritten."""
    path = str(tmp_path / "model.iosplan")
    shutil.copyfile(plan.path, path)
    return path


def with_body(plan, edited):
    """The plan with an edited body of the same length, its digest made to match."""
    assert len(edited) == plan.body_size
    return plan.data[:24] + hashlib.sha256(edited).digest() + edited + \
        plan.data[56 + plan.body_size:]


def variant(tmp_path, contents):
    path = tmp_path / "variant.iosplan"
    path.write_bytes(contents)
    return path


def test_plan_starts_with_the_containers_magic(plan):
    assert plan.data[:8] == b"\0IOSPLAN", plan.data[:8].hex()


def test_its_body_starts_with_format_major_7(plan):
    assert plan.data[56:58] == b"\x08\x07", plan.data[56:60].hex()


@pytest.mark.parametrize("cut", ["half", 30, 12])
def test_truncated_plan(plan, cut, iosrun, tmp_path):
    cut = len(plan.data) // 2 if cut == "half" else cut
    assert_error(run([iosrun, variant(tmp_path, plan.data[:cut])]), "truncated or corrupted")


def test_corrupted_plan(iosrun, tmp_path):
    assert_error(run([iosrun, variant(tmp_path, os.urandom(4096))]), "not an ios plan")


def test_newer_plan_format(plan, iosrun, tmp_path):
    newer = variant(tmp_path, with_body(plan, b"\x08\x08" + plan.body[2:]))
    assert_error(run([iosrun, newer]), "plan format 8.", "to 7.x")  # 8.<this build's minor>


@pytest.mark.parametrize("where", ["its body", "a weight"])
def test_a_flipped_byte(plan, where, iosrun, tmp_path):
    flipped = bytearray(plan.data)
    flipped[56 + plan.body_size // 2 if where == "its body" else len(plan.data) - 9] ^= 0x40
    assert_error(run([iosrun, variant(tmp_path, bytes(flipped))]), "plan is corrupted")


def test_device_kind_is_in_the_plan_once(plan):
    assert plan.body.count(KIND) == 1


def test_plan_for_another_device_kind(plan, iosrun, tmp_path):
    """Refused naming it and --force, which overrides the check."""
    other = variant(tmp_path, with_body(plan, plan.body.replace(KIND, b"\x0a\x03sim")))
    assert_error(run([iosrun, other, "--bench"]), "analytic model", "--force")
    result = run([iosrun, other, "--force"])
    assert result.returncode == 0, result.stderr


# name -> (the input files, what the message must say)
INPUTS = {
    "input of the wrong shape": ([np.zeros((1, 3, 16, 16), np.float32)],
                                 ["input 0", "float32[1,3,32,32]"]),
    "input of the wrong dtype": ([np.zeros((1, 3, 32, 32), np.int64)], ["int64"]),
    "too many inputs": ([np.zeros((1, 3, 32, 32), np.float32)] * 2, ["1 input(s), got 2"]),
    "no input files": ([], ["input_0.pb"]),
}


@pytest.mark.parametrize("label", list(INPUTS))
def test_bad_load_inputs(plan, label, iosrun, tmp_path):
    arrays, needles = INPUTS[label]
    for i, array in enumerate(arrays):
        write_tensor(tmp_path / f"input_{i}.pb", array)
    assert_error(run([iosrun, plan.path, "--load-inputs", tmp_path]), *needles)


def test_save_outputs_creates_a_missing_folder_and_writes_into_it(plan, iosrun, tmp_path):
    made = tmp_path / "no" / "such"
    result = run([iosrun, plan.path, "--save-outputs", made])
    assert result.returncode == 0 and (made / "output_0.pb").exists(), \
        result.stdout + result.stderr


def test_save_outputs_under_a_file_is_refused_before_the_run(plan, iosrun, tmp_path):
    a_file = tmp_path / "a_file"
    a_file.write_text("keep")
    assert_error(run([iosrun, plan.path, "--save-outputs", a_file / "out"]),
                 "cannot create the --save-outputs folder")
    assert a_file.read_text() == "keep"


def test_a_plan_over_memory_limit_mb(iosc, iosrun, residual_model, tmp_path):
    """Exit status 2 naming the limit and the flag."""
    big_plan = tmp_path / "batch64.iosplan"
    check_run([iosc, residual_model, "--batch", "64", "-o", big_plan], "iosc --batch 64")
    assert_error(run([iosrun, big_plan, "--memory-limit-mb", "1"]),
                 "more than the 1.0 MiB memory limit allows", "--memory-limit-mb")


def test_save_outputs_into_the_check_folder_is_refused(plan, iosrun, tmp_path):
    """Exit status 2, and the expected outputs are untouched."""
    check_ref = tmp_path / "check_ref"
    check_run([iosrun, plan.path, "--save-outputs", check_ref], "iosrun --save-outputs")
    reference = (check_ref / "output_0.pb").read_bytes()
    result = run([iosrun, plan.path, "--check", check_ref, "--save-outputs", check_ref])
    assert result.returncode == 2 and "names the input" in result.stderr, result.stderr
    assert (check_ref / "output_0.pb").read_bytes() == reference


def test_info_json_naming_the_plan_itself_is_refused(plan, own_plan, iosrun):
    result = run([iosrun, own_plan, "--info-json", own_plan])
    assert result.returncode == 2, result.stderr
    with open(own_plan, "rb") as f:
        assert f.read() == plan.data


def test_iosrun_no_cuda_device(plan, iosrun):
    assert_error(run([iosrun, plan.path, "--device", "0"]), "no CUDA device")


def test_iosc_no_cuda_device_leaves_the_plan_intact(plan, own_plan, iosc, residual_model):
    assert_error(run([iosc, residual_model, "--device", "0", "-o", own_plan]), "no CUDA device")
    with open(own_plan, "rb") as f:
        assert f.read() == plan.data


def test_info_prints_a_summary_and_info_json_writes_json(plan, iosrun, tmp_path):
    info_json = tmp_path / "info.json"
    result = run([iosrun, plan.path, "--info", "--info-json", info_json])
    assert result.returncode == 0 and "schedule:" in result.stdout, result.stdout + result.stderr
    assert info_json.exists() and '"schedule"' in info_json.read_text()

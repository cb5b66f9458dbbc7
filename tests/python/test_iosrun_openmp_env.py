"""iosrun gives correct outputs whatever the user's OpenMP environment. oneDNN's primitives are
made for a team size and split their work by it, so a runtime that hands a parallel region fewer
threads than asked (OMP_DYNAMIC=true, OMP_THREAD_LIMIT below --threads) used to leave parts of
outputs uncomputed, silently. Inception V3's IOS plan (analytic V100 model, run on the CPU) is
checked against onnxruntime at --threads 4 under each environment."""
import os

import pytest

from ios_tools.cli import check_run, ort_reference, run

ENVIRONMENTS = {
    "default": {},
    "OMP_DYNAMIC=true": {"OMP_DYNAMIC": "true"},
    "OMP_THREAD_LIMIT=1": {"OMP_THREAD_LIMIT": "1"},
    "OMP_THREAD_LIMIT=2": {"OMP_THREAD_LIMIT": "2"},
    "OMP_NUM_THREADS=1": {"OMP_NUM_THREADS": "1"},
}


@pytest.fixture(scope="module")
def plan_and_reference(iosc, models, tmp_path_factory):
    model = models(["inception_v3"])["inception_v3"]
    tmp = tmp_path_factory.mktemp("iv3")
    plan = str(tmp / "iv3.iosplan")
    check_run([iosc, model, "--device", "sim:V100", "-o", plan], "iosc")
    return plan, ort_reference(model, tmp / "ref")


@pytest.mark.parametrize("label", list(ENVIRONMENTS))
def test_matches_onnxruntime(label, plan_and_reference, iosrun):
    plan, ref = plan_and_reference
    result = run([iosrun, plan, "--device", "cpu", "--force", "--threads", "4", "--check", ref],
                 env=dict(os.environ, **ENVIRONMENTS[label]))
    assert result.returncode == 0, result.stdout[-600:] + result.stderr[-300:]

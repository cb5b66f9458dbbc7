"""End to end against something no one here wrote: onnxruntime runs the original ONNX file,
iosc compiles it, and iosrun --check compares, for the four benchmark networks at batch 1 and 2
under the sequential and greedy schedules and under IOS and its merge-only ablation (analytic
costs; ios-merge plans are full of merged convs and their Splits), and the sequential schedule
with every tensor row-major (iosc --layout row-major; CPU plans otherwise keep conv outputs
channels-last where this CPU's oneDNN prefers it). In row-major plans at batch 2 the concats and
merged convs become strided views (plan/tensor_views.h): the test also checks that the plans
have them. In a sanitizer build, each network runs at one of the two batches (SANITIZED_BATCH)."""
import concurrent.futures
import os
import re

import pytest

from ios_tools.cli import ort_reference, run

NETWORKS = ["inception_v3", "squeezenet", "randwire", "nasnet"]
# (label, schedule, extra iosc flags, extra iosrun flags, row-major): an IOS plan on the
# analytic model is meant for a GPU (row-major), so iosrun runs it on this CPU with --force.
SCHEDULES = [("sequential", "sequential", [], [], False),
             ("sequential row-major", "sequential", ["--layout", "row-major"], [], True),
             ("greedy", "greedy", [], [], False),
             ("ios", "ios", ["--device", "sim:V100"], ["--force"], True),
             ("ios-merge", "ios-merge", ["--device", "sim:V100"], ["--force"], True)]
# Networks whose concats at batch 2 all have conv inputs somewhere (RandWire's have none).
STRIDED_VIEWS_EXPECTED = {"inception_v3", "squeezenet", "nasnet"}
BATCHES = ["1", "2"]
# In a sanitizer build (--sanitized) each network runs at one batch, which halves the job's
# longest CLI test: batch 2 where its strided views are (Inception V3, NasNet), batch 1 for the
# others, so both batches' paths are still checked for memory errors.
SANITIZED_BATCH = {"inception_v3": "2", "nasnet": "2", "squeezenet": "1", "randwire": "1"}
# fp32 throughout. oneDNN's convolutions sum in a different order than onnxruntime's MLAS, and
# the networks are 50-100 convolutions deep, so errors of a few ulps per layer accumulate:
# 1e-4 relative (plus 1e-5 absolute for values near zero) holds with a margin on all four.
ATOL, RTOL = "1e-5", "1e-4"


def check_network(iosc, iosrun, model, name, batch, tmp):
    """One network at one batch: the reference, then every schedule's plan against it. Returns
    {schedule label: {check: (passed, detail)}}."""
    ref = ort_reference(model, os.path.join(tmp, f"{name}_b{batch}"), "--batch", batch)
    found = {}
    for kind, schedule, iosc_flags, iosrun_flags, row_major in SCHEDULES:
        checks = found[kind] = {}
        plan = os.path.join(tmp, f"{name}_b{batch}.iosplan")
        result = run([iosc, model, "--batch", batch, "--schedule", schedule, "-o", plan]
                     + iosc_flags)
        checks["iosc"] = (result.returncode == 0, result.stderr)
        if result.returncode != 0:
            continue
        if row_major and batch != "1" and name in STRIDED_VIEWS_EXPECTED:
            info = run([iosrun, plan, "--info"]).stdout
            strided = re.search(r"\((\d+) strided;", info)
            checks["strided views"] = (strided is not None and int(strided.group(1)) > 0, info)
        result = run([iosrun, plan, "--check", ref, "--atol", ATOL, "--rtol", RTOL]
                     + iosrun_flags)
        checks["check"] = (result.returncode == 0, result.stdout + result.stderr)
        os.remove(plan)
    return found


def jobs(sanitized):
    return [(name, batch) for name in NETWORKS for batch in BATCHES
            if not sanitized or batch == SANITIZED_BATCH[name]]


def pytest_generate_tests(metafunc):
    if "job" in metafunc.fixturenames:
        cases = [(name, batch, kind) for name, batch in jobs(metafunc.config.getoption(
            "--sanitized")) for kind, *_ in SCHEDULES]
        metafunc.parametrize("job", cases, ids=[f"{n}-b{b}-{k}" for n, b, k in cases])


@pytest.fixture(scope="module")
def results(iosc, iosrun, models, sanitized, tmp_path_factory):
    """(network, batch) -> check_network's results. The 40 compile-and-check runs are
    independent processes: two at a time halve the wall time of the longest CLI test (most of
    it is single-threaded compilation and reference evaluation)."""
    paths = models(NETWORKS)
    tmp = str(tmp_path_factory.mktemp("check"))
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        futures = {(name, batch): pool.submit(check_network, iosc, iosrun, paths[name], name,
                                              batch, tmp)
                   for name, batch in jobs(sanitized)}
        return {key: future.result() for key, future in futures.items()}


def test_plan_matches_onnxruntime(job, results):
    """iosc compiles it, iosrun --check passes, and a row-major plan at batch 2 has strided
    views where the network's concats have conv inputs."""
    name, batch, kind = job
    checks = results[(name, batch)][kind]
    for check, (passed, detail) in checks.items():
        assert passed, f"{check}: {detail}"

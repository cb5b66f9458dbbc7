"""Random CNN-like graphs (scripts/models/random_cnn.py) end to end against onnxruntime on the
CPU backend: the graphs ios has not seen, where its layouts (channels-last, channels-blocked-8),
fusions (activations, residual Adds, per-channel Mul/Add as BatchNormalization), in-place ops,
zero-copy views and concurrent stages meet in combinations no hand-written test lists.

For each seed (fixed, so that a failure reproduces; the repro command is printed): the graph at
batch 1 and 3 when its batch is symbolic (else at its own), compiled sequentially, with the IOS
search profiled on this CPU, and greedily with --layout row-major (the views' path) on 4
streams; iosrun --check must match onnxruntime at atol = rtol = 1e-4 on every output. Across
the run, some plans must store tensors channels-last (on CPUs with AVX2 or AVX-512, where the
layout pays) and fuse a residual Add into a conv, so that the sweep cannot pass by exercising
neither (checked on the fixed seeds).

    python3 -m pytest tests/python/test_random_cnns.py --seeds FIRST:LAST   # a wider sweep
"""
import os
import re

import onnx
import pytest

from ios_tools.cli import ort_reference, run
from models import random_cnn

SEEDS = range(0, 48)
SANITIZED_SEEDS = range(0, 6)
# The greedy plans' 4 streams put up to 4 groups per stage on CI's 2 cores.
SCHEDULES = [("sequential", ["--max-streams", "2"]), ("ios", ["--max-streams", "2"]),
             ("greedy", ["--layout", "row-major", "--max-streams", "4"])]
SANITIZED_SCHEDULES = SCHEDULES[:2]

# What the plans of the whole sweep did, for the checks after it.
SWEEP = {"channels_last_plans": 0, "residual_fusions": 0, "plans": 0}


def cpu_has_avx2():
    try:
        with open("/proc/cpuinfo") as f:
            return " avx2" in f.read()
    except OSError:
        return False


def pytest_generate_tests(metafunc):
    if "seed" not in metafunc.fixturenames:
        return
    sanitized = metafunc.config.getoption("--sanitized")
    seeds = SANITIZED_SEEDS if sanitized else SEEDS
    if metafunc.config.getoption("--seeds"):
        first, last = (int(s) for s in metafunc.config.getoption("--seeds").split(":"))
        seeds = range(first, last + 1)
    schedules = SANITIZED_SCHEDULES if sanitized else SCHEDULES
    metafunc.parametrize("seed", list(seeds), scope="module")
    metafunc.parametrize("schedule", schedules, ids=[s for s, _ in schedules])


@pytest.fixture(scope="module")
def generated(seed, tmp_path_factory):
    """(model path, its batches, references: batch -> onnxruntime's folder) of one seed."""
    tmp = tmp_path_factory.mktemp(f"seed{seed}")
    model_path = str(tmp / f"random_{seed}.onnx")
    model, _ = random_cnn.generate(seed)
    onnx.save(model, model_path)
    batch_dim = model.graph.input[0].type.tensor_type.shape.dim[0]
    batches = ["1", "3"] if batch_dim.dim_param else [str(batch_dim.dim_value)]
    return model_path, {b: ort_reference(model_path, tmp / f"ref_b{b}", "--batch", b)
                        for b in batches}


def test_matches_onnxruntime(seed, schedule, generated, iosc, iosrun, tmp_path):
    """At each batch of the seed, the plan's outputs match onnxruntime (iosrun --check)."""
    model_path, references = generated
    name, flags = schedule
    repro = f"python3 scripts/models/random_cnn.py {seed} random_{seed}.onnx"
    for batch, ref in references.items():
        plan = tmp_path / f"b{batch}.iosplan"
        command = ["--device", "cpu", "--batch", batch, "--schedule", name] + flags
        compiled = run([iosc, model_path, "-o", plan] + command)
        assert compiled.returncode == 0, \
            f"{compiled.stderr}\nrepro: {repro}; iosc random_{seed}.onnx {' '.join(command)}"
        log = compiled.stdout + compiled.stderr
        layout = re.search(r"layout: (\d+) tensors channels-last", log)
        SWEEP["channels_last_plans"] += bool(layout and int(layout.group(1)) > 0)
        fused = re.search(r"cpu: (\d+) residual Adds", log)
        SWEEP["residual_fusions"] += int(fused.group(1)) if fused else 0
        SWEEP["plans"] += 1
        checked = run([iosrun, plan, "--check", ref])
        assert checked.returncode == 0, (
            f"{checked.stdout}{checked.stderr}\nrepro: {repro}; iosc random_{seed}.onnx "
            f"{' '.join(command)}; ort_reference.py --batch {batch}; iosrun --check")


# The fixed seeds must exercise the layouts and the fusions (a hand-picked --seeds range may
# hold neither); these run after the sweep, from what its plans did.
def sweep_done(request):
    if request.config.getoption("--seeds"):
        pytest.skip("a hand-picked --seeds range")
    if SWEEP["plans"] == 0:
        pytest.skip("the sweep did not run (deselected)")
    print(f"{SWEEP['channels_last_plans']} plans with channels-last tensors, "
          f"{SWEEP['residual_fusions']} residual Adds fused into convs")


@pytest.mark.skipif(not cpu_has_avx2(), reason="channels-last pays only with AVX2 or AVX-512")
def test_some_plans_store_tensors_channels_last(request):
    sweep_done(request)
    assert SWEEP["channels_last_plans"] > 0


def test_some_residual_adds_fused_into_convs(request):
    sweep_done(request)
    assert SWEEP["residual_fusions"] > 0

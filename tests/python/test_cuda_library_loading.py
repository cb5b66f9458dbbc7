"""A CPU run does not load cuBLAS (lib/runtime/cuda/cublas_library.h): iosc --device cpu and
iosrun --bench of its plan, watched through the dynamic loader's own log (LD_DEBUG=files), load
oneDNN but never libcublas or libcublasLt, and the binaries do not list cuBLAS as a needed
library. With a GPU, iosc --device 0 does open cuBLAS. Without the CUDA backend in the build
there is nothing to check beyond the CPU run."""
import os
import re
import subprocess

import pytest

from ios_test_util import cuda_device_count
from ios_tools.cli import run


def loaded_libraries(cmd):
    """(exit status, basenames of every shared object the loader opened, stderr)."""
    env = dict(os.environ, LD_DEBUG="files")
    result = run(cmd, env=env)
    names = set(os.path.basename(m) for m in
                re.findall(r"file=(\S+) \[\d+\];\s+(?:needed|dynamically loaded) by",
                           result.stderr))
    return result.returncode, names, result.stderr


def is_cublas(name):
    return name.startswith(("libcublas.so", "libcublasLt.so"))


def needed(path):
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", out)


@pytest.fixture(scope="module")
def cpu_compile(iosc, residual_model, tmp_path_factory):
    """(iosc's exit status, the libraries it loaded, stderr, the plan) for --device cpu."""
    plan = str(tmp_path_factory.mktemp("cpu") / "cpu.iosplan")
    return loaded_libraries([iosc, residual_model, "--device", "cpu", "-o", plan]) + (plan,)


@pytest.fixture(scope="module")
def cpu_bench(cpu_compile, iosrun):
    assert cpu_compile[0] == 0, cpu_compile[2][-2000:]
    return loaded_libraries([iosrun, cpu_compile[3], "--bench", "--duration", "0.05",
                             "--warmup-ms", "10"])


def test_iosc_device_cpu_compiles(cpu_compile):
    assert cpu_compile[0] == 0, cpu_compile[2][-2000:]


def test_iosrun_bench_of_the_cpu_plan_runs(cpu_bench):
    assert cpu_bench[0] == 0, cpu_bench[2][-2000:]


# The positive control: the log is read right when it shows the CPU backend's library.
@pytest.mark.parametrize("run_of", ["cpu_compile", "cpu_bench"])
def test_the_loaders_log_shows_onednn_loaded(run_of, request):
    libs = request.getfixturevalue(run_of)[1]
    assert any(n.startswith("libdnnl.so") for n in libs), sorted(libs)


@pytest.mark.parametrize("run_of", ["cpu_compile", "cpu_bench"])
def test_no_cublas_loaded(run_of, request):
    libs = request.getfixturevalue(run_of)[1]
    assert not any(map(is_cublas, libs)), sorted(libs)


@pytest.mark.parametrize("tool", ["iosc", "iosrun"])
def test_readelf_lists_its_needed_libraries_but_not_cublas(tool, request):
    deps = needed(request.getfixturevalue(tool))
    assert deps
    assert not any(map(is_cublas, deps)), deps


@pytest.mark.skipif(cuda_device_count() == 0, reason="no CUDA device")
def test_iosc_device_0_opens_cublas(iosc, residual_model, tmp_path):
    rc, libs, err = loaded_libraries([iosc, residual_model, "--device", "0", "-o",
                                      tmp_path / "gpu.iosplan"])
    assert rc == 0, err[-2000:]
    assert any(map(is_cublas, libs)), sorted(libs)

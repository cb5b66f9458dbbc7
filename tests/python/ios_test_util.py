"""Shared helpers for the Python-driven tests: arguments, running the CLIs, and a tally that
ends with the 'N passed, N failed' line CTest logs show."""
import argparse
import ctypes
import json
import os
import subprocess
import sys


def parse_args(add_arguments=None):
    """The arguments tests/CMakeLists.txt passes; `add_arguments(parser)` adds a test's own
    (optional ones, for running the test by hand)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--iosc", required=True)
    parser.add_argument("--iosrun", required=True)
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--source-dir", required=True)
    # Set by tests/CMakeLists.txt in a sanitizer build (IOS_SANITIZE), where the CLIs run several
    # times slower: a test may then check memory safety on a smaller matrix.
    parser.add_argument("--sanitized", action="store_true")
    if add_arguments is not None:
        add_arguments(parser)
    return parser.parse_args()


def run(cmd, **kwargs):
    """Runs a command, capturing text output; never raises on a non-zero exit."""
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kwargs)


def ensure_models(args, names):
    """Generates the benchmark networks into BUILD/models (cached by the generator)."""
    out = os.path.join(args.build_dir, "models")
    result = run([sys.executable, os.path.join(args.source_dir, "scripts", "generate_models.py"),
                  "--out", out, "--models", ",".join(names)])
    if result.returncode != 0:
        print(result.stdout, result.stderr)
        raise SystemExit("model generation failed")
    return {name: os.path.join(out, name + ".onnx") for name in names}


def plan_info(args, plan, tmp):
    """The plan's summary as iosrun --info-json writes it (a dict)."""
    path = os.path.join(tmp, "info.json")
    run([args.iosrun, plan, "--info-json", path])
    with open(path) as f:
        return json.load(f)


def plan_ops(args, plan, tmp):
    """The op types of the plan's ops, in op order."""
    return [op["op_type"] for op in plan_info(args, plan, tmp)["ops"]]


class Tally:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, condition, detail=""):
        if condition:
            self.passed += 1
            print(f"PASS {name}")
        else:
            self.failed += 1
            print(f"FAIL {name}: {detail}")
        return condition

    def finish(self):
        print(f"{self.passed} passed, {self.failed} failed")
        sys.exit(1 if self.failed or not self.passed else 0)


def cuda_device_count():
    """Devices as the CUDA runtime sees them, asked independently of ios; 0 when there is none.
    The runtime may be a toolkit's (libcudart.so) or a wheel's (only libcudart.so.13)."""
    for name in ("libcudart.so", "libcudart.so.13", "libcudart.so.12",
                 "/usr/local/cuda/lib64/libcudart.so", "/usr/local/cuda/lib/libcudart.so"):
        try:
            cudart = ctypes.CDLL(name)
        except OSError:
            continue
        count = ctypes.c_int(0)
        return count.value if cudart.cudaGetDeviceCount(ctypes.byref(count)) == 0 else 0
    return 0

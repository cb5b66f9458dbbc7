"""Running ios's CLIs (iosc, iosrun) and the model generator, and reading what they write."""
import json
import os
import subprocess
import sys

SCRIPTS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, **kwargs):
    """Runs a command, capturing text output; never raises on a non-zero exit."""
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kwargs)


def generate_models(out, names):
    """Generates the named benchmark networks into `out` (cached by scripts/generate_models.py):
    name -> path of its .onnx. Raises RuntimeError with the generator's output when it fails."""
    result = run([sys.executable, os.path.join(SCRIPTS_DIR, "generate_models.py"),
                  "--out", out, "--models", ",".join(names)])
    if result.returncode != 0:
        raise RuntimeError(f"model generation failed:\n{result.stdout}{result.stderr}")
    return {name: os.path.join(out, name + ".onnx") for name in names}


def plan_info(iosrun, plan, tmp):
    """The plan's summary as iosrun --info-json writes it (a dict)."""
    path = os.path.join(tmp, "info.json")
    result = run([iosrun, plan, "--info-json", path])
    if result.returncode != 0:
        raise RuntimeError(f"iosrun --info-json {plan} failed: {result.stderr}")
    with open(path) as f:
        return json.load(f)


def plan_ops(iosrun, plan, tmp):
    """The op types of the plan's ops, in op order."""
    return [op["op_type"] for op in plan_info(iosrun, plan, tmp)["ops"]]


def check_run(cmd, what):
    """Runs a command that must succeed: its result, or RuntimeError with its output."""
    result = run(cmd)
    if result.returncode != 0:
        raise RuntimeError(f"{what} failed (exit {result.returncode}):\n{result.stdout}"
                           f"{result.stderr}")
    return result


def ort_reference(model, out, *flags):
    """Writes onnxruntime's inputs and outputs for `model` into the folder `out` (what iosrun
    --check reads), through scripts/ort_reference.py; returns `out`."""
    check_run([sys.executable, os.path.join(SCRIPTS_DIR, "ort_reference.py"), model,
               "--out", out] + list(flags), f"ort_reference.py {model}")
    return str(out)

"""The package as a type checker sees it: the installed package (its Python modules and the
extension's stubs, ios/_ios.pyi) passes mypy --strict, and so do the examples and a program using
every public name the way docs/python.md shows."""
import os
import subprocess
import sys

import ios
from conftest import BUILD_DIR, SOURCE_DIR

USAGE = '''
import numpy as np
import numpy.typing as npt
import ios


def progress(p: ios.CompileProgress) -> None:
    print(p.parts_done, p.parts_total, p.stages_measured, p.seconds)


def main(path: str) -> float:
    plan: ios.Plan = ios.compile(path, batch=1, device="cpu", progress=progress)
    stats: dict[str, object] = plan.stats
    plan.save("model.iosplan")
    data: bytes = plan.to_bytes()
    session = ios.Session(data, threads=2)
    info: ios.TensorInfo = session.inputs[0]
    image: npt.NDArray[np.float32] = np.zeros(info.shape, np.float32)
    outputs = session.run({info.name: image}, [session.outputs[0].name])
    scores = outputs[session.outputs[0].name]
    try:
        ios.Session("missing.iosplan")
    except ios.InvalidInput as error:
        print(error)
    except ios.Error as error:
        print(error.code)
    drop_in = ios.InferenceSession(path, None, ["CPUExecutionProvider"], batch=1)
    first = drop_in.get_inputs()[0]
    result = drop_in.run(None, {first.name: image})
    print(stats, result[0].shape, first.type, ios.version(), ios.device_fingerprint("cpu"))
    return float(scores.sum()) + plan.predicted_latency_ms
'''


def test_mypy_strict_passes(tmp_path):
    package = os.path.dirname(ios.__file__)
    assert os.path.exists(os.path.join(package, "_ios.pyi"))
    assert os.path.exists(os.path.join(package, "py.typed"))
    usage = tmp_path / "usage.py"
    usage.write_text(USAGE)
    env = dict(os.environ, MYPYPATH=os.path.dirname(package))
    mypy = [sys.executable, "-m", "mypy", "--strict", "--cache-dir",
            os.path.join(BUILD_DIR, "mypy-cache")]
    for targets in (["-p", "ios"],
                    [str(usage), os.path.join(SOURCE_DIR, "examples", "python", "classify.py")]):
        result = subprocess.run(mypy + targets, capture_output=True, text=True, env=env,
                                cwd=str(tmp_path))
        assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_catches_a_misuse(tmp_path):
    """The check can fail: a wrong argument type is reported."""
    wrong = tmp_path / "wrong.py"
    wrong.write_text("import ios\nios.compile('m.onnx', batch='one')\n")
    env = dict(os.environ, MYPYPATH=os.path.dirname(os.path.dirname(ios.__file__)))
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir",
         os.path.join(BUILD_DIR, "mypy-cache"), str(wrong)],
        capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert result.returncode == 1 and "batch" in result.stdout, result.stdout

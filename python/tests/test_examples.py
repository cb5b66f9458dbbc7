"""examples/python/classify.py as a user runs it: it compiles SqueezeNet, keeps the plan, runs it
again from the plan, and its top classes (JSON) are the top scores of the same image that
iosrun --save-outputs computes with that plan."""
import json
import os
import subprocess
import sys

import numpy as np
from onnx import numpy_helper

from conftest import IOSRUN, SOURCE_DIR, generate_models

CLASSIFY = os.path.join(SOURCE_DIR, "examples", "python", "classify.py")


def test_classify_prints_the_top_classes_of_its_plan(tmp_path):
    model = generate_models(["squeezenet"])["squeezenet"]
    image = np.random.default_rng(5).standard_normal((1, 3, 224, 224)).astype(np.float32)
    np.save(tmp_path / "image.npy", image)
    plan = tmp_path / "squeezenet.iosplan"
    tops = []
    for run in range(2):  # compiles, then runs the plan it kept
        out = tmp_path / f"top{run}.json"
        result = subprocess.run([sys.executable, CLASSIFY, model, "--plan", str(plan), "--image",
                                 str(tmp_path / "image.npy"), "--json", str(out)],
                                capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        assert ("compiled:" in result.stdout) == (run == 0)
        tops.append(json.loads(out.read_text()))
    assert tops[0] == tops[1] and len(tops[0]) == 5

    inputs = tmp_path / "inputs"
    inputs.mkdir()
    (inputs / "input_0.pb").write_bytes(numpy_helper.from_array(image).SerializeToString())
    saved = tmp_path / "outputs"
    result = subprocess.run([IOSRUN, str(plan), "--load-inputs", str(inputs), "--save-outputs",
                             str(saved)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    from onnx import TensorProto
    tensor = TensorProto()
    tensor.ParseFromString((saved / "output_0.pb").read_bytes())
    scores = numpy_helper.to_array(tensor).reshape(-1)
    order = np.argsort(-scores, kind="stable")[:5]
    assert [t["class"] for t in tops[0]] == [int(i) for i in order]
    assert [t["score"] for t in tops[0]] == [float(scores[i]) for i in order]

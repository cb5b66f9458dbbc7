"""The idioms today's PyTorch exporters write around CNNs, end to end against onnxruntime
(scripts/models/exporter_idioms.py): shape arithmetic with Mod (Swin/ViT padding to a window
multiple), weight standardisation through BatchNormalization in training mode (NFNet, timm's
ScaledStdConv under the legacy exporter), a ScatterND-built attention mask, and ScatterND
(reduction add) and a float Mod on activations. For batch 1 and 2, greedy and the IOS search
profiled on this CPU: iosc folds every constant idiom (the plan holds no BatchNormalization,
Shape or ConstantOfShape, and exactly the two run-time Mod and ScatterND nodes), and iosrun
--check matches onnxruntime on both outputs. Also: an out-of-range constant ScatterND index is
refused at compile time naming the node (exit 2, no plan)."""
import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from ios_tools.cli import run
from model_plans import generated_model, plan, reference  # noqa: F401 (fixtures)

ATOL, RTOL = "1e-5", "1e-4"


@pytest.fixture(scope="module")
def model(source_dir, tmp_path_factory):
    return generated_model(source_dir, tmp_path_factory, "exporter_idioms")


def test_the_constant_idioms_fold(plan):
    assert not {"BatchNormalization", "Shape", "ConstantOfShape"} & set(plan.ops), \
        sorted(plan.ops)


def test_the_run_time_mod_and_scatternd_remain(plan):
    assert plan.ops.count("Mod") == 1 and plan.ops.count("ScatterND") == 1, sorted(plan.ops)


def test_matches_onnxruntime(plan, iosrun):
    checked = run([iosrun, plan.path, "--check", plan.ref, "--atol", ATOL, "--rtol", RTOL])
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_out_of_range_scatternd_index_refused(model, iosc, tmp_path):
    """Exit status 2 naming the file, node and index, and no plan written."""
    bad = onnx.load(model)
    for i, init in enumerate(bad.graph.initializer):
        if init.name == "mask_rows":
            bad.graph.initializer[i].CopyFrom(numpy_helper.from_array(
                np.array([[0, 0, 14], [0, 0, 99]], np.int64), "mask_rows"))
    bad_path = str(tmp_path / "bad_scatter.onnx")
    onnx.save(bad, bad_path)
    bad_plan = tmp_path / "bad.iosplan"
    refused = run([iosc, bad_path, "-o", bad_plan])
    assert refused.returncode == 2 and "bad_scatter.onnx" in refused.stderr \
        and "'mask'" in refused.stderr and "99" in refused.stderr, refused.stderr
    assert not bad_plan.exists()

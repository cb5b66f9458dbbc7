"""iosc and iosrun say when a node will be slow (issue 50): a CPU plan's nodes that run the
reference kernel or behind a layout reorder are listed in `iosc --stats-json` (slow_nodes, with
their stage's share of the predicted latency) and marked in `iosrun --export-profile` ("kernel"),
for the IOS schedule and the sequential one alike; a model whose nodes all have own kernels lists
none. The model: a conv whose channels-last output feeds a Softmax over the channels (a kernel
that takes row-major tensors only: behind a reorder), and an int64 Div (Div's kernel is float32:
the reference kernel)."""
import json
from types import SimpleNamespace

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from ios_tools.cli import check_run, plan_info


def slow_model(path):
    w = numpy_helper.from_array(np.random.default_rng(0).random((16, 8, 3, 3), np.float32), "w")
    divisor = numpy_helper.from_array(np.full((4, 8), 3, np.int64), "j")  # never 0
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        helper.make_node("Softmax", ["c"], ["probs"], name="softmax", axis=1),
        helper.make_node("Div", ["i", "j"], ["ratio"], name="int_div"),
    ]
    graph = helper.make_graph(
        nodes, "slow_paths",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 16, 16]),
         helper.make_tensor_value_info("i", TensorProto.INT64, [4, 8])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, 16, 16, 16]),
         helper.make_tensor_value_info("ratio", TensorProto.INT64, [4, 8])], [w, divisor])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def fast_model(path):
    w = numpy_helper.from_array(np.random.default_rng(1).random((16, 8, 3, 3), np.float32), "w")
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["y"], name="relu")]
    graph = helper.make_graph(nodes, "fast",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


@pytest.fixture(scope="module", params=["ios", "sequential"])
def compiled(request, iosc, iosrun, tmp_path_factory):
    """The slow model's plan for one schedule: its --stats-json slow nodes (name -> node), the
    layouts of its tensors and the kernels iosrun --export-profile names (name -> kernel)."""
    schedule = request.param
    tmp = tmp_path_factory.mktemp(schedule)
    model, plan, stats_path = tmp / "slow.onnx", str(tmp / "plan.iosplan"), tmp / "stats.json"
    slow_model(str(model))
    check_run([iosc, model, "--device", "cpu", "--schedule", schedule, "-o", plan,
               "--stats-json", stats_path], "iosc")
    stats = json.loads(stats_path.read_text())
    profile = tmp / "profile.json"
    check_run([iosrun, plan, "--export-profile", profile, "--trace-runs", "2"], "iosrun")
    return SimpleNamespace(
        schedule=schedule, slow_list=stats.get("slow_nodes"),
        slow={node["name"]: node for node in stats.get("slow_nodes", [])},
        layouts={t["name"]: t.get("layout") for t in plan_info(iosrun, plan, tmp)["tensors"]},
        kernels={op["name"]: op["kernel"] for op in json.loads(profile.read_text())["ops"]})


def test_stats_json_lists_the_two_slow_nodes(compiled):
    assert sorted(compiled.slow) == ["int_div", "softmax"], compiled.slow_list


def test_the_int64_div_runs_the_reference_kernel(compiled):
    assert compiled.slow.get("int_div", {}).get("kernel") == "reference", compiled.slow


def test_the_softmax_runs_behind_a_reorder(compiled):
    if compiled.layouts.get("c") != "CHANNELS_LAST":
        pytest.skip("oneDNN has no NHWC convs here: the conv's output stays row-major")
    assert compiled.slow.get("softmax", {}).get("kernel") == "behind a reorder", compiled.slow


def test_each_slow_node_has_its_stages_share_of_the_prediction(compiled):
    """Profiled (ios): a share of the predicted latency; no cost source (sequential): none."""
    shares = [node.get("share", -1) for node in compiled.slow.values()]
    if compiled.schedule == "ios":
        assert all(0 < s <= 1 for s in shares), shares
    else:
        assert all(s == -1 for s in shares), shares


def test_the_profile_marks_the_div_and_the_convs_kernel(compiled):
    assert compiled.kernels.get("int_div") == "reference" and \
        compiled.kernels.get("conv") == "own kernel", compiled.kernels


def test_own_kernels_only_no_slow_node(iosc, tmp_path):
    fast, stats_path = tmp_path / "fast.onnx", tmp_path / "fast.json"
    fast_model(str(fast))
    check_run([iosc, fast, "--device", "cpu", "--schedule", "sequential", "-o",
               tmp_path / "fast.iosplan", "--stats-json", stats_path], "iosc")
    stats = json.loads(stats_path.read_text())
    assert not stats.get("slow_nodes"), stats

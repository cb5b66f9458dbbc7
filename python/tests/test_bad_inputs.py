"""Every bad input gets a clear exception naming what is wrong, and nothing crashes: arrays of
the wrong dtype, shape or layout, missing, unknown or twice-given names, things that are not
arrays, outputs that cannot be written, bad models, plans, devices and options. Errors are
ios.Error; InvalidInput is also a ValueError; the message is the library's."""
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import ios
from conftest import SMALL_MODEL


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    from conftest import write_add_model
    path = write_add_model(str(tmp_path_factory.mktemp("bad") / "add.onnx"))
    return ios.Session(ios.compile(path, schedule="sequential"))


X = np.zeros((1, 8), np.float32)


class CudaArrayInterfaceOnly:
    """Looks like a GPU array (numba's, say): only __cuda_array_interface__."""

    __cuda_array_interface__ = {"shape": (1, 8), "typestr": "<f4", "data": (0, False),
                                "version": 3, "strides": None}


@pytest.mark.parametrize("feeds, message", [
    ({"x": X}, "input 'y' is not given"),
    ({"x": X, "y": X, "w": X}, "the plan has no input 'w' (its inputs: 'x', 'y')"),
    ({"x": X.astype(np.float64), "y": X}, "input 'x' is float64, the plan's is float32"),
    ({"x": X, "y": X.astype(np.int64)}, "input 'y' is int64, the plan's is float32"),
    ({"x": np.zeros((2, 8), np.float32), "y": X}, "input 'x' has shape (2, 8), the plan's is "
                                                  "(1, 8)"),
    ({"x": np.zeros(8, np.float32), "y": X}, "input 'x' has shape (8,), the plan's is (1, 8)"),
    ({"x": np.zeros((8, 1), np.float32).T, "y": X}, None),  # a transposed (1, 8) is dense
    ({"x": np.zeros((1, 16), np.float32)[:, ::2], "y": X}, "input 'x' is not contiguous"),
    ({"x": [0.0] * 8, "y": X}, "input 'x' must be a numpy array (or an array with __dlpack__), "
                               "got list"),
    ({"x": None, "y": X}, "input 'x' must be a numpy array"),
    ({"x": 1.5, "y": X}, "input 'x' must be a numpy array"),
    ({1: X, "y": X}, "input names must be strings, got int"),
    ({"x": CudaArrayInterfaceOnly(), "y": X}, "input 'x' is in CUDA device memory"),
])
def test_bad_feeds_are_refused_naming_the_input(session, feeds, message):
    if message is None:
        assert session.run(feeds)["z"].shape == (1, 8)
        return
    with pytest.raises(ios.InvalidInput) as raised:
        session.run(feeds)
    assert message in str(raised.value)
    assert isinstance(raised.value, ValueError) and isinstance(raised.value, ios.Error)


@pytest.mark.parametrize("feeds", [[X, X], (X, X), None, "x", X])
def test_feeds_that_are_no_dict_are_refused(session, feeds):
    with pytest.raises(ios.InvalidInput, match="must be a dict of input name to array"):
        session.run(feeds)


def test_bad_outputs_are_refused_naming_the_output(session):
    feeds = {"x": X, "y": X}
    with pytest.raises(ios.InvalidInput, match=r"the plan has no output 'nope' \(its outputs: "
                                               r"'z'\)"):
        session.run(feeds, ["nope"])
    with pytest.raises(ios.InvalidInput, match="output 'z' is float64, the plan's is float32"):
        session.run(feeds, {"z": np.zeros((1, 8))})
    with pytest.raises(ios.InvalidInput, match=r"output 'z' has shape \(1, 9\)"):
        session.run(feeds, {"z": np.zeros((1, 9), np.float32)})
    with pytest.raises(ios.InvalidInput, match="output 'z' is not contiguous"):
        session.run(feeds, {"z": np.zeros((1, 16), np.float32)[:, ::2]})
    frozen = np.zeros((1, 8), np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ios.InvalidInput, match="output 'z' is read-only"):
        session.run(feeds, {"z": frozen})
    with pytest.raises(ios.InvalidInput, match="got the string 'z'"):
        session.run(feeds, "z")
    with pytest.raises(ios.InvalidInput, match="output 'z' must be a numpy array"):
        session.run(feeds, {"z": [0.0] * 8})
    # Nothing was half-written: the session still runs.
    np.testing.assert_array_equal(session.run(feeds)["z"], X + X)


def test_bad_models_are_refused_with_the_librarys_message(tmp_path):
    with pytest.raises(ios.IoError, match="/no/such/model.onnx") as raised:
        ios.compile("/no/such/model.onnx")
    assert isinstance(raised.value, OSError)
    with pytest.raises(ios.InvalidInput, match="the model's bytes"):
        ios.compile(b"not a model at all")
    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(b"\x08\x07\x12garbage")
    with pytest.raises(ios.InvalidInput, match="garbage.onnx"):
        ios.compile(garbage)
    with pytest.raises(ios.InvalidInput, match="model must be a path, bytes or an "
                                               "onnx.ModelProto, got int"):
        ios.compile(42)


def test_an_unsupported_op_is_named(tmp_path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])
    k = helper.make_tensor("k", TensorProto.INT64, [1], [3])
    values = helper.make_tensor_value_info("values", TensorProto.FLOAT, [1, 3])
    indices = helper.make_tensor_value_info("indices", TensorProto.INT64, [1, 3])
    graph = helper.make_graph([helper.make_node("TopK", ["x", "k"], ["values", "indices"],
                                                name="top3")], "topk", [x], [values, indices],
                              [k])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(ios.Unsupported) as raised:
        ios.compile(model)
    assert "TopK" in str(raised.value) and "top3" in str(raised.value)
    assert not isinstance(raised.value, ValueError)


def test_a_free_dimension_names_the_input_and_the_fix(tmp_path):
    x = helper.make_tensor_value_info("image", TensorProto.FLOAT, ["n", 3, "h", "w"])
    y = helper.make_tensor_value_info("out", TensorProto.FLOAT, ["n", 3, "h", "w"])
    graph = helper.make_graph([helper.make_node("Relu", ["image"], ["out"])], "free", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(ios.InvalidInput, match="input 'image': dimension 2 .*is free"):
        ios.compile(model)
    plan = ios.compile(model, input_shapes={"image": (2, 3, 4, 5)}, schedule="sequential")
    assert ios.Session(plan).inputs[0].shape == (2, 3, 4, 5)
    with pytest.raises(ios.InvalidInput, match="has rank 4"):
        ios.compile(model, input_shapes={"image": (1, 3)})


@pytest.mark.parametrize("options, message", [
    (dict(device="tpu"), "--device must be"),
    (dict(schedule="fastest"), "schedule must be 'ios', .* got 'fastest'"),
    (dict(batch=0), "batch must be a positive integer, got 0"),
    (dict(batch=-2), "batch must be a positive integer"),
    (dict(batch=1.5), "batch must be a positive integer"),
])
def test_bad_compile_options_are_refused(options, message):
    with pytest.raises(ios.InvalidInput, match=message):
        ios.compile(SMALL_MODEL, **options)


def test_bad_plans_and_session_options_are_refused(tmp_path):
    with pytest.raises(ios.InvalidInput, match="not an ios plan"):
        ios.Session(b"definitely not a plan")
    with pytest.raises(ios.IoError):
        ios.Session(tmp_path / "missing.iosplan")
    with pytest.raises(ios.InvalidInput, match="Session takes an ios.Plan"):
        ios.Session(3.5)  # type: ignore[arg-type]
    plan = ios.compile(SMALL_MODEL, device="sim:V100", schedule="greedy")
    with pytest.raises(ios.InvalidInput, match="--force"):
        ios.Session(plan, device="cpu")  # a plan for the analytic V100, on this CPU
    with pytest.raises(ios.InvalidInput, match="device must be 'cpu', 'cuda', 'cuda:N'"):
        ios.Session(plan, device="tpu", force=True)
    data = bytearray(plan.to_bytes())
    data[len(data) // 2] ^= 0xFF
    with pytest.raises(ios.InvalidInput, match="corrupted"):
        ios.Session(bytes(data), force=True)
    stripped = ios.compile(SMALL_MODEL, device="sim:V100", schedule="greedy", strip_weights=True)
    path = tmp_path / "stripped.iosplan"
    stripped.save(path)
    with pytest.raises(ios.InvalidInput, match="weight-stripped"):
        ios.Session(path, force=True)
    assert ios.Session(path, force=True, weights=SMALL_MODEL).outputs


def test_a_cpu_session_refuses_device_runs(session):
    with pytest.raises(ios.InvalidInput, match="input 'x' is in CUDA device memory"):
        session.run({"x": CudaArrayInterfaceOnly(), "y": CudaArrayInterfaceOnly()})

"""ios.InferenceSession as a drop-in for onnxruntime's: an unchanged onnxruntime script
(examples/python/onnxruntime_script.py) runs on ios once its import line names ios, and gives
onnxruntime's outputs at iosrun --check's tolerance; the first session compiles into the plan
cache and the next loads the plan from it; get_inputs/get_outputs/run follow onnxruntime's
conventions; free dimensions, unsupported ops and wrong feeds give onnxruntime-like errors that
say what to do."""
import os
import subprocess
import sys
import warnings

import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper, save

import ios
from conftest import SMALL_MODEL, SOURCE_DIR, generate_models

SCRIPT = os.path.join(SOURCE_DIR, "examples", "python", "onnxruntime_script.py")
IMPORT_LINE = "import onnxruntime as ort\n"


def run_script(path, model, out, cache):
    env = dict(os.environ, IOS_CACHE_DIR=str(cache))
    result = subprocess.run([sys.executable, str(path), model, str(out)], capture_output=True,
                            text=True, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    return dict(np.load(out))


def test_an_onnxruntime_script_runs_on_ios_after_its_import_line(tmp_path):
    model = generate_models(["squeezenet"])["squeezenet"]
    with open(SCRIPT) as f:
        source = f.read()
    assert source.count(IMPORT_LINE) == 1
    swapped = tmp_path / "ios_script.py"
    swapped.write_text(source.replace(IMPORT_LINE, "import ios as ort\n"))
    cache = tmp_path / "cache"

    expected = run_script(SCRIPT, model, tmp_path / "ort.npz", cache)
    got = run_script(swapped, model, tmp_path / "ios.npz", cache)
    assert set(got) == set(expected) and expected
    for name, value in expected.items():
        assert got[name].shape == value.shape and got[name].dtype == value.dtype
        assert np.all(np.abs(got[name] - value) <= 1e-5 + 1e-4 * np.abs(value)), name

    plans = [p for p in os.listdir(cache) if p.endswith(".iosplan")]
    assert len(plans) == 1 and plans[0].startswith("squeezenet.")
    assert any(p.startswith("timings.") for p in os.listdir(cache))
    stamp = os.stat(cache / plans[0]).st_mtime_ns
    again = run_script(swapped, model, tmp_path / "ios2.npz", cache)  # from the cache
    assert os.stat(cache / plans[0]).st_mtime_ns == stamp
    for name, value in got.items():
        np.testing.assert_array_equal(again[name], value)


def test_the_session_follows_onnxruntimes_conventions(tmp_path):
    ours = ios.InferenceSession(SMALL_MODEL, cache_dir=str(tmp_path), schedule="greedy")
    theirs = onnxruntime.InferenceSession(SMALL_MODEL, providers=["CPUExecutionProvider"])
    assert ours.compiled
    for mine, other in ((ours.get_inputs(), theirs.get_inputs()),
                        (ours.get_outputs(), theirs.get_outputs())):
        assert [(a.name, a.type) for a in mine] == [(b.name, b.type) for b in other]
        for a, b in zip(mine, other):
            assert [d if isinstance(d, int) else 1 for d in b.shape] == a.shape
    assert ours.get_providers() == ["CPUExecutionProvider"]
    feeds = {i.name: np.random.default_rng(1).standard_normal(i.shape).astype(np.float32)
             for i in ours.get_inputs()}
    names = [o.name for o in ours.get_outputs()]
    got, expected = ours.run(None, feeds), theirs.run(None, feeds)
    assert isinstance(got, list) and len(got) == len(expected) == len(names)
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    assert len(ours.run(names[:1], feeds)) == 1
    # Strided inputs are copied, as onnxruntime does.
    strided = {k: np.asfortranarray(v) for k, v in feeds.items()}
    np.testing.assert_array_equal(ours.run(None, strided)[0], got[0])
    # A later session loads the cached plan instead of compiling.
    again = ios.InferenceSession(SMALL_MODEL, cache_dir=str(tmp_path), schedule="greedy")
    assert not again.compiled and again.plan_path == ours.plan_path
    np.testing.assert_array_equal(again.run(None, feeds)[0], got[0])
    # Other options are another plan.
    other = ios.InferenceSession(SMALL_MODEL, cache_dir=str(tmp_path), schedule="sequential")
    assert other.compiled and other.plan_path != ours.plan_path


def test_wrong_feeds_give_onnxruntime_like_errors(tmp_path):
    session = ios.InferenceSession(SMALL_MODEL, cache_dir=str(tmp_path), schedule="greedy")
    info = session.get_inputs()[0]
    good = np.zeros(info.shape, np.float32)
    with pytest.raises(ios.InvalidInput, match=r"Unexpected input data type. Actual: "
                                               r"\(tensor\(double\)\) , expected: "
                                               r"\(tensor\(float\)\)"):
        session.run(None, {info.name: good.astype(np.float64)})
    wrong_batch = np.zeros([2] + info.shape[1:], np.float32)
    with pytest.raises(ios.InvalidInput, match="Got invalid dimensions for input: .* index: 0 "
                                               "Got: 2 Expected: 1.*create it with batch=2"):
        session.run(None, {info.name: wrong_batch})
    with pytest.raises(ios.InvalidInput, match=r"\[ios\] INVALID_ARGUMENT : .*is not given"):
        session.run(None, {})
    with pytest.raises(ValueError, match="no output 'nope'"):
        session.run(["nope"], {info.name: good})
    batch2 = ios.InferenceSession(SMALL_MODEL, cache_dir=str(tmp_path), schedule="greedy",
                                  batch=2)
    assert batch2.run(None, {info.name: wrong_batch})[0].shape[0] == 2


def test_a_free_dimension_says_how_to_fix_it(tmp_path):
    x = helper.make_tensor_value_info("image", TensorProto.FLOAT, ["n", 3, "h", "w"])
    y = helper.make_tensor_value_info("out", TensorProto.FLOAT, ["n", 3, "h", "w"])
    path = str(tmp_path / "free.onnx")
    save(helper.make_model(helper.make_graph([helper.make_node("Relu", ["image"], ["out"])],
                                             "free", [x], [y]),
                           opset_imports=[helper.make_opsetid("", 17)]), path)
    with pytest.raises(ios.InvalidInput, match=r"\[ios\] INVALID_ARGUMENT : .*image.* is free.*"
                                               r"input_shapes=\{'image': \[1, 3, <h>, <w>\]\}"):
        ios.InferenceSession(path, cache_dir=str(tmp_path))
    session = ios.InferenceSession(path, cache_dir=str(tmp_path),
                                   input_shapes={"image": [1, 3, 4, 4]})
    assert session.get_inputs()[0].shape == [1, 3, 4, 4]


def test_an_unsupported_op_says_what_to_do(tmp_path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])
    k = helper.make_tensor("k", TensorProto.INT64, [1], [3])
    outs = [helper.make_tensor_value_info("v", TensorProto.FLOAT, [1, 3]),
            helper.make_tensor_value_info("i", TensorProto.INT64, [1, 3])]
    path = str(tmp_path / "topk.onnx")
    save(helper.make_model(helper.make_graph([helper.make_node("TopK", ["x", "k"], ["v", "i"])],
                                             "topk", [x], outs, [k]),
                           opset_imports=[helper.make_opsetid("", 17)]), path)
    with pytest.raises(ios.Unsupported, match=r"(?s)\[ios\] NOT_IMPLEMENTED : .*TopK.*"
                                              r"run this model with onnxruntime"):
        ios.InferenceSession(path, cache_dir=str(tmp_path))
    with pytest.raises(ios.IoError, match="File doesn't exist"):
        ios.InferenceSession(str(tmp_path / "missing.onnx"), cache_dir=str(tmp_path))


def test_a_model_keeps_its_static_batch_and_providers_fall_back(tmp_path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])
    path = str(tmp_path / "relu3.onnx")
    save(helper.make_model(helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "relu",
                                             [x], [y]),
                           opset_imports=[helper.make_opsetid("", 17)]), path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        session = ios.InferenceSession(path, cache_dir=str(tmp_path),
                                       providers=["NoSuchExecutionProvider",
                                                  "CPUExecutionProvider"])
    assert any("NoSuchExecutionProvider" in str(w.message) for w in caught)
    assert session.get_inputs()[0].shape == [3, 4]
    data = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(session.run(["y"], {"x": data})[0], np.maximum(data, 0))


def test_a_changed_model_is_compiled_again(tmp_path):
    model = tmp_path / "model.onnx"
    with open(SMALL_MODEL, "rb") as f:
        original = f.read()
    model.write_bytes(original)
    first = ios.InferenceSession(str(model), cache_dir=str(tmp_path), schedule="greedy")
    assert first.compiled
    assert not ios.InferenceSession(str(model), cache_dir=str(tmp_path),
                                    schedule="greedy").compiled
    import onnx
    changed = onnx.load(SMALL_MODEL)
    changed.doc_string = "another model"
    onnx.save(changed, str(model))
    second = ios.InferenceSession(str(model), cache_dir=str(tmp_path), schedule="greedy")
    assert second.compiled and second.plan_path != first.plan_path


def test_a_corrupted_cached_plan_is_compiled_again(tmp_path):
    first = ios.InferenceSession(SMALL_MODEL, cache_dir=str(tmp_path), schedule="greedy")
    with open(first.plan_path, "r+b") as f:
        f.seek(os.path.getsize(first.plan_path) // 2)
        f.write(b"\xff\xff\xff\xff")
    with pytest.warns(UserWarning, match="did not load"):
        again = ios.InferenceSession(SMALL_MODEL, cache_dir=str(tmp_path), schedule="greedy")
    assert again.compiled
    assert ios.InferenceSession(SMALL_MODEL, cache_dir=str(tmp_path),
                                schedule="greedy").compiled is False


def test_available_providers():
    providers = ios.get_available_providers()
    assert providers[-1] == "CPUExecutionProvider"
    assert ios.get_device() in ("CPU", "GPU")

"""Every bad input in testdata/bad gets a clear message, exit status 2, no crash, and no output
file; an existing output file survives a failed run untouched. So do models whose external data
is broken (a location out of the model's folder, a missing .data file, an offset past its end)
and bad --input-shape flags (an unknown input, a wrong rank, a contradicted static dim), the
resource limits (--max-nodes, sizes past 64 bits, protobuf's 2 GiB) and an output path that is
the model itself."""
import os
from types import SimpleNamespace

import pytest

from ios_tools.cli import run

# file -> substrings the message must contain
EXPECTED = {
    "not_onnx.onnx": ["not a valid ONNX model"],
    "truncated.onnx": ["not a valid ONNX model"],
    "empty.onnx": ["empty"],
    "unsupported_ops.onnx": ["3 node(s)", "'lstm': LSTM (opset 13)", "NonMaxSuppression",
                             "com.example::FancyOp (opset 1)"],
    "missing_initializer.onnx": ["missing initializer", "'conv'", "Conv", "conv_weight"],
    "dangling_input.onnx": ["dangling input", "'relu'", "nobody_produces_this"],
    "cycle.onnx": ["cycle", "Relu"],
    "zero_dim.onnx": ["input 'input'", "dimension 2 is 0"],
    "negative_dim.onnx": ["input 'input'", "dimension 2 is -1"],
    "unknown_dim.onnx": ["input 'input'", "dimension 2 (the symbol 'H') is free",
                         "--input-shape input:"],
    "opset_too_new.onnx": ["opset 29", "7..28"],
    "opset_too_old.onnx": ["opset 6", "7..28"],
    "bad_conv_channels.onnx": ["node 'conv' (Conv, opset 13)", "channels"],
    "wrong_initializer_size.onnx": ["initializer 'conv_weight'", "expected 864"],
}


def external_data_cases(source_dir, tmp):
    """Models whose weights are external, broken in the ways a download or a copy breaks them:
    (folder, model path, the tensor named, what the message must say)."""
    import onnx
    good = os.path.join(source_dir, "testdata", "models", "residual_blocks_opset17.onnx")
    cases = []

    def saved(name):
        folder = os.path.join(tmp, name)
        os.makedirs(folder)
        model = onnx.load(good)
        path = os.path.join(folder, "model.onnx")
        onnx.save(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                  location="model.onnx.data", size_threshold=0)
        return folder, path, onnx.load(path, load_external_data=False)

    def first_external(model):
        return next(t for t in model.graph.initializer
                    if t.data_location == onnx.TensorProto.EXTERNAL)

    def set_entry(tensor, key, value):
        for entry in tensor.external_data:
            if entry.key == key:
                entry.value = value
                return
        tensor.external_data.add(key=key, value=value)

    folder, path, model = saved("escape")
    tensor = first_external(model)
    set_entry(tensor, "location", "../model.onnx.data")
    onnx.save(model, path)
    cases.append((path, tensor.name, ["external data location '../model.onnx.data'",
                                      "must lie in the model's folder"]))

    folder, path, model = saved("absolute")
    tensor = first_external(model)
    set_entry(tensor, "location", os.path.join(folder, "model.onnx.data"))
    onnx.save(model, path)
    cases.append((path, tensor.name, ["is an absolute path"]))

    folder, path, model = saved("missing")
    os.remove(os.path.join(folder, "model.onnx.data"))
    cases.append((path, first_external(model).name, ["model.onnx.data is missing"]))

    folder, path, model = saved("past_end")
    tensor = first_external(model)
    set_entry(tensor, "offset", str(os.path.getsize(os.path.join(folder, "model.onnx.data"))))
    onnx.save(model, path)
    cases.append((path, tensor.name, ["runs past the end of"]))
    return cases


@pytest.fixture(scope="module", params=sorted(EXPECTED))
def bad_file(request, iosc, source_dir, tmp_path_factory):
    """iosc on a file of testdata/bad, asked for two outputs, one of which exists already."""
    tmp = tmp_path_factory.mktemp("bad")
    dump, emitted = tmp / "blocks.json", tmp / "out.onnx"
    emitted.write_text("precious")
    path = os.path.join(source_dir, "testdata", "bad", request.param)
    result = run([iosc, path, "--dump-blocks", dump, "--emit-onnx", emitted])
    return SimpleNamespace(name=request.param, path=path, result=result, dump=dump,
                           emitted=emitted)


def test_bad_file_exit_status_2(bad_file):
    assert bad_file.result.returncode == 2, bad_file.result.stderr


def test_bad_file_names_the_file(bad_file):
    assert bad_file.path in bad_file.result.stderr


def test_bad_file_says_what_is_wrong(bad_file):
    missing = [n for n in EXPECTED[bad_file.name] if n not in bad_file.result.stderr]
    assert not missing, bad_file.result.stderr


def test_bad_file_no_partial_output(bad_file):
    assert not bad_file.dump.exists()


def test_bad_file_existing_output_untouched(bad_file):
    assert bad_file.emitted.read_text() == "precious"


def test_unwritable_output(iosc, residual_model, tmp_path):
    result = run([iosc, residual_model, "--dump-blocks", tmp_path / "no" / "such" / "dir.json"])
    assert result.returncode == 2 and "cannot write" in result.stderr, result.stderr


def test_batch_0_is_refused(iosc, residual_model):
    result = run([iosc, residual_model, "--batch", "0"])
    assert result.returncode == 2, result.stderr


@pytest.fixture(scope="module")
def external_data(source_dir, tmp_path_factory):
    """label -> (model path, the tensor named, what the message must say)."""
    cases = external_data_cases(source_dir, str(tmp_path_factory.mktemp("external")))
    return {os.path.basename(os.path.dirname(path)): (path, tensor, needles)
            for path, tensor, needles in cases}


@pytest.mark.parametrize("label", ["escape", "absolute", "missing", "past_end"])
def test_external_data(iosc, external_data, label, tmp_path):
    path, tensor, needles = external_data[label]
    plan = tmp_path / (label + ".iosplan")
    result = run([iosc, path, "-o", plan])
    assert result.returncode == 2, result.stderr
    assert path in result.stderr and f"initializer '{tensor}'" in result.stderr, result.stderr
    missing = [n for n in needles if n not in result.stderr]
    assert not missing, result.stderr
    assert not plan.exists()


INPUT_SHAPES = {
    "unknown input": (["--input-shape", "images:1x3x32x32"],
                      ["'images', which is not an input of the model", "'input'"]),
    "wrong rank": (["--input-shape", "input:1x3x32"], ["input 'input' has rank 4", "[1,3,32]"]),
    "static dim contradicted": (["--input-shape", "input:1x4x32x32"],
                                ["contradicts the model's static dimension 1 (3)"]),
    "not NAME:DIMS": (["--input-shape", "input:1x3x32xabc"], ["'abc' is not a positive"]),
}


@pytest.mark.parametrize("label", list(INPUT_SHAPES))
def test_input_shape_refused(iosc, residual_model, label, tmp_path):
    """A bad --input-shape: exit status 2, a message saying what is wrong, no plan."""
    flags, needles = INPUT_SHAPES[label]
    plan = tmp_path / "shape.iosplan"
    result = run([iosc, residual_model, "-o", plan] + flags)
    assert result.returncode == 2, result.stderr
    missing = [n for n in needles if n not in result.stderr]
    assert not missing, result.stderr
    assert not plan.exists()


def limit_case(label, source_dir, residual_model, tmp):
    """Resource limits: (argv, what the message must say: the limit and the flag or fix)."""
    if label == "more nodes than --max-nodes":
        return [residual_model, "--max-nodes", "3"], ["more than the limit of 3", "--max-nodes"]
    if label == "dims whose size overflows 64 bits":
        free_dims = os.path.join(source_dir, "testdata", "bad", "unknown_dim.onnx")
        return ([free_dims, "--input-shape", "input:999999999999x3x999999999999x8"],
                ["overflows 64 bits"])
    big = tmp / "big.onnx"
    with open(big, "wb") as f:  # sparse: 2 GiB + 1 byte that take no disk
        f.truncate((2 << 30) + 1)
    return [big], ["past protobuf's 2 GiB limit", "save_as_external_data=True"]


@pytest.mark.parametrize("label", ["more nodes than --max-nodes",
                                   "dims whose size overflows 64 bits", "a model of 2 GiB or more"])
def test_limit_refused(iosc, source_dir, residual_model, label, tmp_path):
    """Each refused with exit status 2, a message naming the limit, and no output."""
    argv, needles = limit_case(label, source_dir, residual_model, tmp_path)
    plan = tmp_path / "limit.iosplan"
    result = run([iosc] + argv + ["-o", plan])
    assert result.returncode == 2, result.stderr
    missing = [n for n in needles if n not in result.stderr]
    assert not missing, result.stderr
    assert not plan.exists()


@pytest.mark.parametrize("flag", ["-o", "--emit-onnx", "--dump-blocks"])
def test_output_naming_the_model_itself(iosc, residual_model, flag, tmp_path):
    """Refused with exit status 2 and a message saying so; the model is untouched."""
    copy = tmp_path / "model_copy.onnx"
    with open(residual_model, "rb") as f:
        original = f.read()
    copy.write_bytes(original)
    result = run([iosc, copy, flag, os.path.join(tmp_path, ".", "model_copy.onnx")])
    assert result.returncode == 2 and "names the input" in result.stderr, result.stderr
    assert copy.read_bytes() == original

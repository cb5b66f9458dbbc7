"""Every bad input in testdata/bad gets a clear message, exit status 2, no crash, and no output
file; an existing output file survives a failed run untouched. So do models whose external data
is broken (a location out of the model's folder, a missing .data file, an offset past its end)
and bad --input-shape flags (an unknown input, a wrong rank, a contradicted static dim), the
resource limits (--max-nodes, sizes past 64 bits, protobuf's 2 GiB) and an output path that is
the model itself."""
import os
import tempfile

from ios_test_util import Tally, parse_args, run

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


def check_external_data(tally, args, tmp):
    for path, tensor, needles in external_data_cases(args.source_dir, tmp):
        label = os.path.basename(os.path.dirname(path))
        plan = os.path.join(tmp, label + ".iosplan")
        result = run([args.iosc, path, "-o", plan])
        tally.check(f"external data, {label}: exit status 2", result.returncode == 2,
                    f"got {result.returncode}: {result.stderr}")
        tally.check(f"external data, {label}: names the file and the tensor",
                    path in result.stderr and f"initializer '{tensor}'" in result.stderr,
                    result.stderr)
        for needle in needles:
            tally.check(f"external data, {label}: says {needle!r}", needle in result.stderr,
                        result.stderr)
        tally.check(f"external data, {label}: no plan", not os.path.exists(plan))


def check_input_shapes(tally, args, tmp):
    good = os.path.join(args.source_dir, "testdata", "models", "residual_blocks_opset17.onnx")
    cases = {
        "unknown input": (["--input-shape", "images:1x3x32x32"],
                          ["'images', which is not an input of the model", "'input'"]),
        "wrong rank": (["--input-shape", "input:1x3x32"],
                       ["input 'input' has rank 4", "[1,3,32]"]),
        "static dim contradicted": (["--input-shape", "input:1x4x32x32"],
                                    ["contradicts the model's static dimension 1 (3)"]),
        "not NAME:DIMS": (["--input-shape", "input:1x3x32xabc"], ["'abc' is not a positive"]),
    }
    for label, (flags, needles) in cases.items():
        plan = os.path.join(tmp, "shape.iosplan")
        result = run([args.iosc, good, "-o", plan] + flags)
        tally.check(f"--input-shape, {label}: exit status 2", result.returncode == 2,
                    f"got {result.returncode}: {result.stderr}")
        for needle in needles:
            tally.check(f"--input-shape, {label}: says {needle!r}", needle in result.stderr,
                        result.stderr)
        tally.check(f"--input-shape, {label}: no plan", not os.path.exists(plan))


def check_limits(tally, args, tmp):
    """Resource limits and self-destruction: each refused with exit 2, a message naming the limit
    and the flag (or fix), and no output."""
    good = os.path.join(args.source_dir, "testdata", "models", "residual_blocks_opset17.onnx")
    free_dims = os.path.join(args.source_dir, "testdata", "bad", "unknown_dim.onnx")
    big = os.path.join(tmp, "big.onnx")
    with open(big, "wb") as f:  # sparse: 2 GiB + 1 byte that take no disk
        f.truncate((2 << 30) + 1)
    copy = os.path.join(tmp, "model_copy.onnx")
    with open(good, "rb") as f:
        original = f.read()
    with open(copy, "wb") as f:
        f.write(original)
    cases = {
        "more nodes than --max-nodes": ([good, "--max-nodes", "3"],
                                        ["more than the limit of 3", "--max-nodes"]),
        "dims whose size overflows 64 bits": (
            [free_dims, "--input-shape", "input:999999999999x3x999999999999x8"],
            ["overflows 64 bits"]),
        "a model of 2 GiB or more": ([big], ["past protobuf's 2 GiB limit",
                                            "save_as_external_data=True"]),
    }
    for label, (argv, needles) in cases.items():
        plan = os.path.join(tmp, "limit.iosplan")
        result = run([args.iosc] + argv + ["-o", plan])
        tally.check(f"{label}: exit status 2", result.returncode == 2,
                    f"got {result.returncode}: {result.stderr}")
        for needle in needles:
            tally.check(f"{label}: says {needle!r}", needle in result.stderr, result.stderr)
        tally.check(f"{label}: no plan", not os.path.exists(plan))
    for flag in ("-o", "--emit-onnx", "--dump-blocks"):
        result = run([args.iosc, copy, flag, os.path.join(tmp, ".", "model_copy.onnx")])
        tally.check(f"{flag} naming the model itself: exit status 2 and says so",
                    result.returncode == 2 and "names the input" in result.stderr, result.stderr)
        with open(copy, "rb") as f:
            tally.check(f"{flag} naming the model itself: the model is untouched",
                        f.read() == original)


def main():
    args = parse_args()
    tally = Tally()
    bad_dir = os.path.join(args.source_dir, "testdata", "bad")
    with tempfile.TemporaryDirectory() as tmp:
        dump = os.path.join(tmp, "blocks.json")
        emitted = os.path.join(tmp, "out.onnx")
        with open(emitted, "w") as f:
            f.write("precious")
        for name, needles in EXPECTED.items():
            path = os.path.join(bad_dir, name)
            result = run([args.iosc, path, "--dump-blocks", dump, "--emit-onnx", emitted])
            tally.check(f"{name}: exit status 2", result.returncode == 2,
                        f"got {result.returncode}: {result.stderr}")
            tally.check(f"{name}: names the file", path in result.stderr, result.stderr)
            for needle in needles:
                tally.check(f"{name}: says {needle!r}", needle in result.stderr, result.stderr)
            tally.check(f"{name}: no partial output", not os.path.exists(dump))
            with open(emitted) as f:
                tally.check(f"{name}: existing output untouched", f.read() == "precious")
        good = os.path.join(args.source_dir, "testdata", "models", "residual_blocks_opset17.onnx")
        result = run([args.iosc, good, "--dump-blocks", os.path.join(tmp, "no", "such", "dir.json")])
        tally.check("unwritable output: exit status 2", result.returncode == 2, result.stderr)
        tally.check("unwritable output: says why", "cannot write" in result.stderr, result.stderr)
        result = run([args.iosc, good, "--batch", "0"])
        tally.check("--batch 0 is refused with status 2", result.returncode == 2, result.stderr)
        check_external_data(tally, args, tmp)
        check_input_shapes(tally, args, tmp)
        check_limits(tally, args, tmp)
    tally.finish()


if __name__ == "__main__":
    main()

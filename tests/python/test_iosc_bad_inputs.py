"""Every bad input in testdata/bad gets a clear message, exit status 2, no crash, and no output
file; an existing output file survives a failed run untouched."""
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
    "unknown_dim.onnx": ["input 'input'", "dimension 2 ('H') is unknown"],
    "opset_too_new.onnx": ["opset 22", "7..21"],
    "opset_too_old.onnx": ["opset 6", "7..21"],
    "bad_conv_channels.onnx": ["node 'conv' (Conv, opset 13)", "channels"],
    "wrong_initializer_size.onnx": ["initializer 'conv_weight'", "expected 864"],
}


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
    tally.finish()


if __name__ == "__main__":
    main()

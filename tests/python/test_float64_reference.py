"""The float64 oracle (iosc --reference-outputs, scripts/ort_reference.py --float64): its outputs
are float64, an ios CPU plan and onnxruntime's float32 run are both measured against it, and
ios's error stays within a small multiple of onnxruntime's (both are float32 rounding of the
same computation); iosrun --check passes against it with the default element-wise rule. The
onnxruntime engine refuses a CNN it has no float64 Conv for, pointing at --engine ios."""
import os
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

from ios_test_util import Tally, parse_args, run


def outputs(folder):
    found, i = [], 0
    while os.path.exists(os.path.join(folder, f"output_{i}.pb")):
        found.append(numpy_helper.to_array(onnx.load_tensor(
            os.path.join(folder, f"output_{i}.pb"))))
        i += 1
    return found


def max_error(got, want):
    return max(float(np.max(np.abs(g.astype(np.float64) - w.astype(np.float64))))
               for g, w in zip(got, want))


def check_model(tally, args, label, model, tmp, shape_flags=()):
    script = os.path.join(args.source_dir, "scripts", "ort_reference.py")
    f32 = os.path.join(tmp, label + "_f32")
    f64 = os.path.join(tmp, label + "_f64")
    result = run([sys.executable, script, model, "--out", f32] + list(shape_flags))
    if not tally.check(f"{label}: onnxruntime float32 reference", result.returncode == 0,
                       result.stderr):
        return
    result = run([sys.executable, script, model, "--out", f64, "--float64", "--iosc", args.iosc]
                 + list(shape_flags))
    if not tally.check(f"{label}: ios float64 reference", result.returncode == 0, result.stderr):
        return
    oracle = outputs(f64)
    tally.check(f"{label}: the oracle is float64", oracle and all(o.dtype == np.float64
                                                                   for o in oracle),
                [o.dtype for o in oracle])
    same_inputs = all(
        np.array_equal(numpy_helper.to_array(onnx.load_tensor(os.path.join(f32, name))),
                       numpy_helper.to_array(onnx.load_tensor(os.path.join(f64, name))))
        for name in os.listdir(f32) if name.startswith("input_"))
    tally.check(f"{label}: both references ran on the same inputs", same_inputs)

    plan = os.path.join(tmp, label + ".iosplan")
    result = run([args.iosc, model, "-o", plan, "--schedule", "greedy"] + list(shape_flags))
    if not tally.check(f"{label}: iosc", result.returncode == 0, result.stderr):
        return
    saved = os.path.join(tmp, label + "_ios")
    os.makedirs(saved)
    result = run([args.iosrun, plan, "--load-inputs", f64, "--save-outputs", saved])
    if not tally.check(f"{label}: iosrun", result.returncode == 0, result.stderr):
        return
    ort_error = max_error(outputs(f32), oracle)
    ios_error = max_error(outputs(saved), oracle)
    print(f"{label}: max abs error against float64: onnxruntime {ort_error:.3g}, "
          f"ios {ios_error:.3g} ({ios_error / max(ort_error, 1e-30):.2f}x)")
    tally.check(f"{label}: ios's error is float32 rounding, within 4x onnxruntime's",
                ios_error <= 4 * ort_error + 1e-7, f"ios {ios_error}, onnxruntime {ort_error}")
    result = run([args.iosrun, plan, "--check", f64])
    tally.check(f"{label}: iosrun --check against the float64 oracle passes",
                result.returncode == 0, result.stdout[-1500:])


def main():
    args = parse_args()
    tally = Tally()
    with tempfile.TemporaryDirectory() as tmp:
        residual = os.path.join(args.source_dir, "testdata", "models",
                                "residual_blocks_opset17.onnx")
        check_model(tally, args, "residual", residual, tmp)
        result = run([sys.executable, os.path.join(args.source_dir, "scripts",
                                                   "generate_models.py"),
                      "--out", tmp, "--models", "detection_fcn"])
        if tally.check("detection_fcn generated", result.returncode == 0, result.stderr):
            check_model(tally, args, "detection", os.path.join(tmp, "detection_fcn.onnx"), tmp,
                        ["--input-shape", "input:1x3x64x96"])
        result = run([sys.executable, os.path.join(args.source_dir, "scripts",
                                                   "ort_reference.py"),
                      residual, "--out", os.path.join(tmp, "ort64"), "--float64", "--engine",
                      "onnxruntime"])
        tally.check("onnxruntime float64 of a CNN: refused, pointing at --engine ios",
                    result.returncode != 0 and "--engine ios" in result.stderr, result.stderr)
    tally.finish()


if __name__ == "__main__":
    main()

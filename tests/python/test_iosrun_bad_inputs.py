"""iosrun refuses bad plans and bad input files with a clear message and exit status 2, and
never crashes or leaves partial outputs."""
import hashlib
import os
import tempfile

import numpy as np
from onnx import numpy_helper

from ios_test_util import Tally, parse_args, run

MODEL = "residual_blocks_opset17.onnx"


def write_tensor(path, array):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array).SerializeToString())


def expect_error(tally, name, result, *needles):
    tally.check(f"{name}: exit status 2", result.returncode == 2,
                f"got {result.returncode}: {result.stdout} {result.stderr}")
    for needle in needles:
        tally.check(f"{name}: says {needle!r}", needle in result.stderr, result.stderr)


def main():
    args = parse_args()
    tally = Tally()
    model = os.path.join(args.source_dir, "testdata", "models", MODEL)
    with tempfile.TemporaryDirectory() as tmp:
        plan = os.path.join(tmp, "model.iosplan")
        result = run([args.iosc, model, "-o", plan])
        if not tally.check("iosc writes a plan", result.returncode == 0, result.stderr):
            tally.finish()
        data = open(plan, "rb").read()
        # The container (plan/plan_io.h): magic, version, reserved, body size, then the body,
        # a plan::Plan message that starts with its format major (field 1).
        tally.check("plan starts with the container's magic", data[:8] == b"\0IOSPLAN",
                    data[:8].hex())
        tally.check("its body starts with format major 7", data[56:58] == b"\x08\x07",
                    data[56:60].hex())
        body_size = int.from_bytes(data[16:24], "little")

        def with_body(edited):
            """The plan with an edited body of the same length, its digest made to match."""
            assert len(edited) == body_size
            return data[:24] + hashlib.sha256(edited).digest() + edited + data[56 + body_size:]

        body = data[56:56 + body_size]

        def variant(name, contents):
            path = os.path.join(tmp, name)
            with open(path, "wb") as f:
                f.write(contents)
            return path

        for cut in (len(data) // 2, 30, 12):
            expect_error(tally, f"plan truncated to {cut} bytes",
                         run([args.iosrun, variant("cut.iosplan", data[:cut])]),
                         "truncated or corrupted")
        expect_error(tally, "corrupted plan",
                     run([args.iosrun, variant("junk.iosplan", os.urandom(4096))]), "not an ios plan")
        expect_error(tally, "newer plan format",
                     run([args.iosrun, variant("v8.iosplan", with_body(b"\x08\x08" + body[2:]))]),
                     "plan format 8.", "to 7.x")  # 8.<this build's minor>
        for label, position in (("its body", 56 + body_size // 2), ("a weight", len(data) - 9)):
            flipped = bytearray(data)
            flipped[position] ^= 0x40
            expect_error(tally, f"a flipped byte in {label}",
                         run([args.iosrun, variant("flipped.iosplan", bytes(flipped))]),
                         "plan is corrupted")
        kind = b"\x0a\x03cpu"  # DeviceFingerprint.kind = "cpu", field 1, length 3
        tally.check("device kind is in the plan once", body.count(kind) == 1)
        other = variant("sim.iosplan", with_body(body.replace(kind, b"\x0a\x03sim")))
        expect_error(tally, "plan for another device kind", run([args.iosrun, other, "--bench"]),
                     "analytic model", "--force")
        result = run([args.iosrun, other, "--force"])
        tally.check("--force overrides the device check", result.returncode == 0, result.stderr)

        inputs = os.path.join(tmp, "inputs")
        os.makedirs(inputs)
        write_tensor(os.path.join(inputs, "input_0.pb"), np.zeros((1, 3, 16, 16), np.float32))
        expect_error(tally, "input of the wrong shape",
                     run([args.iosrun, plan, "--load-inputs", inputs]), "input 0", "float32[1,3,32,32]")
        write_tensor(os.path.join(inputs, "input_0.pb"), np.zeros((1, 3, 32, 32), np.int64))
        expect_error(tally, "input of the wrong dtype",
                     run([args.iosrun, plan, "--load-inputs", inputs]), "int64")
        write_tensor(os.path.join(inputs, "input_0.pb"), np.zeros((1, 3, 32, 32), np.float32))
        write_tensor(os.path.join(inputs, "input_1.pb"), np.zeros((1, 3, 32, 32), np.float32))
        expect_error(tally, "too many inputs", run([args.iosrun, plan, "--load-inputs", inputs]),
                     "1 input(s), got 2")
        empty = os.path.join(tmp, "empty")
        os.makedirs(empty)
        expect_error(tally, "no input files", run([args.iosrun, plan, "--load-inputs", empty]),
                     "input_0.pb")
        made = os.path.join(tmp, "no", "such")
        result = run([args.iosrun, plan, "--save-outputs", made])
        tally.check("--save-outputs creates a missing folder and writes into it",
                    result.returncode == 0 and os.path.exists(os.path.join(made, "output_0.pb")),
                    result.stdout + result.stderr)
        a_file = os.path.join(tmp, "a_file")
        with open(a_file, "w") as f:
            f.write("keep")
        expect_error(tally, "--save-outputs under a file (refused before the run)",
                     run([args.iosrun, plan, "--save-outputs", os.path.join(a_file, "out")]),
                     "cannot create the --save-outputs folder")
        tally.check("... and the file is untouched", open(a_file).read() == "keep")
        big_plan = os.path.join(tmp, "batch64.iosplan")
        run([args.iosc, model, "--batch", "64", "-o", big_plan])
        result = run([args.iosrun, big_plan, "--memory-limit-mb", "1"])
        tally.check("a plan over --memory-limit-mb: exit 2 naming the limit and the flag",
                    result.returncode == 2 and "more than the 1.0 MiB memory limit allows"
                    in result.stderr and "--memory-limit-mb" in result.stderr, result.stderr)
        check_ref = os.path.join(tmp, "check_ref")
        saved = run([args.iosrun, plan, "--save-outputs", check_ref])
        tally.check("--save-outputs writes a reference", saved.returncode == 0, saved.stderr)
        reference = open(os.path.join(check_ref, "output_0.pb"), "rb").read()
        result = run([args.iosrun, plan, "--check", check_ref, "--save-outputs", check_ref])
        tally.check("--save-outputs into the --check folder is refused (exit 2)",
                    result.returncode == 2 and "names the input" in result.stderr, result.stderr)
        tally.check("... and the expected outputs are untouched",
                    open(os.path.join(check_ref, "output_0.pb"), "rb").read() == reference)
        result = run([args.iosrun, plan, "--info-json", plan])
        tally.check("--info-json naming the plan itself is refused (exit 2)",
                    result.returncode == 2 and open(plan, "rb").read() == data, result.stderr)
        expect_error(tally, "no CUDA device", run([args.iosrun, plan, "--device", "0"]),
                     "no CUDA device")
        expect_error(tally, "iosc: no CUDA device", run([args.iosc, model, "--device", "0", "-o", plan]),
                     "no CUDA device")
        tally.check("failed iosc left the plan intact", open(plan, "rb").read() == data)
        info_json = os.path.join(tmp, "info.json")
        result = run([args.iosrun, plan, "--info", "--info-json", info_json])
        tally.check("--info prints a summary", result.returncode == 0 and "schedule:" in result.stdout,
                    result.stdout + result.stderr)
        tally.check("--info-json writes JSON", os.path.exists(info_json) and '"schedule"' in open(info_json).read())
    tally.finish()


if __name__ == "__main__":
    main()

"""Outputs are written whole or not at all. Under injected failures, an existing output file keeps
its old bytes and no temporary file is left beside it:
* a full disk, simulated with a file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored so that the write
  fails with EFBIG as it would with ENOSPC), for iosc -o, --emit-onnx, --dump-blocks and iosrun
  --save-outputs: exit 2 with a message naming the file;
* a kill (SIGKILL) at spread times during iosc -o: the plan path holds the old bytes or a complete
  plan that iosrun loads, never a partial one."""
import os
import resource
import signal
import subprocess
import tempfile
import time

from ios_test_util import Tally, ensure_models, parse_args, run

MODEL = "residual_blocks_opset17.onnx"


def limited(limit_bytes):
    def setup():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))
    return setup


def leftovers(folder, name):
    return [f for f in os.listdir(folder) if f.startswith(name) and f != name]


def main():
    args = parse_args()
    tally = Tally()
    model = os.path.join(args.source_dir, "testdata", "models", MODEL)
    with tempfile.TemporaryDirectory() as tmp:
        for flag, name in (("-o", "out.iosplan"), ("--emit-onnx", "out.onnx"),
                           ("--dump-blocks", "blocks.json")):
            target = os.path.join(tmp, name)
            with open(target, "w") as f:
                f.write("precious")
            # 2 KB: less than each output (the block dump of this model is 3.9 KB).
            result = subprocess.run([args.iosc, model, flag, target], capture_output=True,
                                    text=True, preexec_fn=limited(2048))
            tally.check(f"{flag} on a full disk: exit 2 naming the file",
                        result.returncode == 2 and target in result.stderr,
                        f"{result.returncode}: {result.stderr}")
            tally.check(f"{flag} on a full disk: the old file is untouched",
                        open(target).read() == "precious")
            tally.check(f"{flag} on a full disk: no temporary file left",
                        not leftovers(tmp, name), str(leftovers(tmp, name)))

        # SqueezeNet's output at batch 8 is 32 KB; 8 KB lets the OpenMP runtime's own small
        # files through (clang's libomp registers itself in /dev/shm).
        bigger = ensure_models(args, ["squeezenet"])["squeezenet"]
        plan = os.path.join(tmp, "good.iosplan")
        made = run([args.iosc, bigger, "--device", "sim:V100", "--batch", "8", "-o", plan])
        tally.check("a plan to run", made.returncode == 0, made.stderr)
        outputs = os.path.join(tmp, "outputs")
        os.makedirs(outputs)
        saved = os.path.join(outputs, "output_0.pb")
        with open(saved, "w") as f:
            f.write("precious")
        result = subprocess.run([args.iosrun, plan, "--device", "cpu", "--force",
                                 "--save-outputs", outputs],
                                capture_output=True, text=True, preexec_fn=limited(8192))
        tally.check("--save-outputs on a full disk: exit 2 naming the file",
                    result.returncode == 2 and "output_0.pb" in result.stderr,
                    f"{result.returncode}: {result.stderr}")
        tally.check("--save-outputs on a full disk: the old file is untouched",
                    open(saved, "rb").read() == b"precious")

        # Kills at spread times: the plan path is either the old bytes or a whole plan.
        target = os.path.join(tmp, "killed.iosplan")
        start = time.time()
        full = run([args.iosc, bigger, "--device", "sim:V100", "-o", target])
        duration = time.time() - start
        tally.check("iosc compiles SqueezeNet", full.returncode == 0, full.stderr)
        whole, old = 0, 0
        for i in range(12):
            with open(target, "w") as f:
                f.write("precious")
            process = subprocess.Popen([args.iosc, bigger, "--device", "sim:V100", "-o", target],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(duration * (0.3 + 0.7 * i / 11))
            process.send_signal(signal.SIGKILL)
            process.wait()
            if open(target, "rb").read() == b"precious":
                old += 1
            else:
                whole += run([args.iosrun, target, "--info"]).returncode == 0
        tally.check("killed iosc: the plan path always holds the old bytes or a loadable plan",
                    old + whole == 12, f"{old} old, {whole} whole plans of 12")
        print(f"kills: {old} left the old file, {whole} came after the plan was complete")
    tally.finish()


if __name__ == "__main__":
    main()

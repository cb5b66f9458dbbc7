"""iosrun gives correct outputs whatever the user's OpenMP environment. oneDNN's primitives are
made for a team size and split their work by it, so a runtime that hands a parallel region fewer
threads than asked (OMP_DYNAMIC=true, OMP_THREAD_LIMIT below --threads) used to leave parts of
outputs uncomputed, silently. Inception V3's IOS plan (analytic V100 model, run on the CPU) is
checked against onnxruntime at --threads 4 under each environment."""
import os
import sys
import tempfile

from ios_test_util import Tally, ensure_models, parse_args, run

ENVIRONMENTS = {
    "default": {},
    "OMP_DYNAMIC=true": {"OMP_DYNAMIC": "true"},
    "OMP_THREAD_LIMIT=1": {"OMP_THREAD_LIMIT": "1"},
    "OMP_THREAD_LIMIT=2": {"OMP_THREAD_LIMIT": "2"},
    "OMP_NUM_THREADS=1": {"OMP_NUM_THREADS": "1"},
}


def main():
    args = parse_args()
    tally = Tally()
    model = ensure_models(args, ["inception_v3"])["inception_v3"]
    with tempfile.TemporaryDirectory() as tmp:
        plan = os.path.join(tmp, "iv3.iosplan")
        compiled = run([args.iosc, model, "--device", "sim:V100", "-o", plan])
        tally.check("iosc", compiled.returncode == 0, compiled.stderr)
        ref = os.path.join(tmp, "ref")
        made = run([sys.executable, os.path.join(args.source_dir, "scripts", "ort_reference.py"),
                    model, "--out", ref])
        tally.check("onnxruntime reference", made.returncode == 0, made.stderr)
        for label, extra in ENVIRONMENTS.items():
            env = dict(os.environ, **extra)
            result = run([args.iosrun, plan, "--device", "cpu", "--force", "--threads", "4",
                          "--check", ref], env=env)
            tally.check(f"{label}: matches onnxruntime", result.returncode == 0,
                        result.stdout[-600:] + result.stderr[-300:])
    tally.finish()


if __name__ == "__main__":
    main()

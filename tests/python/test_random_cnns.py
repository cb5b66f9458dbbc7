"""Random CNN-like graphs (scripts/models/random_cnn.py) end to end against onnxruntime on the
CPU backend: the graphs ios has not seen, where its layouts (channels-last, channels-blocked-8),
fusions (activations, residual Adds, per-channel Mul/Add as BatchNormalization), in-place ops,
zero-copy views and concurrent stages meet in combinations no hand-written test lists.

For each seed (fixed, so that a failure reproduces; the repro command is printed): the graph at
batch 1 and 3 when its batch is symbolic (else at its own), compiled sequentially, with the IOS
search profiled on this CPU, and greedily with --layout row-major (the views' path) on 4
streams; iosrun --check must match onnxruntime at atol = rtol = 1e-4 on every output. Across
the run, some plans must store tensors channels-last (on CPUs with AVX2 or AVX-512, where the
layout pays) and fuse a residual Add into a conv, so that the sweep cannot pass by exercising
neither (checked on the fixed seeds).

    test_random_cnns.py ... [--seeds FIRST:LAST]   # a wider sweep by hand
"""
import os
import re
import sys
import tempfile

from ios_test_util import Tally, parse_args, run

SEEDS = range(0, 48)
SANITIZED_SEEDS = range(0, 6)
# The greedy plans' 4 streams put up to 4 groups per stage on CI's 2 cores.
SCHEDULES = [("sequential", ["--max-streams", "2"]), ("ios", ["--max-streams", "2"]),
             ("greedy", ["--layout", "row-major", "--max-streams", "4"])]
SANITIZED_SCHEDULES = SCHEDULES[:2]


def cpu_has_avx2():
    try:
        with open("/proc/cpuinfo") as f:
            return " avx2" in f.read()
    except OSError:
        return False


def main():
    args = parse_args(lambda parser: parser.add_argument("--seeds", help="FIRST:LAST, inclusive"))
    sys.path.insert(0, os.path.join(args.source_dir, "scripts", "models"))
    import onnx
    import random_cnn

    seeds = SANITIZED_SEEDS if args.sanitized else SEEDS
    if args.seeds:
        first, last = (int(s) for s in args.seeds.split(":"))
        seeds = range(first, last + 1)
    schedules = SANITIZED_SCHEDULES if args.sanitized else SCHEDULES
    reference_script = os.path.join(args.source_dir, "scripts", "ort_reference.py")
    tally = Tally()
    channels_last_plans = 0
    residual_fusions = 0
    with tempfile.TemporaryDirectory() as tmp:
        for seed in seeds:
            model_path = os.path.join(tmp, f"random_{seed}.onnx")
            model, _ = random_cnn.generate(seed)
            onnx.save(model, model_path)
            batch_dim = model.graph.input[0].type.tensor_type.shape.dim[0]
            batches = ["1", "3"] if batch_dim.dim_param else [str(batch_dim.dim_value)]
            repro = (f"python3 scripts/models/random_cnn.py {seed} random_{seed}.onnx")
            for batch in batches:
                ref = os.path.join(tmp, f"ref_{seed}_b{batch}")
                made = run([sys.executable, reference_script, model_path, "--out", ref,
                            "--batch", batch])
                if not tally.check(f"seed {seed} b{batch}: onnxruntime reference",
                                   made.returncode == 0, made.stderr):
                    continue
                for schedule, flags in schedules:
                    label = f"seed {seed} b{batch} {schedule} {' '.join(flags)}".rstrip()
                    plan = os.path.join(tmp, f"p_{seed}_{batch}_{schedule}.iosplan")
                    command = ["--device", "cpu", "--batch", batch, "--schedule", schedule] + flags
                    compiled = run([args.iosc, model_path, "-o", plan] + command)
                    if not tally.check(f"{label}: iosc", compiled.returncode == 0,
                                       f"{compiled.stderr}\nrepro: {repro}; iosc "
                                       f"random_{seed}.onnx {' '.join(command)}"):
                        continue
                    log = compiled.stdout + compiled.stderr
                    layout = re.search(r"layout: (\d+) tensors channels-last", log)
                    channels_last_plans += bool(layout and int(layout.group(1)) > 0)
                    fused = re.search(r"cpu: (\d+) residual Adds", log)
                    residual_fusions += int(fused.group(1)) if fused else 0
                    checked = run([args.iosrun, plan, "--check", ref])
                    tally.check(f"{label}: matches onnxruntime", checked.returncode == 0,
                                f"{checked.stdout}{checked.stderr}\nrepro: {repro}; iosc "
                                f"random_{seed}.onnx {' '.join(command)}; ort_reference.py "
                                f"--batch {batch}; iosrun --check")
    print(f"{channels_last_plans} plans with channels-last tensors, {residual_fusions} residual "
          "Adds fused into convs")
    if not args.seeds:  # a hand-picked range may hold neither
        if cpu_has_avx2():
            tally.check("some plans store tensors channels-last", channels_last_plans > 0)
        tally.check("some residual Adds fused into convs", residual_fusions > 0)
    tally.finish()


if __name__ == "__main__":
    main()

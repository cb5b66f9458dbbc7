"""End to end against something no one here wrote: onnxruntime runs the original ONNX file,
iosc compiles it, and iosrun --check compares, for the four benchmark networks at batch 1 and 2
under the sequential and greedy schedules and under IOS and its merge-only ablation (analytic
costs; ios-merge plans are full of merged convs and their Splits), and the sequential schedule
with every tensor row-major (iosc --layout row-major; CPU plans otherwise keep conv outputs
channels-last where this CPU's oneDNN prefers it). In row-major plans at batch 2 the concats and
merged convs become strided views (plan/tensor_views.h): the test also checks that the plans
have them. In a sanitizer build, each network runs at one of the two batches (SANITIZED_BATCH)."""
import concurrent.futures
import os
import re
import sys
import tempfile

from ios_test_util import Tally, ensure_models, parse_args, run

NETWORKS = ["inception_v3", "squeezenet", "randwire", "nasnet"]
# (label, schedule, extra iosc flags, extra iosrun flags, row-major): an IOS plan on the
# analytic model is meant for a GPU (row-major), so iosrun runs it on this CPU with --force.
SCHEDULES = [("sequential", "sequential", [], [], False),
             ("sequential row-major", "sequential", ["--layout", "row-major"], [], True),
             ("greedy", "greedy", [], [], False),
             ("ios", "ios", ["--device", "sim:V100"], ["--force"], True),
             ("ios-merge", "ios-merge", ["--device", "sim:V100"], ["--force"], True)]
# Networks whose concats at batch 2 all have conv inputs somewhere (RandWire's have none).
STRIDED_VIEWS_EXPECTED = {"inception_v3", "squeezenet", "nasnet"}
BATCHES = ["1", "2"]
# In a sanitizer build (--sanitized) each network runs at one batch, which halves the job's
# longest CLI test: batch 2 where its strided views are (Inception V3, NasNet), batch 1 for the
# others, so both batches' paths are still checked for memory errors.
SANITIZED_BATCH = {"inception_v3": "2", "nasnet": "2", "squeezenet": "1", "randwire": "1"}
# fp32 throughout. oneDNN's convolutions sum in a different order than onnxruntime's MLAS, and
# the networks are 50-100 convolutions deep, so errors of a few ulps per layer accumulate:
# 1e-4 relative (plus 1e-5 absolute for values near zero) holds with a margin on all four.
ATOL, RTOL = "1e-5", "1e-4"


def check_network(args, model, name, batch, tmp):
    """One network at one batch: the reference, then every schedule's plan against it. Returns
    the checks as (label, passed, detail) and the lines to print, for the caller to tally."""
    checks, lines = [], []
    ref = os.path.join(tmp, f"{name}_b{batch}")
    result = run([sys.executable, os.path.join(args.source_dir, "scripts", "ort_reference.py"),
                  model, "--out", ref, "--batch", batch])
    checks.append((f"{name} b{batch}: onnxruntime reference", result.returncode == 0,
                   result.stderr))
    if result.returncode != 0:
        return checks, lines
    for kind, schedule, iosc_flags, iosrun_flags, row_major in SCHEDULES:
        plan = os.path.join(tmp, f"{name}_b{batch}.iosplan")
        label = f"{name} b{batch} {kind}"
        result = run([args.iosc, model, "--batch", batch, "--schedule", schedule, "-o", plan]
                     + iosc_flags)
        checks.append((f"{label}: iosc", result.returncode == 0, result.stderr))
        if result.returncode != 0:
            continue
        if row_major and batch != "1" and name in STRIDED_VIEWS_EXPECTED:
            info = run([args.iosrun, plan, "--info"]).stdout
            strided = re.search(r"\((\d+) strided;", info)
            checks.append((f"{label}: the plan has strided views",
                           strided is not None and int(strided.group(1)) > 0, info))
        result = run([args.iosrun, plan, "--check", ref, "--atol", ATOL, "--rtol", RTOL]
                     + iosrun_flags)
        checks.append((f"{label}: matches onnxruntime", result.returncode == 0,
                       result.stdout + result.stderr))
        lines.append("    " + (result.stdout.strip().splitlines()[0] if result.stdout else ""))
        os.remove(plan)
    return checks, lines


def main():
    args = parse_args()
    tally = Tally()
    models = ensure_models(args, NETWORKS)
    jobs = [(name, batch) for name in NETWORKS for batch in BATCHES
            if not args.sanitized or batch == SANITIZED_BATCH[name]]
    # The 40 compile-and-check runs are independent processes: two at a time halve the wall
    # time of the longest CLI test (most of it is single-threaded compilation and reference
    # evaluation), and the results are tallied in order.
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(check_network, args, models[name], name, batch, tmp)
                   for name, batch in jobs]
        for future in futures:
            checks, lines = future.result()
            for label, passed, detail in checks:
                tally.check(label, passed, detail)
            for line in lines:
                print(line)
    tally.finish()


if __name__ == "__main__":
    main()

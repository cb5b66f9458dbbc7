#!/usr/bin/env python3
"""Soak test of the library (not part of scripts/test.sh): a bundled network's plan run through
the public API (tests/soak/ios_soak.cc, built with the tests) for minutes, and judged.

    soak.py [--build-dir build] [--minutes 10] [--threads 8] [--device cpu|cuda:N]
            [--model inception_v3] [--schedule ios] [--sessions 50] [--asan-build-dir DIR]
            [--plan PLAN] [--json FILE]

1. run: one shared ios::Session, --threads threads calling Run for --minutes. The resident set
   size, sampled every 10 s, must stay flat after the first minute's warm-up (or the first tenth
   of a shorter run): its largest sample within 2% of its smallest ("growth" also reports the
   median of the last third of the samples over the first third's). It is judged once
   malloc_trim has returned glibc's free pages to the system ("trimmed_mb"): glibc keeps freed
   memory per thread arena, which moves the raw figure ("mb", "raw_rss_after_warmup", also
   reported) by steps of megabytes. No call may fail; every output must equal, bit for bit,
   what one thread alone got for the same input. p50 and p99 latency per minute (a call's
   latency includes its wait: the session runs one inference at a time).
2. open-close: --sessions sessions opened, run once and closed in a loop; the resident set
   after each close flat within 2% in the same sense after the first 10, outputs identical, no
   error.
3. With --asan-build-dir (a scripts/sanitize.sh build): the open-close loop again, in that build's
   ios_soak under AddressSanitizer's leak checker, which must report nothing.

The plan is compiled from the network (scripts/generate_models.py, into BUILD/models) with
BUILD's iosc for the device and --schedule: `--device cpu` profiles this CPU (on 2 cores the IOS
schedule of Inception V3 is sequential; `--schedule greedy` runs its groups on several streams);
`--device cuda:N` compiles and runs on that GPU. --plan runs a plan already made instead. Prints one JSON object with every
figure and "ok"; exit status 0 when every check held, 1 otherwise, 2 when it could not run.
"""
import argparse
import json
import os
import subprocess
import sys
import time

from ios_tools.files import write_atomically

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def fail(message):
    print(f"soak.py: {message}", file=sys.stderr)
    sys.exit(2)


def soak(binary, args, env=None):
    """Runs ios_soak and returns (exit status, its JSON or None, stderr)."""
    result = subprocess.run([binary] + [str(a) for a in args], capture_output=True, text=True,
                            env=env)
    try:
        report = json.loads(result.stdout)
    except json.JSONDecodeError:
        report = None
    return result.returncode, report, result.stderr


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--device", default="cpu", help="cpu, or cuda:N (default cpu)")
    parser.add_argument("--model", default="inception_v3",
                        help="a network of scripts/generate_models.py (default inception_v3)")
    parser.add_argument("--schedule", default="ios", help="iosc --schedule (default ios)")
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--asan-build-dir", default=None,
                        help="also run the open-close loop under this ASan build's leak checker")
    parser.add_argument("--plan", default=None, help="run this plan instead of compiling one")
    parser.add_argument("--json", default=None, help="also write the report to this file")
    args = parser.parse_args()
    if args.minutes <= 0 or args.threads < 1 or args.sessions < 1:
        fail("--minutes, --threads and --sessions must be positive")
    if args.device != "cpu" and not args.device.startswith("cuda"):
        fail(f"--device is cpu or cuda:N, not '{args.device}'")
    build = os.path.abspath(args.build_dir)
    binary = os.path.join(build, "tests", "ios_soak")
    if not os.access(binary, os.X_OK):
        fail(f"no {binary}: build the tests (scripts/build.sh -DIOS_BUILD_TESTS=ON)")

    plan = args.plan
    compile_seconds = 0.0
    if plan is None:
        models = os.path.join(build, "models")
        generated = subprocess.run([sys.executable, os.path.join(HERE, "generate_models.py"),
                                    "--out", models, "--models", args.model],
                                   capture_output=True, text=True)
        if generated.returncode != 0:
            fail(f"generating {args.model} failed:\n{generated.stderr}")
        os.makedirs(os.path.join(build, "soak"), exist_ok=True)
        device_tag = args.device.replace(":", "")
        plan = os.path.join(build, "soak", f"{args.model}-{device_tag}-{args.schedule}.iosplan")
        compile_device = "cpu" if args.device == "cpu" else args.device
        started = time.monotonic()
        compiled = subprocess.run([os.path.join(build, "tools", "iosc"),
                                   os.path.join(models, args.model + ".onnx"), "-o", plan,
                                   "--device", compile_device, "--schedule", args.schedule,
                                   "--progress", "off"],
                                  capture_output=True, text=True)
        compile_seconds = time.monotonic() - started
        if compiled.returncode != 0:
            fail(f"iosc failed:\n{compiled.stdout}{compiled.stderr}")

    seconds = args.minutes * 60
    # A minute of warm-up, or the first tenth of a shorter run.
    warmup = min(60.0, seconds / 10)
    report = {"model": args.model, "plan": plan, "device": args.device,
              "schedule": args.schedule if args.plan is None else None,
              "compile_seconds": round(compile_seconds, 1)}
    status, run, stderr = soak(binary, ["--plan", plan, "--device", args.device, "--mode", "run",
                                        "--threads", args.threads, "--seconds", seconds,
                                        "--warmup-seconds", warmup])
    if run is None:
        fail(f"ios_soak --mode run gave no report (exit {status}):\n{stderr}")
    report["run"] = run
    status, open_close, stderr = soak(binary, ["--plan", plan, "--device", args.device,
                                               "--mode", "open-close", "--sessions",
                                               args.sessions])
    if open_close is None:
        fail(f"ios_soak --mode open-close gave no report (exit {status}):\n{stderr}")
    report["open_close"] = open_close
    ok = run["ok"] and open_close["ok"]

    if args.asan_build_dir:
        asan_binary = os.path.join(os.path.abspath(args.asan_build_dir), "tests", "ios_soak")
        if not os.access(asan_binary, os.X_OK):
            fail(f"no {asan_binary}: build it with scripts/sanitize.sh")
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:exitcode=23",
                   UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
        started = time.monotonic()
        status, asan, stderr = soak(asan_binary, ["--plan", plan, "--device", args.device,
                                                  "--mode", "open-close", "--sessions",
                                                  args.sessions], env=env)
        leaks = [line for line in stderr.splitlines()
                 if "LeakSanitizer" in line or "SUMMARY: AddressSanitizer" in line
                 or "runtime error" in line]
        # Under ASan the resident set grows with the allocator's quarantine: only the leak
        # checker, the errors and the outputs are judged there.
        clean = (status == 0 or (status == 1 and asan is not None and asan["errors"] == 0 and
                                 asan["mismatches"] == 0)) and not leaks
        report["open_close_asan"] = {
            "exit_status": status, "seconds": round(time.monotonic() - started, 1),
            "errors": asan["errors"] if asan else None,
            "mismatches": asan["mismatches"] if asan else None,
            "sanitizer_reports": leaks[:20], "clean": clean}
        ok = ok and clean

    report["ok"] = bool(ok)
    text = json.dumps(report, indent=1)
    print(text)
    if args.json:
        write_atomically(args.json, text + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

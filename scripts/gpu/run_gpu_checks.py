#!/usr/bin/env python3
"""Runs ios's GPU checks from the unpacked GPU bundle (scripts/gpu_bundle.sh) and writes a report.

Start it through run_gpu_checks.sh, which finds the CUDA libraries and passes their path in
IOS_GPU_LD_LIBRARY_PATH (used for ios's binaries only, never for this Python):

    bash ios-gpu-bundle/run_gpu_checks.sh OUTDIR [--budget-s 540] [--models a,b] [--batches 1,32]
                                                 [--skip-tests] [--rounds 3] [--duration 1]

Steps, in order of value, each timed:
  1. the GPU: nvidia-smi, then iosc compiling a small model for the device (no GPU: exit 2);
  2. tests: ios_gpu_tests, ios_cuda_tests (gtest), test_iosrun_cuda.py, test_iosc_cuda.py;
  3. per network at batch 1 (inception_v3 first): sequential, greedy and IOS plans (TF32, the
     default) and a sequential plan with --tf32 off; each checked with iosrun --check against
     onnxruntime (TF32 plans at a TF32-sized tolerance, the --tf32 off plan at iosrun's default);
  4. iosrun --bench of the three plans, interleaved and rotated per round (scripts/bench_gpu.py),
     with the CUDA Graph and with --no-cuda-graph, at batch 1 and then batch 32; at batch 1 also
     a sequential plan compiled with --conv-algorithms measure, checked, and benched in
     alternation with the default sequential plan (cuDNN's heuristic algorithms), unless
     --skip-conv-ab;
  5. OUTDIR/report.md and OUTDIR/report.json (rewritten after every sub-step), OUTDIR/log.txt
     (every command line and the tail of its output) and the gtest JSON files.
Plans, models, references and timing caches go to --work-dir, outside OUTDIR (a second run on the
same machine reuses the models and the IOS timing caches).

Everything runs within --budget-s, counted from the start of run_gpu_checks.sh: work that does not
fit is reported as "skipped: out of time". Exit status: 0 when everything that ran passed, 1 when
something failed, 2 when there is no GPU or ios's libraries cannot be resolved.
"""
import argparse
import datetime
import hashlib
import json
import math
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
# In the bundle this file sits at the top, beside scripts/; in the source tree in scripts/gpu/.
SCRIPTS = os.path.join(HERE, "scripts")
if not os.path.exists(os.path.join(SCRIPTS, "bench_gpu.py")):
    SCRIPTS = os.path.dirname(HERE)
sys.path.insert(0, SCRIPTS)
import bench_gpu  # noqa: E402
from bench_gpu import SCHEDULES, BenchError  # noqa: E402

NETWORKS = ("inception_v3", "squeezenet", "randwire", "nasnet")
EXIT_OK, EXIT_FAILED, EXIT_NO_GPU = 0, 1, 2
TAIL_LINES = 60          # lines of each command's output kept in log.txt
ERROR_LINES = 12         # lines of a failure kept in the report
REPORT_RESERVE_S = 8.0   # kept back from the budget to write the report
PYTHON_TESTS = ("test_iosrun_cuda.py", "test_iosc_cuda.py")
GTESTS = ("ios_gpu_tests", "ios_cuda_tests")


class OutOfTime(Exception):
    """Not enough of the budget is left to start this."""


class CommandTimeout(Exception):
    def __init__(self, cmd, limit_s, by_budget, tail):
        super().__init__(f"{os.path.basename(str(cmd[0]))} stopped after {limit_s:.0f} s")
        self.limit_s = limit_s
        self.by_budget = by_budget
        self.tail = tail


class Failed(Exception):
    """A sub-step failed; the message says why."""


def now_iso():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def tail(text, lines=TAIL_LINES, width=400):
    kept = (text or "").rstrip("\n").splitlines()[-lines:]
    return "\n".join(line if len(line) <= width else line[:width] + " ..." for line in kept)


def first_lines(text, lines=ERROR_LINES, width=300):
    kept = [line for line in (text or "").strip("\n").splitlines()]
    out = [line if len(line) <= width else line[:width] + " ..." for line in kept[:lines]]
    if len(kept) > lines:
        out.append(f"... ({len(kept) - lines} more lines)")
    return "\n".join(out)


def parse_gtest_json(path):
    """Counts (total, passed, failed, skipped, disabled) and the first failure of a gtest JSON."""
    with open(path) as f:
        data = json.load(f)
    counts = {"total": 0, "passed": 0, "failed": 0, "skipped": 0, "disabled": 0}
    first = None
    for suite in data.get("testsuites", []):
        for test in suite.get("testsuite", []):
            name = f"{suite.get('name', '?')}.{test.get('name', '?')}"
            failures = test.get("failures") or []
            if test.get("status") == "NOTRUN":
                counts["disabled"] += 1
                continue
            counts["total"] += 1
            if failures:
                counts["failed"] += 1
                if first is None:
                    first = {"name": name, "message": first_lines(
                        "\n".join(f.get("failure", "") for f in failures))}
            elif test.get("result") == "SKIPPED":
                counts["skipped"] += 1
            else:
                counts["passed"] += 1
    return counts, first


def last_started_test(output):
    """The gtest test that was running when the binary died (a RUN line without its result)."""
    running = None
    for line in (output or "").splitlines():
        m = re.match(r"\[ RUN      \] (\S+)", line)
        if m:
            running = m.group(1)
        elif running and re.match(r"\[ +(OK|FAILED|SKIPPED) +\] " + re.escape(running), line):
            running = None
    return running


CHECK_LINE = re.compile(r"^output (\d+) (\S+): (ok|MISMATCH), max abs error ([^;]+);", re.M)


def parse_check(stdout):
    """iosrun --check's output: [max abs error per output], passed (None if it says nothing)."""
    errors = []
    for m in CHECK_LINE.finditer(stdout or ""):
        try:
            value = float(m.group(4))
            errors.append(value if math.isfinite(value) else m.group(4).strip())  # strict JSON
        except ValueError:
            errors.append(m.group(4).strip())
    verdict = re.search(r"^check: (PASSED|FAILED)", stdout or "", re.M)
    return errors, (verdict.group(1) == "PASSED") if verdict else None


# The CUDA profiler's counters, in its words (search_stats.proto's cost_counters).
PROFILER = re.compile(r"(\d+) stages measured .*?(\d+) launches, (\d+) samples")


def iosc_facts(stats):
    """What iosc --stats-json says of the IOS search (a dict of search_stats.proto): predicted
    latencies, search size, fallbacks and the profiler's counters."""
    info = {}
    if "sequential_latency_ms" in stats and stats.get("parts"):
        ios, greedy, seq = (stats["predicted_latency_ms"], stats["greedy_latency_ms"],
                            stats["sequential_latency_ms"])
        info["predicted_ms"] = {"source": stats.get("cost_source", ""), "ios": ios,
                                "greedy": greedy, "sequential": seq}
        if ios > 0:
            info["predicted_speedup_over_sequential"] = seq / ios
            info["predicted_speedup_over_greedy"] = greedy / ios
        parts = stats["parts"]
        info["search"] = {"parts": len(parts),
                          "states": sum(int(p["states"]) for p in parts),
                          "transitions": sum(int(p["transitions"]) for p in parts),
                          "stages_measured": int(stats["distinct_stages_measured"]),
                          "seconds": stats["search_seconds"]}
        fallbacks = sum(1 for p in parts if p.get("fallback"))
        if fallbacks:
            info["parts_scheduled_greedily"] = fallbacks
    m = PROFILER.search(stats.get("cost_counters", ""))
    if m:
        info["profiler"] = {"stages": int(m.group(1)), "launches": int(m.group(2)),
                            "samples": int(m.group(3))}
    return info


def read_stats(path):
    """iosc --stats-json's file as a dict; {} when iosc wrote none."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def greedy_parts_note(info):
    """' (N of M parts scheduled greedily)' for a plan whose IOS search fell back in some parts
    (its time budget or transition guard), else '': such a plan's IOS and greedy figures are
    those of the same stages, so greedy/IOS near 1 says nothing about the search."""
    greedy = info.get("parts_scheduled_greedily", 0)
    if not greedy:
        return ""
    parts = info.get("search", {}).get("parts")
    return f" ({greedy} of {parts} parts scheduled greedily)" if parts else \
        f" ({greedy} parts scheduled greedily)"


def read_key_values(path):
    values = {}
    try:
        with open(path, errors="replace") as f:
            for line in f:
                key, sep, value = line.rstrip("\n").partition(": ")
                if sep and key.strip():
                    values[key.strip()] = value.strip()
    except OSError:
        pass
    return values


def parse_list(text, allowed=None, kind=int):
    items = [kind(x.strip()) for x in text.split(",") if x.strip()]
    if allowed is not None:
        unknown = [x for x in items if x not in allowed]
        if unknown:
            raise argparse.ArgumentTypeError(f"unknown: {','.join(map(str, unknown))}; "
                                             f"choose from {','.join(allowed)}")
    return items


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("outdir", help="where report.md, report.json and log.txt go")
    parser.add_argument("--work-dir", default=os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                                           "ios-gpu-work"),
                        help="plans, models, references, caches (default $TMPDIR/ios-gpu-work)")
    parser.add_argument("--budget-s", type=float, default=540,
                        help="total seconds, from the start of run_gpu_checks.sh (default 540)")
    parser.add_argument("--tests-budget-s", type=float, default=150,
                        help="most seconds for step 2, the tests (default 150)")
    parser.add_argument("--models", default=",".join(NETWORKS),
                        type=lambda s: parse_list(s, NETWORKS, str),
                        help="networks for steps 3 and 4, run in this order")
    parser.add_argument("--batches", default="1,32", type=parse_list,
                        help="batch sizes for step 4 (step 3 checks batch 1 when it is listed)")
    parser.add_argument("--skip-tests", action="store_true", help="skip step 2")
    parser.add_argument("--skip-conv-ab", action="store_true",
                        help="skip the batch-1 comparison of --conv-algorithms measure against "
                             "the default")
    parser.add_argument("--skip-checks", action="store_true",
                        help="skip the --check part of step 3 (plans are still compiled)")
    parser.add_argument("--rounds", type=int, default=3, help="bench rounds (default 3)")
    parser.add_argument("--duration", type=float, default=1.0,
                        help="seconds of timed runs per iosrun --bench (default 1)")
    parser.add_argument("--device", default="0", help="CUDA device ordinal (default 0)")
    parser.add_argument("--search-budget-s", type=float, default=-1,
                        help="iosc --search-budget for IOS plans (0: none; default: 120 s for "
                             "inception_v3 at batch 1, 60 s otherwise, at most 40%% of the "
                             "time left)")
    parser.add_argument("--tf32-atol", default="1e-2", help="--check atol for TF32 plans")
    parser.add_argument("--tf32-rtol", default="1e-2", help="--check rtol for TF32 plans")
    parser.add_argument("--atol", default="1e-4", help="--check atol for the --tf32 off plan")
    parser.add_argument("--rtol", default="1e-4", help="--check rtol for the --tf32 off plan")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if not args.device.isdigit():
        parser.error("--device must be a CUDA device ordinal such as 0")
    return args


class Runner:
    def __init__(self, args, bundle=HERE, environ=None):
        self.args = args
        self.bundle = bundle
        self.env = dict(os.environ if environ is None else environ)
        self.outdir = os.path.abspath(args.outdir)
        self.work = os.path.abspath(args.work_dir)
        os.makedirs(self.outdir, exist_ok=True)
        os.makedirs(self.work, exist_ok=True)
        # Time counts from the start of run_gpu_checks.sh (its library search comes first).
        start_epoch = self.env.get("IOS_GPU_START_EPOCH")
        spent = 0.0
        try:
            spent = min(60.0, max(0.0, time.time() - float(start_epoch))) if start_epoch else 0.0
        except ValueError:
            pass
        self.env_seconds = spent
        self.t0 = time.monotonic() - spent
        self.deadline = self.t0 + args.budget_s
        self.cap_until = None  # a step's own cap (monotonic), None when it has none
        self.cap_label = ""
        self.log = open(os.path.join(self.outdir, "log.txt"), "w", errors="replace")
        self.exit_code = None
        self.steps = []
        self.facts = {"bench": [], "checks": [], "plans": {}, "conv_ab": []}
        # The library path for ios's binaries (never for Python), from run_gpu_checks.sh.
        self.ios_path = self.env.get("IOS_GPU_LD_LIBRARY_PATH")
        if not self.ios_path:
            self.ios_path = ":".join(p for p in (os.path.join(bundle, "lib", "gcc"),
                                                 os.path.join(bundle, "lib"),
                                                 self.env.get("LD_LIBRARY_PATH", "")) if p)
            self.logline("IOS_GPU_LD_LIBRARY_PATH not set (not started by run_gpu_checks.sh?): "
                         f"using {self.ios_path}")
        self.versions = read_key_values(self.env.get("IOS_GPU_ENV_FILE", ""))
        self.lib_error = self.env.get("IOS_GPU_LIB_ERROR", "").strip()
        self.build_info = ""
        try:
            with open(os.path.join(bundle, "BUILD_INFO.txt"), errors="replace") as f:
                self.build_info = f.read()
        except OSError:
            self.build_info = "(no BUILD_INFO.txt)"
        self.build_id = hashlib.sha1(self.build_info.encode()).hexdigest()[:12]
        self.bin = {name: os.path.join(bundle, "bin", name)
                    for name in ("iosc", "iosrun") + GTESTS}
        self.report = {
            "status": "running", "exit_code": None, "started": now_iso(), "finished": None,
            "duration_s": None, "budget_s": args.budget_s,
            "options": {k: v for k, v in vars(args).items()},
            "bundle": bundle, "work_dir": self.work, "versions": self.versions,
            "library_path_for_ios": self.ios_path, "steps": self.steps, "checks":
            self.facts["checks"], "bench": self.facts["bench"], "plans": self.facts["plans"],
            "conv_ab": self.facts["conv_ab"], "build_info": self.build_info,
        }

    # ---- time and commands -------------------------------------------------------------------
    def elapsed(self):
        return time.monotonic() - self.t0

    def left(self):
        """Seconds left for work (the report's reserve excluded), within any step cap."""
        now = time.monotonic()
        left = self.deadline - REPORT_RESERVE_S - now
        if self.cap_until is not None:
            left = min(left, self.cap_until - now)
        return left

    def budget_left(self):
        return self.deadline - REPORT_RESERVE_S - time.monotonic()

    def logline(self, text):
        self.log.write(text.rstrip("\n") + "\n")
        self.log.flush()

    def ios_env(self, extra=None):
        env = dict(self.env)
        env["LD_LIBRARY_PATH"] = self.ios_path
        env.update(extra or {})
        return env

    def exec(self, cmd, env=None, cwd=None, limit_s=None):
        """Runs cmd with a time limit that cannot overrun the budget (or the step's cap); logs the
        command line and the tail of its output; returns a CompletedProcess."""
        cmd = [str(c) for c in cmd]
        left, by_budget = self.budget_left(), True
        if self.cap_until is not None and self.cap_until - time.monotonic() < left:
            left, by_budget = self.cap_until - time.monotonic(), False
        if limit_s is not None and limit_s < left:
            left, by_budget = limit_s, False
        if left < 1:
            raise OutOfTime(f"no time left to start {os.path.basename(cmd[0])}")
        env = self.env if env is None else env
        marker = " [ios library path]" if env.get("LD_LIBRARY_PATH") == self.ios_path else ""
        self.logline(f"\n$ {shlex.join(cmd)}{marker}\n  (at {self.elapsed():.1f} s, limit "
                     f"{left:.0f} s)")
        start = time.monotonic()
        try:
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    stdin=subprocess.DEVNULL, env=env, cwd=cwd, text=True,
                                    errors="replace", start_new_session=True)
        except OSError as e:
            self.logline(f"  cannot start: {e}")
            raise Failed(f"cannot run {cmd[0]}: {e}")
        try:
            out, err = proc.communicate(timeout=left)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
            try:
                out, err = proc.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                out, err = "", ""
            text = tail((out or "") + (err or ""))
            self.logline(f"  KILLED after {time.monotonic() - start:.1f} s "
                         f"({'budget' if by_budget else 'time limit'})\n{text}")
            raise CommandTimeout(cmd, left, by_budget, text)
        except BaseException:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
            raise
        seconds = time.monotonic() - start
        self.logline(f"  exit status {proc.returncode} after {seconds:.1f} s")
        if out.strip():
            self.logline("  stdout (tail):\n" + tail(out))
        if err.strip():
            self.logline("  stderr (tail):\n" + tail(err))
        return subprocess.CompletedProcess(cmd, proc.returncode, out, err)

    def run_ios(self, cmd):
        """The `run` of bench_gpu's functions: one of ios's binaries, with its library path."""
        return self.exec(cmd, env=self.ios_env())

    def run_python(self, cmd):
        return self.exec(cmd, env=self.env)

    # ---- steps and sub-steps -----------------------------------------------------------------
    def step(self, number, name):
        step = {"step": number, "name": name, "status": "pending", "reason": "",
                "duration_s": 0.0, "substeps": []}
        self.steps.append(step)
        return step

    def substep(self, step, name, fn, min_s=3.0, skip=None):
        """Runs fn(sub) as a sub-step: times it, catches everything, writes the partial report.
        Returns fn's result, or None when it failed or was skipped."""
        sub = {"name": name, "status": "running", "reason": "", "duration_s": 0.0,
               "error": "", "details": {}}
        step["substeps"].append(sub)
        result = None
        start = time.monotonic()
        try:
            if skip:
                sub["status"], sub["reason"] = "skipped", skip
            elif self.left() < min_s:
                sub["status"] = "skipped"
                sub["reason"] = ("out of time" if self.budget_left() < min_s
                                 else f"out of time ({self.cap_label})")
            else:
                result = fn(sub)
                if sub["status"] == "running":
                    sub["status"] = "passed"
        except OutOfTime as e:
            sub["status"], sub["reason"] = "skipped", f"out of time ({e})"
        except CommandTimeout as e:
            if e.by_budget:
                sub["status"] = "skipped"
                sub["reason"] = f"out of time (stopped after {e.limit_s:.0f} s)"
            else:
                running = last_started_test(e.tail)
                sub["status"] = "failed"
                sub["error"] = (f"timed out after {e.limit_s:.0f} s"
                                f"{' (' + self.cap_label + ')' if self.cap_label else ''}"
                                f"{'; it was running ' + running if running else ''}\n"
                                + first_lines(e.tail[-3000:], 8))
            result = None
        except (Failed, BenchError) as e:
            sub["status"], sub["error"] = "failed", first_lines(str(e))
            result = None
        except KeyboardInterrupt as e:  # SIGTERM or SIGHUP too (main): record it, then stop
            sub["status"], sub["error"] = "failed", f"interrupted ({e or 'SIGINT'})"
            raise
        except Exception as e:  # noqa: BLE001: one sub-step's bug must not stop the others
            sub["status"] = "failed"
            sub["error"] = first_lines(f"{type(e).__name__}: {e}")
            self.logline(f"  exception in {name}:\n{traceback.format_exc()}")
            result = None
        finally:
            sub["duration_s"] = round(time.monotonic() - start, 2)
            step["duration_s"] = round(step["duration_s"] + sub["duration_s"], 2)
            self.announce(step, sub)
            self.write_report()
        return result if sub["status"] == "passed" else None

    def announce(self, step, sub):
        note = sub["reason"] or (headline(sub["error"]) if sub["error"] else "")
        line = (f"[{self.elapsed():6.1f} s] {sub['status'].upper():7} step {step['step']} "
                f"{sub['name']} ({sub['duration_s']:.1f} s){': ' + note if note else ''}")
        print(line, flush=True)
        self.logline("== " + line)

    def skip_step(self, step, reason):
        step["status"] = "skipped"
        step["reason"] = reason

    # ---- step 1: the GPU ---------------------------------------------------------------------
    def nvidia_smi(self, sub):
        if shutil.which("nvidia-smi", path=self.env.get("PATH")) is None:
            raise Failed("no GPU: nvidia-smi not found on PATH")
        result = self.exec(["nvidia-smi"], limit_s=60)
        if result.returncode != 0:
            raise Failed(f"no GPU: nvidia-smi failed (exit status {result.returncode}):\n"
                         + first_lines(result.stdout + result.stderr))
        query = self.exec(["nvidia-smi", "--query-gpu=name,driver_version,compute_cap",
                           "--format=csv,noheader"], limit_s=60)
        gpus = [line.strip() for line in query.stdout.splitlines() if line.strip()]
        if query.returncode != 0 or not gpus:
            raise Failed("no GPU: nvidia-smi lists no GPU\n" +
                         first_lines(query.stdout + query.stderr))
        sub["details"]["gpus"] = gpus
        m = re.search(r"CUDA Version:\s*([\d.]+)", result.stdout)
        if m:
            sub["details"]["driver_cuda_version"] = m.group(1)
        self.versions.setdefault("gpu (nvidia-smi)", "; ".join(gpus))
        return True

    def probe(self, sub):
        ok, no_device, message = bench_gpu.probe_device(self.bin["iosc"], self.args.device,
                                                        run=self.run_ios, tmp_dir=self.work)
        if ok:
            return True
        if no_device:
            sub["details"]["no_device"] = True
            raise Failed(f"no GPU: iosc cannot use CUDA device {self.args.device}: {message}")
        raise Failed(f"iosc cannot compile for device {self.args.device}: {message}")

    # ---- step 2: tests -----------------------------------------------------------------------
    def gtest(self, sub, name, models_ready, limit_s=None):
        json_path = os.path.join(self.outdir, f"gtest_{name}.json")
        if os.path.exists(json_path):
            os.remove(json_path)
        env = self.ios_env({"IOS_TEST_SOURCE_DIR": self.bundle, "IOS_TEST_BINARY_DIR": self.work})
        result = self.exec([self.bin[name], f"--gtest_output=json:{json_path}"], env=env,
                           limit_s=limit_s)
        details = sub["details"]
        details["exit_status"] = result.returncode
        if name == "ios_cuda_tests" and not models_ready:
            details["note"] = "the benchmark networks could not be generated"
        if not os.path.exists(json_path):
            running = last_started_test(result.stdout)
            raise Failed(f"{name} wrote no JSON ({exit_text(result.returncode)})" +
                         (f"; it died in {running}" if running else "") + "\n" +
                         first_lines(tail(result.stdout + result.stderr, 10)))
        counts, first = parse_gtest_json(json_path)
        details.update(counts)
        if first:
            details["first_failure"] = first
        if result.returncode != 0 or counts["failed"]:
            raise Failed(f"{counts['failed']} of {counts['total']} failed "
                         f"({exit_text(result.returncode)})" +
                         (f"; first: {first['name']}\n{first['message']}" if first else ""))
        if name == "ios_gpu_tests" and counts["total"] and counts["skipped"] == counts["total"]:
            raise Failed(f"all {counts['total']} tests skipped: they saw no GPU, though "
                         f"step 1 found one")

    def tool_wrappers(self):
        """Shell wrappers of iosc and iosrun that carry the library path, for the Python tests
        (which run the binaries they are given, and run onnxruntime with their own env)."""
        wrap_dir = os.path.join(self.work, "bin")
        os.makedirs(wrap_dir, exist_ok=True)
        wrappers = {}
        for name in ("iosc", "iosrun"):
            path = os.path.join(wrap_dir, name)
            with open(path, "w") as f:
                f.write("#!/bin/sh\n"
                        f"LD_LIBRARY_PATH={shlex.quote(self.ios_path)}\n"
                        "export LD_LIBRARY_PATH\n"
                        f"exec {shlex.quote(self.bin[name])} \"$@\"\n")
            os.chmod(path, 0o755)
            wrappers[name] = path
        return wrappers

    def python_test_env(self):
        """The Python tests' env: the CUDA folders (not the bundle's lib/) so that their ctypes
        look-up of libcudart finds it, with a libcudart.so link for the name they try first."""
        dirs = [d for d in self.env.get("IOS_GPU_CUDA_LIB_DIRS", "").split(":") if d]
        cudart = self.env.get("IOS_GPU_CUDART", "")
        shim = os.path.join(self.work, "cudart-shim")
        shutil.rmtree(shim, ignore_errors=True)
        if cudart and os.path.exists(cudart):
            os.makedirs(shim)
            os.symlink(cudart, os.path.join(shim, "libcudart.so"))
            dirs.insert(0, shim)
        original = self.env.get("LD_LIBRARY_PATH", "")
        env = dict(self.env)
        env["LD_LIBRARY_PATH"] = ":".join(dirs + ([original] if original else []))
        return env

    def python_test(self, sub, script, wrappers, env):
        cmd = [sys.executable, os.path.join(self.bundle, "tests", "python", script),
               "--iosc", wrappers["iosc"], "--iosrun", wrappers["iosrun"],
               "--build-dir", self.work, "--source-dir", self.bundle]
        result = self.exec(cmd, env=env)
        fails = [line for line in result.stdout.splitlines() if line.startswith("FAIL ")]
        m = re.search(r"^(\d+) passed, (\d+) failed", result.stdout, re.M)
        if m:
            sub["details"].update(passed=int(m.group(1)), failed=int(m.group(2)))
        sub["details"]["exit_status"] = result.returncode
        if result.returncode != 0:
            raise Failed((first_lines("\n".join(fails[:3])) if fails else
                          f"exit status {result.returncode}\n" +
                          first_lines(tail(result.stdout + result.stderr, 10))))

    def generate(self, sub, names):
        models = bench_gpu.generate_models(os.path.join(self.work, "models"), names,
                                           run=self.run_python)
        sub["details"]["models"] = names
        return models

    # ---- steps 3 and 4: plans, checks, benchmarks --------------------------------------------
    def search_budget(self, name, batch):
        if self.args.search_budget_s >= 0:
            return self.args.search_budget_s
        cap = 120.0 if (name == "inception_v3" and batch == 1) else 60.0
        return max(10.0, min(cap, 0.4 * self.left()))

    def compile(self, sub, model, name, batch, schedule, tf32="on", conv="heuristic"):
        # Per build: a timing cache must not outlive the kernels it timed. The models do.
        plans_dir = os.path.join(self.work, "plans-" + self.build_id)
        os.makedirs(plans_dir, exist_ok=True)
        suffix = ("" if tf32 == "on" else "_tf32off") + ("" if conv == "heuristic" else "_" + conv)
        stale = bench_gpu.plan_path(plans_dir, name, batch, schedule, suffix)
        if os.path.exists(stale):
            os.remove(stale)
        extra = [] if tf32 == "on" else ["--tf32", "off"]
        if conv != "heuristic":
            extra += ["--conv-algorithms", conv]
        stats_path = os.path.join(plans_dir, f"{name}_b{batch}_{schedule}{suffix}.stats.json")
        if os.path.exists(stats_path):
            os.remove(stats_path)
        extra += ["--stats-json", stats_path]
        if schedule == "ios":
            budget = self.search_budget(name, batch)
            if budget > 0:
                extra += ["--search-budget", f"{budget:.0f}"]
                sub["details"]["search_budget_s"] = round(budget)
        plan, _ = bench_gpu.compile_plan(self.bin["iosc"], self.args.device, model, name,
                                              batch, schedule, plans_dir, extra_args=extra,
                                              suffix=suffix, run=self.run_ios)
        info = iosc_facts(read_stats(stats_path))
        sub["details"].update(info)
        self.facts["plans"][f"{name} b{batch} {schedule}{suffix}"] = dict(info, plan=plan)
        if "plan fingerprint" not in self.versions:
            self.record_fingerprint(plan)
        return plan

    def record_fingerprint(self, plan):
        """The device fingerprint iosc recorded in a plan (GPU, driver, runtime, cuDNN)."""
        path = os.path.join(self.work, "plan_info.json")
        try:
            result = self.run_ios([self.bin["iosrun"], plan, "--info-json", path])
            if result.returncode == 0:
                with open(path) as f:
                    device = json.load(f).get("device", {})
                self.versions["plan fingerprint"] = json.dumps(device, sort_keys=True)
        except (OutOfTime, CommandTimeout, Failed, OSError, ValueError) as e:
            self.logline(f"  no plan fingerprint: {e}")

    def reference(self, sub, model, name, batch):
        ref = os.path.join(self.work, "ref", f"{name}_b{batch}")
        shutil.rmtree(ref, ignore_errors=True)
        threads = max(1, min(8, os.cpu_count() or 1))
        result = self.run_python([sys.executable, os.path.join(SCRIPTS, "ort_reference.py"),
                                  model, "--out", ref, "--batch", batch, "--threads", threads])
        if result.returncode != 0:
            raise Failed(f"ort_reference.py failed ({exit_text(result.returncode)}):\n" +
                         first_lines(tail(result.stdout + result.stderr, 12)))
        return ref

    def check(self, sub, plan, ref, name, batch, label, tf32, atol, rtol):
        result = self.run_ios([self.bin["iosrun"], plan, "--device", self.args.device,
                               "--check", ref, "--atol", atol, "--rtol", rtol])
        errors, passed = parse_check(result.stdout)
        record = {"network": name, "batch": batch, "plan": label, "tf32": tf32, "atol": atol,
                  "rtol": rtol, "max_abs_error": errors, "exit_status": result.returncode,
                  "passed": result.returncode == 0 and passed is not False}
        self.facts["checks"].append(record)
        sub["details"].update(max_abs_error=errors, atol=atol, rtol=rtol)
        if not record["passed"]:
            lines = [line for line in result.stdout.splitlines() if line.startswith("output ")]
            worst = ", ".join(f"{e:.3g}" if isinstance(e, float) else str(e) for e in errors)
            raise Failed(f"iosrun --check failed ({exit_text(result.returncode)}): max abs "
                         f"error {worst or '?'} (atol {atol}, rtol {rtol})\n" +
                         first_lines("\n".join(lines[:4]) + "\n" + result.stderr))

    def bench(self, sub, name, batch, plans):
        """Rounds of interleaved, rotated iosrun --bench runs, with and without the CUDA Graph.
        Keeps what finished when time runs out; a failing plan does not stop the others."""
        modes = (("graph", []), ("no_graph", ["--no-cuda-graph"]))
        runs = {mode: {s: [] for s in SCHEDULES} for mode, _ in modes}
        errors = []
        broken = set()
        rounds_done = 0
        out_of_time = False
        per_run = self.args.duration + bench_gpu.BENCH_WARMUP_MS / 1000 + 5
        for r in range(self.args.rounds):
            for mode, flags in modes:
                for schedule in bench_gpu.rotation(r):
                    if schedule not in plans or (mode, schedule) in broken:
                        continue
                    if self.left() < per_run:
                        out_of_time = True
                        break
                    try:
                        runs[mode][schedule].append(bench_gpu.bench_once(
                            self.bin["iosrun"], self.args.device, plans[schedule],
                            self.args.duration, extra_args=flags, run=self.run_ios,
                            tmp_dir=self.work))
                    except CommandTimeout as e:
                        if e.by_budget:
                            out_of_time = True
                            break
                        broken.add((mode, schedule))
                        errors.append(f"{schedule} {mode}: {e}")
                    except (BenchError, Failed, OSError, ValueError, KeyError) as e:
                        broken.add((mode, schedule))
                        errors.append(f"{schedule} {mode}: {first_lines(str(e), 6)}")
                if out_of_time:
                    break
            if out_of_time:
                break
            rounds_done += 1
        for mode, _ in modes:
            row = bench_gpu.summarize(name, batch, runs[mode])
            row["cuda_graph"] = mode == "graph"
            row["runs"] = {s: len(runs[mode][s]) for s in SCHEDULES}
            self.facts["bench"].append(row)
            sub["details"][mode] = {
                s: (row[s]["gpu_compute_ms"] if row[s] else None) for s in SCHEDULES}
            sub["details"][mode]["seq/IOS"] = row["speedup_over_sequential"]
        sub["details"]["rounds_done"] = rounds_done
        if errors:
            raise Failed("\n".join(errors))
        if rounds_done == 0:
            raise OutOfTime(f"no complete round of {self.args.rounds}")
        if out_of_time:
            sub["reason"] = f"out of time after {rounds_done} of {self.args.rounds} rounds"

    def conv_ab(self, sub, name, batch, heuristic, measured):
        """--bench of the default sequential plan (cuDNN's heuristic conv algorithms) and the one
        compiled with --conv-algorithms measure, alternating which goes first, with the CUDA
        Graph. Keeps what finished when time runs out."""
        runs = {"heuristic": [], "measure": []}
        per_run = self.args.duration + bench_gpu.BENCH_WARMUP_MS / 1000 + 5
        rounds_done = 0
        for r in range(self.args.rounds):
            order = [("heuristic", heuristic), ("measure", measured)]
            if r % 2:
                order.reverse()
            if self.left() < 2 * per_run:
                break
            for label, plan in order:
                runs[label].append(bench_gpu.bench_once(
                    self.bin["iosrun"], self.args.device, plan, self.args.duration,
                    run=self.run_ios, tmp_dir=self.work)[0])
            rounds_done += 1
        if rounds_done == 0:
            raise OutOfTime(f"no complete round of {self.args.rounds}")
        row = {"network": name, "batch": batch, "rounds": rounds_done,
               "heuristic_ms": statistics.median(runs["heuristic"]),
               "measure_ms": statistics.median(runs["measure"]),
               "heuristic_runs": runs["heuristic"], "measure_runs": runs["measure"]}
        row["measure/heuristic"] = row["measure_ms"] / row["heuristic_ms"]
        self.facts["conv_ab"].append(row)
        sub["details"].update({k: row[k] for k in ("heuristic_ms", "measure_ms",
                                                   "measure/heuristic", "rounds")})
        if rounds_done < self.args.rounds:
            sub["reason"] = f"out of time after {rounds_done} of {self.args.rounds} rounds"

    # ---- the whole run -----------------------------------------------------------------------
    def run(self):
        args = self.args
        env_step = self.step(0, "environment (libraries, versions: run_gpu_checks.sh)")
        env_step["status"] = "failed" if self.lib_error else "passed"
        env_step["details"] = dict(self.versions)
        env_step["duration_s"] = round(self.env_seconds, 2)
        if self.lib_error:
            env_step["error"] = first_lines(self.lib_error)
        gpu = self.step(1, "GPU (nvidia-smi, iosc --device probe)")
        tests = self.step(2, "tests (gtest, Python GPU tests)")
        compile_step = self.step(3, "compile and check (batch 1)")
        bench = self.step(4, "benchmarks (iosrun --bench)")
        later = (tests, compile_step, bench)

        smi_ok = bool(self.substep(gpu, "nvidia-smi", self.nvidia_smi))
        probe_ok = False
        if smi_ok:
            probe_ok = bool(self.substep(
                gpu, "iosc --device probe", self.probe, min_s=5,
                skip=("needs ios's libraries (step 0 failed)" if self.lib_error else None)))
        finish_step(gpu)
        no_gpu_reason = ""
        if not smi_ok:
            no_gpu_reason = gpu["substeps"][0]["error"].splitlines()[0]
        elif self.lib_error:
            no_gpu_reason = "ios's libraries cannot be resolved (step 0): " + \
                first_lines(self.lib_error)
        elif not probe_ok and gpu["substeps"][-1]["details"].get("no_device"):
            no_gpu_reason = gpu["substeps"][-1]["error"].splitlines()[0]
        if no_gpu_reason:
            print(f"run_gpu_checks: {no_gpu_reason}", file=sys.stderr, flush=True)
            for step in later:
                self.skip_step(step, "no GPU" if not (smi_ok and self.lib_error)
                               else "ios's libraries cannot be resolved")
            self.exit_code = EXIT_NO_GPU
            return

        names = list(args.models)
        models = {}
        cap_label = f"step 2's cap of {args.tests_budget_s:.0f} s"
        if not args.skip_tests:
            # Step 2, capped. The networks are generated before ios_cuda_tests, which reads all
            # four (its cuDNN descriptor tests); the generation is step 3's, outside the cap.
            self.set_cap(tests, args.tests_budget_s, cap_label)
            # A hang in ios_gpu_tests must leave time for the rest of step 2.
            self.substep(tests, "ios_gpu_tests", lambda s: self.gtest(
                s, "ios_gpu_tests", True, limit_s=0.6 * args.tests_budget_s))
            self.set_cap(None)
            models = self.substep(compile_step, "generate models", lambda s: self.generate(
                s, list(dict.fromkeys(names + list(NETWORKS))))) or {}
            self.set_cap(tests, args.tests_budget_s, cap_label)
            self.substep(tests, "ios_cuda_tests",
                         lambda s: self.gtest(s, "ios_cuda_tests", bool(models)))
            wrappers = self.tool_wrappers()
            py_env = self.python_test_env()
            for script in PYTHON_TESTS:
                self.substep(tests, script, lambda s, sc=script: self.python_test(
                    s, sc, wrappers, py_env), min_s=10)
            self.set_cap(None)
        else:
            self.skip_step(tests, "--skip-tests")
            models = self.substep(compile_step, "generate models",
                                  lambda s: self.generate(s, names)) or {}
        finish_step(tests)

        # Steps 3 and 4, interleaved per network: batch 1 first (compile, check, bench), then
        # the other batch sizes (compile, bench; their compiles are reported under step 4).
        batches = list(dict.fromkeys(args.batches))
        for batch in sorted(batches, key=lambda b: b != 1):
            for name in names:
                model = models.get(name)
                no_model = None if model else "needs the generated model, which is missing"
                target = compile_step if batch == 1 else bench
                plans = {}
                for schedule in SCHEDULES:
                    plan = self.substep(
                        target, f"{name} b{batch}: compile {schedule}",
                        lambda s, sc=schedule: self.compile(s, model, name, batch, sc),
                        min_s=15, skip=no_model)
                    if plan:
                        plans[schedule] = plan
                ref = None
                if batch == 1:
                    ref = self.checks(compile_step, model, name, batch, plans, no_model)
                self.substep(bench, f"{name} b{batch}: bench",
                             lambda s, p=plans: self.bench(s, name, batch, p),
                             min_s=args.duration + 6,
                             skip=no_model or (None if plans else "needs a compiled plan"))
                if batch == 1 and not args.skip_conv_ab:
                    self.conv_algorithms_ab(compile_step, bench, model, name, plans, ref,
                                            no_model)
        finish_step(compile_step)
        finish_step(bench)
        failed = any(s["status"] == "failed" for s in self.steps)
        self.exit_code = EXIT_FAILED if failed else EXIT_OK

    def set_cap(self, step, cap_s=0.0, label=""):
        """Caps the time of a step's commands at cap_s, counting its sub-steps so far; None
        lifts the cap."""
        if step is None:
            self.cap_until, self.cap_label = None, ""
            return
        spent = sum(s["duration_s"] for s in step["substeps"])
        self.cap_until = time.monotonic() + max(0.0, cap_s - spent)
        self.cap_label = label

    def conv_algorithms_ab(self, compile_step, bench, model, name, plans, ref, no_model):
        """Batch 1: a sequential plan with --conv-algorithms measure, checked against
        onnxruntime when the reference exists, and benched beside the default one."""
        args = self.args
        label = "sequential --conv-algorithms measure"
        measured = self.substep(
            compile_step, f"{name} b1: compile {label}",
            lambda s: self.compile(s, model, name, 1, "sequential", conv="measure"),
            min_s=15, skip=no_model)
        if measured and ref and not args.skip_checks:
            self.substep(compile_step,
                         f"{name} b1: check {label} (atol {args.tf32_atol}, rtol "
                         f"{args.tf32_rtol})",
                         lambda s: self.check(s, measured, ref, name, 1, label, "on",
                                              args.tf32_atol, args.tf32_rtol), min_s=10)
        skip = None
        if not measured or not plans.get("sequential"):
            skip = "needs the default and the measured sequential plans"
        self.substep(bench, f"{name} b1: bench {label} against the default",
                     lambda s: self.conv_ab(s, name, 1, plans["sequential"], measured),
                     min_s=2 * args.duration + 12, skip=skip)

    def checks(self, step, model, name, batch, plans, no_model):
        """iosrun --check of each plan and of a --tf32 off sequential plan; the onnxruntime
        reference folder, or None."""
        args = self.args
        if args.skip_checks:
            self.substep(step, f"{name} b{batch}: checks", None, skip="--skip-checks")
            return None
        plan_off = self.substep(
            step, f"{name} b{batch}: compile sequential --tf32 off",
            lambda s: self.compile(s, model, name, batch, "sequential", tf32="off"),
            min_s=15, skip=no_model)
        ref = self.substep(step, f"{name} b{batch}: onnxruntime reference",
                           lambda s: self.reference(s, model, name, batch), min_s=10,
                           skip=no_model)
        targets = [(schedule, plans.get(schedule), "on", args.tf32_atol, args.tf32_rtol)
                   for schedule in SCHEDULES]
        targets.append(("sequential --tf32 off", plan_off, "off", args.atol, args.rtol))
        for label, plan, tf32, atol, rtol in targets:
            skip = None
            if not ref:
                skip = "needs the onnxruntime reference, which failed or was skipped"
            if not plan:
                skip = f"needs the plan '{label}', which failed or was skipped"
            self.substep(step, f"{name} b{batch}: check {label} (atol {atol}, rtol {rtol})",
                         lambda s, p=plan, lb=label, t=tf32, a=atol, r=rtol: self.check(
                             s, p, ref, name, batch, lb, t, a, r),
                         min_s=10, skip=skip)
        return ref

    # ---- the report --------------------------------------------------------------------------
    def write_report(self, final=False):
        try:
            self.report["duration_s"] = round(self.elapsed(), 1)
            if final:
                self.report["finished"] = now_iso()
                self.report["exit_code"] = self.exit_code
                self.report["status"] = {EXIT_OK: "passed", EXIT_FAILED: "failed",
                                         EXIT_NO_GPU: "no-gpu"}.get(self.exit_code, "unknown")
            write_atomically(os.path.join(self.outdir, "report.json"),
                             json.dumps(self.report, indent=1, default=str))
            write_atomically(os.path.join(self.outdir, "report.md"), self.markdown())
        except Exception as e:  # noqa: BLE001: the report must never stop the run
            print(f"run_gpu_checks: cannot write the report: {e}", file=sys.stderr, flush=True)

    def markdown(self, compact=False):
        """The report as Markdown; compact (for the end of stdout, whose tail is what a device
        call returns first): failed and skipped sub-steps only, no versions or BUILD_INFO."""
        r = self.report
        status = r["status"].upper()
        lines = [f"# ios GPU checks: {status}", ""]
        lines.append(f"exit status {r['exit_code']}, started {r['started']}, "
                     f"{r['duration_s']} s of a {r['budget_s']:.0f} s budget"
                     f"{'' if r['finished'] else ' (running or interrupted)'}")
        opts = self.args
        lines.append(f"options: models {','.join(opts.models)}, batches "
                     f"{','.join(map(str, opts.batches))}, rounds {opts.rounds}, duration "
                     f"{opts.duration} s{', --skip-tests' if opts.skip_tests else ''}")
        if not compact:
            lines += ["", "## Versions", ""]
            for key, value in self.versions.items():
                lines.append(f"- {key}: {value}")
        lines += ["", "## Steps", "", "| step | status | seconds | note |", "|---|---|---|---|"]
        failures = []
        for step in self.steps:
            note = step.get("reason") or ""
            if step.get("error"):
                note = headline(step["error"])
                failures.append((f"step {step['step']} {step['name']}", step["error"]))
            lines.append(f"| **{step['step']} {step['name']}** | **{step['status']}** | "
                         f"{step['duration_s']:.1f} | {md_cell(note)} |")
            for sub in step["substeps"]:
                note = sub["reason"]
                if sub["error"]:
                    note = headline(sub["error"])
                    failures.append((f"step {step['step']} {sub['name']}", sub["error"]))
                elif summary_of(sub["details"]):
                    note = (note + "; " if note else "") + summary_of(sub["details"])
                if compact and sub["status"] == "passed":
                    continue
                lines.append(f"| {sub['name']} | {sub['status']} | {sub['duration_s']:.1f} | "
                             f"{md_cell(note)} |")
        if self.facts["checks"]:
            lines += ["", "## Numerics: iosrun --check against onnxruntime (CPU)", "",
                      "| network | batch | plan | TF32 | atol / rtol | max abs error | result |",
                      "|---|---|---|---|---|---|---|"]
            for c in self.facts["checks"]:
                errs = ", ".join(f"{e:.3g}" if isinstance(e, float) else str(e)
                                 for e in c["max_abs_error"]) or "-"
                lines.append(f"| {c['network']} | {c['batch']} | {c['plan']} | {c['tf32']} | "
                             f"{c['atol']} / {c['rtol']} | {errs} | "
                             f"{'passed' if c['passed'] else 'FAILED'} |")
        if self.facts["bench"]:
            lines += ["", "## Benchmarks: GPU compute time (iosrun --bench)", ""]
            keys = []
            for row in self.facts["bench"]:
                key = (row["batch"], row["cuda_graph"])
                if key not in keys:
                    keys.append(key)
            for batch, graph in sorted(keys, key=lambda k: (k[0], not k[1])):
                rows = [row for row in self.facts["bench"]
                        if row["batch"] == batch and row["cuda_graph"] == graph]
                lines += [f"### batch {batch}, "
                          f"{'CUDA Graph' if graph else 'no CUDA Graph (--no-cuda-graph)'}", "",
                          "```", bench_gpu.format_table(rows), "```"]
                runs = ", ".join(f"{row['network']} " + "/".join(
                    str(row["runs"][s]) for s in SCHEDULES) for row in rows)
                lines += [f"runs (sequential/greedy/ios): {runs}", ""]
            lines.append(bench_gpu.TABLE_NOTE)
            predicted = [(k, v) for k, v in self.facts["plans"].items()
                         if "predicted_speedup_over_sequential" in v]
            if predicted:
                lines += ["", "iosc's prediction for the IOS plans (from its profiler): " +
                          "; ".join(f"{k}: seq/IOS {v['predicted_speedup_over_sequential']:.2f},"
                                    f" greedy/IOS {v['predicted_speedup_over_greedy']:.2f}"
                                    f"{greedy_parts_note(v)}" for k, v in predicted)]
        if self.facts["conv_ab"]:
            lines += ["", "## Conv algorithms, batch 1: --conv-algorithms measure against the "
                      "default (cuDNN's heuristic), sequential plans, CUDA Graph", "",
                      "| network | heuristic ms | measure ms | measure / heuristic | rounds |",
                      "|---|---|---|---|---|"]
            for row in self.facts["conv_ab"]:
                lines.append(f"| {row['network']} | {row['heuristic_ms']:.3f} | "
                             f"{row['measure_ms']:.3f} | {row['measure/heuristic']:.2f} | "
                             f"{row['rounds']} |")
        if failures:
            lines += ["", "## Failures (first error of each)", ""]
            for where, error in failures:
                lines += [f"### {where}", "", "```", first_lines(error), "```", ""]
        if not compact:
            lines += ["", "## BUILD_INFO", "", "```", self.build_info.strip(), "```", ""]
        return "\n".join(lines)


def exit_text(code):
    if code is not None and code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


def headline(error):
    """An error's first line, and its second when the first only introduces it."""
    lines = [line.strip() for line in error.splitlines() if line.strip()]
    if len(lines) > 1 and lines[0].endswith(":") and not lines[1].startswith("FAIL "):
        return lines[0] + " " + lines[1]
    return lines[0] if lines else ""


def md_cell(text):
    return (text or "").replace("|", "\\|").replace("\n", " ")[:300]


def summary_of(details):
    parts = []
    for key in ("total", "passed", "failed", "skipped"):
        if key in details:
            parts.append(f"{key} {details[key]}")
    if "max_abs_error" in details:
        parts.append("max abs error " + ", ".join(
            f"{e:.3g}" if isinstance(e, float) else str(e) for e in details["max_abs_error"]))
    if "predicted_speedup_over_sequential" in details:
        parts.append(f"predicted seq/IOS {details['predicted_speedup_over_sequential']:.2f}")
    if "search" in details:
        parts.append(f"{details['search']['stages_measured']} stages measured in "
                     f"{details['search']['seconds']:.1f} s")
    if details.get("profiler", {}).get("stages"):
        p = details["profiler"]
        parts.append(f"{p['samples'] / p['stages']:.1f} samples, "
                     f"{p['launches'] / p['stages']:.0f} launches per stage")
    if "parts_scheduled_greedily" in details:
        parts.append(f"{details['parts_scheduled_greedily']} parts greedy (search budget)")
    if "graph" in details and details["graph"].get("seq/IOS") is not None:
        parts.append(f"seq/IOS {details['graph']['seq/IOS']:.2f} (graph)")
    if "measure/heuristic" in details:
        parts.append(f"measure/heuristic {details['measure/heuristic']:.2f}")
    if "gpus" in details:
        parts.append("; ".join(details["gpus"]))
    return ", ".join(parts)


def finish_step(step):
    subs = step["substeps"]
    if step["status"] == "skipped" and not subs:
        return
    statuses = [s["status"] for s in subs]
    if "failed" in statuses:
        step["status"] = "failed"
        failed = [s for s in subs if s["status"] == "failed"]
        step["reason"] = (f"{len(failed)} of {len(subs)} sub-steps failed, first: "
                          f"{failed[0]['name']}")
    elif "passed" in statuses:
        step["status"] = "passed"
        skipped = statuses.count("skipped")
        if skipped:
            step["reason"] = f"{skipped} of {len(subs)} sub-steps skipped"
    elif subs:
        step["status"] = "skipped"
        step["reason"] = step.get("reason") or subs[0]["reason"]
    elif step["status"] == "pending":
        step["status"] = "skipped"


def write_atomically(path, text):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", errors="replace") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv=None):
    args = parse_args(argv)
    runner = Runner(args)

    def on_signal(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    try:
        runner.run()
    except BaseException as e:  # interrupted, or a bug: still write what there is
        runner.exit_code = EXIT_FAILED if runner.exit_code is None else runner.exit_code
        runner.report["interrupted"] = f"{type(e).__name__}: {e}"
        runner.logline(f"\nINTERRUPTED: {traceback.format_exc()}")
        print(f"run_gpu_checks: interrupted: {type(e).__name__}: {e}", file=sys.stderr,
              flush=True)
    finally:
        for step in runner.steps:
            if step["status"] in ("pending", "running"):
                if not step["substeps"] and "interrupted" in runner.report:
                    runner.skip_step(step, "interrupted")
                finish_step(step)
        runner.write_report(final=True)
        runner.log.close()
    print("\n" + runner.markdown(compact=True), flush=True)
    print(f"report: {os.path.join(runner.outdir, 'report.md')} (exit status {runner.exit_code})",
          flush=True)
    return runner.exit_code


if __name__ == "__main__":
    sys.exit(main())

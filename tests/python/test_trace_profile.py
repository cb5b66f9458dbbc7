"""See the schedule: iosrun --trace, --profile/--export-profile, the schedule pictures of iosc and
iosrun (--schedule-dot/--schedule-svg) and iosc --progress, on Inception V3's IOS plan (the
analytic V100 model, run on this CPU with 2 threads) and its sequential plan.

The trace is valid JSON in the trace-event format, with one track per stream of the plan; op
spans on one stream never overlap; every op runs once per traced run; a wait never ends before
the record it waits for (its flow's start). The profile's op times add up, on the sequential
plan (one stream), to the run's latency within 10% + 0.5 ms (the rest is dispatch); on the IOS
plan, its stage times add up to the run's latency within the same margin plus 0.3 ms per stage
(the dispatch between stages). The DOT renders with
Graphviz's dot and names every op of the plan exactly once; the SVG is written."""
import collections
import json
import os
import re
import subprocess
import tempfile

from ios_test_util import Tally, ensure_models, parse_args, plan_info, run

MARGIN_FRACTION, MARGIN_MS = 0.10, 0.5
# Stage spans also leave out the dispatch from one stage to the next, which a loaded machine
# stretches (a CI run under ctest --parallel 2 saw 0.21 ms per stage on Inception V3's 77).
STAGE_GAP_MS = 0.3


def check_trace(tally, label, trace_path, info, runs, threads):
    with open(trace_path) as f:
        trace = json.load(f)
    events = trace.get("traceEvents", [])
    tally.check(f"{label}: the trace is a trace-event file", events and all(
        "ph" in e and "pid" in e for e in events), str(events[:2]))
    spans = [e for e in events if e["ph"] == "X"]
    tally.check(f"{label}: spans carry ts, dur and tid",
                all({"ts", "dur", "tid", "name"} <= e.keys() for e in spans))
    streams = {e["tid"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"
               and e["args"]["name"].startswith("stream ")}
    max_groups = max(len(stage["groups"]) for block in info["schedule"]["blocks"]
                     for stage in block["stages"])
    tally.check(f"{label}: one track per stream of the plan ({min(max_groups, threads)})",
                len(streams) == min(max_groups, threads), f"{sorted(streams)}, {max_groups} groups")
    ops = [e for e in spans if e.get("cat") not in ("wait", "event", "run", "stage")]
    tally.check(f"{label}: op spans only on stream tracks",
                {e["tid"] for e in ops} <= streams, str({e["tid"] for e in ops}))
    per_run = collections.Counter((e["args"]["iteration"], e["args"]["op"]) for e in ops)
    tally.check(f"{label}: every op of the plan once per traced run",
                len(per_run) == runs * len(info["ops"]) and set(per_run.values()) == {1},
                f"{len(per_run)} (run, op) pairs for {runs} runs of {len(info['ops'])} ops")
    overlaps = 0
    for tid in streams:
        track = sorted((e["ts"], e["ts"] + e["dur"]) for e in spans
                       if e["tid"] == tid and e.get("cat") != "event")
        overlaps += sum(1 for a, b in zip(track, track[1:]) if b[0] < a[1] - 1e-3)
    tally.check(f"{label}: spans on one stream never overlap", overlaps == 0, f"{overlaps}")
    starts = {e["id"]: e["ts"] for e in events if e["ph"] == "s"}
    finishes = [(e["id"], e["ts"]) for e in events if e["ph"] == "f"]
    early = [i for i, ts in finishes if i not in starts or ts < starts[i] - 1e-3]
    tally.check(f"{label}: every wait ends after its record ({len(finishes)} waits)",
                not early and (len(finishes) > 0) == (len(streams) > 1), str(early[:5]))
    tally.check(f"{label}: the stages track marks stage boundaries",
                any(e["ph"] == "i" and e.get("cat") == "stage" for e in events))


def check_profile(tally, label, profile_path, sums_what):
    with open(profile_path) as f:
        profile = json.load(f)
    total = profile["op_ms_sum"] if sums_what == "ops" else profile["stage_ms_sum"]
    run_ms = profile["run_ms"]
    margin = MARGIN_FRACTION * run_ms + MARGIN_MS
    if sums_what == "stages":
        margin += STAGE_GAP_MS * len(profile["stages"])
    tally.check(f"{label}: the {sums_what}' times add up to the run's latency within "
                f"{margin:.2f} ms ({total:.2f} of {run_ms:.2f} ms)",
                abs(total - run_ms) <= margin)
    ops = profile["ops"]
    tally.check(f"{label}: per-op rows with time, share, FLOPs, GFLOP/s and bytes",
                ops and all({"ms", "share", "flops", "gflops_per_s", "bytes"} <= o.keys()
                            for o in ops))
    tally.check(f"{label}: sorted slowest first",
                all(a["ms"] >= b["ms"] for a, b in zip(ops, ops[1:])))
    # The ops name their values, so the graph can be rebuilt: every op after the first reads a
    # value that another op writes, and no value is written twice.
    produced = [v for o in ops for v in o.get("outputs", [])]
    consumed = {v for o in ops for v in o.get("inputs", [])}
    tally.check(f"{label}: each op names its input and output values",
                all(o.get("outputs") and o.get("inputs") for o in ops)
                and len(produced) == len(set(produced))
                and sum(1 for o in ops if not set(o["inputs"]) & set(produced)) <= 1
                and bool(consumed & set(produced)))
    return profile


def names_in_dot(dot_text):
    """Every op name the picture shows: node labels 'name\\nType' and folded boxes' lines."""
    names = []
    for label in re.findall(r'label="((?:[^"\\]|\\.)*)"', dot_text):
        if "stages top to bottom" in label:
            continue  # the picture's title and legend
        lines = label.split("\\n")
        if len(lines) == 2 and not lines[0].startswith(("stage", "group", "block")):
            names.append(lines[0])
        for line in lines[1:]:
            m = re.match(r"(.+)  \((\w+)(, merged)?\)$", line)
            if m:
                names.append(m.group(1))
    return names


def main():
    args = parse_args()
    tally = Tally()
    model = ensure_models(args, ["inception_v3"])["inception_v3"]
    with tempfile.TemporaryDirectory() as tmp:
        plans = {}
        for schedule in ("ios", "sequential"):
            plans[schedule] = os.path.join(tmp, f"{schedule}.iosplan")
            dot = os.path.join(tmp, f"{schedule}.dot")
            svg = os.path.join(tmp, f"{schedule}.svg")
            made = run([args.iosc, model, "--device", "sim:V100", "--schedule", schedule,
                        "-o", plans[schedule], "--schedule-dot", dot, "--schedule-svg", svg,
                        "--progress", "on"])
            if not tally.check(f"iosc {schedule} with pictures", made.returncode == 0,
                               made.stderr):
                tally.finish()
            info = plan_info(args, plans[schedule], tmp)
            with open(dot) as f:
                dot_text = f.read()
            rendered = subprocess.run(["dot", "-Tsvg", dot], capture_output=True, text=True)
            tally.check(f"{schedule}: the DOT renders with Graphviz",
                        rendered.returncode == 0 and "<svg" in rendered.stdout, rendered.stderr)
            tally.check(f"{schedule}: --schedule-svg wrote an SVG",
                        os.path.exists(svg) and "<svg" in open(svg).read())
            shown = collections.Counter(names_in_dot(dot_text))
            plan_names = collections.Counter(op["name"] for op in info["ops"])
            tally.check(f"{schedule}: the picture names every op of the plan exactly once",
                        shown == plan_names,
                        f"missing {list((plan_names - shown).items())[:5]}, extra "
                        f"{list((shown - plan_names).items())[:5]}")
            if schedule == "ios":
                tally.check("iosc --progress draws its line to the end",
                            re.search(r"\] (\d+)/\1 parts", made.stderr) is not None,
                            made.stderr[-300:])
                again = os.path.join(tmp, "from_plan.dot")
                from_plan = run([args.iosrun, plans[schedule], "--schedule-dot", again,
                                 "--schedule-svg", os.path.join(tmp, "from_plan.svg")])
                tally.check("iosrun PLAN --schedule-dot draws the plan as iosc did",
                            from_plan.returncode == 0 and collections.Counter(
                                names_in_dot(open(again).read())) == plan_names,
                            from_plan.stderr)
                block = run([args.iosrun, plans[schedule], "--schedule-dot", again,
                             "--schedule-block", "12"])
                tally.check("--schedule-block draws one block",
                            block.returncode == 0 and "cluster_b12 " in open(again).read()
                            and "cluster_b0 " not in open(again).read(), block.stderr)

        runs = 5
        for schedule, sums_what in (("sequential", "ops"), ("ios", "stages")):
            trace = os.path.join(tmp, f"{schedule}.trace.json")
            profile = os.path.join(tmp, f"{schedule}.profile.json")
            result = run([args.iosrun, plans[schedule], "--device", "cpu", "--force",
                          "--threads", "2", "--bench", "--duration", "0.5", "--trace", trace,
                          "--trace-runs", str(runs), "--profile", "--export-profile", profile])
            if not tally.check(f"iosrun {schedule} --bench --trace --profile",
                               result.returncode == 0, result.stderr):
                continue
            tally.check(f"{schedule}: --profile prints the op and stage tables",
                        "slowest ops" in result.stdout and "stages (median ms" in result.stdout,
                        result.stdout[-500:])
            info = plan_info(args, plans[schedule], tmp)
            check_trace(tally, schedule, trace, info, runs, threads=2)
            check_profile(tally, schedule, profile, sums_what)
    tally.finish()


if __name__ == "__main__":
    main()

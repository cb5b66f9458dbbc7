"""Plans are reproducible and comparable (issue 13's foundations). The same model, options and
timing cache give byte-identical plans in another process, from another folder and under another
output name, for every schedule kind on an analytic model, and for a CPU-profiled IOS plan whose
second compilation takes every timing, the search's lower bounds included, from the cache (it
measures nothing new): SqueezeNet. Its concurrent blocks, when predicted to save under
--min-concurrency-gain, run sequentially without being measured whole (at a margin of 100%, its
parts are not even searched: none has room).
iosplan diff says "same" (exit 0) for those, and for a schedule changed on purpose (Inception V3
with --max-groups-per-stage 2)
reports the option and the schedule as changed (exit 1), in words and in JSON."""
import json
import os
import re
import tempfile

from ios_test_util import Tally, ensure_models, parse_args, run

SCHEDULES = ("sequential", "greedy", "ios", "ios-parallel", "ios-merge")


def iosplan(args):
    return os.path.join(os.path.dirname(args.iosrun), "iosplan")


def main():
    args = parse_args()
    args.iosc, args.iosrun = os.path.abspath(args.iosc), os.path.abspath(args.iosrun)
    tally = Tally()
    models = ensure_models(args, ["squeezenet", "inception_v3"])
    model = os.path.abspath(models["squeezenet"])
    with tempfile.TemporaryDirectory() as tmp:
        other = os.path.join(tmp, "elsewhere")
        os.makedirs(other)
        for schedule in SCHEDULES:
            first = os.path.join(tmp, f"{schedule}.iosplan")
            second = os.path.join(other, f"again_{schedule}.iosplan")
            flags = ["--device", "sim:V100", "--schedule", schedule, "--progress", "off"]
            a = run([args.iosc, model, "-o", first] + flags)
            b = run([args.iosc, model, "-o", second] + flags, cwd=other)
            if not tally.check(f"{schedule}: both compile", a.returncode == b.returncode == 0,
                               a.stderr + b.stderr):
                continue
            tally.check(f"{schedule}: byte-identical plans",
                        open(first, "rb").read() == open(second, "rb").read())
            same = run([iosplan(args), "diff", first, second])
            tally.check(f"{schedule}: iosplan diff says the same (exit 0)",
                        same.returncode == 0 and "the plans are the same" in same.stdout,
                        same.stdout + same.stderr)

        cache = os.path.join(tmp, "cpu.timings")
        plans = []
        for i in range(2):
            plan = os.path.join(tmp, f"cpu_{i}.iosplan")
            made = run([args.iosc, model, "--device", "cpu", "--timing-cache", cache, "-o", plan,
                        "--progress", "off"])
            tally.check(f"CPU-profiled plan {i}: compiles", made.returncode == 0, made.stderr)
            plans.append((plan, made.stdout))
        tally.check("the second CPU compilation measures nothing new",
                    " 0 distinct stages measured" in plans[1][1], plans[1][1])
        # A profiling budget stops the search where the latencies of what it measured say, not
        # the clock: compiled again from the timing cache, nothing is measured and the plan is
        # the same.
        budget_cache = os.path.join(tmp, "budget.timings")
        budgeted = []
        for i in range(2):
            plan = os.path.join(tmp, f"budget_{i}.iosplan")
            made = run([args.iosc, model, "--device", "cpu", "--timing-cache", budget_cache,
                        "-o", plan, "--progress", "off", "--profile-budget", "0.01"])
            tally.check(f"--profile-budget 0.01: compile {i}", made.returncode == 0,
                        made.stderr)
            budgeted.append((plan, made.stdout))
        tally.check("--profile-budget 0.01 stops the search",
                    re.search(r"profile budget: .* [1-9]\d* later part\(s\) run their units",
                              budgeted[0][1]) is not None, budgeted[0][1])
        tally.check("... at the same part from the timing cache: nothing measured",
                    " 0 distinct stages measured" in budgeted[1][1] and
                    "profile budget:" in budgeted[1][1], budgeted[1][1])
        tally.check("... and the same plan",
                    open(budgeted[0][0], "rb").read() == open(budgeted[1][0], "rb").read())
        # The search's lower bounds (units measured alone) are in the cache too.
        tally.check("the CPU search skips stages by their lower bounds",
                    "branch and bound:" in plans[0][1], plans[0][1])
        tally.check("... and the second compilation takes the bounds from the cache",
                    "(0 units measured alone for the bounds)" in plans[1][1], plans[1][1])
        unbounded = run([args.iosc, model, "--device", "cpu", "-o",
                         os.path.join(tmp, "unbounded.iosplan"), "--progress", "off",
                         "--stage-bounds", "off"])
        tally.check("--stage-bounds off measures every candidate stage",
                    unbounded.returncode == 0 and "branch and bound" not in unbounded.stdout,
                    unbounded.stdout + unbounded.stderr)
        tally.check("CPU-profiled plans from one timing cache are byte-identical",
                    open(plans[0][0], "rb").read() == open(plans[1][0], "rb").read())
        # The measured block check ran (its measurements are in the cache too), unless asked not.
        # It reports blocks measured whole only where the search kept concurrent stages, which
        # the measurements decide; its other lines (blocks that only reorder ops, segments that
        # cannot run whole) are there either way.
        tally.check("iosc --device cpu checks the searched blocks",
                    "block check" in plans[0][1], plans[0][1])
        unchecked = run([args.iosc, model, "--device", "cpu", "--timing-cache", cache, "-o",
                         os.path.join(tmp, "unchecked.iosplan"), "--progress", "off",
                         "--no-block-check"])
        tally.check("--no-block-check skips it",
                    unchecked.returncode == 0 and "block check" not in unchecked.stdout,
                    unchecked.stdout + unchecked.stderr)
        # Concurrent blocks predicted to save less than --min-concurrency-gain are dropped
        # before any is measured whole: at 100%, always. ios-parallel: no merge stage, which the
        # check would measure whatever the margin.
        reports = []
        for gain in ("0", "1"):
            made = run([args.iosc, model, "--device", "cpu", "--timing-cache", cache,
                        "--schedule", "ios-parallel", "--min-concurrency-gain", gain, "-o",
                        os.path.join(tmp, f"margin_{gain}.iosplan"), "--progress", "off"])
            tally.check(f"--min-concurrency-gain {gain}: compiles", made.returncode == 0,
                        made.stderr)
            reports.append(made.stdout)
        tally.check("--min-concurrency-gain 1 measures no block whole",
                    "measured whole" not in reports[1], reports[1])
        if "measured whole" in reports[0]:
            # At 100% no part has room either (its ceiling, sched/part_ceiling.h, is under it):
            # the search itself keeps every part sequential, unsearched, and nothing is left to
            # drop. A part the ceiling did not bound (a chain) has no concurrency to drop.
            searched = re.search(r"predicted latency \(cpu-profiler\): ios-parallel ([\d.]+) ms, "
                                 r"greedy [\d.]+ ms, sequential ([\d.]+) ms", reports[1])
            unsearched = re.search(r"ceiling: (\d+) of (\d+) part\(s\) could gain under 100%",
                                   reports[1])
            if unsearched:
                tally.check("... and runs every bounded part sequentially, unsearched",
                            unsearched.group(1) == unsearched.group(2) and searched and
                            searched.group(1) == searched.group(2), reports[1])
            else:
                tally.check("... and runs the concurrent blocks sequentially, unmeasured",
                            "run sequentially, unmeasured" in reports[1], reports[1])
                # The search's prediction stays on its line; the plan's follows it.
                written = re.search(r"predicted latency of the plan written, after the block "
                                    r"check: ([\d.]+) ms", reports[1])
                tally.check("... and prints the searched and the written plan's predictions",
                            searched and written and
                            float(searched.group(1)) < float(searched.group(2)) and
                            written.group(1) == searched.group(2), reports[1])

        # Inception's modules run up to four groups at once: two changes the schedule.
        base = os.path.join(tmp, "inception.iosplan")
        narrow = os.path.join(tmp, "narrow.iosplan")
        for plan, extra in ((base, []), (narrow, ["--max-groups-per-stage", "2"])):
            run([args.iosc, models["inception_v3"], "--device", "sim:V100", "-o", plan,
                 "--progress", "off"] + extra)
        report = os.path.join(tmp, "diff.json")
        diff = run([iosplan(args), "diff", base, narrow, "--json", report])
        tally.check("a schedule changed on purpose: iosplan diff exits 1",
                    diff.returncode == 1, diff.stdout + diff.stderr)
        tally.check("... and names the option and the schedule",
                    "max_groups_per_stage: 8 -> 2" in diff.stdout and "schedule: differs"
                    in diff.stdout, diff.stdout)
        with open(report) as f:
            sections = {s["section"]: s["differs"] for s in json.load(f)["sections"]}
        tally.check("... and its JSON marks options and schedule as differing, the model not",
                    sections.get("options") and sections.get("schedule")
                    and not sections.get("model") and not sections.get("weights"), str(sections))
        broken = os.path.join(tmp, "broken.iosplan")
        with open(broken, "wb") as f:
            f.write(open(base, "rb").read()[:100])
        error = run([iosplan(args), "diff", base, broken])
        tally.check("a broken plan is an error (exit 2), not a difference",
                    error.returncode == 2 and "broken.iosplan" in error.stderr, error.stderr)
    tally.finish()


if __name__ == "__main__":
    main()

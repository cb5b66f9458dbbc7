"""The GPU runner's reading of iosc --stats-json (scripts/gpu/run_gpu_checks.py, iosc_facts) on
the figures an H100 gave on 2026-11-26 for NasNet, whose IOS search ran out of its time budget:
the report must say how many parts fell back to greedy, since such a plan's greedy/IOS ratio is
then near 1 by construction. Also the batch-1 comparison of --conv-algorithms measure with the
default (conv_ab), with a stand-in for iosrun --bench. Needs no GPU."""
import os
import sys
import tempfile

from ios_test_util import Tally, parse_args


def search_stats(parts, fallbacks, stages, seconds, ios, greedy, sequential, counters=""):
    """search_stats.proto as iosc --stats-json writes it (int64 figures as strings)."""
    return {
        "cost_source": "cuda-profiler", "schedule": "ios",
        "parts": [{"states": "230", "transitions": "9000",
                   "fallback": "time budget" if i < fallbacks else ""} for i in range(parts)],
        "distinct_stages_measured": str(stages), "search_seconds": seconds,
        "predicted_latency_ms": ios, "greedy_latency_ms": greedy,
        "sequential_latency_ms": sequential, "cost_counters": counters}


# NasNet: 28 parts, 23 of them scheduled greedily once the time budget was spent.
NASNET = search_stats(28, 23, 11108, 60.340, 3.729, 3.729, 5.970)
COMPLETE = search_stats(13, 0, 3679, 14.894, 0.833, 0.893, 1.375)
# The CUDA profiler's counters (the figures are made up: a search after 8c21dda has not run).
COUNTERS = ("3679 stages measured (12 merge); 3700 graphs captured (0 replayed instead), "
            "124000 launches, 11500 samples, 0 blocker timeouts; kernels 119 created, 9000 "
            "reused; buffers 40 (30 MiB); launch overhead 3 us")


def main():
    args = parse_args()
    tally = Tally()
    sys.path.insert(0, os.path.join(args.source_dir, "scripts", "gpu"))
    import run_gpu_checks as runner

    nasnet = runner.iosc_facts(NASNET)
    tally.check("the parts that fell back are counted",
                nasnet.get("parts_scheduled_greedily") == 23, nasnet)
    tally.check("search size", nasnet.get("search", {}).get("parts") == 28 and
                nasnet["search"]["stages_measured"] == 11108 and
                nasnet["search"]["transitions"] == 28 * 9000, nasnet)
    tally.check("report says 23 of 28 parts",
                runner.greedy_parts_note(nasnet) == " (23 of 28 parts scheduled greedily)",
                runner.greedy_parts_note(nasnet))
    complete = runner.iosc_facts(COMPLETE)
    tally.check("a complete search: no fallback, nothing added",
                "parts_scheduled_greedily" not in complete and
                runner.greedy_parts_note(complete) == "", complete)
    tally.check("predicted speedups", abs(complete["predicted_speedup_over_sequential"] -
                                          1.375 / 0.833) < 1e-9, complete)
    tally.check("a schedule without the search (greedy): no search figures",
                runner.iosc_facts({"schedule": "greedy", "predicted_latency_ms": -1}) == {})
    # The batch-1 comparison of --conv-algorithms measure with the default heuristic.
    tally.check("--skip-conv-ab is an option, off by default",
                runner.parse_args(["out", "--skip-conv-ab"]).skip_conv_ab and
                not runner.parse_args(["out"]).skip_conv_ab)
    summary = runner.summary_of({"heuristic_ms": 1.372, "measure_ms": 4.54,
                                 "measure/heuristic": 4.54 / 1.372, "rounds": 2})
    tally.check("the sub-step's note gives measure/heuristic",
                summary == "measure/heuristic 3.31", summary)
    counted = runner.iosc_facts(dict(COMPLETE, cost_counters=COUNTERS))
    tally.check("the profiler's counters",
                counted.get("profiler") == {"stages": 3679, "launches": 124000,
                                            "samples": 11500}, counted)
    summary = runner.summary_of(counted)
    tally.check("... per stage in the note", "3.1 samples, 34 launches per stage" in summary,
                summary)
    check_conv_ab(tally, runner)
    tally.finish()


def check_conv_ab(tally, runner):
    """The comparison's bench alternates which plan goes first and reports medians, with a
    stand-in for iosrun --bench."""
    with tempfile.TemporaryDirectory() as tmp:
        args = runner.parse_args([os.path.join(tmp, "out"), "--work-dir",
                                  os.path.join(tmp, "work"), "--rounds", "3"])
        r = runner.Runner(args, bundle=tmp, environ={"IOS_GPU_LD_LIBRARY_PATH": "/nowhere"})
        order = []
        times = {"default.iosplan": [1.40, 1.37, 1.38], "measured.iosplan": [4.6, 4.5, 4.55]}

        def fake_bench_once(iosrun, device, plan, duration, **kwargs):
            order.append(plan)
            ms = times[plan].pop(0)
            return (ms, ms + 0.1, 0.01)

        real = runner.bench_gpu.bench_once
        runner.bench_gpu.bench_once = fake_bench_once
        try:
            step = r.step(4, "benchmarks")
            r.substep(step, "inception_v3 b1: bench", lambda s: r.conv_ab(
                s, "inception_v3", 1, "default.iosplan", "measured.iosplan"))
        finally:
            runner.bench_gpu.bench_once = real
        tally.check("three rounds, the first plan alternating",
                    order == ["default.iosplan", "measured.iosplan", "measured.iosplan",
                              "default.iosplan", "default.iosplan", "measured.iosplan"], order)
        row = r.facts["conv_ab"][0] if r.facts["conv_ab"] else {}
        tally.check("medians and their ratio",
                    row.get("heuristic_ms") == 1.38 and row.get("measure_ms") == 4.55 and
                    abs(row.get("measure/heuristic", 0) - 4.55 / 1.38) < 1e-12, row)
        report = r.markdown()
        tally.check("the report's table", "| inception_v3 | 1.380 | 4.550 | 3.30 | 3 |" in report,
                    report[-600:])
        r.log.close()


if __name__ == "__main__":
    main()

"""Plans are reproducible and comparable (issue 13's foundations). The same model, options and
timing cache give byte-identical plans in another process, from another folder and under another
output name, for every schedule kind on an analytic model, and for a CPU-profiled IOS plan whose
second compilation takes every timing, the search's lower bounds included, from the cache (it
measures nothing new): SqueezeNet. Its concurrent blocks, when predicted to save under
--min-concurrency-gain, run sequentially without being measured whole (at a margin of 100%, its
parts are not even searched: none has room).
iosplan diff says "same" (exit 0) for those, and for a schedule changed on purpose (Inception V3
with --max-groups-per-stage 2) reports the option and the schedule as changed (exit 1).
What the compilations did is read from iosc --stats-json (int64 figures are JSON strings there),
what iosplan diff found from its --json."""
import json
import os

import pytest

from ios_test_util import ensure_models, run

SCHEDULES = ("sequential", "greedy", "ios", "ios-parallel", "ios-merge")


@pytest.fixture(scope="module")
def models(args):
    return ensure_models(args, ["squeezenet", "inception_v3"])


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("reproducibility")


def iosplan(args):
    return os.path.join(os.path.dirname(args.iosrun), "iosplan")


def read(path):
    with open(path, "rb") as f:
        return f.read()


def compile_with_stats(args, model, plan, *flags, cwd=None):
    """iosc MODEL -o PLAN FLAGS --stats-json PLAN.stats.json: the statistics (a dict)."""
    stats_path = str(plan) + ".stats.json"
    made = run([args.iosc, model, "-o", plan, "--progress", "off", "--stats-json", stats_path,
                *flags], cwd=cwd)
    assert made.returncode == 0, made.stderr
    with open(stats_path) as f:
        return json.load(f)


def diff_json(args, a, b, tmp):
    """iosplan diff A B --json: (exit status, the JSON)."""
    report = os.path.join(tmp, "diff.json")
    diff = run([iosplan(args), "diff", a, b, "--json", report])
    with open(report) as f:
        return diff.returncode, json.load(f)


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_analytic_plans_are_byte_identical_elsewhere(args, models, tmp_path, schedule):
    other = tmp_path / "elsewhere"
    other.mkdir()
    first = tmp_path / f"{schedule}.iosplan"
    second = other / f"again_{schedule}.iosplan"
    model = os.path.abspath(models["squeezenet"])
    flags = ["--device", "sim:V100", "--schedule", schedule]
    compile_with_stats(args, model, first, *flags)
    compile_with_stats(args, model, second, *flags, cwd=other)
    assert read(first) == read(second)
    status, diff = diff_json(args, first, second, tmp_path)
    assert status == 0 and diff["identical"], diff


@pytest.fixture(scope="module")
def cpu_plans(args, models, work):
    """SqueezeNet profiled on this CPU twice with one timing cache: [(plan, stats)] * 2."""
    cache = work / "cpu.timings"
    plans = []
    for i in range(2):
        plan = work / f"cpu_{i}.iosplan"
        plans.append((plan, compile_with_stats(args, models["squeezenet"], plan, "--device",
                                               "cpu", "--timing-cache", cache)))
    return plans


def test_the_second_cpu_compilation_measures_nothing_new(cpu_plans):
    assert int(cpu_plans[1][1]["distinct_stages_measured"]) == 0, cpu_plans[1][1]


def test_cpu_plans_from_one_timing_cache_are_byte_identical(cpu_plans):
    assert read(cpu_plans[0][0]) == read(cpu_plans[1][0])


def test_the_cpu_search_skips_stages_by_their_lower_bounds(cpu_plans):
    assert cpu_plans[0][1]["stage_bounds"], cpu_plans[0][1]


def test_the_second_compilation_takes_the_bounds_from_the_cache(cpu_plans):
    stats = cpu_plans[1][1]
    assert stats["stage_bounds"] and int(stats["unit_bounds_measured"]) == 0, stats


def test_stage_bounds_off_measures_every_candidate_stage(args, models, work):
    stats = compile_with_stats(args, models["squeezenet"], work / "unbounded.iosplan",
                               "--device", "cpu", "--stage-bounds", "off")
    assert not stats["stage_bounds"]
    assert sum(int(p["transitions_bounded"]) for p in stats["parts"]) == 0
    assert int(stats["unit_bounds_measured"]) == 0


def block_check_decided(stats):
    """Blocks the measured block check ran whole, or left sequential, or that the policy ran
    sequentially around it."""
    concurrency = stats["concurrency"]
    check = concurrency.get("block_check", {})
    return (check.get("checked", 0) + check.get("reordered_only", 0) +
            check.get("unmeasured_replaced", 0) + concurrency["dropped_unmeasured"] +
            concurrency["dropped_after_check"])


def test_iosc_on_the_cpu_checks_the_searched_blocks(cpu_plans):
    """It reports blocks measured whole only where the search kept concurrent stages, which the
    measurements decide; blocks that only reorder ops, or segments that cannot run whole, are
    there either way."""
    stats = cpu_plans[0][1]
    assert "block_check" in stats["concurrency"], stats["concurrency"]
    assert block_check_decided(stats) > 0, stats["concurrency"]


def test_no_block_check_skips_it(args, models, work, cpu_plans):
    stats = compile_with_stats(args, models["squeezenet"], work / "unchecked.iosplan",
                               "--device", "cpu", "--timing-cache", work / "cpu.timings",
                               "--no-block-check")
    assert "block_check" not in stats["concurrency"], stats["concurrency"]
    assert stats["search_check"]["parts_measured"] == 0
    assert block_check_decided(stats) == 0


@pytest.fixture(scope="module")
def budgeted(args, models, work):
    """A profiling budget stops the search where the latencies of what it measured say, not the
    clock: twice from one timing cache, [(plan, stats)] * 2."""
    cache = work / "budget.timings"
    plans = []
    for i in range(2):
        plan = work / f"budget_{i}.iosplan"
        plans.append((plan, compile_with_stats(args, models["squeezenet"], plan, "--device",
                                               "cpu", "--timing-cache", cache,
                                               "--profile-budget", "0.01")))
    return plans


def unsearched(stats):
    return sum(1 for p in stats["parts"] if p["unsearched_after_check"])


def test_a_profile_budget_stops_the_search(budgeted):
    stats = budgeted[0][1]
    assert stats["stopped_by_budget"] and unsearched(stats) > 0, stats


def test_from_the_timing_cache_it_stops_at_the_same_part_measuring_nothing(budgeted):
    first, second = budgeted[0][1], budgeted[1][1]
    assert int(second["distinct_stages_measured"]) == 0 and second["stopped_by_budget"]
    assert unsearched(second) == unsearched(first)


def test_from_the_timing_cache_the_budgeted_plan_is_the_same(budgeted):
    assert read(budgeted[0][0]) == read(budgeted[1][0])


@pytest.fixture(scope="module")
def margins(args, models, work, cpu_plans):
    """ios-parallel (no merge stage, which the check would measure whatever the margin) at
    --min-concurrency-gain 0 and 1, from the CPU plans' timing cache: {gain: stats}."""
    return {gain: compile_with_stats(args, models["squeezenet"], work / f"margin_{gain}.iosplan",
                                     "--device", "cpu", "--timing-cache", work / "cpu.timings",
                                     "--schedule", "ios-parallel", "--min-concurrency-gain",
                                     gain)
            for gain in ("0", "1")}


def measured_whole(stats):
    return (stats["search_check"]["parts_measured"] +
            stats["concurrency"].get("block_check", {}).get("checked", 0))


def test_a_margin_of_100_percent_measures_no_block_whole(margins):
    assert measured_whole(margins["1"]) == 0, margins["1"]


def test_at_100_percent_concurrent_blocks_run_sequentially(margins):
    """At 100% no part has room either (its ceiling, sched/part_ceiling.h, is under it): the
    search itself keeps every part sequential, unsearched, and nothing is left to drop. A part
    the ceiling did not bound (a chain) has no concurrency to drop. Concurrent blocks that the
    search kept anyway run sequentially, unmeasured."""
    if measured_whole(margins["0"]) == 0:
        pytest.skip("at a margin of 0 nothing was measured whole either: nothing to compare")
    stats = margins["1"]
    bounded = [p for p in stats["parts"] if p["ceiling_ms"] >= 0]
    if bounded:
        assert all(p["no_room"] for p in bounded), bounded
        assert stats["searched_latency_ms"] == pytest.approx(stats["sequential_latency_ms"],
                                                             abs=5e-4)
    else:
        assert stats["concurrency"]["dropped_unmeasured"] > 0, stats["concurrency"]
        # The search's prediction is kept in the statistics beside the plan's.
        assert stats["searched_latency_ms"] < stats["sequential_latency_ms"]
        assert stats["predicted_latency_ms"] == pytest.approx(stats["sequential_latency_ms"],
                                                              abs=5e-4)


@pytest.fixture(scope="module")
def narrowed(args, models, work):
    """Inception's modules run up to four groups at once: two changes the schedule."""
    base, narrow = work / "inception.iosplan", work / "narrow.iosplan"
    for plan, extra in ((base, []), (narrow, ["--max-groups-per-stage", "2"])):
        compile_with_stats(args, models["inception_v3"], plan, "--device", "sim:V100", *extra)
    return base, narrow


def test_a_schedule_changed_on_purpose_differs(args, work, narrowed):
    status, diff = diff_json(args, *narrowed, work)
    assert status == 1 and not diff["identical"]
    sections = {s["section"]: s for s in diff["sections"]}
    assert sections["options"]["differs"] and sections["schedule"]["differs"], sections
    assert any("max_groups_per_stage: 8 -> 2" in detail
               for detail in sections["options"]["details"]), sections["options"]
    assert not sections["model"]["differs"] and not sections["weights"]["differs"], sections


def test_a_broken_plan_is_an_error_not_a_difference(args, work, narrowed):
    broken = work / "broken.iosplan"
    broken.write_bytes(read(narrowed[0])[:100])
    error = run([iosplan(args), "diff", narrowed[0], broken])
    assert error.returncode == 2 and "broken.iosplan" in error.stderr, error.stderr


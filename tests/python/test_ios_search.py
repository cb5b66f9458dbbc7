"""The IOS search on the four benchmark networks with the analytic V100 model: its statistics
(--stats-json), that it is never predicted slower than sequential or greedy under the same cost
source, the transition count of Table 1 for Inception V3's last block, and that IOS plans
(operator merges included) compute what onnxruntime computes."""
import json
import os
import sys

import pytest

from ios_test_util import ensure_models, run

NETWORKS = ["inception_v3", "squeezenet", "randwire", "nasnet"]
PART_KEYS = {"units", "width", "states", "transitions", "stages_measured", "search_seconds"}
# Paper Table 1: transitions (S, S') without pruning, the reference's single-root endings, on
# Inception V3's largest block (11 units, width 6): about 4.9e3.
TABLE1_INCEPTION_TRANSITIONS = 4.9e3
TRANSITION_CAP = 100000


@pytest.fixture(scope="module")
def models(args):
    return ensure_models(args, NETWORKS)


@pytest.fixture(scope="module")
def search(args, models, tmp_path_factory):
    """iosc --stats-json on the analytic V100, each distinct command once: (stats, result)."""
    done = {}

    def searched(name, *extra):
        key = (name,) + extra
        if key not in done:
            stats_path = tmp_path_factory.mktemp("search") / "stats.json"
            result = run([args.iosc, models[name], "--device", "sim:V100", "--stats-json",
                          stats_path, *extra])
            assert result.returncode == 0, result.stderr
            with open(stats_path) as f:
                done[key] = json.load(f)
        return done[key]
    return searched


@pytest.mark.parametrize("endings", ["paper", "reference"])
@pytest.mark.parametrize("name", NETWORKS)
def test_statistics_describe_the_search(search, name, endings):
    stats = search(name, "--endings", endings)
    assert stats["schedule"] == "ios" and stats["endings"] == endings
    assert stats["cost_source"] == "sim:V100"
    assert stats["parts"] and all(PART_KEYS <= set(p) for p in stats["parts"])
    print(f"{name} ({endings} endings): {stats['search_seconds']:.3f} s, "
          f"{sum(int(p['transitions']) for p in stats['parts'])} transitions, "
          f"{stats['distinct_stages_measured']} distinct stages, predicted "
          f"{stats['predicted_latency_ms']:.3f} ms (sequential "
          f"{stats['sequential_latency_ms']:.3f}, greedy {stats['greedy_latency_ms']:.3f})")


@pytest.mark.parametrize("endings", ["paper", "reference"])
@pytest.mark.parametrize("name", NETWORKS)
def test_no_part_falls_back(search, name, endings):
    stats = search(name, "--endings", endings)
    assert [p["fallback"] for p in stats["parts"] if p["fallback"]] == []


@pytest.mark.parametrize("endings", ["paper", "reference"])
@pytest.mark.parametrize("name", NETWORKS)
def test_ios_is_never_predicted_slower_than_the_baselines(search, name, endings):
    stats = search(name, "--endings", endings)
    predicted = stats["predicted_latency_ms"]
    assert predicted <= stats["sequential_latency_ms"] * (1 + 1e-9)
    assert predicted <= stats["greedy_latency_ms"] * (1 + 1e-9)


def test_inception_unpruned_last_block_agrees_with_table1(search):
    stats = search("inception_v3", "--endings", "reference", "--max-units-per-group", "0",
                   "--max-groups-per-stage", "0")
    last = max(stats["parts"], key=lambda p: (p["width"], p["block"]))
    assert (last["units"], last["width"]) == (11, 6), last
    transitions = int(last["transitions"])
    print(f"inception last block, unpruned, reference endings: {transitions} transitions")
    assert abs(transitions - TABLE1_INCEPTION_TRANSITIONS) <= 0.1 * TABLE1_INCEPTION_TRANSITIONS


def test_a_transition_cap_makes_randwires_large_parts_fall_back(search):
    """The transition guard: the capped parts are scheduled greedily, named in the statistics,
    and the search still writes a valid schedule."""
    stats = search("randwire", "--max-transitions-per-part", str(TRANSITION_CAP))
    capped = [p for p in stats["parts"] if "max_transitions_per_part" in p["fallback"]]
    assert capped, [p["fallback"] for p in stats["parts"]]
    assert all(int(p["transitions"]) <= TRANSITION_CAP for p in capped), capped


# The ablations: ios-merge runs no groups concurrently (every stage one group, merged or not),
# ios-parallel merges nothing.
ABLATIONS = {"ios-merge": lambda stage: len(stage["groups"]) == 1,
             "ios-parallel": lambda stage: stage.get("strategy") != "MERGE"}


@pytest.mark.parametrize("schedule", sorted(ABLATIONS))
def test_every_stage_obeys_the_ablation(args, models, tmp_path, schedule):
    plan = tmp_path / (schedule + ".iosplan")
    info = tmp_path / (schedule + ".json")
    result = run([args.iosc, models["inception_v3"], "--device", "sim:V100", "--schedule",
                  schedule, "-o", plan])
    assert result.returncode == 0, result.stderr
    assert run([args.iosrun, plan, "--info-json", info]).returncode == 0
    with open(info) as f:
        stages = [s for b in json.load(f)["schedule"]["blocks"] for s in b["stages"]]
    bad = [s for s in stages if not ABLATIONS[schedule](s)]
    assert not bad, bad[:2]


@pytest.mark.parametrize("name", NETWORKS)
def test_ios_plan_matches_onnxruntime(args, models, tmp_path, name):
    ref = tmp_path / (name + "_ref")
    result = run([sys.executable, os.path.join(args.source_dir, "scripts", "ort_reference.py"),
                  models[name], "--out", ref, "--batch", "1"])
    assert result.returncode == 0, result.stderr
    plan = tmp_path / (name + ".iosplan")
    result = run([args.iosc, models[name], "--device", "sim:V100", "--schedule", "ios", "-o",
                  plan])
    assert result.returncode == 0, result.stderr
    # The plan targets the analytic V100; --force runs it on the CPU backend, which is
    # numerically the same program.
    result = run([args.iosrun, plan, "--force", "--check", ref, "--atol", "1e-5", "--rtol",
                  "1e-4"])
    assert result.returncode == 0, result.stdout + result.stderr


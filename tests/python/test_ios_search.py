"""The IOS search on the four benchmark networks with the analytic V100 model: its statistics,
that it is never predicted slower than sequential or greedy under the same cost source, the
transition count of Table 1 for Inception V3's last block, and that IOS plans (operator merges
included) compute what onnxruntime computes."""
import json
import os
import sys
import tempfile

from ios_test_util import Tally, ensure_models, parse_args, run

NETWORKS = ["inception_v3", "squeezenet", "randwire", "nasnet"]
PART_KEYS = {"units", "width", "states", "transitions", "stages_measured", "search_seconds"}
# Paper Table 1: transitions (S, S') without pruning, the reference's single-root endings, on
# Inception V3's largest block (11 units, width 6): about 4.9e3.
TABLE1_INCEPTION_TRANSITIONS = 4.9e3


def search(args, model, tmp, *extra):
    stats_path = os.path.join(tmp, "stats.json")
    result = run([args.iosc, model, "--device", "sim:V100", "--stats-json", stats_path, *extra])
    if result.returncode != 0:
        return None, result
    with open(stats_path) as f:
        return json.load(f), result


def main():
    args = parse_args()
    tally = Tally()
    models = ensure_models(args, NETWORKS)
    with tempfile.TemporaryDirectory() as tmp:
        for name in NETWORKS:
            for endings in ("paper", "reference"):
                stats, result = search(args, models[name], tmp, "--endings", endings)
                label = f"{name} ({endings} endings)"
                if not tally.check(f"{label}: search runs", stats is not None, result.stderr):
                    continue
                tally.check(f"{label}: per-part keys", all(PART_KEYS <= set(p) for p in stats["parts"]))
                tally.check(f"{label}: no fallback", all(not p["fallback"] for p in stats["parts"]),
                            str([p["fallback"] for p in stats["parts"] if p["fallback"]]))
                predicted = stats["predicted_latency_ms"]
                tally.check(f"{label}: IOS <= sequential", predicted <= stats["sequential_latency_ms"] * (1 + 1e-9),
                            f"{predicted} vs {stats['sequential_latency_ms']}")
                tally.check(f"{label}: IOS <= greedy", predicted <= stats["greedy_latency_ms"] * (1 + 1e-9),
                            f"{predicted} vs {stats['greedy_latency_ms']}")
                tally.check(f"{label}: summary printed", "predicted latency" in result.stdout, result.stdout)
                print(f"    {label}: {stats['search_seconds']:.3f} s, "
                      f"{sum(int(p['transitions']) for p in stats['parts'])} transitions, "
                      f"{stats['distinct_stages_measured']} distinct stages, predicted "
                      f"{predicted:.3f} ms (sequential {stats['sequential_latency_ms']:.3f}, "
                      f"greedy {stats['greedy_latency_ms']:.3f})")

        stats, result = search(args, models["inception_v3"], tmp, "--endings", "reference",
                               "--max-units-per-group", "0", "--max-groups-per-stage", "0")
        if tally.check("inception unpruned search runs", stats is not None, result.stderr):
            last = max(stats["parts"], key=lambda p: (p["width"], p["block"]))
            transitions = int(last["transitions"])
            tally.check("inception last block is 11 units, width 6",
                        (last["units"], last["width"]) == (11, 6), str(last))
            tally.check("inception last block transitions agree with Table 1 (4.9e3, within 10%)",
                        abs(transitions - TABLE1_INCEPTION_TRANSITIONS) <= 0.1 * TABLE1_INCEPTION_TRANSITIONS,
                        f"got {transitions}")
            print(f"    inception last block, unpruned, reference endings: {transitions} transitions")

        # The transition guard: a low cap makes RandWire's large parts fall back to greedy, with a
        # warning, and the search still writes a valid schedule.
        stats, result = search(args, models["randwire"], tmp, "--max-transitions-per-part", "100000")
        if tally.check("randwire with a transition cap runs", stats is not None, result.stderr):
            capped = [p for p in stats["parts"] if "max_transitions_per_part" in p["fallback"]]
            tally.check("randwire: the capped parts fall back, named in the stats", len(capped) > 0,
                        str([p["fallback"] for p in stats["parts"]]))
            tally.check("randwire: the fallback is logged as a warning",
                        "scheduled greedily" in result.stdout + result.stderr, result.stderr)
            tally.check("randwire: capped parts never exceed the cap",
                        all(int(p["transitions"]) <= 100000 for p in capped), str(capped))

        # The ablations: ios-merge runs no groups concurrently (every stage one group, merged
        # or not), ios-parallel merges nothing.
        for schedule, check in (("ios-merge", lambda stage: len(stage["groups"]) == 1),
                                ("ios-parallel", lambda stage: stage.get("strategy") != "MERGE")):
            plan = os.path.join(tmp, schedule + ".iosplan")
            info = os.path.join(tmp, schedule + ".json")
            result = run([args.iosc, models["inception_v3"], "--device", "sim:V100", "--schedule",
                          schedule, "-o", plan])
            if not tally.check(f"inception {schedule}: plan", result.returncode == 0, result.stderr):
                continue
            run([args.iosrun, plan, "--info-json", info])
            with open(info) as f:
                stages = [s for b in json.load(f)["schedule"]["blocks"] for s in b["stages"]]
            bad = [s for s in stages if not check(s)]
            tally.check(f"inception {schedule}: every stage obeys the ablation", not bad, str(bad[:2]))

        for name in NETWORKS:
            ref = os.path.join(tmp, name + "_ref")
            result = run([sys.executable, os.path.join(args.source_dir, "scripts", "ort_reference.py"),
                          models[name], "--out", ref, "--batch", "1"])
            if not tally.check(f"{name}: onnxruntime reference", result.returncode == 0, result.stderr):
                continue
            plan = os.path.join(tmp, name + ".iosplan")
            result = run([args.iosc, models[name], "--device", "sim:V100", "--schedule", "ios", "-o", plan])
            if not tally.check(f"{name}: ios plan", result.returncode == 0, result.stderr):
                continue
            # The plan targets the analytic V100; --force runs it on the CPU backend, which is
            # numerically the same program.
            result = run([args.iosrun, plan, "--force", "--check", ref, "--atol", "1e-5", "--rtol", "1e-4"])
            tally.check(f"{name}: ios plan matches onnxruntime", result.returncode == 0,
                        result.stdout + result.stderr)
            os.remove(plan)
    tally.finish()


if __name__ == "__main__":
    main()

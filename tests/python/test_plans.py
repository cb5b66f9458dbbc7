"""plans/ (issue 13): the committed analytic plans are what regeneration gives, regeneration is
byte-reproducible, weight-stripped plans run with their model and refuse another, and iosrun
picks a plan from a folder by fingerprint.

- scripts/regenerate_plans.py --check for every analytic target of plans/manifest.json against
  the committed plans/: nothing changed (CI's "unexpected diff" check; the first target only in
  a sanitizer build);
- two regenerations into a fresh folder give byte-identical plans; the second reports every
  plan unchanged, and its JSON report has a row per entry; for --device cpu, the second run
  takes every timing from the cache kept in timing/ and measures nothing;
- a stripped SqueezeNet merge-only IOS plan (with merged convs), a stripped plan of a PyTorch-style
  model (folded BatchNorms and constants) and a stripped ShuffleNetV2 CPU plan (the CPU lowering's
  Gather indices) run with --weights MODEL and give the full plan's
  outputs bit for bit, and pass --check against onnxruntime; without --weights, or with another
  model, iosrun refuses with exit status 2;
- iosplan diff says a stripped plan and its full twin differ in where the weights are only;
- iosrun FOLDER --device cpu picks the CPU plan among analytic ones, and refuses a folder with
  none for this CPU, naming the plans.
"""
import json
import os
import re
import sys
import tempfile

from ios_test_util import Tally, ensure_models, parse_args, run

ATOL, RTOL = "1e-5", "1e-4"


def main():
    args = parse_args()
    tally = Tally()
    bin_dir = os.path.dirname(os.path.abspath(args.iosc))
    iosplan = os.path.join(bin_dir, "iosplan")
    regenerate = [sys.executable, os.path.join(args.source_dir, "scripts", "regenerate_plans.py"),
                  "--bin", bin_dir, "--models-dir", os.path.join(args.build_dir, "models")]
    plans_dir = os.path.join(args.source_dir, "plans")
    with open(os.path.join(plans_dir, "manifest.json")) as f:
        manifest = json.load(f)

    # A sanitizer build checks one target: the others run the same code on other numbers, and
    # the main build checks them all.
    targets = manifest["analytic_targets"]
    for target in targets[:1] if args.sanitized else targets:
        check = run(regenerate + ["--target", target, "--check"])
        tally.check(f"the committed {target} plans are what regeneration gives",
                    check.returncode == 0, check.stdout + check.stderr)
        print(check.stdout)

    models = ensure_models(args, ["squeezenet", "shufflenet_v2"])
    with tempfile.TemporaryDirectory() as tmp:
        fresh = os.path.join(tmp, "plans")
        entries = "squeezenet-b1,inception_v3-b1"
        snapshots = []
        for i in range(2):
            report = os.path.join(tmp, f"report{i}.json")
            made = run(regenerate + ["--target", "sim:A100", "--plans", fresh, "--manifest",
                                     os.path.join(plans_dir, "manifest.json"), "--entries",
                                     entries, "--json", report])
            if not tally.check(f"regeneration {i + 1} into a fresh folder", made.returncode == 0,
                               made.stdout + made.stderr):
                tally.finish()
            with open(report) as f:
                snapshots.append(json.load(f))
            snapshots[-1]["bytes"] = {
                name: open(os.path.join(fresh, name, "sim-A100.iosplan"), "rb").read()
                for name in entries.split(",")}
        tally.check("regenerating twice gives byte-identical plans",
                    snapshots[0]["bytes"] == snapshots[1]["bytes"])
        tally.check("the first run reports the plans new, the second unchanged",
                    [r["status"] for r in snapshots[0]["plans"]] == ["new", "new"]
                    and [r["status"] for r in snapshots[1]["plans"]] == ["unchanged"] * 2,
                    str([r["status"] for s in snapshots for r in s["plans"]]))
        row = snapshots[1]["plans"][0]
        tally.check("a report row gives predicted and sequential latency and the search time",
                    row["predicted_ms"] and row["sequential_ms"] and row["search_s"] is not None
                    and row["predicted_ms"] < row["sequential_ms"], str(row))

        # A measured target (this CPU): its timing cache is kept beside the plans, so that a
        # rerun measures nothing new and changes nothing.
        measured = []
        for i in range(2):
            report = os.path.join(tmp, f"cpu_report{i}.json")
            made = run(regenerate + ["--device", "cpu", "--plans", fresh, "--manifest",
                                     os.path.join(plans_dir, "manifest.json"), "--entries",
                                     "squeezenet-b1", "--json", report])
            if tally.check(f"regeneration {i + 1} for --device cpu", made.returncode == 0,
                           made.stdout + made.stderr):
                with open(report) as f:
                    measured.append(json.load(f))
        if len(measured) == 2:
            first, second = measured[0]["plans"][0], measured[1]["plans"][0]
            target = measured[0]["target"]
            tally.check("the CPU target is named by its fingerprint, its cache kept in timing/",
                        target.startswith("cpu-") and os.path.exists(
                            os.path.join(fresh, "timing", target + ".cache")), target)
            tally.check("the rerun on the same CPU measures nothing new and changes nothing",
                        first["status"] == "new" and first["distinct_stages_measured"] > 0
                        and second["status"] == "unchanged"
                        and second["distinct_stages_measured"] == 0, f"{first}\n{second}")

        # Stripped plans: one with merged convs (SqueezeNet's merge-only IOS schedule on the
        # analytic model), one with folded BatchNorms and constants (a PyTorch-style export), and
        # a CPU plan whose lowering made constants (ShuffleNetV2's shuffles as Gathers).
        pytorch_model = os.path.join(args.source_dir, "testdata", "models",
                                     "pytorch_style_opset14.onnx")
        cases = [("squeezenet", models["squeezenet"],
                  ["--device", "sim:V100", "--schedule", "ios-merge"], "merged"),
                 ("pytorch_style", pytorch_model, ["--device", "cpu", "--schedule", "greedy"],
                  "folded"),
                 ("shufflenet_v2", models["shufflenet_v2"],
                  ["--device", "cpu", "--schedule", "sequential"], "folded")]
        for label, model, flags, derived in cases:
            full = os.path.join(tmp, f"{label}.iosplan")
            stripped = os.path.join(tmp, f"{label}.stripped.iosplan")
            ok = True
            for plan, extra in ((full, []), (stripped, ["--strip-weights"])):
                made = run([args.iosc, model, "-o", plan, "--progress", "off"] + flags + extra)
                ok &= tally.check(f"{label}: iosc {' '.join(extra) or '(full)'}",
                                  made.returncode == 0, made.stderr)
            if not ok:
                continue
            info = run([args.iosrun, stripped, "--info"]).stdout
            wanted = (r"(\d+) of merged convs" if derived == "merged"
                      else r"(\d+) folded by the passes")
            count = re.search(wanted, info)
            tally.check(f"{label}: --info counts the weights {derived}",
                        "weights stripped" in info and count and int(count.group(1)) > 0, info)
            # SqueezeNet's 5 MB of weights against a plan body of tens of KB.
            factor = 10 if label == "squeezenet" else 1
            tally.check(f"{label}: the stripped plan is {factor}x smaller than the full one",
                        os.path.getsize(stripped) * factor < os.path.getsize(full),
                        f"{os.path.getsize(stripped)} vs {os.path.getsize(full)} bytes")
            ref = os.path.join(tmp, f"{label}_ref")
            made = run([sys.executable, os.path.join(args.source_dir, "scripts", "ort_reference.py"),
                        model, "--out", ref])
            if not tally.check(f"{label}: onnxruntime reference", made.returncode == 0,
                               made.stderr):
                continue
            outputs = {}
            for plan, extra in ((full, []), (stripped, ["--weights", model])):
                out = os.path.join(tmp, f"{label}_out_{len(outputs)}")
                result = run([args.iosrun, plan, "--device", "cpu", "--force", "--check", ref,
                              "--atol", ATOL, "--rtol", RTOL, "--save-outputs", out] + extra)
                tally.check(f"{label}: {os.path.basename(plan)} {' '.join(extra)} passes --check",
                            result.returncode == 0, result.stdout + result.stderr)
                outputs[plan] = {name: open(os.path.join(out, name), "rb").read()
                                 for name in sorted(os.listdir(out))} if os.path.isdir(out) else {}
            tally.check(f"{label}: the rebuilt weights give the full plan's outputs bit for bit",
                        outputs[full] and outputs[full] == outputs[stripped])
            bare = run([args.iosrun, stripped, "--device", "cpu", "--force", "--check", ref])
            tally.check(f"{label}: without --weights the stripped plan is refused (exit 2)",
                        bare.returncode == 2 and "--weights" in bare.stderr, bare.stderr)

        other = run([args.iosrun, os.path.join(tmp, "squeezenet.stripped.iosplan"), "--device",
                     "cpu", "--force", "--weights", pytorch_model])
        tally.check("another model is refused, naming it (exit 2)",
                    other.returncode == 2 and "not the model" in other.stderr
                    and "pytorch_style_opset14.onnx" in other.stderr, other.stderr)
        diff = run([iosplan, "diff", os.path.join(tmp, "squeezenet.iosplan"),
                    os.path.join(tmp, "squeezenet.stripped.iosplan")])
        tally.check("iosplan diff: a stripped plan differs from its twin in the weights only",
                    diff.returncode == 1 and "weights' bytes: in the plan -> stripped"
                    in diff.stdout and "schedule: differs" not in diff.stdout, diff.stdout)

        # A folder with one plan per device: iosrun picks this CPU's.
        folder = os.path.join(tmp, "squeezenet-b1")
        os.makedirs(folder)
        for target in ("sim:V100", "sim:A100"):
            run([args.iosc, models["squeezenet"], "--device", target, "--strip-weights", "-o",
                 os.path.join(folder, "sim-" + target[4:] + ".iosplan"), "--progress", "off"])
        only_sim = run([args.iosrun, folder, "--device", "cpu", "--weights", models["squeezenet"]])
        tally.check("a folder with no plan for this CPU is refused, naming its plans (exit 2)",
                    only_sim.returncode == 2 and "sim-V100.iosplan" in only_sim.stderr
                    and "sim-A100.iosplan" in only_sim.stderr, only_sim.stderr)
        cpu_plan = os.path.join(folder, "cpu.iosplan")
        run([args.iosc, models["squeezenet"], "--device", "cpu", "--schedule", "sequential",
             "--strip-weights", "-o", cpu_plan, "--progress", "off"])
        no_device = run([args.iosrun, folder])
        tally.check("a folder without --device is refused (exit 2)",
                    no_device.returncode == 2 and "--device" in no_device.stderr,
                    no_device.stderr)
        ref = os.path.join(tmp, "squeezenet_ref")
        run([sys.executable, os.path.join(args.source_dir, "scripts", "ort_reference.py"),
             models["squeezenet"], "--out", ref])
        picked = run([args.iosrun, folder, "--device", "cpu", "--weights", models["squeezenet"],
                      "--check", ref, "--atol", ATOL, "--rtol", RTOL])
        tally.check("iosrun FOLDER --device cpu picks the CPU plan and passes --check",
                    picked.returncode == 0 and "picked " + cpu_plan in picked.stderr,
                    picked.stdout + picked.stderr)
    tally.finish()


if __name__ == "__main__":
    main()

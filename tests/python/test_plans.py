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
from types import SimpleNamespace

import pytest

from ios_tools.cli import check_run, ort_reference, run

ATOL, RTOL = "1e-5", "1e-4"
ENTRIES = "squeezenet-b1,inception_v3-b1"


@pytest.fixture(scope="module")
def plans_dir(source_dir):
    return os.path.join(source_dir, "plans")


@pytest.fixture(scope="module")
def regenerate(iosc, build_dir, source_dir):
    bin_dir = os.path.dirname(os.path.abspath(iosc))
    return [sys.executable, os.path.join(source_dir, "scripts", "regenerate_plans.py"),
            "--bin", bin_dir, "--models-dir", os.path.join(build_dir, "models")]


def pytest_generate_tests(metafunc):
    if "target" in metafunc.fixturenames:
        # A sanitizer build checks one target: the others run the same code on other numbers,
        # and the main build checks them all.
        source_dir = os.path.abspath(metafunc.config.getoption("--source-dir"))
        with open(os.path.join(source_dir, "plans", "manifest.json")) as f:
            targets = json.load(f)["analytic_targets"]
        metafunc.parametrize("target", targets[:1] if metafunc.config.getoption("--sanitized")
                             else targets)


def test_the_committed_plans_are_what_regeneration_gives(target, regenerate):
    check = run(regenerate + ["--target", target, "--check"])
    print(check.stdout)
    assert check.returncode == 0, check.stdout + check.stderr


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """A fresh plans folder that the regenerations below fill."""
    return str(tmp_path_factory.mktemp("fresh") / "plans")


@pytest.fixture(scope="module")
def snapshots(regenerate, plans_dir, fresh, tmp_path_factory):
    """Two regenerations of two analytic plans into the fresh folder: each one's JSON report,
    and the plans' bytes after it."""
    tmp = tmp_path_factory.mktemp("reports")
    found = []
    for i in range(2):
        report = tmp / f"report{i}.json"
        check_run(regenerate + ["--target", "sim:A100", "--plans", fresh, "--manifest",
                                os.path.join(plans_dir, "manifest.json"), "--entries", ENTRIES,
                                "--json", report], f"regeneration {i + 1} into a fresh folder")
        found.append(json.loads(report.read_text()))
        found[-1]["bytes"] = {}
        for name in ENTRIES.split(","):
            with open(os.path.join(fresh, name, "sim-A100.iosplan"), "rb") as f:
                found[-1]["bytes"][name] = f.read()
    return found


def test_regenerating_twice_gives_byte_identical_plans(snapshots):
    assert snapshots[0]["bytes"] == snapshots[1]["bytes"]


def test_the_first_run_reports_the_plans_new_the_second_unchanged(snapshots):
    statuses = [[r["status"] for r in s["plans"]] for s in snapshots]
    assert statuses == [["new", "new"], ["unchanged"] * 2], statuses


def test_a_report_row_gives_predicted_and_sequential_latency_and_the_search_time(snapshots):
    row = snapshots[1]["plans"][0]
    assert row["predicted_ms"] and row["sequential_ms"] and row["search_s"] is not None \
        and row["predicted_ms"] < row["sequential_ms"], row


@pytest.fixture(scope="module")
def measured(regenerate, plans_dir, fresh, snapshots, tmp_path_factory):
    """A measured target (this CPU), regenerated twice: its timing cache is kept beside the
    plans, so that a rerun measures nothing new and changes nothing."""
    tmp = tmp_path_factory.mktemp("cpu_reports")
    found = []
    for i in range(2):
        report = tmp / f"cpu_report{i}.json"
        check_run(regenerate + ["--device", "cpu", "--plans", fresh, "--manifest",
                                os.path.join(plans_dir, "manifest.json"), "--entries",
                                "squeezenet-b1", "--json", report],
                  f"regeneration {i + 1} for --device cpu")
        found.append(json.loads(report.read_text()))
    return found


def test_the_cpu_target_is_named_by_its_fingerprint_its_cache_kept_in_timing(measured, fresh):
    target = measured[0]["target"]
    assert target.startswith("cpu-"), target
    assert os.path.exists(os.path.join(fresh, "timing", target + ".cache"))


def test_the_rerun_on_the_same_cpu_measures_nothing_new_and_changes_nothing(measured):
    first, second = measured[0]["plans"][0], measured[1]["plans"][0]
    assert first["status"] == "new" and first["distinct_stages_measured"] > 0 \
        and second["status"] == "unchanged" and second["distinct_stages_measured"] == 0, \
        f"{first}\n{second}"


@pytest.fixture(scope="module")
def pytorch_model(source_dir):
    return os.path.join(source_dir, "testdata", "models", "pytorch_style_opset14.onnx")


@pytest.fixture(scope="module")
def nets(models):
    return models(["squeezenet", "shufflenet_v2"])


# Stripped plans: one with merged convs (SqueezeNet's merge-only IOS schedule on the analytic
# model), one with folded BatchNorms and constants (a PyTorch-style export), and a CPU plan whose
# lowering made constants (ShuffleNetV2's shuffles as Gathers).
CASES = {"squeezenet": (["--device", "sim:V100", "--schedule", "ios-merge"], "merged"),
         "pytorch_style": (["--device", "cpu", "--schedule", "greedy"], "folded"),
         "shufflenet_v2": (["--device", "cpu", "--schedule", "sequential"], "folded")}


@pytest.fixture(scope="module", params=list(CASES))
def stripped(request, nets, pytorch_model, iosc, iosrun, tmp_path_factory):
    """A model's full and weight-stripped plans, onnxruntime's reference, and each plan's
    iosrun --check run (the stripped one with --weights) with the outputs it saved."""
    label = request.param
    flags, derived = CASES[label]
    model = pytorch_model if label == "pytorch_style" else nets[label]
    tmp = tmp_path_factory.mktemp(label)
    full, stripped_plan = str(tmp / f"{label}.iosplan"), str(tmp / f"{label}.stripped.iosplan")
    for plan, extra in ((full, []), (stripped_plan, ["--strip-weights"])):
        check_run([iosc, model, "-o", plan, "--progress", "off"] + flags + extra,
                  f"iosc {' '.join(extra) or '(full)'}")
    ref = ort_reference(model, tmp / "ref")
    checks, outputs = {}, {}
    for name, plan, extra in (("full", full, []), ("stripped", stripped_plan,
                                                   ["--weights", model])):
        out = tmp / f"out_{name}"
        checks[name] = run([iosrun, plan, "--device", "cpu", "--force", "--check", ref,
                            "--atol", ATOL, "--rtol", RTOL, "--save-outputs", out] + extra)
        outputs[name] = {p.name: p.read_bytes() for p in sorted(out.iterdir())} \
            if out.is_dir() else {}
    return SimpleNamespace(label=label, model=model, derived=derived, full=full,
                           stripped=stripped_plan, ref=ref, checks=checks, outputs=outputs)


def test_info_counts_the_weights_stripped_and_derived(stripped, iosrun):
    info = run([iosrun, stripped.stripped, "--info"]).stdout
    wanted = (r"(\d+) of merged convs" if stripped.derived == "merged"
              else r"(\d+) folded by the passes")
    count = re.search(wanted, info)
    assert "weights stripped" in info and count and int(count.group(1)) > 0, info


def test_the_stripped_plan_is_smaller_than_the_full_one(stripped):
    # SqueezeNet's 5 MB of weights against a plan body of tens of KB.
    factor = 10 if stripped.label == "squeezenet" else 1
    assert os.path.getsize(stripped.stripped) * factor < os.path.getsize(stripped.full)


@pytest.mark.parametrize("which", ["full", "stripped"])
def test_plan_passes_check(stripped, which):
    result = stripped.checks[which]
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_rebuilt_weights_give_the_full_plans_outputs_bit_for_bit(stripped):
    assert stripped.outputs["full"] and stripped.outputs["full"] == stripped.outputs["stripped"]


def test_without_weights_the_stripped_plan_is_refused(stripped, iosrun):
    bare = run([iosrun, stripped.stripped, "--device", "cpu", "--force", "--check",
                stripped.ref])
    assert bare.returncode == 2 and "--weights" in bare.stderr, bare.stderr


@pytest.fixture(scope="module")
def squeezenet_plans(iosc, nets, tmp_path_factory):
    """SqueezeNet's full and stripped plans for the analytic V100 model."""
    tmp = tmp_path_factory.mktemp("squeezenet")
    full, stripped_plan = str(tmp / "full.iosplan"), str(tmp / "stripped.iosplan")
    for plan, extra in ((full, []), (stripped_plan, ["--strip-weights"])):
        check_run([iosc, nets["squeezenet"], "-o", plan, "--progress", "off", "--device",
                   "sim:V100", "--schedule", "ios-merge"] + extra, "iosc")
    return full, stripped_plan


def test_another_model_is_refused_naming_it(squeezenet_plans, pytorch_model, iosrun):
    other = run([iosrun, squeezenet_plans[1], "--device", "cpu", "--force", "--weights",
                 pytorch_model])
    assert other.returncode == 2 and "not the model" in other.stderr \
        and "pytorch_style_opset14.onnx" in other.stderr, other.stderr


def test_iosplan_diff_a_stripped_plan_differs_from_its_twin_in_the_weights_only(
        squeezenet_plans, iosc):
    iosplan = os.path.join(os.path.dirname(os.path.abspath(iosc)), "iosplan")
    diff = run([iosplan, "diff", *squeezenet_plans])
    assert diff.returncode == 1 and "weights' bytes: in the plan -> stripped" in diff.stdout \
        and "schedule: differs" not in diff.stdout, diff.stdout


@pytest.fixture(scope="module")
def folder(iosc, nets, tmp_path_factory):
    """A folder with one stripped SqueezeNet plan per analytic device."""
    path = tmp_path_factory.mktemp("folder") / "squeezenet-b1"
    path.mkdir()
    for target in ("sim:V100", "sim:A100"):
        check_run([iosc, nets["squeezenet"], "--device", target, "--strip-weights", "-o",
                   path / ("sim-" + target[4:] + ".iosplan"), "--progress", "off"], "iosc")
    return path


def test_a_folder_with_no_plan_for_this_cpu_is_refused_naming_its_plans(folder, nets, iosrun):
    only_sim = run([iosrun, folder, "--device", "cpu", "--weights", nets["squeezenet"]])
    assert only_sim.returncode == 2 and "sim-V100.iosplan" in only_sim.stderr \
        and "sim-A100.iosplan" in only_sim.stderr, only_sim.stderr


def test_iosrun_folder_picks_the_cpu_plan(folder, nets, iosc, iosrun, tmp_path):
    """Without --device a folder is refused (exit 2); with --device cpu iosrun picks the CPU
    plan and passes --check."""
    cpu_plan = str(folder / "cpu.iosplan")
    check_run([iosc, nets["squeezenet"], "--device", "cpu", "--schedule", "sequential",
               "--strip-weights", "-o", cpu_plan, "--progress", "off"], "iosc")
    no_device = run([iosrun, folder])
    assert no_device.returncode == 2 and "--device" in no_device.stderr, no_device.stderr
    ref = ort_reference(nets["squeezenet"], tmp_path / "ref")
    picked = run([iosrun, folder, "--device", "cpu", "--weights", nets["squeezenet"], "--check",
                  ref, "--atol", ATOL, "--rtol", RTOL])
    assert picked.returncode == 0 and "picked " + cpu_plan in picked.stderr, \
        picked.stdout + picked.stderr

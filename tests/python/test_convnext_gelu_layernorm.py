"""Gelu and LayerNormalization end to end, against onnxruntime: a small ConvNeXt-style network
(scripts/models/convnext_block.py) written three ways (the Gelu and LayerNormalization ops at
opset 20, GELU as the Erf subgraph at opset 17, everything decomposed at opset 13). For each, at
batch 1 and 2: iosc compiles it (greedy, and the IOS search profiled on this CPU), its
statistics (--stats-json) count the fusions the variant should get, the plan holds the fused
ops, and iosrun --check matches onnxruntime on the original file; the same with the two fusions
turned off (the Erf, Tanh, Pow and ReduceMean kernels run instead); and --emit-onnx (the fused
nodes written back for the model's opset) matches onnxruntime too."""
import json
import os
import sys

import pytest

from ios_test_util import plan_ops, run

ATOL, RTOL = "1e-5", "1e-4"
UNFUSED = "fold-constants,eliminate-identity,fold-batchnorm,fuse-activation"
FLAVOURS = {"greedy": ["--schedule", "greedy"], "ios": ["--schedule", "ios"],
            "unfused": ["--schedule", "greedy", "--passes", UNFUSED]}
BATCHES = ("1", "2")


def expected_fusions():
    """convnext_block.EXPECTED_FUSIONS, read before the tests are collected."""
    from models import convnext_block  # scripts/ is on the path (pytest.ini)
    return convnext_block.EXPECTED_FUSIONS


EXPECTED = expected_fusions()
VARIANTS = sorted(EXPECTED)


@pytest.fixture(scope="module")
def work(args, tmp_path_factory):
    """The three variants written by convnext_block.py."""
    tmp = tmp_path_factory.mktemp("convnext")
    generated = run([sys.executable, os.path.join(args.source_dir, "scripts", "models",
                                                  "convnext_block.py"), "--out", tmp])
    assert generated.returncode == 0, generated.stderr
    return tmp


@pytest.fixture(scope="module")
def reference(args, work):
    """onnxruntime's outputs for a variant at a batch (a folder), made once each."""
    made = {}

    def folder(variant, batch):
        if (variant, batch) not in made:
            ref = work / f"ref_{variant}_b{batch}"
            result = run([sys.executable,
                          os.path.join(args.source_dir, "scripts", "ort_reference.py"),
                          work / f"convnext_{variant}.onnx", "--out", ref, "--batch", batch])
            assert result.returncode == 0, result.stderr
            made[(variant, batch)] = ref
        return made[(variant, batch)]
    return folder


@pytest.fixture(scope="module")
def compiled(args, work):
    """iosc on a variant at a batch, one flavour: (plan, stats, the plan's op types), once."""
    done = {}

    def plan(variant, batch, flavour):
        key = (variant, batch, flavour)
        if key not in done:
            path = work / f"{variant}_b{batch}_{flavour}.iosplan"
            stats_path = work / f"{variant}_b{batch}_{flavour}.json"
            result = run([args.iosc, work / f"convnext_{variant}.onnx", "--batch", batch, "-o",
                          path, "--stats-json", stats_path] + FLAVOURS[flavour])
            assert result.returncode == 0, result.stderr
            with open(stats_path) as f:
                stats = json.load(f)
            done[key] = (path, stats, plan_ops(args, path, str(work)))
        return done[key]
    return plan


def fusions(stats):
    canonicalize = stats["canonicalize"]
    return canonicalize["gelus_fused"], canonicalize["layer_norms_fused"]


@pytest.mark.parametrize("flavour", sorted(FLAVOURS))
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_plan_matches_onnxruntime(args, compiled, reference, variant, batch, flavour):
    plan, _, _ = compiled(variant, batch, flavour)
    checked = run([args.iosrun, plan, "--check", reference(variant, batch), "--atol", ATOL,
                   "--rtol", RTOL])
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize("schedule", ["greedy", "ios"])
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_the_variants_fusions(compiled, variant, batch, schedule):
    _, stats, _ = compiled(variant, batch, schedule)
    assert fusions(stats) == EXPECTED[variant], stats["canonicalize"]


@pytest.mark.parametrize("schedule", ["greedy", "ios"])
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_the_plan_runs_two_gelu_and_two_layernorm_ops(compiled, variant, batch, schedule):
    _, _, ops = compiled(variant, batch, schedule)
    assert ops.count("Gelu") == 2 and ops.count("LayerNormalization") == 2, sorted(set(ops))


@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_without_the_fusion_passes_nothing_is_fused(compiled, variant, batch):
    _, stats, _ = compiled(variant, batch, "unfused")
    assert fusions(stats) == (0, 0), stats["canonicalize"]


@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("variant", [v for v in VARIANTS if v != "opset20_ops"])
def test_without_the_fusion_passes_the_plan_runs_the_erf_subgraph(compiled, variant, batch):
    _, _, ops = compiled(variant, batch, "unfused")
    assert "Erf" in ops, sorted(set(ops))


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_emitted_graph_matches_onnxruntime(args, work, variant):
    model = work / f"convnext_{variant}.onnx"
    emitted = work / f"canonical_{variant}.onnx"
    result = run([args.iosc, model, "--batch", "2", "--emit-onnx", emitted])
    assert result.returncode == 0, result.stderr
    compare = run([sys.executable,
                   os.path.join(args.source_dir, "scripts", "compare_onnx_models.py"), model,
                   emitted, "--batch", "2", "--atol", ATOL, "--rtol", RTOL])
    assert compare.returncode == 0, compare.stdout + compare.stderr


"""Each canonicalisation pass, alone and all together, preserves what the model computes:
onnxruntime on the original file against onnxruntime on iosc's --emit-onnx output. (The GELU
and LayerNorm fusions have nothing to fuse in these models; test_convnext_gelu_layernorm.py
checks them on models that have.) In a sanitizer build, only iosc's runs (the comparisons run
onnxruntime alone)."""
import os
import sys

import pytest

from ios_tools.cli import run

SMALL_MODELS = ["pytorch_style_opset14", "opset7_legacy", "opset11_tf2onnx_style",
                "opset21_inputs_form", "residual_blocks_opset17"]
# RandWire repeats ReLUs that the common subexpression elimination merges.
BENCHMARKS = ["inception_v3", "squeezenet", "randwire"]
PASS_SETS = [
    "fold-constants",
    "fold-constants,eliminate-identity",
    "fold-constants,eliminate-common-subexpressions",
    "fold-constants,fold-batchnorm",
    "fold-constants,fuse-activation",
    "fold-constants,eliminate-identity,eliminate-common-subexpressions,fuse-gelu,fuse-layer-norm,"
    "fold-batchnorm,fuse-activation",
]
# fp32: BatchNorm folding rescales weights once (W * s) instead of scaling every output, which
# reorders roundings; 1e-4 relative on values of magnitude ~1 is the tolerance used throughout.
ATOL, RTOL = "1e-5", "1e-4"


CASES = ([(name, batch, passes) for name in SMALL_MODELS for passes in PASS_SETS
          for batch in ("1", "2")]
         + [(name, "1", PASS_SETS[-1]) for name in BENCHMARKS])


@pytest.mark.parametrize("name, batch, passes", CASES,
                         ids=[f"{n}-b{b}-{p}" for n, b, p in CASES])
def test_emitted_onnx_matches_onnxruntime(name, batch, passes, source_dir, models, sanitized,
                                          iosc, tmp_path):
    if name in BENCHMARKS:
        model = models([name])[name]
    else:
        model = os.path.join(source_dir, "testdata", "models", name + ".onnx")
    out = tmp_path / "canonical.onnx"
    result = run([iosc, model, "--batch", batch, "--passes", passes, "--emit-onnx", out])
    assert result.returncode == 0, result.stderr.strip()
    if sanitized:  # the comparison runs only onnxruntime: nothing of ios to sanitize
        return
    compare = run([sys.executable, os.path.join(source_dir, "scripts", "compare_onnx_models.py"),
                   model, out, "--batch", batch, "--atol", ATOL, "--rtol", RTOL])
    assert compare.returncode == 0, compare.stdout.strip() + compare.stderr.strip()

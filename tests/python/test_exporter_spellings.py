"""Issue 50, one network whatever the exporter: each idiom of scripts/models/exporter_spellings.py
(global pooling as GlobalAveragePool or ReduceMean, GlobalMaxPool or ReduceMax, HardSwish and
HardSigmoid as ops or subgraphs, SiLU either way round, the classifier as Gemm or MatMul + Add,
BatchNormalization after a ConvTranspose or folded, a chunk as Slices or Split, copies the
TorchScript exporter leaves, ConvNeXt's as_strided head as a Gather) is compiled for the CPU
(sequential schedule, batch 1) in every spelling. Every spelling's plan holds the same ops (op
types with their fused activations, as a multiset) as the idiom's first spelling, none of the
ops canonicalisation removes, and iosrun --check matches onnxruntime on the spelling's own
file."""
import collections
import os
import sys

import pytest

from ios_tools.cli import check_run, ort_reference, plan_info, run
from models.exporter_spellings import IDIOMS

ATOL, RTOL = "1e-5", "1e-4"

# Ops that no plan of the idiom may hold once canonicalised.
REMOVED = {
    "global_pool": {"ReduceMean", "Reshape"},
    "global_max_pool": {"ReduceMax"},
    "hard_swish": {"Clip", "Min", "Max", "Div"},
    "silu": set(),
    "linear": {"MatMul", "Reshape"},
    "conv_transpose_bn": {"BatchNormalization"},
    "chunk": {"Slice"},
    "copies": {"Slice"},
    "as_strided": {"Gather", "Reshape"},
}


def plan_ops(iosrun, plan, tmp):
    """The plan's ops as 'OpType' or 'OpType+Activation', in a multiset."""
    ops = collections.Counter()
    for op in plan_info(iosrun, plan, tmp)["ops"]:
        label = op["op_type"]
        for attr in op.get("attributes", []):
            if attr["name"] == "ios.activation" and attr.get("s", "None") != "None":
                label += "+" + attr["s"]
        ops[label] += 1
    return ops


SPELLINGS = [(idiom, spelling) for idiom, (_, spellings) in IDIOMS.items()
             for spelling in spellings]
# Each spelling but the idiom's first, which the others are compared with.
OTHER_SPELLINGS = [(idiom, spelling) for idiom, spelling in SPELLINGS
                   if spelling != IDIOMS[idiom][1][0]]


@pytest.fixture(scope="module")
def models_dir(source_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("spellings")
    check_run([sys.executable, os.path.join(source_dir, "scripts", "models",
                                            "exporter_spellings.py"), "--out", out],
              "exporter_spellings.py")
    return out


@pytest.fixture(scope="module")
def compiled(models_dir, iosc, iosrun, tmp_path_factory):
    """(idiom, spelling) -> (the plan, its ops), compiled once for the CPU (sequential, b1)."""
    made = {}

    def get(idiom, spelling):
        if (idiom, spelling) not in made:
            label = f"{idiom}.{spelling}"
            tmp = tmp_path_factory.mktemp(label)
            plan = str(tmp / "plan.iosplan")
            check_run([iosc, models_dir / (label + ".onnx"), "--device", "cpu", "--schedule",
                       "sequential", "--batch", "1", "-o", plan], "iosc")
            made[(idiom, spelling)] = plan, plan_ops(iosrun, plan, tmp)
        return made[(idiom, spelling)]
    return get


@pytest.mark.parametrize("idiom, spelling", SPELLINGS, ids=[f"{i}.{s}" for i, s in SPELLINGS])
def test_no_removed_op_left(idiom, spelling, compiled):
    _, ops = compiled(idiom, spelling)
    assert not REMOVED[idiom] & set(ops), sorted(ops.items())


@pytest.mark.parametrize("idiom, spelling", OTHER_SPELLINGS,
                         ids=[f"{i}.{s}" for i, s in OTHER_SPELLINGS])
def test_the_plans_ops_are_the_first_spellings(idiom, spelling, compiled):
    first = IDIOMS[idiom][1][0]
    _, ops = compiled(idiom, spelling)
    _, first_ops = compiled(idiom, first)
    assert ops == first_ops, f"{sorted(ops.items())} vs {first}'s {sorted(first_ops.items())}"


@pytest.mark.parametrize("idiom, spelling", SPELLINGS, ids=[f"{i}.{s}" for i, s in SPELLINGS])
def test_matches_onnxruntime(idiom, spelling, models_dir, compiled, iosrun, tmp_path):
    label = f"{idiom}.{spelling}"
    ref = ort_reference(str(models_dir / (label + ".onnx")), tmp_path / "ref", "--batch", "1")
    plan, _ = compiled(idiom, spelling)
    checked = run([iosrun, plan, "--check", ref, "--atol", ATOL, "--rtol", RTOL])
    assert checked.returncode == 0, checked.stdout + checked.stderr

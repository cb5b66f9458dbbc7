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
import tempfile

from ios_test_util import Tally, parse_args, plan_info, run

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


def plan_ops(args, plan, tmp):
    """The plan's ops as 'OpType' or 'OpType+Activation', in a multiset."""
    ops = collections.Counter()
    for op in plan_info(args, plan, tmp)["ops"]:
        label = op["op_type"]
        for attr in op.get("attributes", []):
            if attr["name"] == "ios.activation" and attr.get("s", "None") != "None":
                label += "+" + attr["s"]
        ops[label] += 1
    return ops


def main():
    args = parse_args()
    tally = Tally()
    scripts = os.path.join(args.source_dir, "scripts")
    sys.path.insert(0, scripts)
    from models.exporter_spellings import IDIOMS  # noqa: E402
    with tempfile.TemporaryDirectory() as tmp:
        made = run([sys.executable, os.path.join(scripts, "models", "exporter_spellings.py"),
                    "--out", tmp])
        if not tally.check("exporter_spellings.py writes the models", made.returncode == 0,
                           made.stderr):
            tally.finish()
        for idiom, (_, spellings) in IDIOMS.items():
            first_ops = None
            for spelling in spellings:
                label = f"{idiom}.{spelling}"
                model = os.path.join(tmp, label + ".onnx")
                ref = os.path.join(tmp, "ref_" + label)
                reference = run([sys.executable, os.path.join(scripts, "ort_reference.py"),
                                 model, "--out", ref, "--batch", "1"])
                if not tally.check(f"{label}: onnxruntime reference", reference.returncode == 0,
                                   reference.stderr):
                    continue
                plan = os.path.join(tmp, label + ".iosplan")
                compiled = run([args.iosc, model, "--device", "cpu", "--schedule", "sequential",
                                "--batch", "1", "-o", plan])
                if not tally.check(f"{label}: iosc", compiled.returncode == 0, compiled.stderr):
                    continue
                ops = plan_ops(args, plan, tmp)
                left = REMOVED[idiom] & set(ops)
                tally.check(f"{label}: no {sorted(REMOVED[idiom])} left", not left,
                            str(sorted(ops.items())))
                if first_ops is None:
                    first_ops = ops
                else:
                    tally.check(f"{label}: the plan's ops are {spellings[0]}'s", ops == first_ops,
                                f"{sorted(ops.items())} vs {sorted(first_ops.items())}")
                checked = run([args.iosrun, plan, "--check", ref, "--atol", ATOL, "--rtol", RTOL])
                tally.check(f"{label}: matches onnxruntime", checked.returncode == 0,
                            checked.stdout + checked.stderr)
    tally.finish()


if __name__ == "__main__":
    main()

"""The block and unit structure iosc finds in the four benchmark networks equals the figures of
the reference implementation (../shared/reference-models/README.md), on the graph as the
reference sees it: every branch computes its own ReLUs and pools, which iosc's default
canonicalisation merges (eliminate-common-subexpressions; checked here against a count made
from the ONNX file)."""
import json
import os
import re
import tempfile

import onnx

from ios_test_util import Tally, ensure_models, parse_args, run

# Every canonicalisation pass but the merging of repeated ops: the reference's units.
REFERENCE_PASSES = ["--passes", "fold-constants,eliminate-identity,fuse-gelu,fuse-layer-norm,"
                    "fold-batchnorm,fuse-activation"]

# Units per block, and (units, width) of the block the paper's Table 1 counts (the widest one;
# the README calls it the largest), from the reference README.
EXPECTED = {
    "inception_v3": ([7, 9, 9, 9, 6, 12, 12, 12, 12, 8, 11, 11, 1], (11, 6)),
    "squeezenet": ([2, 6, 5, 6, 1, 5, 6, 5, 6, 1, 5, 2], (6, 3)),
    "randwire": ([1, 17, 33, 33, 33, 3], (33, 8)),
}
# The reference counts 374: it materialises stem0's c1 = maxpool(x1) + SEP_STEM(x) as an explicit
# aggregation although only the cell's output concat reads it, and folds the identical c2..c4 into
# that concat. In ONNX the four are the same structure (a Sum read once by the Concat), so ios
# folds all four; see docs/architecture.md, "Schedule units".
NASNET_UNITS = 374 - 1
# The reference's widest NasNet part (one cell) has width 8. ios cuts at the same narrowest
# positions (the cell outputs) but keeps each cell's output concat in the cell's part instead of
# a part of its own, which adds one to the widest part's width.
NASNET_WIDEST_PART = 8 + 1


def dump_blocks(args, model, extra=()):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "blocks.json")
        result = run([args.iosc, model, "--dump-blocks", path, *extra])
        if result.returncode != 0:
            raise SystemExit(f"iosc failed on {model}: {result.stderr}")
        with open(path) as f:
            return json.load(f), result.stdout


def repeated_ops(path):
    """Nodes that repeat an earlier node: the same op and attributes on the same inputs (the same
    values, or initializers of the same type, shape and bytes). An output of the graph's own
    stays."""
    graph = onnx.load(path).graph
    rename = {}
    for init in graph.initializer:
        content = (init.data_type, tuple(init.dims), onnx.numpy_helper.to_array(init).tobytes())
        rename[init.name] = rename.setdefault(content, init.name)
    graph_outputs = {o.name for o in graph.output}
    seen = {}
    repeated = 0
    for node in graph.node:
        inputs = tuple(rename.get(i, i) for i in node.input)
        attrs = tuple(sorted(a.SerializeToString() for a in node.attribute))
        key = (node.domain, node.op_type, inputs, attrs)
        if key in seen and not any(o in graph_outputs for o in node.output):
            repeated += 1
            for mine, kept in zip(node.output, seen[key].output):
                rename[mine] = kept
        else:
            seen.setdefault(key, node)
    return repeated


def main():
    args = parse_args()
    tally = Tally()
    models = ensure_models(args, list(EXPECTED) + ["nasnet"])
    for name in ("nasnet", "randwire", "inception_v3"):
        reference_dump, _ = dump_blocks(args, models[name], REFERENCE_PASSES)
        dump, summary = dump_blocks(args, models[name])
        merged = re.search(r"(\d+) repeated ops merged", summary)
        want = repeated_ops(models[name])
        tally.check(f"{name} repeated ops merged", merged and int(merged.group(1)) == want,
                    f"got {merged and merged.group(0)}, want {want}")
        ops = sum(len(u["nodes"]) for b in dump["blocks"] for u in b["unit_list"])
        reference_ops = sum(len(u["nodes"]) for b in reference_dump["blocks"]
                            for u in b["unit_list"])
        # At least the repeats go; a merged ReLU whose conv now has no other reader fuses too.
        tally.check(f"{name} ops without the repeats", ops <= reference_ops - want,
                    f"{ops} against {reference_ops}")
    for name, (units, (largest_units, largest_width)) in EXPECTED.items():
        dump, summary = dump_blocks(args, models[name], REFERENCE_PASSES)
        got = [b["units"] for b in dump["blocks"]]
        tally.check(f"{name} units per block", got == units, f"got {got}, want {units}")
        tally.check(f"{name} total units", dump["total_units"] == sum(units),
                    f"got {dump['total_units']}")
        largest = max(dump["blocks"], key=lambda b: (b["width"], b["units"]))
        tally.check(f"{name} widest block", (largest["units"], largest["width"]) ==
                    (largest_units, largest_width),
                    f"got {(largest['units'], largest['width'])}")
        tally.check(f"{name} summary printed", f"{len(units)} blocks, {sum(units)} units" in summary,
                    summary)
        for block in dump["blocks"]:
            listed = sum(len(u["nodes"]) > 0 for u in block["unit_list"])
            if not tally.check(f"{name} block lists its units", listed == block["units"]):
                break

    dump, _ = dump_blocks(args, models["nasnet"], REFERENCE_PASSES)
    tally.check("nasnet total units", dump["total_units"] == NASNET_UNITS,
                f"got {dump['total_units']}")
    parts = [p for b in dump["blocks"] for p in b["parts"]]
    tally.check("nasnet parts within the default limit", all(p["units"] <= 50 for p in parts),
                str([p["units"] for p in parts]))
    tally.check("nasnet widest part", max(p["width"] for p in parts) == NASNET_WIDEST_PART,
                str([(p["units"], p["width"]) for p in parts]))
    dump, _ = dump_blocks(args, models["nasnet"], ["--part-limit", "18"])  # the default passes
    parts = [p for b in dump["blocks"] for p in b["parts"]]
    tally.check("nasnet parts within --part-limit 18", all(p["units"] <= 18 for p in parts),
                str([p["units"] for p in parts]))
    tally.finish()


if __name__ == "__main__":
    main()

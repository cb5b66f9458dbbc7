"""The block and unit structure iosc finds in the four benchmark networks equals the figures of
the reference implementation (../shared/reference-models/README.md)."""
import json
import os
import tempfile

from ios_test_util import Tally, ensure_models, parse_args, run

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


def main():
    args = parse_args()
    tally = Tally()
    models = ensure_models(args, list(EXPECTED) + ["nasnet"])
    for name, (units, (largest_units, largest_width)) in EXPECTED.items():
        dump, summary = dump_blocks(args, models[name])
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

    dump, _ = dump_blocks(args, models["nasnet"])
    tally.check("nasnet total units", dump["total_units"] == NASNET_UNITS,
                f"got {dump['total_units']}")
    parts = [p for b in dump["blocks"] for p in b["parts"]]
    tally.check("nasnet parts within the default limit", all(p["units"] <= 50 for p in parts),
                str([p["units"] for p in parts]))
    tally.check("nasnet widest part", max(p["width"] for p in parts) == NASNET_WIDEST_PART,
                str([(p["units"], p["width"]) for p in parts]))
    dump, _ = dump_blocks(args, models["nasnet"], ["--part-limit", "18"])
    parts = [p for b in dump["blocks"] for p in b["parts"]]
    tally.check("nasnet parts within --part-limit 18", all(p["units"] <= 18 for p in parts),
                str([p["units"] for p in parts]))
    tally.finish()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""docs/operators.md is `iosc --list-ops`'s table with the CPU speed column of
docs/cpu-op-speed.json (scripts/op_table.py writes it): the page must stay true. With a build
without the CUDA backend, only the op list and the reference/CPU columns are compared. Every op
the CPU runs on a kernel of its own must have a measured speed, and the ops on the reference
kernel must be the ones compiling folds."""
import json
import os
import sys

from ios_test_util import Tally, parse_args, run

FOLDED = {"Shape", "Constant", "ConstantOfShape", "Range"}


def rows(text):
    """op -> its table row's cells."""
    table = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) in (4, 5) and cells[0] not in ("op", "---"):
            table[cells[0]] = cells
    return table


def main():
    args = parse_args()
    tally = Tally()
    result = run([args.iosc, "--list-ops"])
    tally.check("iosc --list-ops exits 0", result.returncode == 0, result.stderr)
    with open(os.path.join(args.source_dir, "docs", "operators.md")) as f:
        page = f.read()
    listed = rows(result.stdout)
    tally.check("the table lists the ops", len(listed) >= 50, str(len(listed)))
    tally.check("Conv runs on the CPU's own kernel", listed.get("Conv", [""] * 4)[2] == "own kernel",
                str(listed.get("Conv")))
    on_reference = {op for op, cells in listed.items() if cells[2] == "reference"}
    tally.check("only the ops compiling folds run the CPU's reference kernel",
                on_reference <= FOLDED, str(sorted(on_reference - FOLDED)))
    with open(os.path.join(args.source_dir, "docs", "cpu-op-speed.json")) as f:
        speed = json.load(f)
    measured = speed["ios_over_onnxruntime"]
    unmeasured = sorted(op for op, cells in listed.items()
                        if cells[2] == "own kernel" and not isinstance(measured.get(op), float))
    tally.check("every op with a CPU kernel of its own has a measured speed "
                "(scripts/bench_ops.py --write-speed docs/cpu-op-speed.json)",
                not unmeasured, str(unmeasured))
    sys.path.insert(0, os.path.join(args.source_dir, "scripts"))
    from op_table import render  # noqa: E402 (scripts/op_table.py)
    expected = render(result.stdout, speed)
    if "(not built)" in result.stdout:
        documented = rows(page)
        generated = rows(expected)
        tally.check("docs/operators.md lists the same ops", sorted(documented) == sorted(listed),
                    str(set(documented) ^ set(listed)))
        tally.check("docs/operators.md has the same reference, CPU and speed columns",
                    all(documented[op][:4] == generated[op][:4] for op in listed
                        if op in documented))
    else:
        tally.check("docs/operators.md is what scripts/op_table.py writes (regenerate it with "
                    "`python3 scripts/op_table.py --out docs/operators.md`)", page == expected)
    tally.finish()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""docs/operators.md is the output of `iosc --list-ops`: the page must stay true. With a build
without the CUDA backend, only the op list and the reference/CPU columns are compared."""
import os

from ios_test_util import Tally, parse_args, run


def rows(text):
    """op -> its table row's cells."""
    table = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 4 and cells[0] not in ("op", "---"):
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
    if "(not built)" in result.stdout:
        documented = rows(page)
        tally.check("docs/operators.md lists the same ops", sorted(documented) == sorted(listed),
                    str(set(documented) ^ set(listed)))
        tally.check("docs/operators.md has the same reference and CPU columns",
                    all(documented[op][:3] == listed[op][:3] for op in listed if op in documented))
    else:
        tally.check("docs/operators.md equals `iosc --list-ops` (regenerate it with "
                    "`iosc --list-ops > docs/operators.md`)", page == result.stdout)
    tally.finish()


if __name__ == "__main__":
    main()

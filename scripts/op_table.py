#!/usr/bin/env python3
"""Writes docs/operators.md: the op table `iosc --list-ops` prints, with the CPU speed column
that scripts/bench_ops.py measured against onnxruntime (its --write-speed file,
docs/cpu-op-speed.json) added after the CPU column.

    op_table.py --iosc build/tools/iosc [--speed docs/cpu-op-speed.json] [--out docs/operators.md]

Without --out the page goes to stdout. tests/python/test_operator_table.py checks that the
committed page is what this writes.
"""
import argparse
import json
import os
import subprocess
import sys

from ios_tools.files import write_atomically

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLUMN = "CPU time ÷ onnxruntime"


def speed_cell(value):
    if value is None:
        return "-"
    if value == "folded":
        return "folded"
    return f"{value:.2f}x"


def render(list_ops, speed):
    """`list_ops` (iosc --list-ops's page) with the speed column and a paragraph saying where
    its figures come from; `speed` is the --write-speed JSON (a dict)."""
    ratios = speed.get("ios_over_onnxruntime", {})
    out = []
    for line in list_ops.splitlines():
        if line.startswith("| op | reference | CPU |"):
            cells = line.split("|")
            cells.insert(4, f" {COLUMN} ")
            out.append(
                "The CPU speed column is the op's time on ios's CPU backend over onnxruntime's, "
                "as a\none-node model at sizes typical of CNNs (scripts/bench_ops.py: kernel "
                "times from both\nprofilers, interleaved rounds, the worst of the op's cases; "
                f"{speed.get('threads', '?')} threads, "
                f"onnxruntime {speed.get('onnxruntime', '?')},\n{speed.get('cpu', '?')}, "
                f"measured {speed.get('measured', '?')}). Below 1 ios is faster. \"folded\": "
                "compiling turns\nthe op into a constant.\n")
            out.append("|".join(cells))
        elif line.startswith("|---|"):
            out.append(line + "---|")
        elif line.startswith("| "):
            cells = line.split("|")
            op = cells[1].strip()
            cells.insert(4, f" {speed_cell(ratios.get(op))} ")
            out.append("|".join(cells))
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iosc", default=os.path.join(ROOT, "build", "tools", "iosc"))
    parser.add_argument("--speed", default=os.path.join(ROOT, "docs", "cpu-op-speed.json"))
    parser.add_argument("--out")
    args = parser.parse_args()
    listed = subprocess.run([args.iosc, "--list-ops"], capture_output=True, text=True)
    if listed.returncode != 0:
        sys.exit(f"iosc --list-ops failed: {listed.stderr}")
    with open(args.speed) as f:
        page = render(listed.stdout, json.load(f))
    if not args.out:
        sys.stdout.write(page)
        return
    write_atomically(args.out, page)


if __name__ == "__main__":
    main()

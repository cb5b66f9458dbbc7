"""docs/operators.md is `iosc --list-ops`'s table with the CPU speed column of
docs/cpu-op-speed.json (scripts/op_table.py writes it): the page must stay true. With a build
without the CUDA backend, only the op list and the reference/CPU columns are compared. Every op
the CPU runs on a kernel of its own must have a measured speed, and the ops on the reference
kernel must be the ones compiling folds."""
import json
import os

import pytest

from ios_tools.cli import check_run
from op_table import render

FOLDED = {"Shape", "Constant", "ConstantOfShape", "Range"}


def rows(text):
    """op -> its table row's cells."""
    table = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) in (4, 5) and cells[0] not in ("op", "---"):
            table[cells[0]] = cells
    return table


@pytest.fixture(scope="module")
def list_ops(iosc):
    """iosc --list-ops's page."""
    return check_run([iosc, "--list-ops"], "iosc --list-ops").stdout


@pytest.fixture(scope="module")
def listed(list_ops):
    return rows(list_ops)


@pytest.fixture(scope="module")
def speed(source_dir):
    with open(os.path.join(source_dir, "docs", "cpu-op-speed.json")) as f:
        return json.load(f)


@pytest.fixture(scope="module")
def page(source_dir):
    with open(os.path.join(source_dir, "docs", "operators.md")) as f:
        return f.read()


def test_the_table_lists_the_ops(listed):
    assert len(listed) >= 50, len(listed)


def test_conv_runs_on_the_cpus_own_kernel(listed):
    assert listed.get("Conv", [""] * 4)[2] == "own kernel", listed.get("Conv")


def test_only_the_ops_compiling_folds_run_the_cpus_reference_kernel(listed):
    on_reference = {op for op, cells in listed.items() if cells[2] == "reference"}
    assert on_reference <= FOLDED, sorted(on_reference - FOLDED)


def test_every_op_with_a_cpu_kernel_of_its_own_has_a_measured_speed(listed, speed):
    """(scripts/bench_ops.py --write-speed docs/cpu-op-speed.json)"""
    measured = speed["ios_over_onnxruntime"]
    unmeasured = sorted(op for op, cells in listed.items()
                        if cells[2] == "own kernel" and not isinstance(measured.get(op), float))
    assert not unmeasured


def test_operators_md_is_what_op_table_writes(list_ops, listed, speed, page):
    """Regenerate it with `python3 scripts/op_table.py --out docs/operators.md`. A build without
    the CUDA backend compares the op list and the reference, CPU and speed columns only."""
    expected = render(list_ops, speed)
    if "(not built)" in list_ops:
        documented, generated = rows(page), rows(expected)
        assert sorted(documented) == sorted(listed), set(documented) ^ set(listed)
        assert all(documented[op][:4] == generated[op][:4] for op in listed if op in documented)
    else:
        assert page == expected

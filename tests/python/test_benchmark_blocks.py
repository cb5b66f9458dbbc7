"""The block and unit structure iosc finds in the four benchmark networks equals the figures of
the reference implementation (../shared/reference-models/README.md), on the graph as the
reference sees it: every branch computes its own ReLUs and pools, which iosc's default
canonicalisation merges (eliminate-common-subexpressions; checked here against a count made
from the ONNX file)."""
import json
import re

import onnx
import pytest

from ios_tools.cli import check_run

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


@pytest.fixture(scope="module")
def nets(models):
    return models(list(EXPECTED) + ["nasnet"])


@pytest.fixture(scope="module")
def dump_blocks(iosc, tmp_path_factory):
    """(model, extra iosc flags) -> (iosc --dump-blocks's JSON, iosc's stdout), made once."""
    made = {}

    def dump(model, extra=()):
        key = (model, tuple(extra))
        if key not in made:
            path = tmp_path_factory.mktemp("blocks") / "blocks.json"
            result = check_run([iosc, model, "--dump-blocks", path, *extra], f"iosc {model}")
            made[key] = json.loads(path.read_text()), result.stdout
        return made[key]
    return dump


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


@pytest.mark.parametrize("name", ["nasnet", "randwire", "inception_v3"])
def test_repeated_ops_merged(name, nets, dump_blocks):
    """iosc's default canonicalisation merges as many repeated ops as the ONNX file holds, and
    at least those go from its units (a merged ReLU whose conv now has no other reader fuses
    too)."""
    reference_dump, _ = dump_blocks(nets[name], REFERENCE_PASSES)
    dump, summary = dump_blocks(nets[name])
    merged = re.search(r"(\d+) repeated ops merged", summary)
    want = repeated_ops(nets[name])
    assert merged and int(merged.group(1)) == want, \
        f"got {merged and merged.group(0)}, want {want}"
    ops = sum(len(u["nodes"]) for b in dump["blocks"] for u in b["unit_list"])
    reference_ops = sum(len(u["nodes"]) for b in reference_dump["blocks"]
                        for u in b["unit_list"])
    assert ops <= reference_ops - want, f"{ops} against {reference_ops}"


@pytest.fixture(scope="module", params=list(EXPECTED))
def reference_blocks(request, nets, dump_blocks):
    """(name, its expected figures, the dump and summary with the reference's passes)."""
    name = request.param
    return (name, EXPECTED[name]) + dump_blocks(nets[name], REFERENCE_PASSES)


def test_units_per_block(reference_blocks):
    _, (units, _), dump, _ = reference_blocks
    assert [b["units"] for b in dump["blocks"]] == units


def test_total_units(reference_blocks):
    _, (units, _), dump, _ = reference_blocks
    assert dump["total_units"] == sum(units)


def test_widest_block(reference_blocks):
    _, (_, widest), dump, _ = reference_blocks
    largest = max(dump["blocks"], key=lambda b: (b["width"], b["units"]))
    assert (largest["units"], largest["width"]) == widest


def test_summary_printed(reference_blocks):
    _, (units, _), _, summary = reference_blocks
    assert f"{len(units)} blocks, {sum(units)} units" in summary, summary


def test_each_block_lists_its_units(reference_blocks):
    _, _, dump, _ = reference_blocks
    for block in dump["blocks"]:
        assert sum(len(u["nodes"]) > 0 for u in block["unit_list"]) == block["units"]


@pytest.fixture(scope="module")
def nasnet_parts(nets, dump_blocks):
    dump, _ = dump_blocks(nets["nasnet"], REFERENCE_PASSES)
    return dump, [p for b in dump["blocks"] for p in b["parts"]]


def test_nasnet_total_units(nasnet_parts):
    assert nasnet_parts[0]["total_units"] == NASNET_UNITS


def test_nasnet_parts_within_the_default_limit(nasnet_parts):
    assert all(p["units"] <= 50 for p in nasnet_parts[1]), [p["units"] for p in nasnet_parts[1]]


def test_nasnet_widest_part(nasnet_parts):
    assert max(p["width"] for p in nasnet_parts[1]) == NASNET_WIDEST_PART


def test_nasnet_parts_within_part_limit_18(nets, dump_blocks):
    dump, _ = dump_blocks(nets["nasnet"], ["--part-limit", "18"])  # the default passes
    parts = [p for b in dump["blocks"] for p in b["parts"]]
    assert all(p["units"] <= 18 for p in parts), [p["units"] for p in parts]

"""The opsets iosc reads (7..kMaxSupportedOpset) are safe for every op it supports: for each op
that `iosc --list-ops` lists, every schema version onnx defines past opset 21, up to ios's
maximum, has the same inputs, outputs and attributes as the version before 22, except for the
additions reviewed below, whose effect on ios is stated. A new onnx version that changes a
supported op, or a raised maximum, fails here until someone reviews the change. Also: a model
at the maximum opset compiles, and one past it is refused naming the range."""
import re

import onnx
import onnx.defs as defs
import pytest
from onnx import helper

from ios_tools.cli import check_run, run

# (op, attribute) -> why ios may ignore it, or how it honours it. Reviewed against onnx 1.23's
# schemas.
REVIEWED_ADDITIONS = {
    ("Cast", "round_mode"): "rounding of conversions to float8e8m0, a type ios does not run",
    ("Range", "stash_type"): "the precision Range accumulates in; ios folds Range at compile "
                             "time in double",
    ("SpaceToDepth", "mode"): "not ignored: ParseDepthSpace (ops/op_params.h) reads it for every "
                              "backend; DCR (its default) is the opset 1/13 behaviour, CRD the "
                              "inverse of DepthToSpace's CRD; before opset 28 it is refused",
}


def signature(schema):
    attributes = {name: (a.type, a.default_value.SerializeToString())
                  for name, a in schema.attributes.items()}
    inputs = [(i.name, i.option) for i in schema.inputs]
    outputs = [(o.name, o.option) for o in schema.outputs]
    return attributes, inputs, outputs, schema.min_input, schema.max_input


def versions(defs, op, last):
    found = set()
    for opset in range(1, last + 1):
        try:
            found.add(defs.get_schema(op, opset).since_version)
        except Exception:  # noqa: BLE001: no schema at this opset
            pass
    return sorted(found)


@pytest.fixture(scope="module")
def listing(iosc):
    """iosc --list-ops's page."""
    return check_run([iosc, "--list-ops"], "iosc --list-ops").stdout


@pytest.fixture(scope="module")
def opset_range(listing):
    m = re.search(r"default domain.s opsets (\d+) to (\d+)", listing)
    assert m is not None, f"--list-ops states no opset range: {listing[:600]}"
    return int(m.group(1)), int(m.group(2))


def test_the_range_reaches_onnxs_own_opset_or_22_at_least(opset_range):
    assert opset_range[1] >= min(22, defs.onnx_opset_version()), opset_range


def test_ops_listed(listing):
    assert len(re.findall(r"^\| ([A-Z][A-Za-z]*) \|", listing, re.M)) >= 50


def later_versions(listing, high):
    """(op, the last version up to 21, a version past 21) for each listed op."""
    for op in re.findall(r"^\| ([A-Z][A-Za-z]*) \|", listing, re.M):
        known = versions(defs, op, high)
        base = [v for v in known if v <= 21]
        if base:  # an op introduced after 21 is checked against its own first version
            yield from ((op, base[-1], v) for v in known if v > 21)


def test_ops_past_opset_21_have_the_same_signature_or_reviewed_additions(listing, opset_range):
    """Each such schema version: inputs, outputs and attributes as before, additions reviewed."""
    changed = []
    for op, base, version in later_versions(listing, opset_range[1]):
        reference = signature(defs.get_schema(op, base))
        later = signature(defs.get_schema(op, version))
        added = set(later[0]) - set(reference[0])
        unreviewed = sorted(a for a in added if (op, a) not in REVIEWED_ADDITIONS)
        same_io = later[1:] == reference[1:]
        same_attributes = all(later[0][a] == reference[0][a] for a in reference[0]
                              if a in later[0]) and set(reference[0]) <= set(later[0])
        if not (same_io and same_attributes and not unreviewed):
            changed.append(f"{op} opset {version} (since {base}): unreviewed attributes "
                           f"{unreviewed}, same io {same_io}, same attributes {same_attributes}")
    assert not changed


def relu_model(path, opset):
    node = helper.make_node("Relu", ["x"], ["y"], name="relu")
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1, 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    with open(path, "wb") as f:
        f.write(model.SerializeToString())


def test_the_maximum_opset_compiles(iosc, opset_range, tmp_path):
    relu_model(tmp_path / "relu.onnx", opset_range[1])
    result = run([iosc, tmp_path / "relu.onnx", "-o", tmp_path / "relu.iosplan"])
    assert result.returncode == 0, result.stderr


def test_the_opset_past_it_is_refused_naming_the_range(iosc, opset_range, tmp_path):
    low, high = opset_range
    relu_model(tmp_path / "relu.onnx", high + 1)
    result = run([iosc, tmp_path / "relu.onnx", "-o", tmp_path / "relu.iosplan"])
    assert result.returncode == 2 and f"{low}..{high}" in result.stderr, result.stderr

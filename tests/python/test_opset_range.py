"""The opsets iosc reads (7..kMaxSupportedOpset) are safe for every op it supports: for each op
that `iosc --list-ops` lists, every schema version onnx defines past opset 21, up to ios's
maximum, has the same inputs, outputs and attributes as the version before 22, except for the
additions reviewed below, whose effect on ios is stated. A new onnx version that changes a
supported op, or a raised maximum, fails here until someone reviews the change. Also: a model
at the maximum opset compiles, and one past it is refused naming the range."""
import os
import re
import tempfile

from ios_test_util import Tally, parse_args, run

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


def main():
    args = parse_args()
    tally = Tally()
    import onnx
    import onnx.defs as defs
    from onnx import helper

    listing = run([args.iosc, "--list-ops"])
    tally.check("iosc --list-ops", listing.returncode == 0, listing.stderr)
    m = re.search(r"default domain.s opsets (\d+) to (\d+)", listing.stdout)
    if not tally.check("--list-ops states the opset range", m is not None, listing.stdout[:600]):
        tally.finish()
    low, high = int(m.group(1)), int(m.group(2))
    tally.check(f"the range reaches onnx {onnx.__version__}'s own opset or 22 at least",
                high >= min(22, defs.onnx_opset_version()), f"{low}..{high}")
    ops = re.findall(r"^\| ([A-Z][A-Za-z]*) \|", listing.stdout, re.M)
    tally.check("ops listed", len(ops) >= 50, str(len(ops)))
    for op in ops:
        known = versions(defs, op, high)
        base = [v for v in known if v <= 21]
        if not base:
            continue  # an op introduced after 21 is checked against its own first version
        reference = signature(defs.get_schema(op, base[-1]))
        for version in (v for v in known if v > 21):
            later = signature(defs.get_schema(op, version))
            added = set(later[0]) - set(reference[0])
            unreviewed = sorted(a for a in added if (op, a) not in REVIEWED_ADDITIONS)
            same_io = later[1:] == reference[1:]
            same_attributes = all(later[0][a] == reference[0][a] for a in reference[0]
                                  if a in later[0]) and set(reference[0]) <= set(later[0])
            tally.check(f"{op} opset {version} (since {base[-1]}): inputs, outputs and "
                        f"attributes as before, additions reviewed",
                        same_io and same_attributes and not unreviewed,
                        f"unreviewed attributes {unreviewed}, same io {same_io}, "
                        f"same attributes {same_attributes}")

    with tempfile.TemporaryDirectory() as tmp:
        for opset, accepted in ((high, True), (high + 1, False)):
            node = helper.make_node("Relu", ["x"], ["y"], name="relu")
            graph = helper.make_graph(
                [node], "g", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 4])],
                [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1, 4])])
            model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
            model.ir_version = 10
            path = os.path.join(tmp, f"relu_{opset}.onnx")
            with open(path, "wb") as f:
                f.write(model.SerializeToString())
            result = run([args.iosc, path, "-o", os.path.join(tmp, f"{opset}.iosplan")])
            if accepted:
                tally.check(f"opset {opset} compiles", result.returncode == 0, result.stderr)
            else:
                tally.check(f"opset {opset} is refused naming the range",
                            result.returncode == 2 and f"{low}..{high}" in result.stderr,
                            result.stderr)
    tally.finish()


if __name__ == "__main__":
    main()

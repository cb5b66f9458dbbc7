"""Checks the ONNX generators of the four benchmark networks (not ios itself).

Generates inception_v3, squeezenet, randwire and nasnet into BUILD_DIR/models
(reusing up-to-date files), then for each model:
  * onnx.checker.check_model(full_check=True) (includes shape inference);
  * the conventions the C++ importer relies on (opset 17, ir_version 8, input
    "input" [N, C, H, W] with symbolic N, single output "output", every Conv
    has a bias, every Relu has exactly one consumer, no Identity nodes, unique
    node names, Concat on axis 1, average pools count padding);
  * node counts by op type against counts derived from the reference README;
  * RandWire: node ops appear in the reference's LIFO worklist order;
  * one onnxruntime run at batch 1: finite output of shape (1, C, 1, 1).
"""
import os
import time

# One BLAS thread for the generators' numpy calibration pass (see generate_models.py);
# must be set before numpy is imported.
for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import onnx  # noqa: E402
import pytest  # noqa: E402

import generate_models  # noqa: E402

RANDWIRE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "testdata", "randwire")
RANDWIRE_FILES = ["ws-16-4-0.75-2.txt", "ws-32-4-0.75-3.txt", "ws-32-4-0.75-4.txt", "ws-32-4-0.75-5.txt"]


# ---- expectations derived from /work/shared/reference-models/README.md ---------


def expected_inception():
    # front 5 convs; A: 7 convs; B: 4; C: 10; D: 6; E: 9.  Every conv has a relu.
    convs = 5 + 3 * 7 + 4 + 4 * 10 + 6 + 2 * 9
    return {"Conv": convs, "Relu": convs, "MaxPool": 2 + 1 + 1, "AveragePool": 3 + 4 + 2,
            "Concat": 3 + 1 + 4 + 1 + 2, "GlobalAveragePool": 1}


def expected_squeezenet():
    fires = [(16, 64), (16, 64), (32, 128), (32, 128), (48, 192), (48, 192), (64, 256), (64, 256)]
    channels, convs = 96, 1 + 1  # front conv, tail conv1000
    for _, ex in fires:
        convs += 3 + (channels != 2 * ex)
        channels = 2 * ex
    return {"Conv": convs, "Relu": convs, "MaxPool": 3, "Concat": len(fires), "Sum": len(fires),
            "GlobalAveragePool": 1}


def read_randwire(fname):
    with open(os.path.join(RANDWIRE_DIR, fname)) as f:
        tokens = [int(t) for t in f.read().split()]
    n, m = tokens[0], tokens[1]
    return n, [(tokens[2 + 2 * i], tokens[3 + 2 * i]) for i in range(m)]


def randwire_lifo_order(n, edges):
    indeg = [0] * n
    for _, v in edges:
        indeg[v] += 1
    work = [u for u in range(n) if indeg[u] == 0]
    order = []
    while work:
        u = work.pop()
        order.append(u)
        for a, v in edges:  # successors in edge-file order
            if a == u:
                indeg[v] -= 1
                if indeg[v] == 0:
                    work.append(v)
    return order


def expected_randwire():
    nodes = multi = 0
    for fname in RANDWIRE_FILES:
        n, edges = read_randwire(fname)
        nodes += n
        indeg = [0] * n
        for _, v in edges:
            indeg[v] += 1
        multi += sum(1 for d in indeg if d >= 2)
    # front conv, per node Relu + dw + pw, tail Relu + conv; Sums: multi-input nodes + 4 stage exits.
    return {"Conv": 1 + 2 * nodes + 1, "Relu": nodes + 1, "Sum": multi + 4, "GlobalAveragePool": 1}


def expected_nasnet():
    # Per cell: (RC count, SEP count, maxpools, avgpools, sums, concats).  RC = Relu + Conv,
    # SEP / SEP_STEM = 2 x (Relu + dw Conv + pw Conv).
    cells = {
        "stem0": (1, 5, 2, 2, 5, 1),
        "stem1": (3, 5, 2, 2, 6, 1),
        "first": (3, 5, 0, 3, 5, 2),
        "normal": (2, 5, 0, 3, 5, 1),
        "reduction": (2, 5, 2, 2, 5, 1),
    }
    multiplicity = {"stem0": 1, "stem1": 1, "first": 3, "normal": 15, "reduction": 2}
    totals = {"Conv": 1, "Relu": 1, "MaxPool": 0, "AveragePool": 0, "Sum": 0, "Concat": 0,
              "GlobalAveragePool": 1}  # stem conv (no relu), head relu + gap
    for kind, (rc, sep, mp, ap, sums, cats) in cells.items():
        k = multiplicity[kind]
        totals["Conv"] += k * (rc + 4 * sep)
        totals["Relu"] += k * (rc + 2 * sep)
        totals["MaxPool"] += k * mp
        totals["AveragePool"] += k * ap
        totals["Sum"] += k * sums
        totals["Concat"] += k * cats
    return totals


MODELS = {
    # name: (input C, H, W), output channels, expected op counts
    "inception_v3": ((3, 299, 299), 2048, expected_inception),
    "squeezenet": ((3, 224, 224), 1000, expected_squeezenet),
    "randwire": ((3, 224, 224), 1280, expected_randwire),
    # README: head Relu -> global average pool -> 3360 channels (5 terms x 4F, F = 168)
    "nasnet": ((3, 331, 331), 5 * 4 * 168, expected_nasnet),
}


# ---- checks ------------------------------------------------------------------


def check_conventions(name, model, input_chw, out_channels):
    errors = []
    g = model.graph
    if model.ir_version != 8:
        errors.append("ir_version %d != 8" % model.ir_version)
    opsets = {o.domain: o.version for o in model.opset_import}
    if opsets.get("", opsets.get("ai.onnx")) != 17 or len(opsets) != 1:
        errors.append("opset_import %r" % opsets)
    init_names = {t.name for t in g.initializer}
    inputs = [i for i in g.input if i.name not in init_names]
    if len(inputs) != 1 or inputs[0].name != "input":
        errors.append("graph inputs %r" % [i.name for i in inputs])
    else:
        dims = inputs[0].type.tensor_type.shape.dim
        if len(dims) != 4 or dims[0].dim_param != "N" or [d.dim_value for d in dims[1:]] != list(input_chw):
            errors.append("input shape %s" % dims)
        if inputs[0].type.tensor_type.elem_type != onnx.TensorProto.FLOAT:
            errors.append("input is not float32")
    if len(g.output) != 1 or g.output[0].name != "output":
        errors.append("graph outputs %r" % [o.name for o in g.output])
    else:
        dims = g.output[0].type.tensor_type.shape.dim
        if [d.dim_param or d.dim_value for d in dims] != ["N", out_channels, 1, 1]:
            errors.append("output shape %s" % dims)
    names = [n.name for n in g.node]
    if any(not n for n in names) or len(set(names)) != len(names):
        errors.append("node names are not unique and non-empty")
    consumers = {}
    producer = {}
    for node in g.node:
        for t in node.input:
            consumers[t] = consumers.get(t, 0) + 1
        for t in node.output:
            producer[t] = node
    for node in g.node:
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        if node.op_type == "Identity":
            errors.append("Identity node %s" % node.name)
        elif node.op_type == "Conv" and (len(node.input) != 3 or node.input[2] not in init_names):
            errors.append("Conv without bias: %s" % node.name)
        elif node.op_type == "Relu" and consumers.get(node.output[0], 0) != 1:
            # A conv's own activation (the conv's only consumer) may feed several ops; any
            # other Relu heads a compound (or is the head's Relu) and must have one consumer.
            src = producer.get(node.input[0])
            if src is None or src.op_type != "Conv" or consumers.get(node.input[0], 0) != 1:
                errors.append("Relu %s has %d consumers" % (node.name, consumers.get(node.output[0], 0)))
        elif node.op_type == "Concat" and attrs.get("axis") != 1:
            errors.append("Concat %s not on axis 1" % node.name)
        elif node.op_type == "AveragePool" and attrs.get("count_include_pad") != 1:
            errors.append("AveragePool %s does not count padding" % node.name)
        elif node.op_type in ("MaxPool", "AveragePool") and "pads" not in attrs:
            errors.append("%s without explicit pads" % node.name)
    props = {p.key: p.value for p in model.metadata_props}
    if props.get(generate_models.KEY_VERSION) != generate_models.version_string(name):
        errors.append("metadata version %r" % props.get(generate_models.KEY_VERSION))
    return errors


def check_randwire_order(model):
    """Node ops must be created in the reference's LIFO worklist order, stage by stage."""
    errors = []
    seen = []
    for node in model.graph.node:
        parts = node.name.split("/")
        if len(parts) >= 3 and parts[0].startswith("stage") and parts[1].startswith("node") and parts[2] == "relu":
            seen.append((int(parts[0][5:]), int(parts[1][4:])))
    for stage, fname in enumerate(RANDWIRE_FILES, start=1):
        n, edges = read_randwire(fname)
        got = [u for s, u in seen if s == stage]
        want = randwire_lifo_order(n, edges)
        if got != want:
            errors.append("stage %d order %s != %s" % (stage, got, want))
    stage_of = [s for s, _ in seen]
    if stage_of != sorted(stage_of):
        errors.append("stages interleave")
    # Sum inputs follow the edge file's predecessor order; exits sum the sinks in increasing order.
    sums = {n.name: list(n.input) for n in model.graph.node if n.op_type == "Sum"}
    for stage, fname in enumerate(RANDWIRE_FILES, start=1):
        n, edges = read_randwire(fname)
        width = len(str(n - 1))
        out = lambda u: "stage%d/node%0*d/pw" % (stage, width, u)  # noqa: E731
        for v in range(n):
            preds = [a for a, b in edges if b == v]
            key = "stage%d/node%0*d/sum" % (stage, width, v)
            if len(preds) >= 2 and sums.get(key) != [out(u) for u in preds]:
                errors.append("%s inputs %s" % (key, sums.get(key)))
        sinks = [u for u in range(n) if not any(a == u for a, _ in edges)]
        if sums.get("stage%d/exit" % stage) != [out(u) for u in sinks]:
            errors.append("stage %d exit inputs %s" % (stage, sums.get("stage%d/exit" % stage)))
    return errors


def run_ort(path, input_chw, threads=2):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    x = np.random.default_rng(123).standard_normal((1,) + tuple(input_chw), dtype=np.float32)
    start = time.perf_counter()
    (y,) = sess.run(None, {"input": x})
    return y, time.perf_counter() - start


@pytest.fixture(scope="module", params=list(MODELS))
def generated(request, build_dir):
    """(name, its path, the loaded model), generated into BUILD/models (reused when up to
    date)."""
    name = request.param
    out_dir = os.path.join(build_dir, "models")
    os.makedirs(out_dir, exist_ok=True)
    path = generate_models.generate(name, out_dir, seed=0, force=False,
                                    graph_dir=RANDWIRE_DIR)["path"]
    return name, path, onnx.load(path)


def test_onnx_checker_full_check(generated):
    onnx.checker.check_model(generated[1], full_check=True)


def test_the_conventions_the_importer_relies_on(generated):
    name, _, model = generated
    input_chw, out_channels, _ = MODELS[name]
    assert not check_conventions(name, model, input_chw, out_channels)


def test_node_counts_by_op_type(generated):
    name, _, model = generated
    counts = {}
    for node in model.graph.node:
        counts[node.op_type] = counts.get(node.op_type, 0) + 1
    assert counts == MODELS[name][2]()


def test_randwire_node_order_is_the_references_lifo_worklist(build_dir):
    path = generate_models.generate("randwire", os.path.join(build_dir, "models"), seed=0,
                                    force=False, graph_dir=RANDWIRE_DIR)["path"]
    assert not check_randwire_order(onnx.load(path))


def test_onnxruntime_batch_1_gives_a_finite_output_of_shape_1_c_1_1(generated):
    name, path, _ = generated
    input_chw, out_channels, _ = MODELS[name]
    y, seconds = run_ort(path, input_chw)
    print("%s ORT batch 1 (%.2f s): shape %s mean %.4g std %.4g max %.4g" % (
        name, seconds, y.shape, float(y.mean()), float(y.std()), float(y.max())))
    assert y.shape == (1, out_channels, 1, 1)
    assert np.isfinite(y).all()
    assert 0 < float(np.abs(y).max()) < 1e3

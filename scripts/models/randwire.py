"""RandWire (large) as the IOS reference defines it.

Input 3x224x224, C = 154.  front: conv77 3x3 s2 p1 (act identity).  Four random
stages with C, 2C, 4C, 8C channels (56, 28, 14, 7 pixels) whose graphs are the
fixed Watts-Strogatz files in testdata/randwire/.  Every graph node is one
ReluSepConv 3x3 p1 (Relu -> depthwise 3x3 -> pointwise 1x1) with the stage's
channels; a node without predecessors reads the stage input with stride 2, any
other node reads the Sum of its predecessors (in the order they appear in the
edge file) with stride 1.  The stage exit is one Sum of the outputs of all sink
nodes in increasing node order (a one-input Sum when there is a single sink:
it marks the block exit like the reference's identity op).  tail: Relu ->
conv1280 1x1 (act identity) -> global average pool.  Output 1280x1x1.

Node ops are created in the order a LIFO worklist of ready nodes pops them:
the worklist starts as the in-degree-0 nodes in increasing order, pops from the
end, and pushes newly ready successors in edge-file order.
"""

import os

from .onnx_builder import OnnxBuilder

NAME = "randwire"
VERSION = "1"
INPUT_SHAPE = (3, 224, 224)
CHANNELS = 154
GRAPH_FILES = ("ws-16-4-0.75-2.txt", "ws-32-4-0.75-3.txt", "ws-32-4-0.75-4.txt", "ws-32-4-0.75-5.txt")
DEFAULT_GRAPH_DIR = os.path.normpath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "testdata", "randwire"))


def read_graph(path):
    """Returns (node count, [(u, v), ...]) of a graph file: n, m, then m lines "u v"."""
    with open(path) as f:
        tokens = f.read().split()
    n, m = int(tokens[0]), int(tokens[1])
    if len(tokens) != 2 + 2 * m:
        raise ValueError("%s: expected %d edges, found %d numbers" % (path, m, len(tokens) - 2))
    edges = [(int(tokens[2 + 2 * i]), int(tokens[3 + 2 * i])) for i in range(m)]
    for u, v in edges:
        if not (0 <= u < n and 0 <= v < n) or u == v:
            raise ValueError("%s: bad edge %d %d" % (path, u, v))
    return n, edges


def pop_order(n, edges):
    """Node order of the reference's LIFO worklist (also checks that the graph is a DAG)."""
    indeg = [0] * n
    succ = [[] for _ in range(n)]
    for u, v in edges:
        indeg[v] += 1
        succ[u].append(v)
    work = [u for u in range(n) if indeg[u] == 0]
    order = []
    while work:
        u = work.pop()
        order.append(u)
        for v in succ[u]:
            indeg[v] -= 1
            if indeg[v] == 0:
                work.append(v)
    if len(order) != n:
        raise ValueError("graph has a cycle")
    return order


def _stage(b, x, channels, path, n_stage):
    n, edges = read_graph(path)
    preds = [[] for _ in range(n)]
    outdeg = [0] * n
    for u, v in edges:
        preds[v].append(u)
        outdeg[u] += 1
    prefix = "stage%d" % n_stage
    width = len(str(n - 1))
    outputs = [None] * n
    for u in pop_order(n, edges):
        name = "%s/node%0*d" % (prefix, width, u)
        if not preds[u]:
            outputs[u] = b.relu_sep_conv(x, channels, 3, stride=2, pad=1, name=name)
        else:
            inp = b.aggregate([[outputs[p] for p in preds[u]]], name + "/sum")
            outputs[u] = b.relu_sep_conv(inp, channels, 3, stride=1, pad=1, name=name)
    sinks = [outputs[u] for u in range(n) if outdeg[u] == 0]
    return b.sum(sinks, prefix + "/exit")


def build(seed=0, calibrate=True, graph_dir=None, **_):
    graph_dir = graph_dir or DEFAULT_GRAPH_DIR
    b = OnnxBuilder(NAME, INPUT_SHAPE, seed, calibrate=calibrate)
    x = b.conv(b.input, CHANNELS // 2, 3, stride=2, pad=1, act="identity", name="front/conv")
    for i, fname in enumerate(GRAPH_FILES):
        x = _stage(b, x, CHANNELS << i, os.path.join(graph_dir, fname), i + 1)
    assert x.shape == (8 * CHANNELS, 7, 7), x.shape
    x = b.relu(x, "tail/relu")
    x = b.conv(x, 1280, 1, act="identity", name="tail/conv")
    out = b.global_avgpool(x, "tail/avgpool")
    return b.make_model(out, doc_string="RandWire large (IOS reference definition), C = %d" % CHANNELS)

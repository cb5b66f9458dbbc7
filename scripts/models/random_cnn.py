#!/usr/bin/env python3
"""Random small CNN-like ONNX graphs, for differential tests of the CPU backend against
onnxruntime (tests/python/test_random_cnns.py):

    random_cnn.py SEED OUT.onnx [--steps K] [--no-ort]

Each seed gives one graph (opset 17, ir_version 8, one float32 input [N, C, H, W] with N
symbolic or 1 or 3, every node named), built from the patterns the CPU backend's layouts,
fusions, in-place ops and views treat specially: convs of every kind (1x1 to 7x7, strided,
dilated, asymmetric pads, SAME_UPPER, depthwise, grouped; odd channel counts), BatchNorm,
activations and SiLU, elementwise ops against per-channel, scalar and other broadcast
constants or computed tensors, squeeze-excite, CBAM and coordinate attention, residual blocks,
Inception-style branches, Concat and Split on channel and spatial axes, Slice, Pad, pools,
reductions, Softmax, Transpose, Resize, channel shuffle, Gather of channels and heads with
Reshape/Flatten and Gemm/MatMul. Values get several readers and intermediate values become
graph outputs. A graph is kept only when onnx.checker, strict shape inference and one
onnxruntime run (finite outputs of the declared shapes) accept it; otherwise the next attempt
(seed * 1000 + attempt) is tried. Prints a one-line summary.
"""
import argparse
import sys
import random

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

CHANS = [1, 3, 5, 8, 12, 16, 20, 24, 33, 48, 64, 72]
SMALL_CHANS = [3, 5, 8, 12, 16, 20, 24]


class V:
    """A tensor value: name and shape (list; dim 0 may be 'N')."""
    def __init__(self, name, shape):
        self.name = name
        self.shape = list(shape)
        self.uses = 0
        self.dangling = False

    @property
    def rank(self):
        return len(self.shape)


class Gen:
    def __init__(self, seed, steps=None):
        self.r = random.Random(seed)
        self.np = np.random.default_rng(seed)
        self.nodes = []
        self.inits = []
        self.count = 0
        self.ops_used = []
        self.pool = []      # 4D values usable as inputs
        self.ends = []      # values not 4D (heads) -> outputs
        self.forced = []    # intermediate values made graph outputs
        self.steps = steps or (self.r.randint(6, 26) if self.r.random() < 0.8 else self.r.randint(26, 45))
        self.N = 'N' if self.r.random() < 0.7 else self.r.choice([1, 3])

    # ---------------- helpers
    def nm(self, p):
        self.count += 1
        return "%s_%d" % (p, self.count)

    def init(self, arr, p="w"):
        name = self.nm(p)
        self.inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def fconst(self, shape, lo=-1.0, hi=1.0, p="c"):
        return self.init(self.np.uniform(lo, hi, size=shape).astype(np.float32), p)

    def i64(self, vals, p="i"):
        return self.init(np.array(vals, dtype=np.int64), p)

    def node(self, op, inputs, nout=1, **attrs):
        name = self.nm(op.lower())
        outs = [self.nm(op.lower() + "_out") for _ in range(nout)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=name, **attrs))
        self.ops_used.append(op)
        return outs

    def use(self, *vals):
        for v in vals:
            v.uses += 1

    def pick(self, pred=None):
        cands = [v for v in self.pool if pred is None or pred(v)]
        if not cands:
            return None
        # prefer recent values, but old ones too (for multi-consumer DAGs)
        w = [1.0 + 2.0 * i / len(cands) + (1.5 if v.uses == 0 else 0.0) for i, v in enumerate(cands)]
        return self.r.choices(cands, weights=w)[0]

    def add4(self, name, shape):
        v = V(name, shape)
        self.pool.append(v)
        return v

    # ---------------- ops on 4D values
    def conv(self, x, cout=None, k=None, force_relu=False):
        r = self.r
        N, C, H, W = x.shape
        k = k or r.choice([1, 1, 3, 3, 3, 5, 7])
        stride = r.choice([1, 1, 1, 2]) if min(H, W) >= 4 else 1
        dil = 2 if (k == 3 and r.random() < 0.2 and stride == 1) else 1
        kind = r.random()
        if kind < 0.2:
            group = C
            cout = C * r.choice([1, 1, 1, 2]) if cout is None else cout
            if cout % C:
                cout = C
        elif kind < 0.35:
            gs = [g for g in (2, 3, 4) if C % g == 0]
            group = r.choice(gs) if gs else 1
            if cout is None:
                cs = [c for c in CHANS if c % group == 0]
                cout = r.choice(cs)
            if cout % group:
                group = 1
        else:
            group = 1
        if cout is None:
            cout = r.choice(CHANS)
        ek = (k - 1) * dil + 1
        attrs = dict(kernel_shape=[k, k])
        if stride != 1:
            attrs["strides"] = [stride, stride]
        if dil != 1:
            attrs["dilations"] = [dil, dil]
        if group != 1:
            attrs["group"] = group
        pk = r.random()
        if pk < 0.15:
            attrs["auto_pad"] = "SAME_UPPER"
            Ho = -(-H // stride)
            Wo = -(-W // stride)
        else:
            if pk < 0.7:
                p = [ek // 2] * 4
            elif pk < 0.8:
                p = [0] * 4
            else:
                p = [r.randint(0, ek - 1) if ek > 1 else r.randint(0, 1) for _ in range(4)]
            Ho = (H + p[0] + p[2] - ek) // stride + 1
            Wo = (W + p[1] + p[3] - ek) // stride + 1
            if Ho < 1 or Wo < 1:
                p = [ek // 2] * 4
                Ho = (H + p[0] + p[2] - ek) // stride + 1
                Wo = (W + p[1] + p[3] - ek) // stride + 1
            if any(p):
                attrs["pads"] = p
        if Ho < 1 or Wo < 1:
            return None
        fan = C // group * k * k
        w = self.fconst([cout, C // group, k, k], -1.0 / np.sqrt(fan) * 1.7, 1.0 / np.sqrt(fan) * 1.7, "W")
        ins = [x.name, w]
        if r.random() < 0.7:
            ins.append(self.fconst([cout], -0.3, 0.3, "B"))
        self.use(x)
        (o,) = self.node("Conv", ins, **attrs)
        v = self.add4(o, [N, cout, Ho, Wo])
        if force_relu:
            return self.act(v, "Relu")
        return v

    def bn(self, x):
        C = x.shape[1]
        s = self.fconst([C], 0.5, 1.5)
        b = self.fconst([C], -0.5, 0.5)
        m = self.fconst([C], -0.5, 0.5)
        var = self.fconst([C], 0.5, 2.0)
        self.use(x)
        (o,) = self.node("BatchNormalization", [x.name, s, b, m, var], epsilon=self.r.choice([1e-5, 1e-3]))
        return self.add4(o, x.shape)

    def act(self, x, kind=None):
        r = self.r
        kind = kind or r.choice(["Relu", "LeakyRelu", "Sigmoid", "HardSigmoid", "HardSwish", "Clip",
                                 "Tanh", "SiLU", "Relu", "Clip"])
        self.use(x)
        if kind == "LeakyRelu":
            (o,) = self.node("LeakyRelu", [x.name], alpha=r.choice([0.01, 0.1, 0.2]))
        elif kind == "HardSigmoid":
            (o,) = self.node("HardSigmoid", [x.name], alpha=r.choice([0.2, 1 / 6.0]), beta=0.5)
        elif kind == "Clip":
            mode = r.random()
            if mode < 0.6:
                ins = [x.name, self.init(np.array(0.0, np.float32), "mn"), self.init(np.array(6.0, np.float32), "mx")]
            elif mode < 0.75:
                ins = [x.name, self.init(np.array(-0.5, np.float32), "mn")]
            elif mode < 0.9:
                ins = [x.name, "", self.init(np.array(0.7, np.float32), "mx")]
            else:
                ins = [x.name, self.init(np.array(-1.0, np.float32), "mn"), self.init(np.array(1.0, np.float32), "mx")]
            (o,) = self.node("Clip", ins)
        elif kind == "SiLU":
            (s,) = self.node("Sigmoid", [x.name])
            ins = [x.name, s] if r.random() < 0.5 else [s, x.name]
            self.use(x)
            (o,) = self.node("Mul", ins)
        else:
            (o,) = self.node(kind, [x.name])
        return self.add4(o, x.shape)

    def const_shape(self, x):
        N, C, H, W = x.shape
        return self.r.choice([[C, 1, 1], [1, C, 1, 1], [1], [], [C, 1, 1], [1, C, 1, 1], [W], [1, 1, H, W], [H, 1]])

    def binconst(self, x):
        r = self.r
        op = r.choice(["Add", "Mul", "Sub", "Div"])
        shp = self.const_shape(x)
        self.use(x)
        if op == "Div":
            c = self.init((self.np.uniform(0.5, 1.5, size=shp) * self.np.choice([-1, 1], size=shp)).astype(np.float32), "c")
        else:
            c = self.fconst(shp)
        x_first = r.random() < 0.6
        if op == "Div" and not x_first:
            # denominator must stay away from zero: 1 + sigmoid(x)
            (s,) = self.node("Sigmoid", [x.name])
            (d,) = self.node("Add", [s, self.init(np.array(1.0, np.float32), "one")])
            (o,) = self.node("Div", [c, d])
        else:
            (o,) = self.node(op, [x.name, c] if x_first else [c, x.name])
        return self.add4(o, x.shape)

    def positive(self, v):
        """name of a value derived from v that is >= 1 (for Div denominators)."""
        (s,) = self.node("Sigmoid", [v.name])
        (d,) = self.node("Add", [self.init(np.array(1.0, np.float32), "one"), s])
        return d

    def binsame(self, x):
        r = self.r
        same = [v for v in self.pool if v.shape == x.shape and v is not x]
        if same and r.random() < 0.7:
            y = r.choice(same)
        else:
            y = self.branch(x)
            if y is None or y.shape != x.shape:
                return None
        op = r.choice(["Add", "Add", "Mul", "Sub", "Div", "AddSelf"])
        self.use(x, y)
        if op == "AddSelf":
            (o,) = self.node("Add", [x.name, x.name])
        elif op == "Div":
            (o,) = self.node("Div", [x.name, self.positive(y)])
        else:
            a, b = (x, y) if r.random() < 0.5 else (y, x)
            (o,) = self.node(op, [a.name, b.name])
        return self.add4(o, x.shape)

    def branch(self, x):
        """a short shape-preserving branch from x."""
        r = self.r
        k = r.random()
        if k < 0.5:
            N, C, H, W = x.shape
            self.use(x)
            fan = C * 9
            w = self.fconst([C, C, 3, 3], -1.7 / np.sqrt(fan), 1.7 / np.sqrt(fan), "W")
            ins = [x.name, w] + ([self.fconst([C], -0.3, 0.3, "B")] if r.random() < 0.6 else [])
            (o,) = self.node("Conv", ins, kernel_shape=[3, 3], pads=[1, 1, 1, 1])
            v = self.add4(o, x.shape)
            if r.random() < 0.6:
                v = self.act(v)
            return v
        elif k < 0.75:
            return self.act(x)
        elif k < 0.9:
            return self.bn(x)
        else:
            return self.binconst(x)

    def se(self, x):
        r = self.r
        N, C, H, W = x.shape
        self.use(x)
        red = r.choice(["GlobalAveragePool", "GlobalAveragePool", "GlobalMaxPool", "ReduceMean"])
        if red == "ReduceMean":
            (g,) = self.node("ReduceMean", [x.name], axes=[2, 3], keepdims=1)
        else:
            (g,) = self.node(red, [x.name])
        gv = V(g, [N, C, 1, 1])
        if r.random() < 0.6:
            mid = max(2, C // 4)
            w1 = self.fconst([mid, C, 1, 1], -1 / np.sqrt(C), 1 / np.sqrt(C), "W")
            (h,) = self.node("Conv", [g, w1, self.fconst([mid], p="B")], kernel_shape=[1, 1])
            (h,) = self.node(r.choice(["Relu", "Sigmoid"]), [h]) if r.random() < 0.5 else self.node("Relu", [h])
            w2 = self.fconst([C, mid, 1, 1], -1 / np.sqrt(mid), 1 / np.sqrt(mid), "W")
            (h,) = self.node("Conv", [h, w2, self.fconst([C], p="B")], kernel_shape=[1, 1])
        else:
            h = g
        gate = r.choice(["Sigmoid", "HardSigmoid", "Sigmoid"])
        if gate == "HardSigmoid":
            (s,) = self.node("HardSigmoid", [h], alpha=1 / 6.0, beta=0.5)
        else:
            (s,) = self.node("Sigmoid", [h])
        op = r.choice(["Mul", "Mul", "Add", "Sub"])
        if r.random() < 0.3:
            self.pool.append(V(s, [N, C, 1, 1]))
        (o,) = self.node(op, [x.name, s] if r.random() < 0.5 else [s, x.name])
        return self.add4(o, x.shape)

    def chan_reduce_bcast(self, x):
        """ReduceMean over axis 1 keepdims=1 -> [N,1,H,W], broadcast back (spatial attention)."""
        N, C, H, W = x.shape
        self.use(x)
        op = self.r.choice(["ReduceMean", "ReduceMax"])
        (m,) = self.node(op, [x.name], axes=[1], keepdims=1)
        (s,) = self.node("Sigmoid", [m])
        (o,) = self.node("Mul", [s, x.name] if self.r.random() < 0.5 else [x.name, s])
        if self.r.random() < 0.3:
            self.pool.append(V(m, [N, 1, H, W]))
        return self.add4(o, x.shape)

    def concat_c(self, x):
        r = self.r
        N, C, H, W = x.shape
        others = [v for v in self.pool if v.shape[2:] == [H, W] and v is not x]
        parts = [x]
        nmore = r.choice([1, 1, 2])
        for _ in range(nmore):
            if others and r.random() < 0.5:
                parts.append(r.choice(others))
            else:
                b = self.conv(x, k=r.choice([1, 3]))
                if b is None or b.shape[2:] != [H, W]:
                    # conv changed resolution; use an activation branch instead
                    b = self.act(x)
                parts.append(b)
        if r.random() < 0.3:
            parts.append(x)  # same value twice
        r.shuffle(parts)
        self.use(*parts)
        axis = 1 if r.random() < 0.8 else -3
        (o,) = self.node("Concat", [p.name for p in parts], axis=axis)
        return self.add4(o, [N, sum(p.shape[1] for p in parts), H, W])

    def concat_sp(self, x):
        r = self.r
        N, C, H, W = x.shape
        axis = r.choice([2, 3, -1, -2])
        ax = axis % 4
        others = [v for v in self.pool if v is not x and all(v.shape[i] == x.shape[i] for i in range(4) if i != ax)]
        if others and r.random() < 0.6:
            y = r.choice(others)
        else:
            y = self.branch(x)
            if y is None:
                return None
        parts = [x, y] if r.random() < 0.5 else [y, x]
        self.use(*parts)
        (o,) = self.node("Concat", [p.name for p in parts], axis=axis)
        shp = list(x.shape)
        shp[ax] = x.shape[ax] + y.shape[ax]
        return self.add4(o, shp)

    def split(self, x, axis=1):
        r = self.r
        N, C, H, W = x.shape
        D = x.shape[axis]
        if D < 2:
            return None
        n = r.choice([2, 2, 3])
        n = min(n, D)
        self.use(x)
        if r.random() < 0.5 and D % n == 0:
            sizes = [D // n] * n
            outs = self.node("Split", [x.name], nout=n, axis=axis)
        else:
            cuts = sorted(r.sample(range(1, D), n - 1))
            sizes = [b - a for a, b in zip([0] + cuts, cuts + [D])]
            outs = self.node("Split", [x.name, self.i64(sizes, "split")], nout=n, axis=axis)
        vs = []
        for o, s in zip(outs, sizes):
            shp = list(x.shape)
            shp[axis] = s
            vs.append(self.add4(o, shp))
        if r.random() < 0.25:
            d = r.choice(vs)
            d.dangling = True
            self.pool.remove(d)
            vs.remove(d)
            if not vs:
                return None
        # sometimes re-join immediately in another order (as in ShuffleNet / CSP)
        if r.random() < 0.4 and len(vs) >= 2:
            a = self.act(vs[0]) if r.random() < 0.5 else self.conv(vs[0], cout=vs[0].shape[1], k=3)
            if a is not None and a.shape[2:] == [H, W] and axis == 1:
                rest = vs[1:]
                self.use(*rest)
                ins = [a] + rest
                r.shuffle(ins)
                self.use(a)
                (o,) = self.node("Concat", [p.name for p in ins], axis=1)
                return self.add4(o, [N, sum(p.shape[1] for p in ins), H, W])
        return vs[-1]

    def slice(self, x):
        r = self.r
        shp = list(x.shape)
        axes, starts, ends, steps = [], [], [], []
        cand_axes = [1, 2, 3]
        r.shuffle(cand_axes)
        for ax in cand_axes[:r.choice([1, 1, 2])]:
            D = shp[ax]
            if D < 2:
                continue
            st = r.randint(0, D - 1)
            en = r.randint(st + 1, D)
            step = r.choice([1, 1, 1, 2])
            n = len(range(st, en, step))
            # encode sometimes with negative indices / huge ends
            est, een = st, en
            if r.random() < 0.3:
                est = st - D
            if en == D and r.random() < 0.5:
                een = 2 ** 31
            elif r.random() < 0.3:
                een = en - D if en < D else en
            axes.append(ax if r.random() < 0.7 else ax - 4)
            starts.append(est)
            ends.append(een)
            steps.append(step)
            shp[ax] = n
        if not axes:
            return None
        self.use(x)
        ins = [x.name, self.i64(starts, "st"), self.i64(ends, "en"), self.i64(axes, "ax")]
        if any(s != 1 for s in steps) or r.random() < 0.5:
            ins.append(self.i64(steps, "sp"))
        (o,) = self.node("Slice", ins)
        return self.add4(o, shp)

    def pad(self, x):
        r = self.r
        N, C, H, W = x.shape
        mode = r.choice(["constant", "constant", "reflect", "edge"])
        if mode == "reflect":
            mx = [0, 0, min(2, H - 1), min(2, W - 1)]
        else:
            mx = [0, 1, 2, 2]
        p = [0] * 8
        for ax in (1, 2, 3):
            if mode == "constant" or ax > 1:
                p[ax] = r.randint(0, mx[ax])
                p[ax + 4] = r.randint(0, mx[ax])
        if not any(p):
            p[3] = min(1, mx[3])
            if not any(p):
                return None
        self.use(x)
        ins = [x.name, self.i64(p, "pads")]
        if mode == "constant" and r.random() < 0.6:
            ins.append(self.init(np.array(r.choice([0.0, 0.5, -1.0]), np.float32), "pv"))
        (o,) = self.node("Pad", ins, mode=mode)
        return self.add4(o, [N, C + p[1] + p[5], H + p[2] + p[6], W + p[3] + p[7]])

    def pool2d(self, x):
        r = self.r
        N, C, H, W = x.shape
        op = r.choice(["MaxPool", "AveragePool"])
        k = r.choice([2, 3, 3, 5]) if min(H, W) >= 5 else r.choice([1, 2])
        k = min(k, H, W) if min(H, W) >= 1 else 1
        s = r.choice([1, 2, 2]) if min(H, W) >= 3 else 1
        attrs = dict(kernel_shape=[k, k], strides=[s, s])
        pk = r.random()
        if pk < 0.4:
            pads = [k // 2] * 4
        elif pk < 0.6:
            pads = [0] * 4
        elif pk < 0.8:
            pads = [r.randint(0, k - 1) if k > 1 else 0 for _ in range(4)]
        else:
            pads = None
            attrs["auto_pad"] = r.choice(["SAME_UPPER", "SAME_LOWER"])
        # pads must be smaller than kernel
        if pads is not None:
            pads = [min(p, k - 1) for p in pads]
            if any(pads):
                attrs["pads"] = pads
        ceil = r.random() < 0.3
        if ceil:
            attrs["ceil_mode"] = 1
        if op == "AveragePool" and r.random() < 0.5:
            attrs["count_include_pad"] = 1
        if op == "MaxPool" and r.random() < 0.1 and min(H, W) >= 7:
            attrs["dilations"] = [2, 2]
        # compute output shape
        d = attrs.get("dilations", [1, 1])[0]
        ek = (k - 1) * d + 1

        def osz(D, p0, p1):
            if pads is None:
                return -(-D // s)
            num = D + p0 + p1 - ek
            if num < 0:
                return 0
            if ceil:
                o = -(-num // s) + 1
                # ONNX: drop the last window if it starts in the right padding
                if (o - 1) * s >= D + p0:
                    o -= 1
                return o
            return num // s + 1
        p = pads or [0, 0, 0, 0]
        Ho, Wo = osz(H, p[0], p[2]), osz(W, p[1], p[3])
        if Ho < 1 or Wo < 1:
            return None
        self.use(x)
        (o,) = self.node(op, [x.name], **attrs)
        return self.add4(o, [N, C, Ho, Wo])

    def gpool(self, x):
        op = self.r.choice(["GlobalAveragePool", "GlobalMaxPool", "ReduceMean23", "ReduceMax23"])
        N, C, H, W = x.shape
        self.use(x)
        if op.startswith("Reduce"):
            (o,) = self.node(op[:-2], [x.name], axes=[2, 3], keepdims=1)
        else:
            (o,) = self.node(op, [x.name])
        return self.add4(o, [N, C, 1, 1])

    def softmax(self, x):
        self.use(x)
        axis = self.r.choice([1, 1, -3, 3, -1])
        (o,) = self.node("Softmax", [x.name], axis=axis)
        return self.add4(o, x.shape)

    def transpose_rt(self, x):
        """to NHWC, maybe an op in NHWC, back to NCHW."""
        r = self.r
        N, C, H, W = x.shape
        self.use(x)
        (t,) = self.node("Transpose", [x.name], perm=[0, 2, 3, 1])
        k = r.random()
        if k < 0.3:
            (t,) = self.node(r.choice(["Add", "Mul"]), [t, self.fconst([C])])
        elif k < 0.45:
            (t,) = self.node("Softmax", [t], axis=-1)
        elif k < 0.6:
            (t,) = self.node("Relu", [t])
        elif k < 0.7:
            # MatMul over channels (a 1x1 conv as exporters of NHWC models write it)
            cout = r.choice(SMALL_CHANS)
            (t,) = self.node("MatMul", [t, self.fconst([C, cout], -1 / np.sqrt(C), 1 / np.sqrt(C), "M")])
            C = cout
        if r.random() < 0.2:
            self.pool.append(V(t, [N, H, W, C]))  # NHWC value used as a 4D tensor (odd shape)
        (o,) = self.node("Transpose", [t], perm=[0, 3, 1, 2])
        return self.add4(o, [N, C, H, W])

    def transpose_hw(self, x):
        self.use(x)
        N, C, H, W = x.shape
        (o,) = self.node("Transpose", [x.name], perm=[0, 1, 3, 2])
        return self.add4(o, [N, C, W, H])

    def resize(self, x):
        N, C, H, W = x.shape
        if H * W > 400:
            return None
        self.use(x)
        r = self.r
        if r.random() < 0.7:
            sc = self.init(np.array([1, 1, 2, 2], np.float32), "scales")
            attrs = dict(mode="nearest")
            if r.random() < 0.4:
                attrs["coordinate_transformation_mode"] = "asymmetric"
                attrs["nearest_mode"] = "floor"
            (o,) = self.node("Resize", [x.name, "", sc], **attrs)
        else:
            # sizes variant (needs full sizes incl. batch -> only for fixed N)
            if self.N == 'N':
                sc = self.init(np.array([1, 1, 2, 2], np.float32), "scales")
                (o,) = self.node("Resize", [x.name, "", sc], mode="nearest")
            else:
                sz = self.i64([self.N, C, 2 * H, 2 * W], "sizes")
                (o,) = self.node("Resize", [x.name, "", "", sz], mode="nearest")
        return self.add4(o, [N, C, 2 * H, 2 * W])

    def shuffle(self, x):
        N, C, H, W = x.shape
        gs = [g for g in (2, 3, 4) if C % g == 0]
        if not gs:
            return None
        g = self.r.choice(gs)
        self.use(x)
        (a,) = self.node("Reshape", [x.name, self.i64([0, g, C // g, H, W], "shape")])
        (b,) = self.node("Transpose", [a], perm=[0, 2, 1, 3, 4])
        (o,) = self.node("Reshape", [b, self.i64([0, -1, H, W], "shape")])
        return self.add4(o, x.shape)

    def identity(self, x):
        self.use(x)
        (o,) = self.node("Identity", [x.name])
        return self.add4(o, x.shape)

    def head(self, x):
        r = self.r
        N, C, H, W = x.shape
        self.use(x)
        k = r.random()
        if k < 0.3:
            (f,) = self.node("Flatten", [x.name], axis=1)
            F = C * H * W
        elif k < 0.6:
            (f,) = self.node("ReduceMean", [x.name], axes=[2, 3], keepdims=0)
            F = C
        elif k < 0.8:
            (g,) = self.node("GlobalAveragePool", [x.name])
            (f,) = self.node("Reshape", [g, self.i64([0, -1] if r.random() < 0.5 else [-1, C], "shape")])
            F = C
        else:
            (f,) = self.node("Reshape", [x.name, self.i64([0, -1], "shape")])
            F = C * H * W
        if F > 4096:
            # too big for a head; just output the flattened value
            self.ends.append(V(f, [N, F]))
            return None
        cls = r.choice([5, 10, 7])
        sc = 1 / np.sqrt(F)
        if r.random() < 0.6:
            transB = r.choice([0, 1])
            wshape = [cls, F] if transB else [F, cls]
            ins = [f, self.fconst(wshape, -sc, sc, "G")]
            if r.random() < 0.7:
                ins.append(self.fconst([cls] if r.random() < 0.7 else [1, cls], p="gb"))
            (o,) = self.node("Gemm", ins, transB=transB, alpha=r.choice([1.0, 1.0, 0.5]))
        else:
            (o,) = self.node("MatMul", [f, self.fconst([F, cls], -sc, sc, "M")])
            if r.random() < 0.5:
                (o,) = self.node("Add", [o, self.fconst([cls])])
        if r.random() < 0.3:
            (o,) = self.node("Softmax", [o], axis=-1 if r.random() < 0.5 else 1)
        self.ends.append(V(o, [N, cls]))
        return None

    def chan_reduce_out(self, x):
        """ReduceMean axis 1 keepdims=0 -> [N,H,W] (a 3D output)."""
        N, C, H, W = x.shape
        self.use(x)
        (o,) = self.node("ReduceMean", [x.name], axes=[1], keepdims=0)
        self.ends.append(V(o, [N, H, W]))
        return None


    # ---------------- targeted motifs (fusion / layout / view machinery)
    def mark_out(self, v):
        self.forced.append(v)

    def resblock(self, x):
        r = self.r
        N, C, H, W = x.shape
        y = self.conv(x, cout=C, k=r.choice([1, 3]))
        if y is None or y.shape != x.shape:
            return None
        if r.random() < 0.4:
            y = self.bn(y)
        if r.random() < 0.5:
            y = self.act(y)
            y = self.conv(y, cout=C, k=r.choice([1, 3]))
            if y is None or y.shape != x.shape:
                return None
        k = r.random()
        if k < 0.4:
            R = x
        elif k < 0.6:
            R = self.inp if self.inp.shape == x.shape else x
        elif k < 0.8:
            # projection shortcut: one node reading the conv's ancestors
            R = self.conv(x, cout=C, k=1)
            if R is None or R.shape != x.shape:
                R = x
        else:
            same = [v for v in self.pool if v.shape == x.shape and v is not y]
            R = r.choice(same) if same else x
        if r.random() < 0.25:
            self.mark_out(R)
        if r.random() < 0.2:
            self.mark_out(y)
        self.use(y, R)
        (o,) = self.node("Add", [y.name, R.name] if r.random() < 0.6 else [R.name, y.name])
        v = self.add4(o, x.shape)
        if r.random() < 0.6:
            v = self.act(v, r.choice(["Relu", "Relu", "Clip", "LeakyRelu", "SiLU", "HardSwish"]))
        return v

    def affine(self, x):
        r = self.r
        N, C, H, W = x.shape
        opts = [[C, 1, 1], [1, C, 1, 1], [1], [], [1, C, 1, 1]]
        if H == C:
            opts += [[C, 1], [C, 1], [1, 1, C, 1]]   # per-row constants that look per-channel
        if W == C:
            opts += [[C], [C]]
        s_shape = r.choice(opts)
        b_shape = r.choice(opts)
        s = self.fconst(s_shape, 0.5, 1.5, "s")
        b = self.fconst(b_shape, -0.5, 0.5, "b")
        self.use(x)
        (m,) = self.node("Mul", [x.name, s] if r.random() < 0.6 else [s, x.name])
        mv = V(m, x.shape)
        if r.random() < 0.2:
            self.pool.append(mv)  # the Mul has other readers
        if r.random() < 0.1:
            self.mark_out(mv)
        (o,) = self.node("Add", [m, b] if r.random() < 0.6 else [b, m])
        v = self.add4(o, x.shape)
        if r.random() < 0.6:
            v = self.act(v)
        return v

    def inception(self, x):
        r = self.r
        N, C, H, W = x.shape
        stride = 2 if (min(H, W) >= 6 and r.random() < 0.25) else 1
        branches = []
        for _ in range(r.choice([2, 3, 3, 4])):
            k = r.choice([1, 3, 5, 3, 1])
            cout = r.choice(CHANS)
            attrs = dict(kernel_shape=[k, k])
            pk = r.random()
            if pk < 0.7:
                pads = [k // 2] * 4
            elif pk < 0.85:
                pads = [r.randint(0, k // 2) for _ in range(4)]
            else:
                pads = [0] * 4
            dil = 1
            if k == 3 and r.random() < 0.15:
                dil = 2
                pads = [2] * 4
                attrs["dilations"] = [2, 2]
            if any(pads):
                attrs["pads"] = pads
            if stride != 1:
                attrs["strides"] = [stride, stride]
            ek = (k - 1) * dil + 1
            Ho = (H + pads[0] + pads[2] - ek) // stride + 1
            Wo = (W + pads[1] + pads[3] - ek) // stride + 1
            if Ho < 1 or Wo < 1:
                continue
            fan = C * k * k
            ins = [x.name, self.fconst([cout, C, k, k], -1.7 / np.sqrt(fan), 1.7 / np.sqrt(fan), "W")]
            if r.random() < 0.7:
                ins.append(self.fconst([cout], -0.3, 0.3, "B"))
            self.use(x)
            (o,) = self.node("Conv", ins, **attrs)
            v = self.add4(o, [N, cout, Ho, Wo])
            if r.random() < 0.6:
                v = self.act(v, r.choice(["Relu", "Relu", "Clip", "SiLU", "LeakyRelu", "Sigmoid"]))
            branches.append(v)
        if len(branches) >= 2 and r.random() < 0.7:
            sh = branches[0].shape[2:]
            same = [b for b in branches if b.shape[2:] == sh]
            if len(same) >= 2:
                self.use(*same)
                (o,) = self.node("Concat", [b.name for b in same], axis=1)
                return self.add4(o, [N, sum(b.shape[1] for b in same), sh[0], sh[1]])
        return branches[-1] if branches else None

    def gather(self, x):
        r = self.r
        N, C, H, W = x.shape
        axis = 1 if r.random() < 0.75 else r.choice([2, 3])
        D = x.shape[axis]
        k = r.random()
        if k < 0.4:
            idx = list(range(D))
            r.shuffle(idx)
        elif k < 0.7:
            idx = [r.randrange(D) for _ in range(r.randint(1, D + 3))]
        else:
            idx = [r.randrange(-D, D) for _ in range(r.randint(1, D))]
        self.use(x)
        (o,) = self.node("Gather", [x.name, self.i64(idx, "idx")], axis=axis)
        shp = list(x.shape)
        shp[axis] = len(idx)
        return self.add4(o, shp)

    def conv_multi(self, x):
        """conv whose raw output has other readers besides a fusable activation."""
        r = self.r
        y = self.conv(x)
        if y is None:
            return None
        a = self.act(y, r.choice(["Relu", "SiLU", "Clip", "Sigmoid", "HardSwish", "LeakyRelu", "Tanh"]))
        k = r.random()
        if k < 0.4:
            self.mark_out(y)
        elif k < 0.7:
            self.act(y, "Relu")
        else:
            # both conv output and its activation into one elementwise op
            self.use(y, a)
            (o,) = self.node(r.choice(["Add", "Mul", "Sub"]), [y.name, a.name] if r.random() < 0.5 else [a.name, y.name])
            return self.add4(o, y.shape)
        return a

    def silu_shared(self, x):
        """conv -> Sigmoid -> Mul(conv, sig) with the sigmoid also read elsewhere."""
        r = self.r
        y = self.conv(x)
        if y is None:
            return None
        self.use(y, y)
        (s,) = self.node("Sigmoid", [y.name])
        sv = V(s, y.shape)
        (o,) = self.node("Mul", [y.name, s] if r.random() < 0.5 else [s, y.name])
        if r.random() < 0.5:
            self.mark_out(sv)
        else:
            self.pool.append(sv)
        return self.add4(o, y.shape)

    def misc(self, x):
        r = self.r
        N, C, H, W = x.shape
        k = r.choice(["PRelu", "Max", "Min", "Sum", "Elu", "D2S", "S2D", "SqUnsq", "Neg"])
        if k == "PRelu":
            self.use(x)
            (o,) = self.node("PRelu", [x.name, self.fconst(r.choice([[C, 1, 1], [1], [1, C, 1, 1]]), 0.0, 0.3)])
            return self.add4(o, x.shape)
        if k in ("Max", "Min", "Sum"):
            same = [v for v in self.pool if v.shape == x.shape and v is not x]
            ins = [x] + r.sample(same, min(len(same), r.choice([1, 2])))
            if len(ins) == 1:
                ins.append(self.act(x))
            self.use(*ins)
            names = [v.name for v in ins]
            if r.random() < 0.3:
                names.append(self.fconst(r.choice([[C, 1, 1], [1]])))
            (o,) = self.node(k, names)
            return self.add4(o, x.shape)
        if k in ("Elu", "Neg"):
            self.use(x)
            (o,) = self.node(k, [x.name])
            return self.add4(o, x.shape)
        if k == "D2S":
            if C % 4:
                return None
            self.use(x)
            (o,) = self.node("DepthToSpace", [x.name], blocksize=2, mode=r.choice(["DCR", "CRD"]))
            return self.add4(o, [N, C // 4, 2 * H, 2 * W])
        if k == "S2D":
            if H % 2 or W % 2:
                return None
            self.use(x)
            (o,) = self.node("SpaceToDepth", [x.name], blocksize=2)
            return self.add4(o, [N, C * 4, H // 2, W // 2])
        if k == "SqUnsq":
            if H != 1:
                self.use(x)
                (u,) = self.node("Unsqueeze", [x.name, self.i64([2], "ax")])
                (o,) = self.node("Squeeze", [u, self.i64([2], "ax")])
                return self.add4(o, x.shape)
            self.use(x)
            (u,) = self.node("Squeeze", [x.name, self.i64([2], "ax")])
            (o,) = self.node("Unsqueeze", [u, self.i64([2], "ax")])
            return self.add4(o, x.shape)
        return None


    def cbam(self, x):
        """spatial attention: concat(mean_c, max_c) -> 7x7 conv -> sigmoid -> mul."""
        r = self.r
        N, C, H, W = x.shape
        self.use(x, x, x)
        (a,) = self.node("ReduceMean", [x.name], axes=[1], keepdims=1)
        (m,) = self.node("ReduceMax", [x.name], axes=[1], keepdims=1)
        parts = [a, m] if r.random() < 0.7 else [m, a]
        extra = []
        if r.random() < 0.3:
            # add a conv output with more channels to the concat (mixed layouts)
            y = self.conv(x, cout=r.choice([1, 3, 8]), k=3)
            if y is not None and y.shape[2:] == [H, W]:
                self.use(y)
                parts.append(y.name)
                extra.append(y.shape[1])
        (c,) = self.node("Concat", parts, axis=1)
        cin = 2 + sum(extra)
        k = r.choice([3, 7])
        (s,) = self.node("Conv", [c, self.fconst([1, cin, k, k], -0.3, 0.3, "W")], kernel_shape=[k, k], pads=[k // 2] * 4)
        (g,) = self.node("Sigmoid", [s])
        gv = V(g, [N, 1, H, W])
        if r.random() < 0.3:
            self.pool.append(gv)
        (o,) = self.node("Mul", [x.name, g] if r.random() < 0.5 else [g, x.name])
        return self.add4(o, x.shape)

    def coordatt(self, x):
        """coordinate attention (pool over H and over W, concat on a spatial axis, 1x1 conv, split)."""
        r = self.r
        N, C, H, W = x.shape
        self.use(x, x, x)
        (ph,) = self.node("ReduceMean", [x.name], axes=[3], keepdims=1)          # N,C,H,1
        (pw,) = self.node("ReduceMean", [x.name], axes=[2], keepdims=1)          # N,C,1,W
        (pwt,) = self.node("Transpose", [pw], perm=[0, 1, 3, 2])                 # N,C,W,1
        (c,) = self.node("Concat", [ph, pwt], axis=2)                            # N,C,H+W,1
        mid = max(3, C // 2)
        (y,) = self.node("Conv", [c, self.fconst([mid, C, 1, 1], -1 / np.sqrt(C), 1 / np.sqrt(C), "W"),
                                  self.fconst([mid], p="B")], kernel_shape=[1, 1])
        (y,) = self.node("HardSwish" if r.random() < 0.5 else "Relu", [y])
        yh, yw = self.node("Split", [y, self.i64([H, W], "split")], nout=2, axis=2)
        (ywt,) = self.node("Transpose", [yw], perm=[0, 1, 3, 2])                 # N,mid,1,W
        (ah,) = self.node("Conv", [yh, self.fconst([C, mid, 1, 1], -1 / np.sqrt(mid), 1 / np.sqrt(mid), "W")], kernel_shape=[1, 1])
        (aw,) = self.node("Conv", [ywt, self.fconst([C, mid, 1, 1], -1 / np.sqrt(mid), 1 / np.sqrt(mid), "W")], kernel_shape=[1, 1])
        (ah,) = self.node("Sigmoid", [ah])
        (aw,) = self.node("Sigmoid", [aw])
        if r.random() < 0.3:
            self.mark_out(V(ah, [N, C, H, 1]))
        (o,) = self.node("Mul", [x.name, ah] if r.random() < 0.5 else [ah, x.name])
        (o,) = self.node("Mul", [o, aw] if r.random() < 0.5 else [aw, o])
        return self.add4(o, x.shape)

    def bcast_pair(self, x):
        """binary op between a tensor and a computed tensor of a broadcast shape."""
        r = self.r
        N, C, H, W = x.shape
        k = r.choice(["c1", "h1", "w1", "hw1", "cst"])
        self.use(x)
        if k == "c1":
            y = self.conv(x, cout=1, k=r.choice([1, 3]))
            if y is None or y.shape[2:] != [H, W]:
                return None
            self.use(y)
            yn = y.name
        elif k == "h1":
            (yn,) = self.node("ReduceMax", [x.name], axes=[3], keepdims=1)
        elif k == "w1":
            (yn,) = self.node("ReduceMean", [x.name], axes=[2], keepdims=1)
        elif k == "hw1":
            (yn,) = self.node("GlobalAveragePool", [x.name])
            (yn,) = self.node("Conv", [yn, self.fconst([C, C, 1, 1], -0.5, 0.5, "W")], kernel_shape=[1, 1])
        else:
            yn = self.fconst([1, C, H, W] if r.random() < 0.5 else [C, H, W], p="big")
        op = r.choice(["Add", "Mul", "Sub", "Max"])
        (o,) = self.node(op, [x.name, yn] if r.random() < 0.5 else [yn, x.name])
        return self.add4(o, x.shape)

    # ---------------- driver
    def build(self):
        r = self.r
        C = r.choice([3, 3, 5, 8, 12, 16, 20, 24, 33])
        H = r.randint(6, 20)
        W = H if r.random() < 0.6 else r.randint(6, 20)
        if r.random() < 0.15:
            C = H = W = r.choice([8, 12, 16])
        self.inp = V("input", [self.N, C, H, W])
        self.pool.append(self.inp)
        # a stem conv most of the time, as CNNs have
        if r.random() < 0.8:
            self.conv(self.inp, force_relu=r.random() < 0.5)
        ops = [(self.conv, 8), (self.bn, 2), (self.act, 5), (self.binconst, 3), (self.binsame, 4),
               (self.se, 2), (self.chan_reduce_bcast, 1), (self.concat_c, 3), (self.concat_sp, 1.5),
               (self.split, 2), (lambda x: self.split(x, axis=self.r.choice([2, 3])), 0.5), (self.slice, 1.5), (self.pad, 1.5), (self.pool2d, 2), (self.gpool, 1),
               (self.softmax, 0.7), (self.transpose_rt, 1), (self.transpose_hw, 0.4), (self.resize, 1),
               (self.shuffle, 1), (self.identity, 0.5), (self.head, 0.6), (self.chan_reduce_out, 0.3),
               (self.resblock, 3), (self.affine, 2), (self.inception, 2), (self.gather, 1.5),
               (self.conv_multi, 2), (self.silu_shared, 1), (self.misc, 2),
               (self.cbam, 1), (self.coordatt, 1), (self.bcast_pair, 2)]
        fns, ws = zip(*ops)
        for _ in range(self.steps):
            fn = r.choices(fns, weights=ws)[0]
            x = self.pick(lambda v: v.name != "input" or r.random() < 0.3) or self.inp
            if r.random() < 0.05:
                x = self.inp
            # keep sizes small
            if fn == self.conv and x.shape[1] * x.shape[2] * x.shape[3] > 30000:
                fn = self.pool2d
            try:
                fn(x)
            except _Skip:
                pass
        # outputs: every unused value, plus a few intermediate ones
        outs = self.forced + [v for v in self.pool if v.uses == 0 and v.name != "input"] + self.ends
        if r.random() < 0.05:
            (o,) = self.node("Identity", ["input"])
            outs.append(V(o, self.inp.shape))
        inter = [v for v in self.pool if v.uses > 0 and v.name != "input"]
        if inter and (r.random() < 0.4 or not outs):
            outs += r.sample(inter, min(len(inter), r.choice([1, 1, 2])))
        seen = set()
        outs = [v for v in outs if not (v.name in seen or seen.add(v.name))]
        # cap the number of outputs (they cost nothing but keep things readable)
        if len(outs) > 7:
            outs = outs[:len(self.forced)][:3] + outs[-4:]
        return outs

    def model(self):
        outs = self.build()
        if not outs:
            raise _Skip()
        self.outs = outs

        def vi(v):
            return helper.make_tensor_value_info(v.name, TensorProto.FLOAT, v.shape)
        g = helper.make_graph(self.nodes, "random_cnn", [vi(self.inp)], [vi(o) for o in outs], self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], producer_name="ios random_cnn.py")
        m.ir_version = 8
        return m


class _Skip(Exception):
    pass


def prune(m):
    """remove nodes whose outputs nobody uses (can happen if a generated value got dropped
    from outputs by the cap) and unused initializers."""
    g = m.graph
    needed = {o.name for o in g.output}
    keep = []
    for n in reversed(list(g.node)):
        if any(o in needed for o in n.output):
            keep.append(n)
            needed.update(i for i in n.input if i)
    keep.reverse()
    del g.node[:]
    g.node.extend(keep)
    inits = [t for t in g.initializer if t.name in needed]
    del g.initializer[:]
    g.initializer.extend(inits)
    return m


def verify(m, run_ort=True):
    onnx.checker.check_model(m, full_check=True)
    onnx.shape_inference.infer_shapes(m, strict_mode=True, check_type=True, data_prop=True)
    if run_ort:
        import onnxruntime as ort
        so = ort.SessionOptions()
        so.log_severity_level = 3
        s = ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])
        i = s.get_inputs()[0]
        shape = [d if isinstance(d, int) else 2 for d in i.shape]
        outs = s.run(None, {i.name: np.random.default_rng(0).standard_normal(shape).astype(np.float32)})
        for o, info in zip(outs, s.get_outputs()):
            if not np.isfinite(o).all():
                raise ValueError("non-finite output")
            want = [d if isinstance(d, int) else 2 for d in info.shape]
            if list(o.shape) != want:
                raise ValueError("onnxruntime output shape %s differs from the declared %s" % (o.shape, want))


def generate(seed, steps=None, run_ort=True):
    for attempt in range(50):
        g = Gen(seed * 1000 + attempt, steps)
        try:
            m = prune(g.model())
            verify(m, run_ort)
            return m, g
        except _Skip:
            continue
        except Exception as e:  # noqa
            if attempt == 49:
                raise
            sys.stderr.write("seed %d attempt %d invalid: %s\n" % (seed, attempt, str(e).splitlines()[0][:200]))
    raise SystemExit(3)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("seed", type=int)
    ap.add_argument("out")
    ap.add_argument("--steps", type=int)
    ap.add_argument("--no-ort", action="store_true")
    a = ap.parse_args()
    m, g = generate(a.seed, a.steps, not a.no_ort)
    onnx.save(m, a.out)
    n = m.graph.input[0].type.tensor_type.shape.dim
    dims = [d.dim_param or d.dim_value for d in n]
    print("seed %d: input %s, %d nodes, %d outputs, ops %s" % (
        a.seed, dims, len(m.graph.node), len(m.graph.output),
        ",".join(sorted(set(x.op_type for x in m.graph.node)))))


if __name__ == "__main__":
    main()

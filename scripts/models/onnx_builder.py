"""A small helper that builds the benchmark CNNs as ONNX graphs.

Conventions (the C++ importer relies on them):

* NCHW float32; one graph input "input" of shape [N, C, H, W] with a symbolic
  batch dimension "N"; one graph output "output".
* opset 17 of the default domain, ir_version 8.
* Every Conv has a bias.  A conv with ``act="relu"`` is a Conv node followed by
  a separate Relu node (as PyTorch's exporter emits it); ``act="identity"``
  emits no activation node.
* ``relu_conv`` = Relu -> Conv 1x1; ``relu_sep_conv`` = Relu -> depthwise Conv
  k x k (group = channels) -> pointwise Conv 1x1; ``sep_conv`` is the same
  without the Relu.  Every compound gets its own Relu node, so each Relu has
  exactly one consumer.
* Aggregations (``aggregate``): a list of terms; the tensors of a term are
  added by one ``Sum`` node (only when the term has >= 2 tensors), and the
  terms are concatenated by one ``Concat`` (axis 1) when there are >= 2 terms.
* The published ImageNet CNNs (models.CNNS) add, as PyTorch exports them: Conv
  followed by ReLU6 (``Clip`` 0..6) or SiLU (``Sigmoid`` and ``Mul``), ``Add`` and
  ``Mul`` with broadcasting, a BatchNorm that no conv precedes as a per-channel
  ``Mul`` + ``Add``, ``Split``, ShuffleNet's Reshape-Transpose-Reshape channel
  shuffle, and the head GlobalAveragePool -> ``Flatten`` -> ``Gemm`` (output
  [N, classes]).  Non-parameter constants (Clip bounds, shapes, split sizes) are
  shared initializers named "const/<type>/<values>".

Weights come from a seeded ``numpy.random.Generator`` with He scaling
(std = sqrt(2 / fan_in)) and small random biases.  By default the builder also
runs the network eagerly in numpy on one fixed random calibration image while
it is being built and rescales every conv's weights by a scalar so that the
conv's output has a root mean square close to 1 (data-dependent init in the
style of LSUV).  This keeps the activations of deep, sum-heavy networks
(NasNet, RandWire) at magnitude ~1 instead of growing by a constant factor
per cell.  The scalar is rounded to a multiple of 1/8 in log2 so that tiny
floating-point differences between BLAS builds almost never change a weight.
"""

import math
import zlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
IR_VERSION = 8


def _pair(v):
    if isinstance(v, (tuple, list)):
        assert len(v) == 2
        return int(v[0]), int(v[1])
    return int(v), int(v)


class Tensor:
    """A value of the graph under construction: name, shape (C, H, W) for batch 1,
    and (when calibrating) its numpy value for the calibration image."""

    __slots__ = ("name", "shape", "value")

    def __init__(self, name, shape, value=None):
        self.name = name
        self.shape = tuple(int(s) for s in shape)
        self.value = value

    @property
    def channels(self):
        return self.shape[0]

    def __repr__(self):
        return "Tensor(%r, %r)" % (self.name, self.shape)


# ----------------------------------------------------------------------------
# numpy reference kernels for the calibration image (batch 1, arrays C x H x W)


def _out_size(size, k, s, p0, p1):
    return (size + p0 + p1 - k) // s + 1


def _windows(xp, kh, kw, sh, sw, ho, wo):
    for i in range(kh):
        for j in range(kw):
            yield i, j, xp[:, i:i + sh * (ho - 1) + 1:sh, j:j + sw * (wo - 1) + 1:sw]


def _np_conv(x, w, stride, pads, group):
    c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    sh, sw = stride
    pt, pl, pb, pr = pads
    ho, wo = _out_size(h, kh, sh, pt, pb), _out_size(wd, kw, sw, pl, pr)
    xp = np.pad(x, ((0, 0), (pt, pb), (pl, pr))) if (pt or pl or pb or pr) else x
    if group == 1:
        if kh == 1 and kw == 1:
            cols = np.ascontiguousarray(xp[:, 0:sh * (ho - 1) + 1:sh, 0:sw * (wo - 1) + 1:sw]).reshape(c, ho * wo)
        else:
            cols = np.empty((c, kh, kw, ho, wo), np.float32)
            for i, j, win in _windows(xp, kh, kw, sh, sw, ho, wo):
                cols[:, i, j] = win
            cols = cols.reshape(c * kh * kw, ho * wo)
        return (w.reshape(o, -1) @ cols).reshape(o, ho, wo)
    if group == c and o == c and cg == 1:  # depthwise
        y = np.zeros((c, ho, wo), np.float32)
        tmp = np.empty_like(y)
        for i, j, win in _windows(xp, kh, kw, sh, sw, ho, wo):
            np.multiply(win, w[:, 0, i, j, None, None], out=tmp)
            y += tmp
        return y
    # general grouped conv (not used by the benchmark networks, kept for completeness)
    og = o // group
    parts = [_np_conv(np.ascontiguousarray(x[g * cg:(g + 1) * cg]), w[g * og:(g + 1) * og], stride, pads, 1)
             for g in range(group)]
    return np.concatenate(parts, axis=0)


def _np_conv_transpose(x, w, stride, pads, output_padding):
    """ConvTranspose of one image (group 1): every kernel tap scatters W[:, :, i, j]^T x into
    the output positions i + s * (input position), then the pads crop."""
    c, h, wd = x.shape
    _, m, kh, kw = w.shape
    sh, sw = stride
    pt, pl, pb, pr = pads
    full_h, full_w = sh * (h - 1) + output_padding[0] + kh, sw * (wd - 1) + output_padding[1] + kw
    y = np.zeros((m, full_h, full_w), np.float32)
    flat = x.reshape(c, h * wd)
    for i in range(kh):
        for j in range(kw):
            y[:, i:i + sh * (h - 1) + 1:sh, j:j + sw * (wd - 1) + 1:sw] += \
                (w[:, :, i, j].T @ flat).reshape(m, h, wd)
    return y[:, pt:full_h - pb, pl:full_w - pr]


def _np_pool(x, kind, k, stride, pads):
    c, h, wd = x.shape
    kh, kw = k
    sh, sw = stride
    pt, pl, pb, pr = pads
    ho, wo = _out_size(h, kh, sh, pt, pb), _out_size(wd, kw, sw, pl, pr)
    fill = -np.inf if kind == "max" else 0.0
    xp = np.pad(x, ((0, 0), (pt, pb), (pl, pr)), constant_values=fill) if (pt or pl or pb or pr) else x
    y = None
    for _, _, win in _windows(xp, kh, kw, sh, sw, ho, wo):
        if y is None:
            y = np.array(win, dtype=np.float32)
        elif kind == "max":
            np.maximum(y, win, out=y)
        else:
            y += win
    if kind == "avg":  # count_include_pad = 1
        y *= np.float32(1.0 / (kh * kw))
    return y


# ----------------------------------------------------------------------------


class OnnxBuilder:
    """Builds one ONNX graph; see the module docstring for the conventions."""

    def __init__(self, graph_name, input_shape, seed, calibrate=True, calibration_hw=None,
                 bias_std=0.02, target_rms=1.0):
        self.graph_name = graph_name
        self.input_shape = tuple(input_shape)
        # One weight stream per (seed, model): the model name is mixed into the seed.
        self.rng = np.random.default_rng(np.random.SeedSequence([int(seed), zlib.crc32(graph_name.encode())]))
        self.calibrate = calibrate
        self.bias_std = float(bias_std)
        self.target_rms = float(target_rms)
        self.model = onnx.ModelProto()
        self.graph = self.model.graph
        self.nodes = self.graph.node  # repeated NodeProto, filled in place
        self._names = set()
        self._producer = {}  # tensor name -> index into self.nodes
        self._consumers = {}  # tensor name -> count
        self.num_params = 0
        value = None
        if calibrate:
            c = self.input_shape[0]
            h, w = calibration_hw if calibration_hw else self.input_shape[1:]
            calib_rng = np.random.default_rng(np.random.SeedSequence([int(seed), 0x5ca1e]))  # same image for all models
            value = calib_rng.standard_normal((c, h, w), dtype=np.float32)
        self.input = Tensor("input", self.input_shape, value)
        self._names.add("input")

    # -- bookkeeping -----------------------------------------------------------

    def _claim(self, name):
        if name in self._names:
            raise ValueError("duplicate node/tensor name %r" % name)
        self._names.add(name)
        return name

    def _add_node(self, op_type, inputs, name, **attrs):
        self._claim(name)
        for t in inputs:
            self._consumers[t] = self._consumers.get(t, 0) + 1
        node = self.nodes.add()
        node.CopyFrom(helper.make_node(op_type, list(inputs), [name], name=name, **attrs))
        self._producer[name] = len(self.nodes) - 1
        return name

    def _add_initializer(self, name, array):
        self._claim(name)
        assert array.dtype == np.float32
        tensor = self.graph.initializer.add()
        tensor.name = name
        tensor.data_type = TensorProto.FLOAT
        tensor.dims.extend(array.shape)
        tensor.raw_data = np.ascontiguousarray(array).astype("<f4", copy=False).tobytes()
        self.num_params += array.size

    # -- primitive ops -----------------------------------------------------------

    def conv(self, x, out_channels, kernel, stride=1, pad=0, group=1, act="relu", name=None):
        """Conv with bias (+ a separate Relu node if act == "relu").

        ``pad`` is symmetric per axis: an int or (pad_h, pad_w)."""
        assert name, "conv needs a name"
        assert act in ("relu", "identity"), act
        c, h, w = x.shape
        kh, kw = _pair(kernel)
        sh, sw = _pair(stride)
        ph, pw = _pair(pad)
        assert c % group == 0 and out_channels % group == 0, (name, c, out_channels, group)
        cg = c // group
        ho, wo = _out_size(h, kh, sh, ph, ph), _out_size(w, kw, sw, pw, pw)
        assert ho > 0 and wo > 0, (name, x.shape)
        fan_in = cg * kh * kw
        weight = self.rng.standard_normal((out_channels, cg, kh, kw), dtype=np.float32)
        weight *= np.float32(math.sqrt(2.0 / fan_in))
        bias = self.rng.standard_normal(out_channels, dtype=np.float32) * np.float32(self.bias_std)
        pads = (ph, pw, ph, pw)
        value = None
        if x.value is not None:
            value = _np_conv(x.value, weight, (sh, sw), pads, group)
            flat = value.reshape(-1)
            rms = math.sqrt(max(float(np.dot(flat, flat)), 0.0) / flat.size)
            if rms > 0 and math.isfinite(rms):
                scale = 2.0 ** (round(math.log2(self.target_rms / rms) * 8) / 8)
                weight *= np.float32(scale)
                value *= np.float32(scale)
            value += bias[:, None, None]
        conv_name = name + "/conv" if act == "relu" else name
        self._add_initializer(conv_name + "/W", weight)
        self._add_initializer(conv_name + "/B", bias)
        self._add_node("Conv", [x.name, conv_name + "/W", conv_name + "/B"], conv_name,
                       kernel_shape=[kh, kw], strides=[sh, sw], pads=list(pads), dilations=[1, 1],
                       group=int(group))
        y = Tensor(conv_name, (out_channels, ho, wo), value)
        if act == "relu":
            y = self.relu(y, name=name + "/relu")
        return y

    def conv_transpose(self, x, out_channels, kernel, stride, pad=0, output_padding=0, name=None):
        """ConvTranspose (group 1) with bias, calibrated as ``conv`` is; ``pad`` and
        ``output_padding`` are an int or (h, w)."""
        assert name, "conv_transpose needs a name"
        c, h, w = x.shape
        kh, kw = _pair(kernel)
        sh, sw = _pair(stride)
        ph, pw = _pair(pad)
        oph, opw = _pair(output_padding)
        ho, wo = sh * (h - 1) + oph + kh - 2 * ph, sw * (w - 1) + opw + kw - 2 * pw
        assert ho > 0 and wo > 0, (name, x.shape)
        # Each output reads about C * kh * kw / (sh * sw) products.
        fan_in = max(1.0, c * kh * kw / (sh * sw))
        weight = self.rng.standard_normal((c, out_channels, kh, kw), dtype=np.float32)
        weight *= np.float32(math.sqrt(2.0 / fan_in))
        bias = self.rng.standard_normal(out_channels, dtype=np.float32) * np.float32(self.bias_std)
        pads = (ph, pw, ph, pw)
        value = None
        if x.value is not None:
            value = _np_conv_transpose(x.value, weight, (sh, sw), pads, (oph, opw))
            scale = self._calibration_scale(value)
            weight *= np.float32(scale)
            value = value * np.float32(scale) + bias[:, None, None]
        self._add_initializer(name + "/W", weight)
        self._add_initializer(name + "/B", bias)
        self._add_node("ConvTranspose", [x.name, name + "/W", name + "/B"], name,
                       kernel_shape=[kh, kw], strides=[sh, sw], pads=list(pads),
                       output_padding=[oph, opw])
        return Tensor(name, (out_channels, ho, wo), value)

    def relu(self, x, name):
        self._add_node("Relu", [x.name], name)
        value = np.maximum(x.value, 0) if x.value is not None else None
        return Tensor(name, x.shape, value)

    def _pool(self, op, kind, x, kernel, stride, pad, name, **extra):
        c, h, w = x.shape
        kh, kw = _pair(kernel)
        sh, sw = _pair(stride)
        ph, pw = _pair(pad)
        pads = (ph, pw, ph, pw)
        ho, wo = _out_size(h, kh, sh, ph, ph), _out_size(w, kw, sw, pw, pw)
        assert ho > 0 and wo > 0, (name, x.shape)
        self._add_node(op, [x.name], name, kernel_shape=[kh, kw], strides=[sh, sw], pads=list(pads), **extra)
        value = _np_pool(x.value, kind, (kh, kw), (sh, sw), pads) if x.value is not None else None
        return Tensor(name, (c, ho, wo), value)

    def maxpool(self, x, kernel, stride, pad=0, name=None):
        return self._pool("MaxPool", "max", x, kernel, stride, pad, name)

    def avgpool(self, x, kernel, stride, pad=0, name=None):
        """AveragePool with count_include_pad = 1 (the reference counts padding)."""
        return self._pool("AveragePool", "avg", x, kernel, stride, pad, name, count_include_pad=1)

    def global_avgpool(self, x, name):
        self._add_node("GlobalAveragePool", [x.name], name)
        value = x.value.mean(axis=(1, 2), keepdims=True, dtype=np.float32) if x.value is not None else None
        return Tensor(name, (x.shape[0], 1, 1), value)

    def sum(self, xs, name):
        """One Sum node (any number >= 1 of inputs, all of the same shape)."""
        assert len(xs) >= 1
        for t in xs:
            assert t.shape == xs[0].shape, (name, [(u.name, u.shape) for u in xs])
        self._add_node("Sum", [t.name for t in xs], name)
        value = None
        if all(t.value is not None for t in xs):
            value = xs[0].value.copy()
            for t in xs[1:]:
                value += t.value
        return Tensor(name, xs[0].shape, value)

    def concat(self, xs, name):
        assert len(xs) >= 2
        for t in xs:
            assert t.shape[1:] == xs[0].shape[1:], (name, [(u.name, u.shape) for u in xs])
        self._add_node("Concat", [t.name for t in xs], name, axis=1)
        value = None
        if all(t.value is not None for t in xs):
            value = np.concatenate([t.value for t in xs], axis=0)
        return Tensor(name, (sum(t.shape[0] for t in xs),) + xs[0].shape[1:], value)

    def aggregate(self, terms, name, term_names=None):
        """The reference's term list: tensors of a term are summed (one Sum per term
        with >= 2 tensors), terms are concatenated along channels (one Concat when
        there are >= 2 terms).  A single term is returned as its Sum (named
        ``name``), a single one-tensor term as the tensor itself.  The Sum of term
        i is named ``term_names[i]`` when given, else "<name>/term<i>"."""
        terms = [list(t) if isinstance(t, (list, tuple)) else [t] for t in terms]
        assert terms and all(terms)
        if len(terms) == 1:
            return terms[0][0] if len(terms[0]) == 1 else self.sum(terms[0], name)
        parts = []
        for i, term in enumerate(terms):
            if len(term) == 1:
                parts.append(term[0])
            else:
                parts.append(self.sum(term, term_names[i] if term_names else "%s/term%d" % (name, i)))
        return self.concat(parts, name)

    # -- compounds ---------------------------------------------------------------

    def relu_conv(self, x, out_channels, stride=1, name=None):
        """ReluConv: Relu -> Conv 1x1 (act identity)."""
        r = self.relu(x, name + "/relu")
        return self.conv(r, out_channels, 1, stride=stride, pad=0, act="identity", name=name + "/conv")

    def sep_conv(self, x, out_channels, kernel, stride=1, pad=None, name=None):
        """SepConv: depthwise Conv k x k (group = channels) -> pointwise Conv 1x1, no activations."""
        kh, kw = _pair(kernel)
        if pad is None:
            pad = (kh // 2, kw // 2)
        d = self.conv(x, x.channels, (kh, kw), stride=stride, pad=pad, group=x.channels, act="identity",
                      name=name + "/dw")
        return self.conv(d, out_channels, 1, stride=1, pad=0, act="identity", name=name + "/pw")

    def relu_sep_conv(self, x, out_channels, kernel, stride=1, pad=None, name=None):
        """ReluSepConv: Relu -> depthwise k x k -> pointwise 1x1 (no other activations)."""
        r = self.relu(x, name + "/relu")
        return self.sep_conv(r, out_channels, kernel, stride=stride, pad=pad, name=name)

    # -- ops of the published ImageNet CNNs (scripts/models/mobilenet_v2.py ...) ------
    #
    # Added for the CNN zoo; the benchmark networks above use none of them.  Every
    # method computes its numpy value when calibrating, so the calibration pass runs
    # through them, and the convs and Gemms after them are rescaled as usual.

    def _calibration_scale(self, value):
        """The scalar (a power of 2 ** (1/8)) that brings ``value``'s root mean square
        to ``target_rms``, as ``conv`` computes it; 1 for an all-zero value."""
        flat = value.reshape(-1)
        rms = math.sqrt(max(float(np.dot(flat, flat)), 0.0) / flat.size)
        if rms > 0 and math.isfinite(rms):
            return 2.0 ** (round(math.log2(self.target_rms / rms) * 8) / 8)
        return 1.0

    def _add_constant(self, array):
        """An initializer that is not a learned parameter (Clip bounds, Reshape shapes,
        Split sizes): not counted in ``num_params``, named after its value and shared by
        every node that uses that value.  Returns its name."""
        array = np.ascontiguousarray(array)
        kind = {np.dtype(np.float32): "f32", np.dtype(np.int64): "i64"}[array.dtype]
        name = "const/%s/%s" % (kind, "_".join("%g" % v for v in array.reshape(-1)))
        # Made on first use, so that __init__ (and the benchmark networks) stay as they were.
        constants = vars(self).setdefault("_constant_values", {})
        if name not in constants:
            self._claim(name)
            self.graph.initializer.add().CopyFrom(numpy_helper.from_array(array, name))
            constants[name] = array
        assert constants[name].shape == array.shape and np.array_equal(constants[name], array), name
        return name

    def conv_act(self, x, out_channels, kernel, stride=1, pad=None, group=1, act="relu", name=None):
        """Conv with bias followed by ``act``: "relu", "relu6" (Clip 0..6), "silu"
        (x * Sigmoid(x), two nodes), "hardswish", "hardsigmoid", "sigmoid" or "identity".  ``pad`` defaults to kernel // 2
        ("same" for odd kernels at stride 1).  With an activation the Conv node is
        "<name>/conv" and the activation's output "<name>/<act>"; without, the Conv
        is "<name>"."""
        assert name, "conv_act needs a name"
        kh, kw = _pair(kernel)
        if pad is None:
            pad = (kh // 2, kw // 2)
        if act in ("relu", "identity"):
            return self.conv(x, out_channels, kernel, stride=stride, pad=pad, group=group, act=act, name=name)
        y = self.conv(x, out_channels, kernel, stride=stride, pad=pad, group=group, act="identity",
                      name=name + "/conv")
        return self.activation(y, act, name + "/" + act)

    def activation(self, x, act, name):
        """One of "relu", "relu6", "silu", "sigmoid", "hardswish", "hardsigmoid" or "identity"
        (returns ``x``)."""
        if act == "identity":
            return x
        return {"relu": self.relu, "relu6": self.relu6, "silu": self.silu, "sigmoid": self.sigmoid,
                "hardswish": self.hardswish, "hardsigmoid": self.hardsigmoid}[act](x, name)

    def clip(self, x, lo, hi, name):
        """Clip with constant bounds (opset 11+: min and max are inputs)."""
        lo_name = self._add_constant(np.array(lo, np.float32))
        hi_name = self._add_constant(np.array(hi, np.float32))
        self._add_node("Clip", [x.name, lo_name, hi_name], name)
        value = np.clip(x.value, np.float32(lo), np.float32(hi)) if x.value is not None else None
        return Tensor(name, x.shape, value)

    def relu6(self, x, name):
        """ReLU6 as PyTorch exports it: Clip(x, 0, 6)."""
        return self.clip(x, 0.0, 6.0, name)

    def sigmoid(self, x, name):
        self._add_node("Sigmoid", [x.name], name)
        value = None
        if x.value is not None:
            value = (1.0 / (1.0 + np.exp(-x.value.astype(np.float64)))).astype(np.float32)
        return Tensor(name, x.shape, value)

    def hardsigmoid(self, x, name):
        """HardSigmoid as PyTorch exports F.hardsigmoid: alpha 1/6, beta 0.5."""
        alpha = 1.0 / 6.0
        self._add_node("HardSigmoid", [x.name], name, alpha=alpha, beta=0.5)
        value = None
        if x.value is not None:
            value = np.clip(x.value * np.float32(alpha) + np.float32(0.5), 0, 1).astype(np.float32)
        return Tensor(name, x.shape, value)

    def hardswish(self, x, name):
        """HardSwish (opset 14), as PyTorch exports nn.Hardswish: x * relu6(x + 3) / 6."""
        self._add_node("HardSwish", [x.name], name)
        value = None
        if x.value is not None:
            value = (x.value * np.clip(x.value + np.float32(3), 0, 6) / np.float32(6)).astype(np.float32)
        return Tensor(name, x.shape, value)

    def silu(self, x, name):
        """SiLU / Swish as PyTorch exports it: Mul(x, Sigmoid(x)); the Sigmoid is
        "<name>/sigmoid", the Mul "<name>"."""
        s = self.sigmoid(x, name + "/sigmoid")
        return self.mul(x, s, name)

    @staticmethod
    def _broadcast_shape(a, b, name):
        assert len(a.shape) == len(b.shape), (name, a.shape, b.shape)
        shape = []
        for da, db in zip(a.shape, b.shape):
            assert da == db or da == 1 or db == 1, (name, a.shape, b.shape)
            shape.append(max(da, db))
        return tuple(shape)

    def _binary(self, op, fn, a, b, name):
        shape = self._broadcast_shape(a, b, name)
        self._add_node(op, [a.name, b.name], name)
        value = fn(a.value, b.value) if a.value is not None and b.value is not None else None
        return Tensor(name, shape, value)

    def add(self, a, b, name):
        """Add (numpy broadcasting over C x H x W, e.g. a residual connection)."""
        return self._binary("Add", np.add, a, b, name)

    def mul(self, a, b, name):
        """Mul (numpy broadcasting: a C x 1 x 1 gate times C x H x W, as in squeeze-and-excitation)."""
        return self._binary("Mul", np.multiply, a, b, name)

    def channel_affine(self, x, name, gamma_std=0.1):
        """An inference BatchNormalization that cannot be folded into a conv before it
        (DenseNet's pre-activation BN after a Concat), as a per-channel Mul by a C x 1 x 1
        scale ("<name>/mul", initializer "<name>/scale") and Add of a C x 1 x 1 shift
        ("<name>", initializer "<name>/shift"): 2 parameters per channel, as BN's gamma
        and beta.  gamma ~ 1 + gamma_std * N(0, 1) and beta ~ bias_std * N(0, 1); when
        calibrating, the scale and shift also normalise each channel by its calibration
        mean and standard deviation, as a trained BN does (the inverse standard deviation
        rounded to a power of 2 ** (1/8), the mean to a multiple of 1/256, so that BLAS
        differences almost never change a weight)."""
        c = x.channels
        gamma = np.float32(1.0) + self.rng.standard_normal(c, dtype=np.float32) * np.float32(gamma_std)
        beta = self.rng.standard_normal(c, dtype=np.float32) * np.float32(self.bias_std)
        scale, shift = gamma, beta
        if x.value is not None:
            v = x.value.reshape(c, -1).astype(np.float64)
            mean = np.round(v.mean(axis=1) * 256.0) / 256.0
            std = np.sqrt(np.maximum(((v - mean[:, None]) ** 2).mean(axis=1), 0.0))
            inv = np.ones(c)
            ok = (std > 1e-6) & np.isfinite(std)
            inv[ok] = 2.0 ** (np.round(np.log2(1.0 / std[ok]) * 8) / 8)
            scale = (gamma * inv).astype(np.float32)
            shift = (beta - mean * scale).astype(np.float32)
        scale = scale.reshape(c, 1, 1)
        shift = shift.reshape(c, 1, 1)
        self._add_initializer(name + "/scale", scale)
        self._add_initializer(name + "/shift", shift)
        y = self.mul(x, Tensor(name + "/scale", scale.shape, scale), name + "/mul")
        return self.add(y, Tensor(name + "/shift", shift.shape, shift), name)

    def split(self, x, sizes, name):
        """Split along channels into ``sizes`` (the sizes as a constant int64 input,
        opset 13+); the outputs are "<name>/0", "<name>/1", ...  Returns the list."""
        assert sum(sizes) == x.channels and all(s > 0 for s in sizes), (name, x.shape, sizes)
        split_name = self._add_constant(np.array(sizes, np.int64))
        outs = ["%s/%d" % (name, i) for i in range(len(sizes))]
        self._claim(name)
        for t in outs:
            self._claim(t)
        for t in (x.name, split_name):
            self._consumers[t] = self._consumers.get(t, 0) + 1
        node = self.nodes.add()
        node.CopyFrom(helper.make_node("Split", [x.name, split_name], outs, name=name, axis=1))
        result, start = [], 0
        for t, size in zip(outs, sizes):
            self._producer[t] = len(self.nodes) - 1
            value = np.ascontiguousarray(x.value[start:start + size]) if x.value is not None else None
            result.append(Tensor(t, (size,) + x.shape[1:], value))
            start += size
        return result

    def reshape(self, x, shape, name):
        """Reshape to [N] + ``shape`` (the batch dimension as -1, the rest constant)."""
        shape = tuple(int(s) for s in shape)
        assert int(np.prod(shape)) == int(np.prod(x.shape)), (name, x.shape, shape)
        shape_name = self._add_constant(np.array((-1,) + shape, np.int64))
        self._add_node("Reshape", [x.name, shape_name], name)
        value = x.value.reshape(shape) if x.value is not None else None
        return Tensor(name, shape, value)

    def transpose(self, x, perm, name):
        """Transpose of the non-batch dimensions by ``perm`` (the batch stays first)."""
        perm = [int(p) for p in perm]
        assert sorted(perm) == list(range(len(x.shape))), (name, x.shape, perm)
        self._add_node("Transpose", [x.name], name, perm=[0] + [p + 1 for p in perm])
        value = np.ascontiguousarray(x.value.transpose(perm)) if x.value is not None else None
        return Tensor(name, tuple(x.shape[p] for p in perm), value)

    def channel_shuffle(self, x, groups, name):
        """ShuffleNet's channel shuffle as PyTorch exports it: Reshape to
        [N, g, C/g, H, W], Transpose (0, 2, 1, 3, 4), Reshape back to [N, C, H, W]
        ("<name>/reshape", "<name>/transpose", "<name>")."""
        c, h, w = x.shape
        assert c % groups == 0, (name, x.shape, groups)
        y = self.reshape(x, (groups, c // groups, h, w), name + "/reshape")
        y = self.transpose(y, (1, 0, 2, 3), name + "/transpose")
        return self.reshape(y, (c, h, w), name)

    def flatten(self, x, name):
        """Flatten (axis 1): [N, C, H, W] -> [N, C * H * W]."""
        self._add_node("Flatten", [x.name], name, axis=1)
        value = x.value.reshape(-1) if x.value is not None else None
        return Tensor(name, (int(np.prod(x.shape)),), value)

    def gemm(self, x, out_features, name):
        """Fully connected layer: Gemm(x, W, B) with transB = 1, W [out, in] (He scaled,
        then rescaled like a conv when calibrating), B [out]; ``x`` must be flat."""
        assert len(x.shape) == 1, (name, x.shape)
        fan_in = x.shape[0]
        weight = self.rng.standard_normal((out_features, fan_in), dtype=np.float32)
        weight *= np.float32(math.sqrt(2.0 / fan_in))
        bias = self.rng.standard_normal(out_features, dtype=np.float32) * np.float32(self.bias_std)
        value = None
        if x.value is not None:
            value = weight @ x.value
            scale = self._calibration_scale(value)
            weight *= np.float32(scale)
            value *= np.float32(scale)
            value += bias
        self._add_initializer(name + "/W", weight)
        self._add_initializer(name + "/B", bias)
        self._add_node("Gemm", [x.name, name + "/W", name + "/B"], name, transB=1)
        return Tensor(name, (out_features,), value)

    def classifier(self, x, classes, name):
        """The ImageNet head: GlobalAveragePool ("<name>/avgpool"), Flatten
        ("<name>/flatten"), Gemm to ``classes`` ("<name>")."""
        p = self.global_avgpool(x, name + "/avgpool")
        return self.gemm(self.flatten(p, name + "/flatten"), classes, name)

    def inverted_residual(self, x, expansion, out_channels, kernel, stride, act, name,
                          squeeze=0, hidden=None, se_act=None, se_gate="sigmoid"):
        """MobileNetV2's inverted residual, EfficientNet's MBConv when ``squeeze`` > 0: an
        expansion conv 1x1 to ``expansion`` * C_in with ``act`` ("<name>/expand", absent when
        the expansion is 1), a depthwise conv ``kernel`` x ``kernel`` with ``act``
        ("<name>/dw"), squeeze-and-excitation to ``squeeze`` channels ("<name>/se/...": global
        average pool, conv 1x1 with ``act``, conv 1x1 back with Sigmoid, Mul), a linear
        projection conv 1x1 ("<name>/project"), and the input added ("<name>/add") when the
        stride is 1 and the channels match.  MobileNetV3's blocks give ``hidden`` (the expanded
        channels, in place of ``expansion``), and their squeeze-and-excitation's activation
        ``se_act`` (default ``act``) and gate ``se_gate``."""
        if hidden is None:
            hidden = x.channels * expansion
        y = x
        if hidden != x.channels:
            y = self.conv_act(y, hidden, 1, act=act, name=name + "/expand")
        y = self.conv_act(y, hidden, kernel, stride=stride, group=hidden, act=act,
                          name=name + "/dw")
        if squeeze > 0:
            se = name + "/se"
            s = self.global_avgpool(y, se + "/avgpool")
            s = self.conv_act(s, squeeze, 1, act=se_act or act, name=se + "/reduce")
            s = self.conv_act(s, y.channels, 1, act=se_gate, name=se + "/expand")
            y = self.mul(y, s, se + "/scale")
        y = self.conv_act(y, out_channels, 1, act="identity", name=name + "/project")
        if stride == 1 and x.channels == out_channels:
            y = self.add(x, y, name + "/add")
        return y

    # -- model -------------------------------------------------------------------

    def make_model(self, output, doc_string="", metadata=None):
        """Rename ``output`` to "output" and return the ModelProto."""
        assert output.name in self._producer, "the output must be produced by a node"
        assert self._consumers.get(output.name, 0) == 0, "the output tensor must not be consumed"
        node = self.nodes[self._producer[output.name]]
        node.output[0] = "output"
        c, h, w = self.input_shape
        graph = self.graph
        graph.name = self.graph_name
        graph.input.add().CopyFrom(helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", c, h, w]))
        graph.output.add().CopyFrom(
            helper.make_tensor_value_info("output", TensorProto.FLOAT, ["N"] + list(output.shape)))
        model = self.model
        model.ir_version = IR_VERSION
        model.opset_import.add().CopyFrom(helper.make_opsetid("", OPSET))
        model.producer_name = "ios-generate-models"
        model.doc_string = doc_string
        for key, value in (metadata or {}).items():
            entry = model.metadata_props.add()
            entry.key = str(key)
            entry.value = str(value)
        return model


def op_histogram(model):
    counts = {}
    for node in model.graph.node:
        counts[node.op_type] = counts.get(node.op_type, 0) + 1
    return dict(sorted(counts.items()))


__all__ = ["OnnxBuilder", "Tensor", "op_histogram", "OPSET", "IR_VERSION"]

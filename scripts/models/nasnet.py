"""NasNet-A (large) as the IOS reference defines it.

Input 3x331x331, stem_filters = 96, F = 168.  Follows the cell definitions of
the reference-models README literally:

* RC(x, n, s)  = ReluConv: Relu -> Conv 1x1/n stride s (act identity, pad 0).
* SEP(x, n, k, s) = ReluSepConv(x -> in_channels, k, stride s) followed by
  ReluSepConv(-> n, k, stride 1); SEP_STEM's first unit already outputs n.
* Pools are 3x3 with pad 1 (average pools count padding).

Spatial sizes: the stem conv (3x3 s2 p0) gives 165; every stride-2 op then
maps a size s to ceil(s / 2): depthwise k x k stride 2 with pad k // 2 (k odd),
pools 3x3 s2 p1 and 1x1 stride-2 RCs (pad 0) all agree, so every Sum/Concat
lines up: 165 -> 83 -> 42 -> 21 -> 11.  Strided SEPs pad k // 2 in both of
their depthwise convs (the second one has stride 1).

Sums that the reference materialises as their own aggregation (stem0/stem1/
reduction c0 and c1, stem1's xr) are created where they are defined; the other
sums are terms of the cell's output aggregation and are created right before
its Concat, in term order.  This mirrors the reference's creation order.
The reduction cell's output is cat[c1, c2, c1 + c3, c4] with the
materialised c1 used directly as the first term.
Output: Relu -> GlobalAveragePool, 3360x1x1 (5 x 4F).
"""

from .onnx_builder import OnnxBuilder

NAME = "nasnet"
VERSION = "1"
INPUT_SHAPE = (3, 331, 331)
STEM_FILTERS = 96
FILTERS = 168


def _rc(b, x, n, s, name):
    return b.relu_conv(x, n, stride=s, name=name)


def _sep(b, x, n, k, s, name):
    y = b.relu_sep_conv(x, x.channels, k, stride=s, pad=k // 2, name=name + "/sep1")
    return b.relu_sep_conv(y, n, k, stride=1, pad=k // 2, name=name + "/sep2")


def _sep_stem(b, x, n, k, s, name):
    y = b.relu_sep_conv(x, n, k, stride=s, pad=k // 2, name=name + "/sep1")
    return b.relu_sep_conv(y, n, k, stride=1, pad=k // 2, name=name + "/sep2")


def _maxpool(b, x, s, name):
    return b.maxpool(x, 3, s, pad=1, name=name)


def _avgpool(b, x, s, name):
    return b.avgpool(x, 3, s, pad=1, name=name)


def _output(b, p, terms):
    names = ["%s/c%d" % (p, i) for i in range(len(terms))]
    return b.aggregate(terms, p + "/concat", term_names=names)


def stem0(b, x, n, p):
    x1 = _rc(b, x, n, 1, p + "/x1")
    c0l = _sep(b, x1, n, 5, 2, p + "/c0/left")
    c0r = _sep_stem(b, x, n, 7, 2, p + "/c0/right")
    c0 = b.sum([c0l, c0r], p + "/c0")
    c1l = _maxpool(b, x1, 2, p + "/c1/left")
    c1r = _sep_stem(b, x, n, 7, 2, p + "/c1/right")
    c1 = b.sum([c1l, c1r], p + "/c1")
    c2l = _avgpool(b, x1, 2, p + "/c2/left")
    c2r = _sep_stem(b, x, n, 5, 2, p + "/c2/right")
    c3l = _avgpool(b, c0, 1, p + "/c3/left")  # c3 = avgpool s1(c0) + c0
    c4l = _sep(b, c0, n, 3, 1, p + "/c4/left")
    c4r = _maxpool(b, x1, 2, p + "/c4/right")
    terms = [[c1], [c2l, c2r], [c3l, c0], [c4l, c4r]]
    return b.aggregate(terms, p + "/concat", term_names=[None, p + "/c2", p + "/c3", p + "/c4"])


def stem1(b, hp, h, n, p):
    xl = _rc(b, hp, n, 1, p + "/xl")
    xr1 = _rc(b, h, n // 2, 2, p + "/xr/a")
    xr2 = _rc(b, h, n // 2, 2, p + "/xr/b")
    xr = b.sum([xr1, xr2], p + "/xr")  # a sum, not a concat
    c0l = _sep(b, xl, n, 5, 2, p + "/c0/left")
    c0r = _sep(b, xr, n, 7, 2, p + "/c0/right")
    c0 = b.sum([c0l, c0r], p + "/c0")
    c1l = _maxpool(b, xl, 2, p + "/c1/left")
    c1r = _sep(b, xr, n, 7, 2, p + "/c1/right")
    c1 = b.sum([c1l, c1r], p + "/c1")
    c2l = _avgpool(b, xl, 2, p + "/c2/left")
    c2r = _sep(b, xr, n, 5, 2, p + "/c2/right")
    c3l = _avgpool(b, c0, 1, p + "/c3/left")  # c3 = avgpool s1(c0) + c1 (sic: c1, not c0)
    c4l = _sep(b, c0, n, 3, 1, p + "/c4/left")
    c4r = _maxpool(b, xl, 2, p + "/c4/right")
    terms = [[c1], [c2l, c2r], [c3l, c1], [c4l, c4r]]
    return b.aggregate(terms, p + "/concat", term_names=[None, p + "/c2", p + "/c3", p + "/c4"])


def first(b, x, xp, L, R, p):
    xl1 = _rc(b, xp, L, 2, p + "/xl/a")
    xl2 = _rc(b, xp, L, 2, p + "/xl/b")
    xl = b.concat([xl1, xl2], p + "/xl")  # cat of two strided RCs of xp
    xr = _rc(b, x, R, 1, p + "/xr")
    c0l = _sep(b, xr, R, 5, 1, p + "/c0/left")
    c0r = _sep(b, xr, R, 3, 1, p + "/c0/right")
    c1l = _sep(b, xl, R, 5, 1, p + "/c1/left")
    c1r = _sep(b, xl, R, 3, 1, p + "/c1/right")
    c2l = _avgpool(b, xr, 1, p + "/c2/left")
    c3l = _avgpool(b, xl, 1, p + "/c3/left")
    c3r = _avgpool(b, xl, 1, p + "/c3/right")
    c4l = _sep(b, xr, R, 3, 1, p + "/c4/left")
    terms = [[xl], [c0l, c0r], [c1l, c1r], [c2l, xl], [c3l, c3r], [c4l, xr]]
    return b.aggregate(terms, p + "/concat",
                       term_names=[None, p + "/c0", p + "/c1", p + "/c2", p + "/c3", p + "/c4"])


def normal(b, x, xp, L, R, p):
    xl = _rc(b, xp, L, 1, p + "/xl")
    xr = _rc(b, x, R, 1, p + "/xr")
    c0l = _sep(b, xr, R, 5, 1, p + "/c0/left")
    c0r = _sep(b, xl, L, 3, 1, p + "/c0/right")
    c1l = _sep(b, xl, L, 5, 1, p + "/c1/left")
    c1r = _sep(b, xl, L, 3, 1, p + "/c1/right")
    c2l = _avgpool(b, xr, 1, p + "/c2/left")
    c3l = _avgpool(b, xl, 1, p + "/c3/left")
    c3r = _avgpool(b, xl, 1, p + "/c3/right")
    c4l = _sep(b, xr, R, 3, 1, p + "/c4/left")
    terms = [[c0l, c0r], [c1l, c1r], [c2l, xl], [c3l, c3r], [c4l, xr]]
    return _output(b, p, terms)


def reduction(b, x, xp, L, R, p):
    xl = _rc(b, xp, L, 1, p + "/xl")
    xr = _rc(b, x, R, 1, p + "/xr")
    c0l = _sep(b, xr, R, 5, 2, p + "/c0/left")
    c0r = _sep(b, xl, R, 7, 2, p + "/c0/right")
    c0 = b.sum([c0l, c0r], p + "/c0")
    c1l = _maxpool(b, xr, 2, p + "/c1/left")
    c1r = _sep(b, xl, R, 7, 2, p + "/c1/right")
    c1 = b.sum([c1l, c1r], p + "/c1")
    c2l = _avgpool(b, xr, 2, p + "/c2/left")
    c2r = _sep(b, xl, R, 5, 2, p + "/c2/right")
    c3 = _avgpool(b, c0, 1, p + "/c3")  # c3 = avgpool s1(c0), no sum
    c4l = _sep(b, c0, R, 3, 1, p + "/c4/left")
    c4r = _maxpool(b, xr, 2, p + "/c4/right")
    terms = [[c1], [c2l, c2r], [c1, c3], [c4l, c4r]]
    return b.aggregate(terms, p + "/concat", term_names=[None, p + "/c2", p + "/c1_plus_c3", p + "/c4"])


def build(seed=0, calibrate=True, **_):
    F = FILTERS
    b = OnnxBuilder(NAME, INPUT_SHAPE, seed, calibrate=calibrate)
    v1 = b.conv(b.input, STEM_FILTERS, 3, stride=2, pad=0, act="identity", name="stem/conv")
    assert v1.shape == (STEM_FILTERS, 165, 165), v1.shape
    v2 = stem0(b, v1, F // 4, "cell02_stem0")
    assert v2.shape == (F, 83, 83), v2.shape
    v3 = stem1(b, v2, v1, F // 2, "cell03_stem1")
    assert v3.shape == (2 * F, 42, 42), v3.shape
    del v1
    # Keep only the last two cell outputs (plus v8/v15, which the next first cell
    # reads) so the calibration values of older cells are freed.
    prev, cur = v2, v3
    index = 4
    for L, R, xp_skip in ((F // 2, F, None), (F, 2 * F, 8), (2 * F, 4 * F, 15)):
        if xp_skip is None:
            xp = prev
        else:
            # reduction(v_{i-1}, v_{i-2}, R, R), then first(v_red, v_{i-2}, L, R)
            red = reduction(b, cur, prev, R, R, "cell%02d_reduction" % index)
            index += 1
            assert index - 3 == xp_skip
            xp, cur = prev, red
        nxt = first(b, cur, xp, L, R, "cell%02d_first" % index)
        index += 1
        prev, cur = cur, nxt
        for _ in range(5):
            nxt = normal(b, cur, prev, R, R, "cell%02d_normal" % index)
            index += 1
            prev, cur = cur, nxt
    assert index == 24, index
    assert cur.shape == (5 * 4 * F, 11, 11), cur.shape
    r = b.relu(cur, "head/relu")
    out = b.global_avgpool(r, "head/avgpool")
    return b.make_model(out, doc_string="NasNet-A large (IOS reference definition), F = %d" % F)

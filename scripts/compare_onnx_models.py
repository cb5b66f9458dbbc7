#!/usr/bin/env python3
"""Check that two ONNX models compute the same function with onnxruntime.

    compare_onnx_models.py ORIGINAL.onnx CANONICAL.onnx [--batch N]
                           [--atol A] [--rtol R] [--seed S] [--threads T]

Used to prove that ios's canonicalisation passes preserve numerics.  Both
models run on the same random inputs (standard normal float32 for float
inputs).  ORIGINAL may have a symbolic batch dimension; CANONICAL usually has
it fixed.  Input shapes come from CANONICAL where its dimensions are fixed;
remaining symbolic dimensions are set to --batch (default: CANONICAL's fixed
leading dimension if it has one, else 1).  Inputs are matched by name (by
position when the names differ), outputs by name when both models have the same
output names, otherwise by position.  For every output pair the max absolute
and max relative error (relative to max(|a|, atol)) are printed; the pair matches when
|a - b| <= atol + rtol * |a| everywhere (a = ORIGINAL).  Exit status 1 on any
mismatch (or a shape / count difference), 0 otherwise.
"""

import argparse
import os
import sys

import numpy as np

from ort_reference import concrete_shape, make_session, random_input


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("original")
    parser.add_argument("canonical")
    parser.add_argument("--batch", type=int, default=None, help="value of symbolic dimensions")
    parser.add_argument("--atol", type=float, default=1e-4)
    parser.add_argument("--rtol", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)

    orig = make_session(args.original, args.threads)
    canon = make_session(args.canonical, args.threads)
    orig_in, canon_in = orig.get_inputs(), canon.get_inputs()
    if len(orig_in) != len(canon_in):
        print("MISMATCH: %d inputs vs %d inputs" % (len(orig_in), len(canon_in)))
        return 1
    by_name = {i.name for i in orig_in} == {i.name for i in canon_in}
    pairs = ([(o, next(c for c in canon_in if c.name == o.name)) for o in orig_in] if by_name
             else list(zip(orig_in, canon_in)))

    batch = args.batch
    if batch is None:
        lead = [c.shape[0] for _, c in pairs if c.shape and isinstance(c.shape[0], int) and c.shape[0] > 0]
        batch = lead[0] if lead else 1

    rng = np.random.default_rng(args.seed)
    orig_feeds, canon_feeds = {}, {}
    for o, c in pairs:
        if len(o.shape) != len(c.shape):
            print("MISMATCH: input %s rank %d vs %s rank %d" % (o.name, len(o.shape), c.name, len(c.shape)))
            return 1
        shape = []
        for do, dc in zip(o.shape, c.shape):
            fixed = [d for d in (dc, do) if isinstance(d, int) and d >= 0]
            if len(fixed) == 2 and fixed[0] != fixed[1]:
                print("MISMATCH: input %s shape %s vs %s" % (o.name, o.shape, c.shape))
                return 1
            shape.append(fixed[0] if fixed else batch)
        shape = concrete_shape(shape, batch)
        value = random_input(rng, o.type, shape)
        orig_feeds[o.name] = value
        canon_feeds[c.name] = value

    orig_out_info, canon_out_info = orig.get_outputs(), canon.get_outputs()
    if len(orig_out_info) != len(canon_out_info):
        print("MISMATCH: %d outputs vs %d outputs" % (len(orig_out_info), len(canon_out_info)))
        return 1
    orig_names = [o.name for o in orig_out_info]
    canon_names = [o.name for o in canon_out_info]
    if set(orig_names) != set(canon_names):
        canon_order = canon_names  # match by position
    else:
        canon_order = orig_names
    a_outs = orig.run(orig_names, orig_feeds)
    b_outs = canon.run(canon_order, canon_feeds)

    ok = True
    for name_a, name_b, a, b in zip(orig_names, canon_order, a_outs, b_outs):
        a, b = np.asarray(a), np.asarray(b)
        label = name_a if name_a == name_b else "%s / %s" % (name_a, name_b)
        if a.shape != b.shape:
            print("MISMATCH %s: shape %s vs %s" % (label, a.shape, b.shape))
            ok = False
            continue
        if a.dtype != b.dtype:
            print("MISMATCH %s: dtype %s vs %s" % (label, a.dtype, b.dtype))
            ok = False
            continue
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        diff = np.abs(a64 - b64)
        if a.size == 0:
            max_abs = max_rel = 0.0
            good = True
        else:
            finite = np.isfinite(a64) & np.isfinite(b64)
            same_nonfinite = (~finite) & ((a64 == b64) | (np.isnan(a64) & np.isnan(b64)))
            diff = np.where(finite, diff, np.where(same_nonfinite, 0.0, np.inf))
            max_abs = float(diff.max())
            # relative to |a|, floored at atol so exact zeros (e.g. after Relu) don't blow it up
            floor = max(args.atol, float(np.finfo(np.float32).tiny))
            max_rel = float((diff / np.maximum(np.abs(a64), floor)).max())
            good = bool(np.all(diff <= args.atol + args.rtol * np.abs(np.where(finite, a64, 0.0))))
        print("%s %s: shape %s max abs err %.3g max rel err %.3g (atol %g rtol %g)" % (
            "ok      " if good else "MISMATCH", label, a.shape, max_abs, max_rel, args.atol, args.rtol))
        ok = ok and good
    print("compare_onnx_models: %s (batch %d, %d output(s))" % ("match" if ok else "MISMATCH", batch,
                                                                   len(orig_names)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Generate the IOS benchmark networks as ONNX files.

    generate_models.py --out DIR [--models inception_v3,squeezenet,randwire,nasnet]
                       [--seed 0] [--force]

Writes DIR/<name>.onnx atomically (temporary file in DIR, then os.replace).  A
model whose file already exists and whose metadata records the same generator
version and seed is skipped unless --force is given.  Models are generated at
test time into the build tree and never committed (NasNet-A large is a few
hundred MB).
"""

import argparse
import os
import sys
import time

# The calibration pass multiplies matrices with numpy.  With two cores shared with a
# parallel build or other tests, OpenBLAS's spinning worker threads made generation
# 2-4x slower than one thread (measured), so default to one BLAS thread.  This only
# takes effect if numpy has not been imported yet.
for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from ios_tools.files import write_atomically  # noqa: E402
from models import GENERATORS, MODEL_NAMES  # noqa: E402
from models.onnx_builder import op_histogram  # noqa: E402

# Bump when something shared by all generators changes (builder conventions,
# weight initialisation); each model module has its own VERSION too.
GENERATOR_VERSION = "1"
KEY_VERSION = "ios.generator_version"
KEY_SEED = "ios.generator_seed"
KEY_MODEL = "ios.model"
KEY_INIT = "ios.generator_init"


def version_string(name):
    return "%s/%s/%s" % (GENERATOR_VERSION, name, GENERATORS[name].VERSION)


def _read_varint(f):
    shift = result = 0
    while True:
        byte = f.read(1)
        if not byte:
            raise EOFError
        result |= (byte[0] & 0x7F) << shift
        if not byte[0] & 0x80:
            return result
        shift += 7
        if shift > 63:
            raise ValueError("bad varint")


def _parse_entry(data):
    """StringStringEntryProto: key = 1, value = 2 (both length-delimited)."""
    key = value = ""
    pos = 0
    while pos < len(data):
        tag = 0
        shift = 0
        while True:
            byte = data[pos]
            pos += 1
            tag |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        if tag & 7 != 2:
            raise ValueError("unexpected wire type in metadata entry")
        length = 0
        shift = 0
        while True:
            byte = data[pos]
            pos += 1
            length |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        text = data[pos:pos + length].decode("utf-8")
        pos += length
        if tag >> 3 == 1:
            key = text
        elif tag >> 3 == 2:
            value = text
    return key, value


def read_metadata(path):
    """metadata_props of an ONNX file without parsing its (large) graph.

    Scans the top-level fields of the ModelProto and seeks over everything but
    field 14 (metadata_props).  Falls back to onnx.load on any surprise."""
    try:
        props = {}
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(0)
            while f.tell() < size:
                tag = _read_varint(f)
                field, wire = tag >> 3, tag & 7
                if wire == 0:
                    _read_varint(f)
                elif wire == 1:
                    f.seek(8, os.SEEK_CUR)
                elif wire == 5:
                    f.seek(4, os.SEEK_CUR)
                elif wire == 2:
                    length = _read_varint(f)
                    if field == 14:
                        key, value = _parse_entry(f.read(length))
                        props[key] = value
                    else:
                        f.seek(length, os.SEEK_CUR)
                else:
                    raise ValueError("unexpected wire type %d" % wire)
            if f.tell() != size:
                raise ValueError("truncated file")
        return props
    except Exception:  # noqa: BLE001 - any parse problem: use the real parser
        import onnx
        try:
            model = onnx.load(path, load_external_data=False)
        except Exception:  # noqa: BLE001
            return {}
        return {p.key: p.value for p in model.metadata_props}


def init_string(calibrate):
    return "he+calibrated" if calibrate else "he"


def is_up_to_date(path, name, seed, calibrate=True):
    if not os.path.isfile(path):
        return False
    props = read_metadata(path)
    return (props.get(KEY_VERSION) == version_string(name) and props.get(KEY_SEED) == str(seed)
            and props.get(KEY_INIT) == init_string(calibrate))


def generate(name, out_dir, seed=0, force=False, calibrate=True, graph_dir=None, verbose=True):
    """Generate one model.  Returns a dict with path, skipped, seconds, bytes, ops."""
    path = os.path.join(out_dir, name + ".onnx")
    if not force and is_up_to_date(path, name, seed, calibrate):
        if verbose:
            print("%-13s up to date: %s" % (name, path))
        return {"path": path, "skipped": True, "seconds": 0.0, "bytes": os.path.getsize(path), "ops": None}
    start = time.perf_counter()
    model = GENERATORS[name].build(seed=seed, calibrate=calibrate, graph_dir=graph_dir)
    for key, value in ((KEY_VERSION, version_string(name)), (KEY_SEED, str(seed)), (KEY_INIT, init_string(calibrate)),
                       (KEY_MODEL, name)):
        entry = model.metadata_props.add()
        entry.key = key
        entry.value = value
    built = time.perf_counter()
    data = model.SerializeToString()
    write_atomically(path, data)
    done = time.perf_counter()
    ops = op_histogram(model)
    if verbose:
        print("%-13s %6.1f MB  %5.2f s (build %.2f s, write %.2f s)  %d nodes  %s" % (
            name, len(data) / 1e6, done - start, built - start, done - built, len(model.graph.node),
            " ".join("%s:%d" % kv for kv in ops.items())))
    return {"path": path, "skipped": False, "seconds": done - start, "bytes": len(data), "ops": ops}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="output directory (created if missing)")
    parser.add_argument("--models", default=",".join(MODEL_NAMES),
                        help="comma-separated subset of: %s (default: the four benchmark "
                             "networks)" % ",".join(GENERATORS))
    parser.add_argument("--seed", type=int, default=0, help="weight seed (default 0)")
    parser.add_argument("--force", action="store_true", help="regenerate even if up to date")
    parser.add_argument("--randwire-dir", default=None,
                        help="directory of the RandWire graph files (default: testdata/randwire)")
    parser.add_argument("--no-calibrate", action="store_true",
                        help="plain He init without the data-dependent per-conv rescaling")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.models.split(",") if n.strip()]
    unknown = [n for n in names if n not in GENERATORS]
    if unknown or not names:
        parser.error("unknown model(s) %s; choose from %s" % (",".join(unknown), ",".join(GENERATORS)))
    os.makedirs(args.out, exist_ok=True)
    for name in names:
        generate(name, args.out, seed=args.seed, force=args.force, calibrate=not args.no_calibrate,
                 graph_dir=args.randwire_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpus (tests/fuzz/corpus/<target>/), committed to the tree:

    make_fuzz_corpus.py --iosc build/tools/iosc [--out tests/fuzz/corpus]

* fuzz_onnx_import: the small models of testdata/models, and the project's generators at small
  sizes (the exporter idioms, a ConvNeXt-style block, an FPN neck with Resize, the detection FCN),
  shrunk: every weight is cut to at most 64 values (the importer then refuses them, but their
  graphs are what the structure-aware mutator works on) — plus each model whole when it is under
  40 KB, so that some seeds pass import and reach canonicalisation, blocks and the memory plan.
* fuzz_plan_load: plans iosc makes from those small models (sim:V100, greedy and ios schedules)
  that stay under 64 KB.
* fuzz_timing_cache: the smallest timing cache of those compilations.
* fuzz_text_inputs: one seed per parser (the first byte picks it).
Regenerate after a change of the plan or timing-cache format; the reproducers in
tests/fuzz/regressions are never regenerated.
"""

import argparse
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MAX_WHOLE_BYTES = 40 << 10


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def shrunk(model):
    """The model with every initializer cut to its first 64 values (dims kept)."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for init in copy.graph.initializer:
        if init.raw_data and len(init.raw_data) > 256:
            init.raw_data = init.raw_data[:256]
    return copy


def generate_models(tmp):
    models = sorted(glob.glob(os.path.join(ROOT, "testdata", "models", "*.onnx")))
    for script, extra in (("exporter_idioms.py", []), ("convnext_block.py", []),
                          ("fpn_neck.py", [])):
        out = os.path.join(tmp, script[:-3])
        subprocess.run([sys.executable, os.path.join(HERE, "models", script), "--out", out] + extra,
                       check=True, capture_output=True)
        models += sorted(glob.glob(os.path.join(out, "*.onnx")))[:3]
    subprocess.run([sys.executable, os.path.join(HERE, "generate_models.py"), "--out", tmp,
                    "--models", "detection_fcn"], check=True, capture_output=True)
    models.append(os.path.join(tmp, "detection_fcn.onnx"))
    return models


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iosc", required=True)
    parser.add_argument("--out", default=os.path.join(ROOT, "tests", "fuzz", "corpus"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        models = generate_models(tmp)
        count = {"onnx": 0, "plan": 0}
        for i, path in enumerate(models):
            name = os.path.splitext(os.path.basename(path))[0]
            model = onnx.load(path)
            data = model.SerializeToString()
            if len(data) <= MAX_WHOLE_BYTES:
                write(os.path.join(args.out, "fuzz_onnx_import", f"{name}.onnx"), data)
                count["onnx"] += 1
            write(os.path.join(args.out, "fuzz_onnx_import", f"{name}_shrunk.onnx"),
                  shrunk(model).SerializeToString())
            count["onnx"] += 1
            shape = ["--input-shape", "input:1x3x32x48"] if "detection" in name \
                else []
            for schedule in ("greedy", "ios"):
                plan = os.path.join(tmp, f"{name}_{schedule}.iosplan")
                cache = os.path.join(tmp, f"{name}.cache")
                made = subprocess.run([args.iosc, path, "--device", "sim:V100", "--schedule",
                                       schedule, "--timing-cache", cache, "-o", plan] + shape,
                                      capture_output=True, text=True)
                if made.returncode != 0:
                    print(f"skipped {name} ({schedule}): {made.stderr.strip()[:200]}")
                    continue
                with open(plan, "rb") as f:
                    data = f.read()
                if len(data) <= 64 << 10:
                    write(os.path.join(args.out, "fuzz_plan_load", f"{name}_{schedule}.iosplan"),
                          data)
                    count["plan"] += 1
        caches = sorted(glob.glob(os.path.join(tmp, "*.cache")), key=os.path.getsize)
        with open(caches[0], "rb") as f:  # the smallest: one model's stages
            write(os.path.join(args.out, "fuzz_timing_cache", "sim_v100.cache"), f.read())
        tensor = numpy_helper.from_array(np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4),
                                         "input")
        for index, seed in enumerate([b"\x00images:1x3x640x640", b"\x01logits:1e-3",
                                      b"\x02features:scaled", b"\x03cuda:0",
                                      b"\x04" + tensor.SerializeToString()]):
            write(os.path.join(args.out, "fuzz_text_inputs", f"seed_{index}"), seed)
    print(f"wrote {count['onnx']} models, {count['plan']} plans, 1 timing cache, 5 text seeds "
          f"to {args.out}")


if __name__ == "__main__":
    main()

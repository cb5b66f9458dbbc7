#!/usr/bin/env python3
"""An ordinary onnxruntime script: run a model on random inputs and save its outputs.

    python3 onnxruntime_script.py MODEL.onnx OUTPUTS.npz

To run it on ios, change its import line to `import ios as ort`: ios.InferenceSession takes
onnxruntime's arguments, compiles the model into an IOS plan on first use, and keeps the plan
in ~/.cache/ios (or $IOS_CACHE_DIR) for the next run.
"""
import sys
import time

import numpy as np
import onnxruntime as ort

NUMPY_TYPES = {"tensor(float)": np.float32, "tensor(double)": np.float64,
               "tensor(int64)": np.int64, "tensor(int32)": np.int32, "tensor(uint8)": np.uint8}


def main() -> None:
    model, outputs_path = sys.argv[1], sys.argv[2]
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = 0
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])

    rng = np.random.default_rng(0)
    feeds = {}
    for value in session.get_inputs():
        shape = [d if isinstance(d, int) else 1 for d in value.shape]
        feeds[value.name] = rng.standard_normal(shape).astype(NUMPY_TYPES[value.type])
    names = [value.name for value in session.get_outputs()]

    results = session.run(names, feeds)
    start = time.perf_counter()
    for _ in range(10):
        session.run(None, feeds)
    print(f"{(time.perf_counter() - start) / 10 * 1e3:.2f} ms per run")
    for name, result in zip(names, results):
        print(f"{name}: {result.shape} {result.dtype}")
    np.savez(outputs_path, **dict(zip(names, results)))


if __name__ == "__main__":
    main()

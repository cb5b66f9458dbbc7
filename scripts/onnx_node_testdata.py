#!/usr/bin/env python3
"""Write ONNX's backend node tests for some ops from the installed Python onnx package.

    onnx_node_testdata.py --out DIR [--ops Erf,Gelu,...]   (default: DEFAULT_OPS below)

Debian's libonnx-testdata stops at onnx 1.12 (opset 17), and the onnx wheels on PyPI ship the
node-test generators (onnx/backend/test/case/node/*.py) but not their data. This runs the
generators of the given ops, exactly as `python -m onnx.backend.test.cmd_tools generate-data`
does (each export is seeded with numpy seed 0, so the data is the same on every run), and writes
DIR/node/<test>/model.onnx and DIR/node/<test>/test_data_set_0/{input,output}_N.pb, the layout
of onnx/backend/test/data/node. tests/onnx_node_conformance_test.cc reads them (the
"onnx-pip:" entries of tests/onnx_node_tests_expected.txt).

Without the onnx package it prints why and exits 0: those tests then skip with that message.
"""

import argparse
import importlib
import os
import shutil
import sys
import tempfile


# The ops whose generators run by default: ops newer than Debian's libonnx-testdata (onnx 1.12),
# and ops whose newer opsets changed form (Resize 19, the reductions' `axes` input at 18).
DEFAULT_OPS = ",".join([
    "Erf,Gelu,LayerNormalization,Resize,Upsample,Mod,ScatterND",
    "Softplus,Mish,Selu,Celu,Softsign,ThresholdedRelu",
    "PRelu",
    "LogSoftmax,ReduceMean,ReduceMax,ReduceMin,ReduceSum,ReduceProd,ReduceL1,ReduceL2",
    "ReduceSumSquare,ReduceLogSumExp,ArgMax,ArgMin",
    "DepthToSpace,SpaceToDepth",
])

# Generator modules whose name is not the op's lower-cased name.
MODULE_OF = {"ReduceLogSumExp": "reduce_log_sum_exp"}


def write_case(case, out_dir):
    from onnx import numpy_helper

    case_dir = os.path.join(out_dir, case.name)
    os.makedirs(case_dir)
    with open(os.path.join(case_dir, "model.onnx"), "wb") as f:
        f.write(case.model.SerializeToString())
    graph = case.model.graph
    for i, (inputs, outputs) in enumerate(case.data_sets):
        data_dir = os.path.join(case_dir, "test_data_set_%d" % i)
        os.makedirs(data_dir)
        for kind, values, infos in (("input", inputs, graph.input), ("output", outputs, graph.output)):
            for j, value in enumerate(values):
                if not hasattr(value, "SerializeToString"):
                    value = numpy_helper.from_array(value, infos[j].name)
                with open(os.path.join(data_dir, "%s_%d.pb" % (kind, j)), "wb") as f:
                    f.write(value.SerializeToString())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="folder to write; DIR/node is replaced")
    parser.add_argument("--ops", default=DEFAULT_OPS,
                        help="comma-separated op types (default: %(default)s)")
    args = parser.parse_args()
    try:
        import onnx
        from onnx.backend.test.case import node as cases
    except ImportError as error:
        print("onnx_node_testdata: the Python onnx package is not installed (%s); "
              "the onnx-pip node tests will skip" % error)
        return 0
    # Importing a generator module runs its exports (seeded), which call cases.expect(); the
    # module of an op is its lower-cased name (or MODULE_OF's), as in onnx/backend/test/case/node/.
    import numpy as np

    for op in [o for o in args.ops.split(",") if o]:
        try:
            # Some generators compute their -inf/inf expectations as 1/0 and log(0).
            with np.errstate(divide="ignore", invalid="ignore"):
                importlib.import_module(
                    "onnx.backend.test.case.node." + MODULE_OF.get(op, op.lower()))
        except ImportError:
            print("onnx_node_testdata: onnx %s has no node tests for %s" % (onnx.__version__, op),
                  file=sys.stderr)
            return 1
    os.makedirs(args.out, exist_ok=True)
    staging = tempfile.mkdtemp(prefix="node.", dir=args.out)
    try:
        for case in cases._NodeTestCases:  # noqa: SLF001 (the generators' only output)
            write_case(case, staging)
        final = os.path.join(args.out, "node")
        if os.path.exists(final):
            shutil.rmtree(final)
        os.replace(staging, final)
        with open(os.path.join(args.out, "ONNX_VERSION"), "w") as f:
            f.write(onnx.__version__ + "\n")
    finally:
        if os.path.exists(staging):
            shutil.rmtree(staging)
    print("onnx_node_testdata: wrote %d node tests of onnx %s to %s"
          % (len(cases._NodeTestCases), onnx.__version__, final))  # noqa: SLF001
    return 0


if __name__ == "__main__":
    sys.exit(main())

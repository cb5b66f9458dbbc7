"""Shared fixtures of the Python package's tests. ctest (tests/CMakeLists.txt) runs each suite
with the package built from this checkout on PYTHONPATH and IOS_BUILD_DIR, IOS_IOSRUN and
IOS_IOSC naming the build; run by hand, they default to ./build."""
import os
import subprocess
import sys

import numpy as np
import pytest

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD_DIR = os.environ.get("IOS_BUILD_DIR") or os.path.join(SOURCE_DIR, "build")
IOSRUN = os.environ.get("IOS_IOSRUN") or os.path.join(BUILD_DIR, "tools", "iosrun")
IOSC = os.environ.get("IOS_IOSC") or os.path.join(BUILD_DIR, "tools", "iosc")
# A small CNN (31 nodes, 1x3x32x32 input) that compiles in milliseconds.
SMALL_MODEL = os.path.join(SOURCE_DIR, "testdata", "models", "pytorch_style_opset14.onnx")
NETWORKS = ["inception_v3", "squeezenet", "randwire", "nasnet"]


def generate_models(names):
    """The benchmark networks in BUILD/models (scripts/generate_models.py skips those that are
    up to date; ctest's models.generate fixture has usually made them)."""
    out = os.path.join(BUILD_DIR, "models")
    subprocess.run([sys.executable, os.path.join(SOURCE_DIR, "scripts", "generate_models.py"),
                    "--out", out, "--models", ",".join(names)], check=True,
                   capture_output=True)
    return {name: os.path.join(out, name + ".onnx") for name in names}


def write_add_model(path, shape=(1, 8), opset=17):
    """A model of one Add of two float inputs, x + y = z."""
    from onnx import TensorProto, helper, save
    values = [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(shape)) for n in "xyz"]
    graph = helper.make_graph([helper.make_node("Add", ["x", "y"], ["z"], name="add")], "add",
                              values[:2], values[2:])
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]), path)
    return path


@pytest.fixture
def add_model(tmp_path):
    return write_add_model(str(tmp_path / "add.onnx"))


def random_feeds(session, seed=0):
    rng = np.random.default_rng(seed)
    return {info.name: rng.standard_normal(info.shape).astype(info.dtype)
            for info in session.inputs}

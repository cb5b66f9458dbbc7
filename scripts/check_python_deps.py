"""Exits 0 when the Python packages that ios's scripts need are importable; prints versions."""
import importlib
import importlib.metadata
import sys

missing = []
# (import name, package name): the package's build (scikit-build-core, nanobind) and tests (pytest,
# mypy) need the last four.
for name, package in (("numpy", "numpy"), ("onnx", "onnx"), ("onnxruntime", "onnxruntime"),
                      ("scikit_build_core", "scikit-build-core"), ("nanobind", "nanobind"),
                      ("pytest", "pytest"), ("mypy", "mypy")):
    try:
        importlib.import_module(name)
        print(f"{package} {importlib.metadata.version(package)}")
    except ImportError:
        missing.append(package)
if missing:
    print("missing Python packages: " + ", ".join(missing), file=sys.stderr)
    sys.exit(1)

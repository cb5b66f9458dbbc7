"""Exits 0 when the Python packages that ios's scripts need are importable; prints versions."""
import importlib
import sys

missing = []
for name in ("numpy", "onnx", "onnxruntime"):
    try:
        module = importlib.import_module(name)
        print(f"{name} {module.__version__}")
    except ImportError:
        missing.append(name)
if missing:
    print("missing Python packages: " + ", ".join(missing), file=sys.stderr)
    sys.exit(1)

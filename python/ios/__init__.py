"""ios from Python: compile an ONNX CNN into an IOS plan and run it (the C++ API of
include/ios), and InferenceSession, onnxruntime's interface over the same. See docs/python.md.

    import ios
    plan = ios.compile("model.onnx", batch=1)          # the IOS search, measured on this CPU
    session = ios.Session(plan)
    outputs = session.run({"input": image})            # a dict of numpy arrays
"""
from . import errors
from ._compile import CompileProgress, Plan, compile
from ._ios import version as _version
from ._onnxruntime import (ExecutionMode, GraphOptimizationLevel, InferenceSession, NodeArg,
                           RunOptions, SessionOptions, get_available_providers, get_device)
from ._session import Session, TensorInfo
from .errors import Error, InternalError, InvalidInput, IoError, Unsupported

__version__: str = _version()["library"]


def version() -> dict[str, str]:
    """The library's version, its C++ API's and the plan format it writes."""
    return dict(_version())


def device_fingerprint(device: str = "cpu") -> str:
    """The fingerprint (JSON) a plan made for `device` records; see docs/python.md."""
    from ._ios import device_fingerprint as native
    return native(device)


__all__ = [
    "CompileProgress", "Error", "ExecutionMode", "GraphOptimizationLevel", "InferenceSession",
    "InternalError", "InvalidInput", "IoError", "NodeArg", "Plan", "RunOptions", "Session",
    "SessionOptions", "TensorInfo", "Unsupported", "compile", "device_fingerprint", "errors",
    "get_available_providers", "get_device", "version",
]

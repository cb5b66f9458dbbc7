"""ios.InferenceSession: onnxruntime's Python calling conventions over an ios plan, so that an
onnxruntime script runs on ios after changing its import line. The model is compiled on first
use into the plan cache (_plan_cache.py); later sessions load the plan from there."""
from __future__ import annotations

import enum
import hashlib
import os
import re
import warnings
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _ios, _plan_cache
from ._compile import Plan, compile
from ._session import Session, TensorInfo
from .errors import Error, InvalidInput, Unsupported

# onnxruntime's names of the element types (NodeArg.type).
_ORT_TYPES = {"float32": "tensor(float)", "float16": "tensor(float16)",
              "float64": "tensor(double)", "int8": "tensor(int8)", "uint8": "tensor(uint8)",
              "int32": "tensor(int32)", "int64": "tensor(int64)", "bool": "tensor(bool)"}


class GraphOptimizationLevel(enum.IntEnum):
    """Accepted for onnxruntime scripts; ios always canonicalises the graph fully."""

    ORT_DISABLE_ALL = 0
    ORT_ENABLE_BASIC = 1
    ORT_ENABLE_EXTENDED = 2
    ORT_ENABLE_ALL = 99


class ExecutionMode(enum.IntEnum):
    """Accepted for onnxruntime scripts; ios runs the schedule its plan holds."""

    ORT_SEQUENTIAL = 0
    ORT_PARALLEL = 1


class SessionOptions:
    """onnxruntime's SessionOptions: intra_op_num_threads sets the CPU cores ios uses (0: all);
    the other fields are accepted and not used."""

    def __init__(self) -> None:
        self.intra_op_num_threads = 0
        self.inter_op_num_threads = 0
        self.graph_optimization_level = GraphOptimizationLevel.ORT_ENABLE_ALL
        self.execution_mode = ExecutionMode.ORT_SEQUENTIAL
        self.log_severity_level = 2
        self.enable_profiling = False
        self.optimized_model_filepath = ""
        self._config: Dict[str, str] = {}

    def add_session_config_entry(self, key: str, value: str) -> None:
        self._config[key] = value

    def get_session_config_entry(self, key: str) -> str:
        return self._config[key]


class RunOptions:
    """onnxruntime's RunOptions, accepted and not used."""

    def __init__(self) -> None:
        self.log_severity_level = 2
        self.run_tag = ""


class NodeArg:
    """An input or output as onnxruntime describes it: name, shape (a list) and type."""

    def __init__(self, info: TensorInfo) -> None:
        self.name = info.name
        self.shape: List[Any] = list(info.shape)
        self.type = _ORT_TYPES.get(info.dtype.name, f"tensor({info.dtype.name})")

    def __repr__(self) -> str:
        return f"NodeArg(name='{self.name}', type='{self.type}', shape={self.shape})"


def _cuda_available(ordinal: int = 0) -> bool:
    try:
        _ios.device_fingerprint(f"cuda:{ordinal}")
    except Error:
        return False
    return True


def get_available_providers() -> List[str]:
    """The onnxruntime providers ios stands in for here: CUDA when this build has the CUDA
    backend and a GPU is present, and the CPU."""
    return (["CUDAExecutionProvider"] if _cuda_available() else []) + ["CPUExecutionProvider"]


def get_device() -> str:
    return "GPU" if _cuda_available() else "CPU"


ProviderList = Sequence[Union[str, Tuple[str, Dict[str, Any]]]]


def _device_from_providers(providers: Optional[ProviderList],
                           provider_options: Optional[Sequence[Dict[str, Any]]]) -> str:
    """The first provider that ios can run as onnxruntime would pick it; the CPU by default."""
    for i, provider in enumerate(providers or []):
        name, options = (provider if isinstance(provider, tuple)
                         else (provider, (provider_options or [{}] * (i + 1))[i] or {}))
        if name == "CPUExecutionProvider":
            return "cpu"
        if name in ("CUDAExecutionProvider", "TensorrtExecutionProvider"):
            ordinal = int(options.get("device_id", 0))
            if _cuda_available(ordinal):
                return f"cuda:{ordinal}"
        warnings.warn(f"ios: {name} is not available here; trying the next provider",
                      stacklevel=3)
    return "cpu"


def _model_batch(model_path: str) -> Optional[int]:
    """The model's own static batch (dimension 0 of its inputs, when every input fixes the same
    one), read with onnx when it is installed; None otherwise (ios then compiles batch 1)."""
    try:
        import onnx  # type: ignore[import-untyped, unused-ignore]
    except ImportError:
        return None
    model = onnx.load(model_path, load_external_data=False)
    initializers = {t.name for t in model.graph.initializer}
    batches = set()
    for value in model.graph.input:
        if value.name in initializers:
            continue
        dims = value.type.tensor_type.shape.dim
        batches.add(dims[0].dim_value if len(dims) and dims[0].HasField("dim_value") else None)
    return batches.pop() if len(batches) == 1 and None not in batches else None


def _ort_style(error: Error) -> Error:
    """The library's error with onnxruntime's status name before it and what to do after it."""
    message = str(error)
    free = re.search(r"input '([^']+)': dimension \d+ .*is free; give the input's shape with "
                     r"--input-shape [^:]+:(\S+)", message)
    if free:
        dims = ", ".join(free.group(2).split("x"))
        return InvalidInput(f"[ios] INVALID_ARGUMENT : {message}. ios compiles a model for fixed "
                            "shapes: give them by input name, e.g. ios.InferenceSession(path, "
                            f"input_shapes={{'{free.group(1)}': [{dims}]}})")
    if isinstance(error, Unsupported):
        return Unsupported(f"[ios] NOT_IMPLEMENTED : {message}. docs/operators.md lists the ops "
                           "ios runs; run this model with onnxruntime instead")
    return type(error)(f"[ios] {'INVALID_ARGUMENT' if isinstance(error, InvalidInput) else 'FAIL'}"
                       f" : {message}")


class InferenceSession:
    """onnxruntime.InferenceSession's interface on ios.

    InferenceSession(model_path, sess_options=None, providers=None, **ios_options): the model is
    compiled on first use (the IOS search measures its stages on the device, seconds to a
    minute) into a plan cache folder, and later sessions load the plan from it. ios_options:
    batch (default: the model's static batch, else 1), input_shapes (for free dimensions),
    device ("cpu", "cuda:N"; default from providers, else the CPU), schedule ("ios"), threads
    (default: sess_options.intra_op_num_threads, 0 = all cores) and cache_dir (default
    $IOS_CACHE_DIR or ~/.cache/ios).
    """

    def __init__(self, path_or_bytes: Union[str, "os.PathLike[str]", bytes],
                 sess_options: Optional[Any] = None, providers: Optional[ProviderList] = None,
                 provider_options: Optional[Sequence[Dict[str, Any]]] = None,
                 **ios_options: Any) -> None:
        unknown = set(ios_options) - {"batch", "input_shapes", "device", "schedule", "threads",
                                      "cache_dir"}
        if unknown:
            raise TypeError("InferenceSession got unknown ios options: " + ", ".join(sorted(
                unknown)) + " (batch, input_shapes, device, schedule, threads, cache_dir)")
        self._sess_options = sess_options if sess_options is not None else SessionOptions()
        device = ios_options.get("device") or _device_from_providers(providers, provider_options)
        threads = ios_options.get("threads")
        if threads is None:
            threads = int(getattr(self._sess_options, "intra_op_num_threads", 0) or 0)
        folder = ios_options.get("cache_dir") or _plan_cache.default_folder()
        if isinstance(path_or_bytes, (bytes, bytearray)):
            os.makedirs(folder, exist_ok=True)
            model_path = os.path.join(folder, "models",
                                      hashlib.sha256(path_or_bytes).hexdigest()
                                      + ".onnx")
            if not os.path.exists(model_path):
                os.makedirs(os.path.dirname(model_path), exist_ok=True)
                with open(model_path + ".tmp", "wb") as f:
                    f.write(path_or_bytes)
                os.replace(model_path + ".tmp", model_path)
        else:
            model_path = os.fspath(path_or_bytes)
        self._model_path = model_path
        options = {"batch": ios_options.get("batch"),
                   "input_shapes": {k: list(v) for k, v in
                                    (ios_options.get("input_shapes") or {}).items()},
                   "schedule": ios_options.get("schedule", "ios")}
        try:
            if not os.path.isfile(model_path):
                raise _ios_no_such_file(model_path)
            self._entry = _plan_cache.entry_for(model_path, options, device, folder)
            self._session, self.compiled = self._open(device, int(threads), options)
        except Error as error:
            raise _ort_style(error) from None
        self._providers = (["CUDAExecutionProvider"] if device.startswith("cuda") else []) + [
            "CPUExecutionProvider"]
        self._inputs = [NodeArg(info) for info in self._session.inputs]
        self._outputs = [NodeArg(info) for info in self._session.outputs]
        self._output_names = [info.name for info in self._session.outputs]

    def _open(self, device: str, threads: int, options: Dict[str, Any]) -> Tuple[Session, bool]:
        entry = self._entry
        if entry.exists():
            try:
                return Session(entry.plan_path, device=device, threads=threads), False
            except Error as error:
                warnings.warn(f"ios: the cached plan {entry.plan_path} did not load ({error}); "
                              "compiling the model again", stacklevel=4)
        batch = options["batch"] or _model_batch(self._model_path)
        plan: Plan = compile(self._model_path, batch=batch, input_shapes=options["input_shapes"],
                             device=device, schedule=options["schedule"],
                             timing_cache=entry.timing_cache_path)
        try:
            plan.save(entry.plan_path)
        except Error as error:
            warnings.warn(f"ios: the plan could not be cached ({error})", stacklevel=4)
        return Session(plan, device=device, threads=threads), True

    @property
    def plan_path(self) -> str:
        """The cached plan this session runs."""
        return self._entry.plan_path

    @property
    def session(self) -> Session:
        """The ios.Session underneath."""
        return self._session

    def get_inputs(self) -> List[NodeArg]:
        return list(self._inputs)

    def get_outputs(self) -> List[NodeArg]:
        return list(self._outputs)

    def get_providers(self) -> List[str]:
        return list(self._providers)

    def get_provider_options(self) -> Dict[str, Dict[str, str]]:
        return {name: {} for name in self._providers}

    def get_session_options(self) -> Any:
        return self._sess_options

    def run(self, output_names: Optional[Sequence[str]], input_feed: Mapping[str, Any],
            run_options: Optional[Any] = None) -> List[Any]:
        """The outputs named (all for None), as a list of numpy arrays, as onnxruntime's."""
        names = output_names or self._output_names
        try:
            results = self._session.run(input_feed, names)
        except InvalidInput as error:
            results = self._run_again(input_feed, names, error)
        return [results[name] for name in names]

    def _run_again(self, input_feed: Mapping[str, Any], names: Sequence[str],
                   error: InvalidInput) -> Dict[str, Any]:
        """onnxruntime copies what ios refuses to read in place (lists, strided arrays): so
        does this session, on the slow path, before it reports an error as onnxruntime would."""
        infos = {info.name: info for info in self._session.inputs}
        dense = {name: (np.ascontiguousarray(value) if isinstance(value, (np.ndarray, list,
                                                                          tuple)) else value)
                 for name, value in input_feed.items()} if isinstance(input_feed, Mapping) else None
        if dense is not None:
            try:
                return self._session.run(dense, names)
            except InvalidInput as again:
                error = again
        for name, value in (dense or {}).items():
            info = infos.get(name)
            if info is None or not isinstance(value, np.ndarray):
                continue
            if value.dtype != info.dtype:
                raise InvalidInput(
                    f"[ios] INVALID_ARGUMENT : Unexpected input data type. Actual: "
                    f"({_ORT_TYPES.get(value.dtype.name, value.dtype.name)}) , expected: "
                    f"({_ORT_TYPES.get(info.dtype.name, info.dtype.name)}) (input '{name}')"
                ) from None
            if value.shape != info.shape:
                wrong = [i for i in range(min(value.ndim, len(info.shape)))
                         if value.shape[i] != info.shape[i]]
                detail = " ".join(f"index: {i} Got: {value.shape[i]} Expected: {info.shape[i]}"
                                  for i in wrong) or f"Got rank {value.ndim} Expected " \
                                                     f"{len(info.shape)}"
                hint = (f" (this ios session was compiled for batch {info.shape[0]}: create it "
                        f"with batch={value.shape[0]})" if wrong == [0] else "")
                raise InvalidInput(
                    f"[ios] INVALID_ARGUMENT : Got invalid dimensions for input: {name} for the "
                    f"following indices {detail}. Please fix either the inputs or the model"
                    + hint) from None
        raise _ort_style(error) from None


def _ios_no_such_file(path: str) -> Error:
    from .errors import IoError
    return IoError(f"Load model from {path} failed: File doesn't exist")

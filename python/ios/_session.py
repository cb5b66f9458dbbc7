"""ios.Session: a plan opened on the CPU or a CUDA GPU, run on numpy arrays, or on a CUDA session
on GPU arrays (torch, cupy: anything with __dlpack__ or __cuda_array_interface__) in order with
the caller's current stream (include/ios/session.h)."""
from __future__ import annotations

import os
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from . import _ios
from ._compile import Plan
from .errors import InvalidInput

# DLPack device types of memory on a CUDA GPU (kDLCUDA, kDLCUDAManaged).
_CUDA_DEVICE_TYPES = (2, 13)


class TensorInfo(NamedTuple):
    """A session's input or output: its name, numpy dtype and shape."""

    name: str
    dtype: np.dtype[Any]
    shape: Tuple[int, ...]
    nbytes: int


def _infos(native: List[Tuple[str, str, List[int], int]]) -> List[TensorInfo]:
    return [TensorInfo(name, np.dtype(dtype), tuple(shape), nbytes)
            for name, dtype, shape, nbytes in native]


def _on_gpu(array: Any) -> bool:
    """True for an array in CUDA device memory (numpy arrays never are)."""
    if isinstance(array, np.ndarray):
        return False
    device = getattr(array, "__dlpack_device__", None)
    if device is not None:
        return int(device()[0]) in _CUDA_DEVICE_TYPES
    return hasattr(array, "__cuda_array_interface__")


def _framework(array: Any) -> str:
    return type(array).__module__.split(".")[0]


def _current_stream(array: Any) -> int:
    """The caller's current CUDA stream for the framework that made `array`, as an integer
    (0: the legacy default stream)."""
    framework = _framework(array)
    if framework == "torch":
        import torch  # type: ignore[import-not-found, unused-ignore]
        return int(torch.cuda.current_stream(array.device).cuda_stream)
    if framework == "cupy":
        import cupy  # type: ignore[import-not-found, unused-ignore]
        return int(cupy.cuda.get_current_stream().ptr)
    interface = getattr(array, "__cuda_array_interface__", None)
    if isinstance(interface, dict) and interface.get("stream") not in (None, 1, 2):
        return int(interface["stream"])
    return 0


def _empty_like(array: Any, info: TensorInfo) -> Any:
    """A new GPU array for an output, made by the framework of an input (torch or cupy)."""
    framework = _framework(array)
    if framework == "torch":
        import torch
        dtype = getattr(torch, "bool" if info.dtype == np.bool_ else info.dtype.name)
        return torch.empty(info.shape, dtype=dtype, device=array.device)
    if framework == "cupy":
        import cupy
        with cupy.cuda.Device(array.device.id):
            return cupy.empty(info.shape, dtype=info.dtype)
    raise InvalidInput(
        f"output '{info.name}': a run on GPU arrays of {type(array).__name__} writes its outputs "
        "into arrays the caller gives; pass outputs={name: array} (ios allocates torch and cupy "
        "outputs itself)")


class Session:
    """A plan loaded on one device, with its weights and memory arena.

    Session(plan_or_path, *, device=None, threads=0, weights=None): plan_or_path is an
    ios.Plan, a plan file's path or a plan's bytes; device is "cpu", "cuda", "cuda:N" or None
    for the kind of device the plan was made for; threads the CPU cores to use (0: all);
    weights the ONNX model of a weight-stripped plan. force=True runs a plan made for another
    device (an analytic sim:GPU plan on the CPU, for instance).

    run() may be called from several threads: the session runs one inference at a time, and
    the GIL is released while it runs.
    """

    def __init__(self, plan_or_path: Union[Plan, str, "os.PathLike[str]", bytes], *,
                 device: Optional[str] = None, threads: int = 0,
                 weights: Union[None, str, "os.PathLike[str]"] = None, force: bool = False,
                 verify: bool = True) -> None:
        device_name = device or ""
        weights_path = "" if weights is None else os.fspath(weights)
        if isinstance(plan_or_path, Plan):
            if weights_path:
                raise InvalidInput("weights is for a weight-stripped plan file; a compiled "
                                   "ios.Plan carries its weights")
            self._native = _ios.NativeSession.from_plan(plan_or_path._native, device_name,
                                                        threads, force)
        elif isinstance(plan_or_path, (bytes, bytearray, memoryview)):
            self._native = _ios.NativeSession.from_bytes(bytes(plan_or_path), device_name,
                                                         threads, weights_path, force, verify)
        elif isinstance(plan_or_path, (str, os.PathLike)):
            self._native = _ios.NativeSession.open(os.fspath(plan_or_path), device_name, threads,
                                                   weights_path, force, verify)
        else:
            raise InvalidInput("Session takes an ios.Plan, a plan file's path or a plan's "
                               f"bytes, got {type(plan_or_path).__name__}")
        self._inputs = _infos(self._native.inputs)
        self._outputs = _infos(self._native.outputs)
        self._cuda = self._native.on_cuda

    @property
    def inputs(self) -> List[TensorInfo]:
        return list(self._inputs)

    @property
    def outputs(self) -> List[TensorInfo]:
        return list(self._outputs)

    @property
    def device(self) -> str:
        """"cpu" or "cuda:N"."""
        return self._native.device

    @property
    def batch(self) -> int:
        return self._native.batch

    def run(self, feeds: Mapping[str, Any],
            outputs: Union[None, Sequence[str], Mapping[str, Any]] = None, *,
            stream: Optional[int] = None) -> Dict[str, Any]:
        """One inference; returns a dict of output name to array.

        feeds: every input by name, each a C-contiguous array of the input's dtype and shape,
          read without a copy: numpy arrays, or on a CUDA session GPU arrays (torch, cupy, or
          anything with __dlpack__ or __cuda_array_interface__), all on the host or all on the
          GPU.
        outputs: None for every output in new arrays; a list of names for those; or a dict of
          name to array, written in place (and returned).
        stream: for GPU arrays, the cudaStream_t (an integer) to run in order with; by default
          the current stream of the inputs' framework (torch, cupy). The call returns once the
          work is enqueued: the outputs are ready when the stream gets there.
        """
        if self._cuda and isinstance(feeds, dict) and feeds:
            first = next(iter(feeds.values()))
            if _on_gpu(first):
                return self._run_on_device(feeds, first, outputs, stream)
        return self._native.run(feeds, outputs, False, 0)

    def _run_on_device(self, feeds: Mapping[str, Any], first: Any,
                       outputs: Union[None, Sequence[str], Mapping[str, Any]],
                       stream: Optional[int]) -> Dict[str, Any]:
        if not isinstance(outputs, Mapping):
            infos = {info.name: info for info in self._outputs}
            names = list(infos) if outputs is None else list(outputs)
            for name in names:
                if name not in infos:
                    raise InvalidInput(f"the plan has no output '{name}' (its outputs: "
                                       + ", ".join(f"'{n}'" for n in infos) + ")")
            outputs = {name: _empty_like(first, infos[name]) for name in names}
        return self._native.run(feeds, outputs, True,
                                _current_stream(first) if stream is None else int(stream))

    def __repr__(self) -> str:
        return (f"ios.Session(device={self.device!r}, inputs={[i.name for i in self._inputs]}, "
                f"outputs={[o.name for o in self._outputs]})")

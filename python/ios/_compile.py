"""ios.compile and ios.Plan: an ONNX model compiled into a plan (include/ios/compiler.h)."""
from __future__ import annotations

import json
import os
import sys
from typing import Any, Callable, Dict, Mapping, NamedTuple, Optional, Sequence, Union

from . import _ios
from .errors import InvalidInput

ModelSource = Union[str, "os.PathLike[str]", bytes, Any]  # Any: an onnx.ModelProto


class CompileProgress(NamedTuple):
    """How far the IOS search is, as `ios.compile(progress=...)` reports it."""

    parts_done: int  # of the search's parts (block pieces) ...
    parts_total: int  # ... in all
    stages_measured: int  # distinct stages profiled so far
    seconds: float  # since the search started


class Plan:
    """A compiled plan: save it, serialise it, or open a `Session` on it."""

    def __init__(self, native: _ios.NativePlan) -> None:
        self._native = native

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes the plan file atomically (what `iosc -o` writes)."""
        self._native.save(os.fspath(path))

    def to_bytes(self) -> bytes:
        """The plan file's bytes (for `Session(plan_bytes)` or a model store)."""
        return self._native.to_bytes()

    @property
    def stats(self) -> Dict[str, Any]:
        """The compile's report, the `iosc --stats-json` content: the IOS search's parts where it
        ran, the schedule and its predicted latency, a CPU plan's slow nodes."""
        result: Dict[str, Any] = json.loads(self._native.statistics_json)
        return result

    @property
    def predicted_latency_ms(self) -> float:
        """The sum of the plan's predicted stage latencies (0 without a cost source)."""
        return self._native.predicted_latency_ms

    @property
    def batch(self) -> int:
        return self._native.batch

    def __repr__(self) -> str:
        return (f"ios.Plan(batch={self.batch}, "
                f"predicted_latency_ms={self.predicted_latency_ms:.3f})")


def _tqdm_progress() -> Optional[Callable[[CompileProgress], None]]:
    """A tqdm bar over the search's parts, when tqdm is installed and stderr is a terminal."""
    if not sys.stderr.isatty():
        return None
    try:
        from tqdm import tqdm  # type: ignore[import-untyped, unused-ignore]
    except ImportError:
        return None
    bar: Any = None

    def update(p: CompileProgress) -> None:
        nonlocal bar
        if bar is None:
            bar = tqdm(total=p.parts_total, desc="ios search", unit="part", file=sys.stderr)
        bar.set_postfix(stages=p.stages_measured, refresh=False)
        bar.update(p.parts_done - bar.n)
        if p.parts_done >= p.parts_total:
            bar.close()

    return update


def _model_bytes(model: Any) -> Optional[bytes]:
    """The bytes of an onnx.ModelProto (anything with SerializeToString), else None."""
    serialize = getattr(model, "SerializeToString", None)
    if serialize is None or isinstance(model, (str, bytes, os.PathLike)):
        return None
    data = serialize()
    return bytes(data)


def compile(model: ModelSource, *, batch: Optional[int] = None,
            input_shapes: Optional[Mapping[str, Sequence[int]]] = None, device: str = "cpu",
            schedule: str = "ios", timing_cache: Union[None, str, "os.PathLike[str]"] = None,
            strip_weights: bool = False,
            progress: Optional[Callable[[CompileProgress], None]] = None) -> Plan:
    """Compiles an ONNX model into a plan, as `iosc` does.

    model: a path, the model's bytes, or an onnx.ModelProto.
    batch: dimension 0 of every input that input_shapes does not fix (None: 1, the library's
      default; a static batch in the model is replaced too).
    input_shapes: whole shapes by input name, for models with free dimensions.
    device: where stage costs come from: "cpu" (measured here), "sim:V100|A100|H100", or a
      CUDA device ("0", "cuda", "cuda:N").
    schedule: "ios", "ios-parallel", "ios-merge", "greedy" or "sequential".
    timing_cache: a file of measured stage costs, read and written.
    strip_weights: a weight-stripped plan (open it with Session(..., weights=model_path)).
    progress: called with a CompileProgress as the search goes; by default a tqdm bar when tqdm
      is installed and stderr is a terminal.

    The GIL is released while it compiles. Raises ios.Error (ios.InvalidInput, a ValueError, for
    a bad model or option) with the library's message.
    """
    if batch is not None and (isinstance(batch, bool) or not isinstance(batch, int) or batch < 1):
        raise InvalidInput(f"batch must be a positive integer, got {batch!r}")
    shapes = {str(name): [int(d) for d in dims] for name, dims in (input_shapes or {}).items()}
    callback = progress if progress is not None else _tqdm_progress()
    relay: Optional[Callable[[int, int, int, float], None]] = None
    if callback is not None:
        report = callback

        def relay(parts_done: int, parts_total: int, stages_measured: int,
                  seconds: float) -> None:
            report(CompileProgress(parts_done, parts_total, stages_measured, seconds))

    cache = "" if timing_cache is None else os.fspath(timing_cache)

    def native(data: Optional[bytes], name: str) -> Plan:
        if data is None:
            return Plan(_ios.compile_file(name, batch or 0, shapes, device, schedule, cache,
                                          strip_weights, relay))
        return Plan(_ios.compile_bytes(data, name, batch or 0, shapes, device, schedule, cache,
                                       strip_weights, relay))

    if isinstance(model, (bytes, bytearray, memoryview)):
        return native(bytes(model), "the model's bytes")
    data = _model_bytes(model)
    if data is not None:
        name = getattr(getattr(model, "graph", None), "name", "") or "the ModelProto"
        return native(data, f"onnx.ModelProto '{name}'")
    if not isinstance(model, (str, os.PathLike)):
        raise InvalidInput(
            "model must be a path, bytes or an onnx.ModelProto, got " + type(model).__name__)
    return native(None, os.fspath(model))


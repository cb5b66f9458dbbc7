"""ios.compile, ios.Plan and ios.Session on models compiled in the test: the model as a path,
bytes or an onnx.ModelProto; the plan saved, serialised and reopened; its stats as iosc
--stats-json writes them; outputs in new arrays, in the caller's arrays and by name; progress
through a callable and through tqdm; the GIL released while compiling and running."""
import json
import subprocess
import sys
import threading
import time
import types

import numpy as np
import onnx
import pytest

import ios
from conftest import IOSC, SMALL_MODEL, generate_models, random_feeds
from dlpack_util import HostArray


def test_add_model_computes_x_plus_y(add_model):
    plan = ios.compile(add_model, schedule="sequential")
    session = ios.Session(plan)
    assert session.device == "cpu"
    assert [(i.name, i.dtype, i.shape) for i in session.inputs] == [
        ("x", np.dtype("float32"), (1, 8)), ("y", np.dtype("float32"), (1, 8))]
    assert [(o.name, o.shape, o.nbytes) for o in session.outputs] == [("z", (1, 8), 32)]
    x = np.arange(8, dtype=np.float32).reshape(1, 8)
    y = np.full((1, 8), 0.5, dtype=np.float32)
    result = session.run({"x": x, "y": y})
    assert list(result) == ["z"]
    assert result["z"].dtype == np.float32 and result["z"].shape == (1, 8)
    np.testing.assert_array_equal(result["z"], x + y)


def test_path_bytes_and_modelproto_give_the_same_plan_outputs():
    options = dict(device="sim:V100", schedule="greedy", batch=2)
    with open(SMALL_MODEL, "rb") as f:
        data = f.read()
    plans = [ios.compile(SMALL_MODEL, **options), ios.compile(data, **options),
             ios.compile(onnx.load(SMALL_MODEL), **options)]
    sessions = [ios.Session(plan, device="cpu", force=True) for plan in plans]
    feeds = random_feeds(sessions[0])
    assert sessions[0].inputs[0].shape[0] == 2
    outputs = [s.run(feeds) for s in sessions]
    for other in outputs[1:]:
        for name, value in outputs[0].items():
            np.testing.assert_array_equal(other[name], value)


def test_a_plan_saved_or_serialised_runs_the_same(tmp_path):
    plan = ios.compile(SMALL_MODEL, device="sim:V100", schedule="greedy")
    path = tmp_path / "small.iosplan"
    plan.save(path)
    data = plan.to_bytes()
    assert path.read_bytes() == data
    sessions = [ios.Session(plan, force=True), ios.Session(str(path), device="cpu", force=True),
                ios.Session(path, device="cpu", force=True), ios.Session(data, force=True)]
    feeds = random_feeds(sessions[0], seed=3)
    expected = sessions[0].run(feeds)
    for session in sessions[1:]:
        got = session.run(feeds)
        for name in expected:
            np.testing.assert_array_equal(got[name], expected[name])


def test_stats_are_the_stats_json_of_iosc(tmp_path):
    plan = ios.compile(SMALL_MODEL, device="sim:V100")
    report = tmp_path / "stats.json"
    subprocess.run([IOSC, SMALL_MODEL, "--device", "sim:V100", "--stats-json", str(report),
                    "--progress", "off"], check=True, capture_output=True)
    expected = json.loads(report.read_text())
    stats = plan.stats
    assert set(stats) == set(expected)
    assert len(stats["parts"]) == len(expected["parts"]) > 0
    assert stats["predicted_latency_ms"] == pytest.approx(expected["predicted_latency_ms"])
    assert stats["cost_source"] == expected["cost_source"]
    assert plan.predicted_latency_ms == pytest.approx(stats["predicted_latency_ms"])
    assert plan.predicted_latency_ms > 0
    unsearched = ios.compile(SMALL_MODEL, schedule="sequential").stats
    assert unsearched["schedule"] == "sequential" and unsearched["parts"] == []


def test_outputs_are_written_into_the_callers_arrays_and_picked_by_name(add_model):
    session = ios.Session(ios.compile(add_model, schedule="sequential"))
    x = np.ones((1, 8), np.float32)
    out = np.zeros((1, 8), np.float32)
    result = session.run({"x": x, "y": x}, {"z": out})
    assert result["z"] is out
    np.testing.assert_array_equal(out, np.full((1, 8), 2, np.float32))
    np.testing.assert_array_equal(session.run({"x": x, "y": x}, ["z"])["z"], out)
    assert session.run({"x": x, "y": x}, []) == {}


def test_inputs_are_read_in_place_from_numpy_views(add_model):
    """A contiguous view (a row of a bigger array) is read where it lies."""
    session = ios.Session(ios.compile(add_model, schedule="sequential"))
    block = np.arange(32, dtype=np.float32).reshape(4, 8)
    result = session.run({"x": block[2:3], "y": block[1:2]})
    np.testing.assert_array_equal(result["z"], block[2:3] + block[1:2])


def test_arrays_with_dlpack_are_read_and_written_in_place(add_model):
    """Host memory behind any __dlpack__ producer (here a plain ctypes one, as a GPU framework's
    CPU tensors are) is read and written where it lies."""
    session = ios.Session(ios.compile(add_model, schedule="sequential"))
    x = np.arange(8, dtype=np.float32).reshape(1, 8)
    y = np.full((1, 8), 3, np.float32)
    z = np.zeros((1, 8), np.float32)
    result = session.run({"x": HostArray(x), "y": HostArray(y)}, {"z": HostArray(z)})
    np.testing.assert_array_equal(z, x + y)
    assert isinstance(result["z"], HostArray)


def test_progress_is_called_with_the_search_state():
    seen = []
    ios.compile(SMALL_MODEL, device="sim:V100", progress=seen.append)
    assert seen and all(isinstance(p, ios.CompileProgress) for p in seen)
    assert seen[-1].parts_done == seen[-1].parts_total > 0
    assert all(0 <= p.parts_done <= p.parts_total for p in seen)


def test_an_exception_in_progress_is_raised_after_the_compile():
    calls = []

    def failing(progress):
        calls.append(progress)
        raise KeyError("stop")

    with pytest.raises(KeyError, match="stop"):
        ios.compile(SMALL_MODEL, device="sim:V100", progress=failing)
    assert len(calls) == 1  # not called again after it raised


def test_tqdm_draws_the_progress_on_a_terminal(monkeypatch):
    bars = []

    class FakeTqdm:
        def __init__(self, total, **kwargs):
            self.total, self.n, self.closed = total, 0, False
            bars.append(self)

        def set_postfix(self, **kwargs):
            pass

        def update(self, n):
            self.n += n

        def close(self):
            self.closed = True

    monkeypatch.setitem(sys.modules, "tqdm", types.SimpleNamespace(tqdm=FakeTqdm))
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    ios.compile(SMALL_MODEL, device="sim:V100")
    assert len(bars) == 1 and bars[0].n == bars[0].total > 0 and bars[0].closed
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    ios.compile(SMALL_MODEL, device="sim:V100")
    assert len(bars) == 1  # not on a pipe


class Counter:
    """A Python thread that counts whenever it can take the GIL, sleeping briefly in between (so
    that it hands the GIL back at once)."""

    def __init__(self):
        self.count, self.stop = 0, False
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def loop(self):
        while not self.stop:
            self.count += 1
            time.sleep(0.0001)

    def during(self, call):
        """How far it counted while `call` ran, and call's result. With a switch interval far
        longer than the call, a call that kept the GIL leaves the count exactly where it was:
        this thread can only count while the calling thread has let the GIL go."""
        before = self.count
        result = call()
        return self.count - before, result

    def close(self):
        self.stop = True
        self.thread.join()


def test_the_gil_is_released_while_compiling_and_running():
    model = generate_models(["inception_v3"])["inception_v3"]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(30)
    counter = Counter()
    try:
        counted, plan = counter.during(lambda: ios.compile(model, device="sim:V100"))
        assert counted > 0, "the counting thread stood still while ios compiled"
        session = ios.Session(plan, force=True)
        feeds = random_feeds(session)
        counted, _ = counter.during(lambda: [session.run(feeds) for _ in range(3)])
        assert counted > 0, "the counting thread stood still while ios ran"
        # The check can fail: Python code that keeps the GIL for as long counts nothing.
        counted, _ = counter.during(lambda: sum(i * i for i in range(300000)))
        assert counted == 0
    finally:
        counter.close()
        sys.setswitchinterval(interval)

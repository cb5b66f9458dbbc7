"""The DLPack path on a GPU (ctest label gpu; skipped without a CUDA device or a CUDA build):
GPU arrays given to a CUDA session run through RunOnDevice on the caller's stream, with no
host round trip, and give what the same inputs give as numpy arrays. The device arrays are made
here with the CUDA runtime through ctypes (no torch or cupy needed), exposed both through
__dlpack__ (a DLPack capsule built with ctypes) and through __cuda_array_interface__; torch and
cupy are checked as well when they are installed."""
import ctypes

import numpy as np
import pytest

import ios
from conftest import SMALL_MODEL
from dlpack_util import dlpack_capsule


def cudart():
    for name in ("libcudart.so", "libcudart.so.13", "libcudart.so.12",
                 "/usr/local/cuda/lib64/libcudart.so"):
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    return None


CUDART = cudart()


def device_count():
    if CUDART is None:
        return 0
    count = ctypes.c_int(0)
    return count.value if CUDART.cudaGetDeviceCount(ctypes.byref(count)) == 0 else 0


class DeviceArray:
    """float32 device memory of one shape, with __dlpack__ and __cuda_array_interface__."""

    def __init__(self, shape, with_dlpack=True):
        self.shape = tuple(shape)
        self.nbytes = int(np.prod(self.shape)) * 4
        self.ptr = ctypes.c_void_p()
        assert CUDART.cudaMalloc(ctypes.byref(self.ptr), ctypes.c_size_t(self.nbytes)) == 0
        self._keep = []
        if not with_dlpack:
            self.__class__ = InterfaceOnlyArray

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": "<f4", "data": (self.ptr.value, False),
                "version": 3, "strides": None, "stream": None}

    def __dlpack_device__(self):
        return (2, 0)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        return dlpack_capsule(self.ptr.value, 2, self.shape, self._keep)

    def upload(self, array):
        data = np.ascontiguousarray(array, np.float32)
        assert CUDART.cudaMemcpy(self.ptr, data.ctypes.data_as(ctypes.c_void_p),
                                 ctypes.c_size_t(self.nbytes), 1) == 0

    def download(self):
        out = np.empty(self.shape, np.float32)
        assert CUDART.cudaDeviceSynchronize() == 0
        assert CUDART.cudaMemcpy(out.ctypes.data_as(ctypes.c_void_p), self.ptr,
                                 ctypes.c_size_t(self.nbytes), 2) == 0
        return out

    def __del__(self):
        if CUDART is not None and self.ptr:
            CUDART.cudaFree(self.ptr)


class InterfaceOnlyArray(DeviceArray):
    __dlpack__ = None  # type: ignore[assignment]
    __dlpack_device__ = None  # type: ignore[assignment]


@pytest.fixture(scope="module")
def cuda_session():
    if device_count() == 0:
        pytest.skip("no CUDA device")
    plan = ios.compile(SMALL_MODEL, device="sim:V100", schedule="greedy", batch=2)
    try:
        return ios.Session(plan, device="cuda:0")
    except ios.InvalidInput as error:
        pytest.skip(f"this build cannot run on the GPU: {error}")


@pytest.mark.parametrize("with_dlpack", [True, False], ids=["dlpack", "cuda_array_interface"])
def test_device_arrays_run_on_the_gpu_and_match_host_arrays(cuda_session, with_dlpack):
    session = cuda_session
    assert session.device == "cuda:0"
    inp, out = session.inputs[0], session.outputs[0]
    image = np.random.default_rng(0).standard_normal(inp.shape).astype(np.float32)
    expected = session.run({inp.name: image})[out.name]
    device_in = DeviceArray(inp.shape, with_dlpack)
    device_out = DeviceArray(out.shape, with_dlpack)
    device_in.upload(image)
    result = session.run({inp.name: device_in}, {out.name: device_out}, stream=0)
    assert result[out.name] is device_out
    np.testing.assert_array_equal(device_out.download(), expected)
    # Host and device arrays are not mixed; device outputs need a caller's array here.
    with pytest.raises(ios.InvalidInput, match=f"output '{out.name}' is host memory"):
        session.run({inp.name: device_in}, {out.name: np.empty(out.shape, np.float32)})
    with pytest.raises(ios.InvalidInput, match="writes its outputs into arrays the caller gives"):
        session.run({inp.name: device_in})


def test_torch_and_cupy_tensors_run_on_their_current_stream(cuda_session):
    session = cuda_session
    inp, out = session.inputs[0], session.outputs[0]
    image = np.random.default_rng(1).standard_normal(inp.shape).astype(np.float32)
    expected = session.run({inp.name: image})[out.name]
    ran = 0
    try:
        import torch
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            result = session.run({inp.name: torch.from_numpy(image).cuda()})[out.name]
        stream.synchronize()
        np.testing.assert_array_equal(result.cpu().numpy(), expected)
        ran += 1
    except ImportError:
        pass
    try:
        import cupy
        with cupy.cuda.Stream() as stream:
            result = session.run({inp.name: cupy.asarray(image)})[out.name]
        stream.synchronize()
        np.testing.assert_array_equal(cupy.asnumpy(result), expected)
        ran += 1
    except ImportError:
        pass
    if not ran:
        pytest.skip("neither torch nor cupy is installed")

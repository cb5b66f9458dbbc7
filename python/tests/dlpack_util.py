"""A DLPack producer in plain Python (ctypes): a capsule over memory that the caller keeps, for
arrays that neither numpy nor a GPU framework made (the GPU test's device memory; a host
buffer in the host tests, which check the same producer against numpy)."""
import ctypes


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


def dlpack_capsule(address, device_type, shape, keep, device_id=0):
    """A "dltensor" capsule of float32 `shape` at `address` on DLPack device `device_type`
    (1 CPU, 2 CUDA). Its DLManagedTensor and shape go into `keep`, which must outlive the
    consumer's use; the capsule has no deleter."""
    dims = (ctypes.c_int64 * len(shape))(*shape)
    managed = DLManagedTensor()
    managed.dl_tensor = DLTensor(address, DLDevice(device_type, device_id), len(shape),
                                 DLDataType(2, 32, 1), dims, None, 0)
    keep.extend([dims, managed])
    new_capsule = ctypes.pythonapi.PyCapsule_New
    new_capsule.restype = ctypes.py_object
    new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    return new_capsule(ctypes.addressof(managed), b"dltensor", None)


class HostArray:
    """A numpy array's memory behind a plain __dlpack__ (not numpy's own)."""

    def __init__(self, array):
        self.array = array
        self._keep = []

    def __dlpack_device__(self):
        return (1, 0)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        return dlpack_capsule(self.array.ctypes.data, 1, self.array.shape, self._keep)

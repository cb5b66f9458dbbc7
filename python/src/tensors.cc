#include "tensors.h"

#include <cstdint>
#include <string>
#include <vector>

#include "errors.h"

namespace nb = nanobind;
namespace dl = nanobind::dlpack;

namespace ios_python {
namespace {

struct DtypeEntry {
  ios::DataType dtype;
  dl::dtype_code code;
  uint8_t bits;
  const char* numpy;  // numpy's name
  const char* typestr;  // __cuda_array_interface__'s, without the byte order
};

constexpr DtypeEntry kDtypes[] = {
    {ios::DataType::kFloat32, dl::dtype_code::Float, 32, "float32", "f4"},
    {ios::DataType::kFloat16, dl::dtype_code::Float, 16, "float16", "f2"},
    {ios::DataType::kFloat64, dl::dtype_code::Float, 64, "float64", "f8"},
    {ios::DataType::kInt8, dl::dtype_code::Int, 8, "int8", "i1"},
    {ios::DataType::kUInt8, dl::dtype_code::UInt, 8, "uint8", "u1"},
    {ios::DataType::kInt32, dl::dtype_code::Int, 32, "int32", "i4"},
    {ios::DataType::kInt64, dl::dtype_code::Int, 64, "int64", "i8"},
    {ios::DataType::kBool, dl::dtype_code::Bool, 8, "bool", "b1"},
};

const DtypeEntry* EntryOf(ios::DataType dtype) {
  for (const DtypeEntry& entry : kDtypes)
    if (entry.dtype == dtype) return &entry;
  return nullptr;
}

// A DLPack dtype as numpy names it, for messages ("complex64", "bfloat16").
std::string DlpackName(dl::dtype dtype) {
  for (const DtypeEntry& entry : kDtypes)
    if (dtype.code == static_cast<uint8_t>(entry.code) && dtype.bits == entry.bits &&
        dtype.lanes == 1)
      return entry.numpy;
  const char* kind = nullptr;
  switch (static_cast<dl::dtype_code>(dtype.code)) {
    case dl::dtype_code::Int: kind = "int"; break;
    case dl::dtype_code::UInt: kind = "uint"; break;
    case dl::dtype_code::Float: kind = "float"; break;
    case dl::dtype_code::Bfloat: kind = "bfloat"; break;
    case dl::dtype_code::Complex: kind = "complex"; break;
    case dl::dtype_code::Bool: kind = "bool"; break;
    default: return "an unknown dtype (DLPack code " + std::to_string(dtype.code) + ")";
  }
  return kind + std::to_string(dtype.bits);
}

std::string TupleText(const int64_t* dims, size_t n) {
  std::string text = "(";
  for (size_t i = 0; i < n; ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + (n == 1 ? ",)" : ")");
}

std::string Describe(const ios::TensorInfo& info, const char* role) {
  return std::string(role) + " '" + info.name + "'";
}

bool IsRowMajor(const int64_t* dims, const int64_t* strides, size_t ndim) {
  if (strides == nullptr) return true;
  int64_t expected = 1;  // in elements
  for (size_t i = ndim; i-- > 0;) {
    if (dims[i] != 1 && strides[i] != expected) return false;
    expected *= dims[i];
  }
  return true;
}

bool OnDevice(int device_type) {
  return device_type == nb::device::cuda::value || device_type == nb::device::cuda_managed::value;
}

// The shape, dtype and layout checks common to both kinds of array.
void CheckLayout(const ios::TensorInfo& info, const char* role, const std::string& dtype_name,
                 bool dtype_matches, const int64_t* dims, const int64_t* strides, size_t ndim) {
  const DtypeEntry* want = EntryOf(info.dtype);
  if (!dtype_matches)
    ThrowInvalid(Describe(info, role) + " is " + dtype_name + ", the plan's is " +
                 (want ? want->numpy : "undefined") +
                 (std::string(role) == "input"
                      ? std::string(" (convert it with .astype(\"") + (want ? want->numpy : "?") +
                            "\"))"
                      : std::string("")));
  bool same_shape = ndim == info.dims.size();
  for (size_t i = 0; same_shape && i < ndim; ++i) same_shape = dims[i] == info.dims[i];
  if (!same_shape)
    ThrowInvalid(Describe(info, role) + " has shape " + TupleText(dims, ndim) +
                 ", the plan's is " + ShapeText(info));
  if (!IsRowMajor(dims, strides, ndim))
    ThrowInvalid(Describe(info, role) +
                 " is not contiguous: ios reads dense row-major arrays without copying them "
                 "(pass numpy.ascontiguousarray(array), or .contiguous() for a torch tensor)");
}

CheckedArray FromDlpack(nb::ndarray<> array, const ios::TensorInfo& info, const char* role,
                        Memory memory) {
  const bool on_device = OnDevice(array.device_type());
  if (memory == Memory::kHost && array.device_type() != nb::device::cpu::value &&
      array.device_type() != nb::device::cuda_host::value)
    ThrowInvalid(Describe(info, role) + " is in " +
                 (on_device ? "CUDA device memory" : "memory of DLPack device type " +
                                                         std::to_string(array.device_type())) +
                 "; this run reads host memory: pass every input and output on the host "
                 "(numpy), or, on a CUDA session, every one on the GPU");
  if (memory == Memory::kDevice && !on_device)
    ThrowInvalid(Describe(info, role) +
                 " is host memory; a run on device arrays takes every input and output on the "
                 "session's GPU (or pass every one as a host array)");
  const DtypeEntry* want = EntryOf(info.dtype);
  const dl::dtype got = array.dtype();
  const bool dtype_matches = want != nullptr && got.code == static_cast<uint8_t>(want->code) &&
                             got.bits == want->bits && got.lanes == 1;
  CheckLayout(info, role, DlpackName(got), dtype_matches, array.shape_ptr(), array.stride_ptr(),
              array.ndim());
  CheckedArray checked;
  checked.data = static_cast<char*>(array.data_handle()) + array.byte_offset();
  checked.bytes = array.nbytes();
  checked.holder = std::move(array);
  return checked;
}

// An object with __cuda_array_interface__ only (no __dlpack__), e.g. numba's device arrays.
CheckedArray FromCudaArrayInterface(nb::handle value, const ios::TensorInfo& info,
                                    const char* role, Memory memory, bool writable) {
  if (memory == Memory::kHost)
    ThrowInvalid(Describe(info, role) +
                 " is in CUDA device memory (__cuda_array_interface__); this run reads host "
                 "memory: pass every input and output on the host (numpy), or, on a CUDA "
                 "session, every one on the GPU");
  nb::dict interface = nb::cast<nb::dict>(value.attr("__cuda_array_interface__"));
  nb::tuple data = nb::cast<nb::tuple>(interface["data"]);
  if (writable && nb::cast<bool>(data[1]))
    ThrowInvalid(Describe(info, role) + " is read-only");
  std::vector<int64_t> dims;
  for (nb::handle dim : nb::cast<nb::tuple>(interface["shape"]))
    dims.push_back(nb::cast<int64_t>(dim));
  std::string typestr = nb::cast<std::string>(interface["typestr"]);
  const DtypeEntry* want = EntryOf(info.dtype);
  const bool little = !typestr.empty() && (typestr[0] == '<' || typestr[0] == '|');
  const bool dtype_matches =
      want != nullptr && little && typestr.size() == 3 && typestr.substr(1) == want->typestr;
  std::vector<int64_t> strides;  // in elements; none: dense
  const size_t itemsize = want ? (static_cast<size_t>(want->bits) + 7) / 8 : 1;
  if (interface.contains("strides") && !interface["strides"].is_none()) {
    for (nb::handle stride : nb::cast<nb::tuple>(interface["strides"])) {
      const int64_t bytes = nb::cast<int64_t>(stride);
      strides.push_back(bytes % static_cast<int64_t>(itemsize) == 0
                            ? bytes / static_cast<int64_t>(itemsize)
                            : -1);
    }
  }
  CheckLayout(info, role, "typestr '" + typestr + "'", dtype_matches, dims.data(),
              strides.empty() ? nullptr : strides.data(), dims.size());
  CheckedArray checked;
  checked.data = reinterpret_cast<void*>(nb::cast<uintptr_t>(data[0]));
  checked.bytes = info.bytes;
  return checked;
}

}  // namespace

const char* NumpyName(ios::DataType dtype) {
  const DtypeEntry* entry = EntryOf(dtype);
  return entry ? entry->numpy : "undefined";
}

std::string ShapeText(const ios::TensorInfo& info) {
  return TupleText(info.dims.data(), info.dims.size());
}

CheckedArray CheckArray(nb::handle value, const ios::TensorInfo& info, const char* role,
                        Memory memory) {
  const bool writable = std::string(role) == "output";
  if (writable) {
    nb::ndarray<> array;
    if (nb::try_cast(value, array, false)) return FromDlpack(std::move(array), info, role, memory);
    nb::ndarray<nb::ro> readonly;
    if (nb::try_cast(value, readonly, false))
      ThrowInvalid(Describe(info, role) + " is read-only: ios writes the output into it");
  } else {
    nb::ndarray<nb::ro> array;
    if (nb::try_cast(value, array, false)) {
      nb::ndarray<> any(array);
      return FromDlpack(std::move(any), info, role, memory);
    }
  }
  if (nb::hasattr(value, "__cuda_array_interface__"))
    return FromCudaArrayInterface(value, info, role, memory, writable);
  ThrowInvalid(Describe(info, role) + " must be a numpy array (or an array with __dlpack__), got " +
               nb::cast<std::string>(nb::str(value.type().attr("__name__"))));
}

}  // namespace ios_python

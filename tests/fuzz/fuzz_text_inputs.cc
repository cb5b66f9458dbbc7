// Fuzz target: the small parsers behind the CLIs' flags and tensor files. The first byte picks
// the parser, the rest is its input: iosc --input-shape NAME:DIMS, iosrun's per-output
// --atol/--rtol and --check-error-stat specs, --device names, and a tensor file
// (DIR/input_N.pb, an ONNX TensorProto) as --load-inputs and --check read it.
#include <cstdint>
#include <string>

#include "fuzz_scratch.h"
#include "onnx/tensor_proto.h"
#include "util/device_name.h"
#include "iosrun/output_check.h"
#include "onnx/shape_spec.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ios::fuzz::QuietLogs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 5) {
    case 0:
      (void)ios::ParseInputShapeSpec(text);
      break;
    case 1: {
      ios::PerOutput<double> tolerance;
      (void)ios::ParsePerOutputTolerance(text, &tolerance);
      break;
    }
    case 2: {
      ios::PerOutput<ios::ErrorStat> stat;
      (void)ios::ParsePerOutputStat(text, &stat);
      break;
    }
    case 3:
      (void)ios::CudaOrdinalOf(text);
      break;
    default: {
      const std::string path = ios::fuzz::WriteScratchFile("tensor.pb", data + 1, size - 1);
      (void)ios::ReadTensorFile(path);
      break;
    }
  }
  return 0;
}

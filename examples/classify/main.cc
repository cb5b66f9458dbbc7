// classify: load an ios plan, run it on one input file, print the top outputs.
//
//   classify PLAN INPUT.bin [--weights MODEL.onnx] [--device cpu|cuda:N] [--top K]
//
// INPUT.bin holds the plan's single input as raw little-endian bytes, exactly its size (for a
// float32 1x3x224x224 image: 602112 bytes). The first output's K largest values are printed
// with their indices, one per line: "index value".
#include <ios/ios.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <numeric>
#include <string>
#include <vector>

namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "classify: error: %s\n", message.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: classify PLAN INPUT.bin [--weights MODEL.onnx] [--device D] [--top K]\n");
    return 2;
  }
  ios::SessionOptions options;
  options.force = true;  // a plan made for a GPU may run on this CPU, for the example's sake
  int top = 5;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--weights") {
      options.weights_model_path = argv[i + 1];
    } else if (flag == "--device") {
      options.device = argv[i + 1];
    } else if (flag == "--top") {
      top = std::atoi(argv[i + 1]);
    } else {
      return Fail("unknown option " + flag);
    }
  }

  ios::StatusOr<std::unique_ptr<ios::Session>> session = ios::Session::Open(argv[1], options);
  if (!session.ok()) return Fail(session.status().message());
  const std::vector<ios::TensorInfo>& inputs = (*session)->inputs();
  const std::vector<ios::TensorInfo>& outputs = (*session)->outputs();
  if (inputs.size() != 1) return Fail("the plan has " + std::to_string(inputs.size()) + " inputs");
  if (outputs.empty() || outputs[0].dtype != ios::DataType::kFloat32)
    return Fail("the plan's first output is not float32");

  std::ifstream file(argv[2], std::ios::binary);
  std::vector<char> input((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (!file.good() && !file.eof()) return Fail(std::string("cannot read ") + argv[2]);
  if (input.size() != inputs[0].bytes)
    return Fail(std::string(argv[2]) + " has " + std::to_string(input.size()) + " bytes, input '" +
                inputs[0].name + "' needs " + std::to_string(inputs[0].bytes));

  std::vector<float> scores(outputs[0].bytes / sizeof(float));
  ios::Status status = (*session)->Run({{inputs[0].name, input.data(), input.size()}},
                                       {{outputs[0].name, scores.data(), outputs[0].bytes}});
  if (!status.ok()) return Fail(status.message());

  std::vector<size_t> order(scores.size());
  std::iota(order.begin(), order.end(), 0);
  const size_t k = std::min(order.size(), static_cast<size_t>(std::max(top, 0)));
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  std::printf("%s on %s, output '%s' (%zu values), top %zu:\n", argv[1],
              (*session)->device().c_str(), outputs[0].name.c_str(), scores.size(), k);
  for (size_t i = 0; i < k; ++i) std::printf("%zu %.9g\n", order[i], scores[order[i]]);
  return 0;
}

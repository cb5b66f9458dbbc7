#include "iosrun/run_io.h"

#include <cstdio>
#include <filesystem>
#include <random>
#include <system_error>

#include "kernels/math/cast_math.h"
#include "onnx/tensor_files.h"
#include "util/file_util.h"
#include "iosrun/output_check.h"

namespace ios {
namespace {

// Normal(0, 1) inputs from a fixed seed, for runs without --load-inputs or --check.
std::vector<Tensor> RandomInputs(const Graph& graph) {
  std::mt19937 rng(0);
  std::normal_distribution<float> normal;
  std::vector<Tensor> inputs;
  for (ValueId id : graph.inputs) {
    Tensor t(graph.values[id].dtype, graph.values[id].dims);
    if (t.dtype() == DType::kFloat32)
      for (int64_t i = 0; i < t.num_elements(); ++i) t.data<float>()[i] = normal(rng);
    if (t.dtype() == DType::kFloat16)
      for (int64_t i = 0; i < t.num_elements(); ++i)
        t.data<uint16_t>()[i] = DoubleToHalf(normal(rng));
    inputs.push_back(std::move(t));
  }
  return inputs;
}

std::vector<std::string> OutputNames(const Graph& graph) {
  std::vector<std::string> names;
  for (ValueId id : graph.outputs) names.push_back(graph.values[id].name);
  return names;
}

}  // namespace

std::string InputDir(const IosrunOptions& options) {
  return !options.check_dir.empty() ? options.check_dir : options.load_inputs_dir;
}

StatusOr<std::vector<Tensor>> LoadRunInputs(const IosrunOptions& options, const Graph& graph) {
  const std::string dir = InputDir(options);
  if (dir.empty()) return RandomInputs(graph);
  return ReadNumberedTensors(dir, "input");
}

Status PrepareOutputDir(const IosrunOptions& options) {
  const std::string& dir = options.save_outputs_dir;
  if (dir.empty()) return Status::Ok();
  // Saving into the --check folder would overwrite the expected outputs before comparing.
  IOS_RETURN_IF_ERROR(CheckOutputIsNotInput(options.check_dir, dir, "--save-outputs"));
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error)
    return InvalidInput(dir + ": cannot create the --save-outputs folder: " + error.message());
  if (!std::filesystem::is_directory(dir, error))
    return InvalidInput(dir + ": --save-outputs needs a folder, and this is not one");
  return Status::Ok();
}

StatusOr<int> HandleRunOutputs(const IosrunOptions& options, const Graph& graph,
                               const std::vector<Tensor>& outputs) {
  if (!options.save_outputs_dir.empty()) {
    IOS_RETURN_IF_ERROR(
        WriteNumberedTensors(options.save_outputs_dir, "output", outputs, OutputNames(graph)));
  }
  int exit_code = 0;
  if (!options.check_dir.empty()) {
    IOS_ASSIGN_OR_RETURN(std::vector<Tensor> expected,
                         ReadNumberedTensors(options.check_dir, "output"));
    const std::vector<std::string> names = OutputNames(graph);
    IOS_RETURN_IF_ERROR(CheckPerOutputNames(options.check, names));
    const std::vector<OutputCheck> checks = CheckOutputs(outputs, expected, names, options.check);
    std::fputs(FormatOutputChecks(checks, outputs.size(), expected.size()).c_str(), stdout);
    bool ok = outputs.size() == expected.size();
    for (const OutputCheck& check : checks) ok = ok && check.passed;
    std::printf("check: %s\n", ok ? "PASSED" : "FAILED");
    if (!ok) exit_code = 1;
  }
  if (options.check_dir.empty() && !options.bench) {
    for (size_t i = 0; i < outputs.size(); ++i)
      std::printf("output %zu '%s': %s%s\n", i, graph.values[graph.outputs[i]].name.c_str(),
                  DTypeName(outputs[i].dtype()).c_str(), DimsToString(outputs[i].dims()).c_str());
  }
  return exit_code;
}

}  // namespace ios

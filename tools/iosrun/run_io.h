// What every device's run path shares: where a run's inputs come from (--check DIR,
// --load-inputs DIR, or random), and what happens to its outputs (--save-outputs, --check, or a
// list of their shapes).
#pragma once

#include <string>
#include <vector>

#include "iosrun/iosrun_options.h"
#include "ir/graph.h"
#include "ir/tensor.h"
#include "util/status.h"

namespace ios {

// The folder the inputs are read from, or "" for random inputs.
std::string InputDir(const IosrunOptions& options);

// DIR/input_N.pb from InputDir, or Normal(0, 1) values from a fixed seed.
StatusOr<std::vector<Tensor>> LoadRunInputs(const IosrunOptions& options, const Graph& graph);

// Creates the --save-outputs folder (and its parents) when it does not exist, before anything
// runs; InvalidInput naming the path when it cannot be made or is not a folder.
Status PrepareOutputDir(const IosrunOptions& options);

// Saves, checks or lists the outputs as the options ask; returns the exit code (1 when --check
// finds a mismatch, else 0).
StatusOr<int> HandleRunOutputs(const IosrunOptions& options, const Graph& graph,
                               const std::vector<Tensor>& outputs);

}  // namespace ios

// A benchmark network as the tests use it: the ONNX file the models.generate fixture writes
// (test_paths.h), imported at a batch size and canonicalised with the default passes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "ir/graph.h"
#include "onnx/onnx_importer.h"
#include "passes/canonicalize.h"
#include "test_paths.h"
#include "util/status.h"

namespace ios::testing {

inline std::string BenchmarkNetworkPath(const std::string& name) {
  return TestBinaryDir() + "/models/" + name + ".onnx";
}

// Loud on purpose when the file is missing: the fixture writes it before these tests run.
inline StatusOr<Graph> LoadBenchmarkNetwork(const std::string& name, int64_t batch = 1) {
  const std::string path = BenchmarkNetworkPath(name);
  if (!std::filesystem::exists(path)) {
    return InvalidInput(path + " is missing: run the ctest fixture models.generate, or " +
                        "scripts/generate_models.py --out " + TestBinaryDir() + "/models");
  }
  ImportOptions import;
  import.batch = batch;
  IOS_ASSIGN_OR_RETURN(Graph graph, ImportOnnxFile(path, import));
  CanonicalizeStats stats;
  IOS_RETURN_IF_ERROR(Canonicalize(graph, CanonicalizeOptions{}, &stats));
  graph.Compact();
  return graph;
}

}  // namespace ios::testing

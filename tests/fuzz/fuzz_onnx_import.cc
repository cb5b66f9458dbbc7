// Fuzz target: an ONNX model's bytes through iosc's front half — import, canonicalisation,
// units and blocks, a greedy schedule and its memory plan — as `iosc MODEL --device sim:...`
// runs them. Every input must end in a Status; a crash, a sanitizer report, a hang or unbounded
// memory is a finding. The custom mutator changes one field of the parsed ModelProto (dims,
// attributes, names, types, opsets) most of the time, and bytes otherwise.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include "fuzz_scratch.h"
#include "onnx/onnx_importer.h"
#include "passes/canonicalize.h"
#include "plan/memory_plan.h"
#include "proto_mutator.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "sched/blocks.h"
#include "sched/schedule.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

void CompileFrontHalf(std::string bytes) {
  ios::ImportOptions options;
  options.batch = 1 + static_cast<int64_t>(bytes.size() % 3);
  // External data resolves inside an empty folder of the scratch dir: nothing outside is read.
  options.external_data_dir = ios::fuzz::ScratchDir();
  ios::StatusOr<ios::Graph> graph = ios::ImportOnnxBytes(std::move(bytes), "fuzz.onnx", options);
  if (!graph.ok()) return;
  ios::CanonicalizeStats stats;
  if (!ios::Canonicalize(*graph, ios::CanonicalizeOptions{}, &stats).ok()) return;
  ios::StatusOr<ios::BlockStructure> blocks = ios::PartitionIntoBlocks(*graph, ios::BlockOptions{});
  if (!blocks.ok()) return;
  const ios::Schedule schedule = ios::GreedySchedule(*blocks, 4);
  if (!ios::ValidateSchedule(*graph, schedule).ok()) return;
  ios::StatusOr<ios::MemoryPlan> memory =
      ios::PlanMemory(*graph, schedule, ios::CpuKernelCaps(), 256, true);
  if (memory.ok()) (void)ios::CheckMemoryPlan(*graph, schedule, *memory, ios::CpuKernelCaps());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ios::fuzz::QuietLogs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  CompileFrontHalf(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::mt19937_64 rng(seed);
  onnx::ModelProto model;
  if (rng() % 8 != 0 && model.ParseFromArray(data, static_cast<int>(size))) {
    for (int i = 0, n = 1 + static_cast<int>(rng() % 3); i < n; ++i)
      ios::fuzz::MutateProto(&model, rng);
    const std::string out = model.SerializeAsString();
    if (!out.empty() && out.size() <= max_size) {
      std::memcpy(data, out.data(), out.size());
      return out.size();
    }
  }
  return LLVMFuzzerMutate(data, size, max_size);
}

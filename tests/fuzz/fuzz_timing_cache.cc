// Fuzz target: a timing-cache file (iosc --timing-cache) read by CachedStageCost in front of the
// analytic V100 model, both as iosc reads it (a mismatch is an error) and ignoring mismatches.
// The custom mutator changes one field of the parsed TimingCache message most of the time.
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>

#include "cost/analytic_model.h"
#include "cost/cached_stage_cost.h"
#include "fuzz_scratch.h"
#include "proto_mutator.h"
#include "timing_cache.pb.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ios::fuzz::QuietLogs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::unique_ptr<ios::AnalyticCostSource> sim =
      std::move(ios::MakeAnalyticCostSource("V100").value());
  const std::string path = ios::fuzz::WriteScratchFile("cache.bin", data, size);
  for (bool ignore_mismatch : {false, true}) {
    ios::CachedStageCost cache(*sim);
    (void)cache.LoadTimingCache(path, ignore_mismatch);
  }
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::mt19937_64 rng(seed);
  ios::proto::TimingCache cache;
  if (rng() % 8 != 0 && cache.ParseFromArray(data, static_cast<int>(size))) {
    ios::fuzz::MutateProto(&cache, rng);
    const std::string out = cache.SerializeAsString();
    if (out.size() <= max_size) {
      std::memcpy(data, out.data(), out.size());
      return out.size();
    }
  }
  return LLVMFuzzerMutate(data, size, max_size);
}

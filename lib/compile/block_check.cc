#include "compile/block_check.h"

#include <cstddef>
#include <optional>
#include <utility>

namespace ios {
namespace {

bool SameBlock(const ScheduleBlock& a, const ScheduleBlock& b) {
  if (a.stages.size() != b.stages.size()) return false;
  for (size_t s = 0; s < a.stages.size(); ++s) {
    if (a.stages[s].strategy != b.stages[s].strategy ||
        a.stages[s].groups.size() != b.stages[s].groups.size())
      return false;
    for (size_t g = 0; g < a.stages[s].groups.size(); ++g)
      if (a.stages[s].groups[g].nodes != b.stages[s].groups[g].nodes) return false;
  }
  return true;
}

bool HasConcurrentStage(const ScheduleBlock& block) {
  for (const ScheduleStage& stage : block.stages)
    if (stage.strategy != StageStrategy::kMerge && stage.groups.size() > 1) return true;
  return false;
}

bool HasMergeStage(const ScheduleBlock& block) {
  for (const ScheduleStage& stage : block.stages)
    if (stage.strategy == StageStrategy::kMerge) return true;
  return false;
}

struct BlockTimes {
  double ios_ms = 0, sequential_ms = 0;
};

// The block as searched and with its sequential stages, each measured twice, interleaved, and
// averaged; nullopt when the source does not measure blocks (or not this one).
StatusOr<std::optional<BlockTimes>> MeasureBothWays(const Graph& graph, const ScheduleBlock& ios,
                                                    const ScheduleBlock& sequential,
                                                    StageCostSource& source, int first_round) {
  BlockTimes times;
  for (int round = first_round; round < first_round + 2; ++round) {
    StatusOr<double> a = source.BlockLatencyMs(graph, ios, round);
    if (!a.ok() && a.status().code() == StatusCode::kUnsupported) return std::optional<BlockTimes>();
    IOS_RETURN_IF_ERROR(a.status());
    IOS_ASSIGN_OR_RETURN(double z, source.BlockLatencyMs(graph, sequential, round));
    times.ios_ms += *a / 2;
    times.sequential_ms += z / 2;
  }
  return std::optional<BlockTimes>(times);
}

}  // namespace

int ReplaceBlocks(const Schedule& other, const std::vector<double>& other_stages,
                  const std::vector<bool>& replace, IosSearchResult* result) {
  int replaced = 0;
  size_t own_index = 0, other_index = 0;
  std::vector<double> latencies;
  for (size_t b = 0; b < result->schedule.blocks.size(); ++b) {
    const size_t own_count = result->schedule.blocks[b].stages.size();
    const size_t other_count = other.blocks[b].stages.size();
    const auto own = result->stage_latency_ms.begin() + static_cast<std::ptrdiff_t>(own_index);
    const auto theirs = other_stages.begin() + static_cast<std::ptrdiff_t>(other_index);
    if (b < replace.size() && replace[b]) {
      for (size_t i = 0; i < own_count; ++i) result->predicted_latency_ms -= own[i];
      for (size_t i = 0; i < other_count; ++i) result->predicted_latency_ms += theirs[i];
      result->schedule.blocks[b] = other.blocks[b];
      latencies.insert(latencies.end(), theirs, theirs + static_cast<std::ptrdiff_t>(other_count));
      ++replaced;
    } else {
      latencies.insert(latencies.end(), own, own + static_cast<std::ptrdiff_t>(own_count));
    }
    own_index += own_count;
    other_index += other_count;
  }
  result->stage_latency_ms = std::move(latencies);
  return replaced;
}

int DropConcurrentBlocks(const Schedule& sequential, const std::vector<double>& sequential_stages,
                         IosSearchResult* result) {
  std::vector<bool> replace;
  for (const ScheduleBlock& block : result->schedule.blocks)
    replace.push_back(HasConcurrentStage(block));
  return ReplaceBlocks(sequential, sequential_stages, replace, result);
}

StatusOr<BlockCheck> KeepSequentialWhereMeasuredFaster(const Graph& graph,
                                                       const Schedule& sequential,
                                                       const std::vector<double>& sequential_stages,
                                                       StageCostSource& source,
                                                       IosSearchResult* result) {
  BlockCheck check;
  std::vector<bool> replace(result->schedule.blocks.size(), false);
  std::vector<size_t> kept;  // measured, and faster as searched
  size_t ios_index = 0, seq_index = 0;
  for (size_t b = 0; b < result->schedule.blocks.size(); ++b) {
    const ScheduleBlock& ios = result->schedule.blocks[b];
    const size_t ios_first = ios_index, seq_first = seq_index;
    ios_index += ios.stages.size();
    seq_index += sequential.blocks[b].stages.size();
    if (SameBlock(ios, sequential.blocks[b])) continue;
    // The same ops on one stream in another order: nothing to gain that a measurement could
    // tell from noise, so the model's own order stays (and nothing is measured).
    if (source.MeasuresBlocks() && !HasConcurrentStage(ios) && !HasMergeStage(ios)) {
      replace[b] = true;
      ++check.reordered_only;
      continue;
    }
    IOS_ASSIGN_OR_RETURN(std::optional<BlockTimes> times,
                         MeasureBothWays(graph, ios, sequential.blocks[b], source, 0));
    if (!times) {
      if (HasConcurrentStage(ios)) {
        for (size_t i = seq_first; i < seq_index; ++i)
          check.unchecked_gain_ms += sequential_stages[i];
        for (size_t i = ios_first; i < ios_index; ++i)
          check.unchecked_gain_ms -= result->stage_latency_ms[i];
      }
      continue;
    }
    ++check.checked;
    check.ios_ms += times->ios_ms;
    check.sequential_ms += times->sequential_ms;
    replace[b] = times->sequential_ms < times->ios_ms;
    if (!replace[b]) kept.push_back(b);
  }
  check.replaced = ReplaceBlocks(sequential, sequential_stages, replace, result);
  // What the kept blocks save, measured afresh: the measurements that chose them favour them
  // (of two noisy figures, the lower was kept).
  for (size_t b : kept) {
    IOS_ASSIGN_OR_RETURN(
        std::optional<BlockTimes> times,
        MeasureBothWays(graph, result->schedule.blocks[b], sequential.blocks[b], source, 2));
    if (times) check.kept_gain_ms += times->sequential_ms - times->ios_ms;
  }
  return check;
}

}  // namespace ios

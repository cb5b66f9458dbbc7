#include "compile/block_check.h"

#include <cstddef>
#include <map>
#include <optional>
#include <utility>
#include <vector>

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

}  // namespace

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

StatusOr<bool> SearchCheck::Check(const PartCheck& part) {
  IOS_ASSIGN_OR_RETURN(std::optional<BlockTimes> times,
                       MeasureBothWays(graph_, part.searched, part.sequential, source_, 0));
  if (!times) return true;  // cannot run whole: no evidence either way
  ++measured_;
  ios_ms_ += times->ios_ms;
  sequential_ms_ += times->sequential_ms;
  return measured_ < kPartsBeforeStop || sequential_ms_ - ios_ms_ >= min_gain_ * sequential_ms_;
}

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

int KeepGreedyWhereFaster(const Schedule& greedy, const std::vector<double>& greedy_stages,
                          IosSearchResult* result) {
  // Per block: its parts, and those of them without room.
  std::vector<int> parts(result->schedule.blocks.size(), 0), without_room(parts.size(), 0);
  for (const PartSearchStats& part : result->parts) {
    if (part.block < 0 || static_cast<size_t>(part.block) >= parts.size()) continue;
    ++parts[static_cast<size_t>(part.block)];
    if (part.no_room) ++without_room[static_cast<size_t>(part.block)];
  }
  std::vector<bool> replace;
  size_t ios_index = 0, greedy_index = 0;
  for (size_t b = 0; b < result->schedule.blocks.size(); ++b) {
    const size_t ios_count = result->schedule.blocks[b].stages.size();
    const size_t greedy_count = greedy.blocks[b].stages.size();
    double ios_ms = 0, greedy_ms = 0;
    for (size_t i = 0; i < ios_count; ++i) ios_ms += result->stage_latency_ms[ios_index + i];
    for (size_t i = 0; i < greedy_count; ++i) greedy_ms += greedy_stages[greedy_index + i];
    const bool no_room = parts[b] > 0 && without_room[b] == parts[b];
    replace.push_back(greedy_ms < ios_ms && !no_room);
    ios_index += ios_count;
    greedy_index += greedy_count;
  }
  return ReplaceBlocks(greedy, greedy_stages, replace, result);
}

double PredictedConcurrentGainMs(const Schedule& sequential,
                                 const std::vector<double>& sequential_stages,
                                 const IosSearchResult& result) {
  double gain = 0;
  size_t ios_index = 0, seq_index = 0;
  for (size_t b = 0; b < result.schedule.blocks.size(); ++b) {
    const ScheduleBlock& block = result.schedule.blocks[b];
    const size_t seq_count = sequential.blocks[b].stages.size();
    if (HasConcurrentStage(block)) {
      for (size_t i = 0; i < seq_count; ++i) gain += sequential_stages[seq_index + i];
      for (size_t i = 0; i < block.stages.size(); ++i)
        gain -= result.stage_latency_ms[ios_index + i];
    }
    ios_index += block.stages.size();
    seq_index += seq_count;
  }
  return gain;
}

int DropConcurrentBlocks(const Schedule& sequential, const std::vector<double>& sequential_stages,
                         IosSearchResult* result) {
  std::vector<bool> replace;
  for (const ScheduleBlock& block : result->schedule.blocks)
    replace.push_back(HasConcurrentStage(block));
  return ReplaceBlocks(sequential, sequential_stages, replace, result);
}

namespace {

// Stage ranges [ios_begin, ios_end) and [seq_begin, seq_end) of a block's searched and
// sequential stages that run the same nodes.
struct Segment {
  size_t ios_begin = 0, ios_end = 0, seq_begin = 0, seq_end = 0;
};

// The finest cuts of the block that both stage lists share: after each segment, both have run
// the same nodes (the DP's part boundaries are such cuts, and often finer ones).
std::vector<Segment> CommonSegments(const ScheduleBlock& ios, const ScheduleBlock& sequential) {
  std::vector<Segment> segments;
  std::map<NodeId, int> balance;  // +1 once run by the searched side, -1 by the sequential
  int unbalanced = 0;
  auto add = [&](const ScheduleStage& stage, int sign) {
    for (const ScheduleGroup& group : stage.groups) {
      for (NodeId n : group.nodes) {
        int& b = balance[n];
        unbalanced -= b != 0;
        b += sign;
        unbalanced += b != 0;
      }
    }
  };
  Segment current;
  size_t i = 0, j = 0;
  while (i < ios.stages.size() || j < sequential.stages.size()) {
    // Advance the side that is behind: the sequential one while the searched side has run a
    // node it has not (a positive balance), else the searched one.
    bool ahead = false;
    for (const auto& [node, b] : balance) ahead = ahead || b > 0;
    if ((ahead || i == ios.stages.size()) && j < sequential.stages.size()) {
      add(sequential.stages[j++], -1);
    } else {
      add(ios.stages[i++], +1);
    }
    if (unbalanced == 0) {
      current.ios_end = i;
      current.seq_end = j;
      segments.push_back(current);
      current.ios_begin = i;
      current.seq_begin = j;
      balance.clear();
    }
  }
  return segments;
}

ScheduleBlock Slice(const ScheduleBlock& block, size_t begin, size_t end) {
  ScheduleBlock slice;
  slice.stages.assign(block.stages.begin() + static_cast<std::ptrdiff_t>(begin),
                      block.stages.begin() + static_cast<std::ptrdiff_t>(end));
  return slice;
}

// A piece of a block (the whole, or a segment) as searched and sequentially, with the stage
// latencies of each and the choice made.
struct Piece {
  ScheduleBlock ios, sequential;
  std::vector<double> ios_ms, sequential_ms;
  bool use_sequential = false;
  double measured_gain_ms = 0;  // sequential minus searched, as measured when chosen
};

}  // namespace

StatusOr<BlockCheck> KeepSequentialWhereMeasuredFaster(const Graph& graph,
                                                       const Schedule& sequential,
                                                       const std::vector<double>& sequential_stages,
                                                       StageCostSource& source,
                                                       IosSearchResult* result,
                                                       double min_gain) {
  BlockCheck check;
  if (!source.MeasuresBlocks()) {
    // Stage costs only (the analytic models): the schedule stays; what its concurrent blocks
    // are predicted to save is unchecked.
    check.unchecked_gain_ms = PredictedConcurrentGainMs(sequential, sequential_stages, *result);
    return check;
  }
  std::vector<ScheduleBlock> blocks;
  std::vector<double> latencies;
  std::vector<Piece> kept;  // measured, and faster as searched
  size_t ios_index = 0, seq_index = 0;
  for (size_t b = 0; b < result->schedule.blocks.size(); ++b) {
    const ScheduleBlock& ios = result->schedule.blocks[b];
    const ScheduleBlock& seq = sequential.blocks[b];
    auto ios_ms = result->stage_latency_ms.begin() + static_cast<std::ptrdiff_t>(ios_index);
    auto seq_ms = sequential_stages.begin() + static_cast<std::ptrdiff_t>(seq_index);
    ios_index += ios.stages.size();
    seq_index += seq.stages.size();
    auto piece_of = [&](const Segment& segment) {
      Piece piece;
      piece.ios = Slice(ios, segment.ios_begin, segment.ios_end);
      piece.sequential = Slice(seq, segment.seq_begin, segment.seq_end);
      piece.ios_ms.assign(ios_ms + static_cast<std::ptrdiff_t>(segment.ios_begin),
                          ios_ms + static_cast<std::ptrdiff_t>(segment.ios_end));
      piece.sequential_ms.assign(seq_ms + static_cast<std::ptrdiff_t>(segment.seq_begin),
                                 seq_ms + static_cast<std::ptrdiff_t>(segment.seq_end));
      return piece;
    };
    // Decides a piece: unchanged, reordered only, measured both ways, or unmeasurable
    // (Unsupported: a merge stage, too many bytes). False when it could not be measured.
    auto decide = [&](Piece& piece, bool count_unchecked) -> StatusOr<bool> {
      if (SameBlock(piece.ios, piece.sequential)) return true;
      // The same ops on one stream in another order: nothing to gain that a measurement could
      // tell from noise, so the model's own order stays (and nothing is measured).
      if (!HasConcurrentStage(piece.ios) && !HasMergeStage(piece.ios)) {
        piece.use_sequential = true;
        ++check.reordered_only;
        ++check.replaced;
        return true;
      }
      IOS_ASSIGN_OR_RETURN(std::optional<BlockTimes> times,
                           MeasureBothWays(graph, piece.ios, piece.sequential, source, 0));
      if (!times) {
        if (!count_unchecked) return false;
        // Not measurable (a merge stage, too many bytes): concurrent stages are kept on the
        // stage costs' word only where they promise a clear gain, since stage costs have been
        // seen to favour searched stages by a few percent. A merge stage is never kept on
        // their word: its merged conv is timed on a scratch graph, apart from the Split copies
        // and the cache state the plan gives it, and the margins were wrong (SqueezeNet's
        // merged fire modules: predicted 1% faster, run 1% slower; GoogLeNet's three merged
        // inception modules: predicted to save 5% of their segments or more, and the plan ran
        // 3.6% slower than the sequential one).
        double sequential_ms = 0, searched_ms = 0;
        for (double ms : piece.sequential_ms) sequential_ms += ms;
        for (double ms : piece.ios_ms) searched_ms += ms;
        if (HasMergeStage(piece.ios) ||
            sequential_ms - searched_ms < min_gain * sequential_ms) {
          piece.use_sequential = true;
          ++check.replaced;
          ++check.unmeasured_replaced;
        } else if (HasConcurrentStage(piece.ios)) {
          check.unchecked_gain_ms += sequential_ms - searched_ms;
        }
        return false;
      }
      ++check.checked;
      check.ios_ms += times->ios_ms;
      check.sequential_ms += times->sequential_ms;
      piece.use_sequential = times->sequential_ms < times->ios_ms;
      piece.measured_gain_ms = times->sequential_ms - times->ios_ms;
      if (piece.use_sequential) {
        ++check.replaced;
      } else {
        kept.push_back(piece);
      }
      return true;
    };
    std::vector<Piece> pieces;
    Piece whole = piece_of(Segment{0, ios.stages.size(), 0, seq.stages.size()});
    IOS_ASSIGN_OR_RETURN(bool measured, decide(whole, /*count_unchecked=*/false));
    if (measured) {
      pieces.push_back(std::move(whole));
    } else {
      // Too large to run whole, or a merge stage in it: its segments one by one.
      for (const Segment& segment : CommonSegments(ios, seq)) {
        Piece piece = piece_of(segment);
        IOS_RETURN_IF_ERROR(decide(piece, /*count_unchecked=*/true).status());
        pieces.push_back(std::move(piece));
      }
    }
    ScheduleBlock block;
    for (const Piece& piece : pieces) {
      const ScheduleBlock& chosen = piece.use_sequential ? piece.sequential : piece.ios;
      const std::vector<double>& ms = piece.use_sequential ? piece.sequential_ms : piece.ios_ms;
      block.stages.insert(block.stages.end(), chosen.stages.begin(), chosen.stages.end());
      latencies.insert(latencies.end(), ms.begin(), ms.end());
    }
    blocks.push_back(std::move(block));
  }
  result->schedule.blocks = std::move(blocks);
  result->stage_latency_ms = std::move(latencies);
  result->predicted_latency_ms = 0;
  for (double ms : result->stage_latency_ms) result->predicted_latency_ms += ms;
  // What the kept pieces save, measured afresh: the measurements that chose them favour them
  // (of two noisy figures, the lower was kept). Unless even those leave the whole gain under the
  // margin: measured afresh, it would be expected lower still, and the caller drops the blocks
  // either way (on the CPU, most plans: NasNet's batch-8 check kept 9 of 27 segments of about
  // 0.1 s, and measuring them again takes two rounds of both ways of four runs or more each).
  double sequential_total = 0;
  for (double ms : sequential_stages) sequential_total += ms;
  double favourable_ms = check.unchecked_gain_ms;
  for (const Piece& piece : kept) favourable_ms += piece.measured_gain_ms;
  if (favourable_ms < min_gain * sequential_total) {
    for (const Piece& piece : kept) check.kept_gain_ms += piece.measured_gain_ms;
    return check;
  }
  check.kept_gain_remeasured = true;
  for (const Piece& piece : kept) {
    IOS_ASSIGN_OR_RETURN(std::optional<BlockTimes> times,
                         MeasureBothWays(graph, piece.ios, piece.sequential, source, 2));
    if (times) check.kept_gain_ms += times->sequential_ms - times->ios_ms;
  }
  return check;
}

}  // namespace ios

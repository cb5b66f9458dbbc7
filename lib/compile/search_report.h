// iosc's printed summary of the IOS search, made from its statistics alone, so that the text and
// --stats-json cannot disagree. The text is for people: programs read the statistics.
#pragma once

#include <string>

#include "search_stats.pb.h"

namespace ios {

// Lines ending in '\n': the search's size, the branch and bound, the parts without room, the
// search's check, the profiling budget, the predicted latencies against the baselines and what
// the concurrency policy changed.
std::string FormatSearchReport(const proto::SearchStats& stats);

}  // namespace ios

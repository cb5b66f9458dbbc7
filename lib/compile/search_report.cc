#include "compile/search_report.h"

#include <cmath>

#include "util/string_printf.h"

namespace ios {
namespace {

// The parts' figures summed.
struct PartTotals {
  long long states = 0, transitions = 0, bounded = 0, checked = 0, broken = 0;
  int fallbacks = 0, no_room = 0, ceilings = 0, unsearched_after_check = 0;
};

PartTotals Totals(const proto::SearchStats& stats) {
  PartTotals t;
  for (const proto::PartStats& part : stats.parts()) {
    t.states += part.states();
    t.transitions += part.transitions();
    t.bounded += part.transitions_bounded();
    t.checked += part.bounds_checked();
    t.broken += part.bounds_broken();
    if (!part.fallback().empty()) ++t.fallbacks;
    if (part.no_room()) ++t.no_room;
    if (part.ceiling_ms() >= 0) ++t.ceilings;
    if (part.unsearched_after_check()) ++t.unsearched_after_check;
  }
  return t;
}

double Percent(const proto::SearchStats& stats) { return 100 * stats.min_concurrency_gain(); }

void SearchLines(const proto::SearchStats& s, const PartTotals& t, std::string* out) {
  std::string composed;
  if (s.stages_composed() > 0)
    composed =
        ", " + std::to_string(s.stages_composed()) + " one-group stages summed from their units";
  *out += StringPrintf(
      "IOS search (%s, r=%d, s=%d, %s endings): %d parts, %lld states, %lld transitions, "
      "%lld distinct stages measured (%lld requests%s), %.3f s\n",
      s.cost_source().c_str(), s.max_units_per_group(), s.max_groups_per_stage(),
      s.endings().c_str(), s.parts_size(), t.states, t.transitions,
      static_cast<long long>(s.distinct_stages_measured()),
      static_cast<long long>(s.stage_cost_requests()), composed.c_str(), s.search_seconds());
  if (s.stage_bounds())
    *out += StringPrintf(
        "branch and bound: %lld transitions decided by a lower bound without measuring the "
        "stage (%lld units measured alone for the bounds); %lld of %lld stages measured "
        "after their bound came in below it\n",
        t.bounded, static_cast<long long>(s.unit_bounds_measured()), t.broken, t.checked);
  if (t.ceilings > 0)
    *out += StringPrintf(
        "ceiling: %d of %d part(s) could gain under %.0f%% of their sequential latency with "
        "any schedule (their units alone use the cores about as well); they run "
        "sequentially, unsearched\n",
        t.no_room, t.ceilings, Percent(s));
}

void SearchCheckLines(const proto::SearchStats& s, const PartTotals& t, std::string* out) {
  const proto::SearchCheckStats& check = s.search_check();
  if (check.parts_measured() > 0) {
    std::string outcome;
    if (check.stopped_by_check())
      outcome = "; they save under " + std::to_string(std::lround(Percent(s))) +
                "% (--min-concurrency-gain), so the search stopped there and " +
                std::to_string(t.unsearched_after_check) +
                " later part(s) run their units one by one, unsearched";
    *out += StringPrintf(
        "search check: %d part(s) with concurrent stages measured whole, %.3f ms as searched "
        "against %.3f ms one unit at a time%s\n",
        check.parts_measured(), check.ios_ms(), check.sequential_ms(), outcome.c_str());
  }
  if (s.stopped_by_budget())
    *out += StringPrintf(
        "profile budget: the stages measured came to --profile-budget %g s of measuring "
        "(estimated from their latencies; %.0f s in all), so the search stopped and %d later "
        "part(s) run their units one by one, unsearched\n",
        s.profile_budget_s(), s.profile_estimate_s(), t.unsearched_after_check);
}

void PolicyLines(const proto::SearchStats& s, std::string* out) {
  const proto::ConcurrencyStats& c = s.concurrency();
  const proto::BlockCheckStats& check = c.block_check();
  const double sequential = s.sequential_latency_ms();
  if (check.checked() > 0)
    *out += StringPrintf(
        "block check (%s): %d block(s) measured whole, %.3f ms as searched against %.3f ms "
        "sequential; %d keep the sequential stages, faster there\n",
        s.cost_source().c_str(), check.checked(), check.ios_ms(), check.sequential_ms(),
        check.replaced() - check.reordered_only() - check.unmeasured_replaced());
  if (check.unmeasured_replaced() > 0)
    *out += StringPrintf(
        "block check: %d segment(s) that cannot run whole keep the sequential stages (a "
        "merge stage is kept only when measured faster, concurrent stages where predicted "
        "to save %.0f%% or more)\n",
        check.unmeasured_replaced(), Percent(s));
  if (check.reordered_only() > 0)
    *out += StringPrintf(
        "block check: %d block(s) only reorder ops on one stream; they keep the model's "
        "order\n",
        check.reordered_only());
  if (c.dropped_after_check() > 0)
    *out += StringPrintf(
        "block check: the concurrent blocks save %.3f ms (%.3f measured%s, %.3f predicted "
        "where not measured), less than the short OpenMP spin that concurrent plans run "
        "under is taken to cost (%.0f%% of the sequential %.3f ms, --min-concurrency-gain); "
        "%d block(s) run sequentially too\n",
        check.kept_gain_ms() + check.unchecked_gain_ms(), check.kept_gain_ms(),
        check.kept_gain_remeasured() ? " again" : " as they were chosen, at most",
        check.unchecked_gain_ms(), Percent(s), sequential, c.dropped_after_check());
  if (c.dropped_unmeasured() > 0)
    *out += StringPrintf(
        "block check: the concurrent blocks are predicted to save %.3f ms, less than the "
        "short OpenMP spin that concurrent plans run under is taken to cost (%.0f%% of the "
        "sequential %.3f ms, --min-concurrency-gain); %d block(s) run sequentially, "
        "unmeasured\n",
        c.unmeasured_gain_ms(), Percent(s), sequential, c.dropped_unmeasured());
}

}  // namespace

std::string FormatSearchReport(const proto::SearchStats& s) {
  std::string out;
  const PartTotals totals = Totals(s);
  SearchLines(s, totals, &out);
  SearchCheckLines(s, totals, &out);
  const double searched = s.searched_latency_ms();
  const double sequential = s.sequential_latency_ms();
  out += StringPrintf(
      "predicted latency (%s): %s %.3f ms, greedy %.3f ms, sequential %.3f ms "
      "(%.2fx over sequential, %.2fx over greedy)\n",
      s.cost_source().c_str(), s.schedule().c_str(), searched, s.greedy_latency_ms(), sequential,
      sequential / searched, s.greedy_latency_ms() / searched);
  PolicyLines(s, &out);
  if (s.predicted_latency_ms() != searched)
    out += StringPrintf(
        "predicted latency of the plan written, after the block check: %.3f ms (%.2fx over "
        "sequential)\n",
        s.predicted_latency_ms(), sequential / s.predicted_latency_ms());
  if (s.concurrency().greedy_blocks() > 0)
    out += StringPrintf(
        "note: %d block(s) keep the greedy stages, predicted faster there than the search "
        "within the block's parts\n",
        s.concurrency().greedy_blocks());
  if (totals.fallbacks > 0)
    out += StringPrintf("note: %d part(s) were scheduled greedily (see --stats-json 'fallback')\n",
                        totals.fallbacks);
  return out;
}

}  // namespace ios

#include "plan/plan_diff.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/message_differencer.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "util/json_print.h"

namespace ios {
namespace {

using google::protobuf::util::MessageDifferencer;

constexpr size_t kMaxDetails = 8;

class Section {
 public:
  explicit Section(std::string name) { diff_.section = std::move(name); }
  void Note(const std::string& detail) {
    diff_.differs = true;
    if (diff_.details.size() < kMaxDetails) {
      diff_.details.push_back(detail);
    } else if (diff_.details.size() == kMaxDetails) {
      diff_.details.push_back("...");
    }
  }
  template <typename T>
  void Compare(const std::string& what, const T& a, const T& b) {
    if (!(a == b)) Note(what + ": " + Text(a) + " -> " + Text(b));
  }
  PlanSectionDiff Done() { return std::move(diff_); }

 private:
  static std::string Text(const std::string& s) { return s.empty() ? "(none)" : s; }
  template <typename T>
  static std::string Text(const T& value) {
    std::ostringstream out;
    out << value;
    return out.str();
  }
  PlanSectionDiff diff_;
};

std::string Ms(double ms) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.4f ms", ms);
  return text;
}

PlanSectionDiff Options(const plan::Plan& a, const plan::Plan& b) {
  Section section("options");
  const std::map<std::string, std::string> oa(a.producer().options().begin(),
                                              a.producer().options().end());
  const std::map<std::string, std::string> ob(b.producer().options().begin(),
                                              b.producer().options().end());
  std::set<std::string> keys;
  for (const auto& [k, v] : oa) keys.insert(k);
  for (const auto& [k, v] : ob) keys.insert(k);
  for (const std::string& key : keys) {
    auto ia = oa.find(key), ib = ob.find(key);
    section.Compare(key, ia == oa.end() ? std::string() : ia->second,
                    ib == ob.end() ? std::string() : ib->second);
  }
  section.Compare("ios version", a.producer().ios_version(), b.producer().ios_version());
  section.Compare("format",
                  std::to_string(a.format_major()) + "." + std::to_string(a.format_minor()),
                  std::to_string(b.format_major()) + "." + std::to_string(b.format_minor()));
  return section.Done();
}

PlanSectionDiff Device(const plan::Plan& a, const plan::Plan& b) {
  Section section("device");
  if (!MessageDifferencer::Equals(a.device(), b.device())) {
    std::string report;
    MessageDifferencer differ;
    differ.ReportDifferencesToString(&report);
    differ.Compare(a.device(), b.device());
    std::istringstream lines(report);
    for (std::string line; std::getline(lines, line);) section.Note(line);
  }
  if (!MessageDifferencer::Equals(a.cuda(), b.cuda()))
    section.Note("CUDA options or measured conv algorithms differ");
  return section.Done();
}

PlanSectionDiff Model(const plan::Plan& a, const plan::Plan& b) {
  Section section("model");
  section.Compare("sha256", a.model_sha256(), b.model_sha256());
  section.Compare("batch", a.batch(), b.batch());
  section.Compare("opset", a.opset(), b.opset());
  section.Compare("graph name", a.graph_name(), b.graph_name());
  return section.Done();
}

PlanSectionDiff GraphSection(const plan::Plan& a, const plan::Plan& b) {
  Section section("graph");
  section.Compare("ops", a.ops_size(), b.ops_size());
  section.Compare("tensors", a.tensors_size(), b.tensors_size());
  std::map<std::string, int> types_a, types_b;
  for (const plan::Op& op : a.ops()) ++types_a[op.op_type()];
  for (const plan::Op& op : b.ops()) ++types_b[op.op_type()];
  std::set<std::string> types;
  for (const auto& [t, n] : types_a) types.insert(t);
  for (const auto& [t, n] : types_b) types.insert(t);
  for (const std::string& type : types)
    section.Compare(type + " ops", types_a[type], types_b[type]);
  const int common = std::min(a.ops_size(), b.ops_size());
  for (int i = 0; i < common; ++i) {
    if (!MessageDifferencer::Equals(a.ops(i), b.ops(i))) {
      section.Note("op " + std::to_string(i) + " ('" + a.ops(i).name() + "', " +
                   a.ops(i).op_type() + ") differs: inputs, outputs or attributes");
    }
  }
  for (int i = 0; i < std::min(a.tensors_size(), b.tensors_size()); ++i) {
    const plan::Tensor& ta = a.tensors(i);
    const plan::Tensor& tb = b.tensors(i);
    if (ta.name() != tb.name() || ta.dtype() != tb.dtype() ||
        !std::equal(ta.dims().begin(), ta.dims().end(), tb.dims().begin(), tb.dims().end()))
      section.Note("tensor " + std::to_string(i) + " ('" + ta.name() +
                   "') differs: name, dtype or dims");
    else if (ta.layout() != tb.layout())
      section.Note("tensor " + std::to_string(i) + " ('" + ta.name() + "') differs: layout " +
                   plan::Layout_Name(ta.layout()) + " vs " + plan::Layout_Name(tb.layout()));
  }
  return section.Done();
}

PlanSectionDiff Weights(const plan::Plan& a, const plan::Plan& b) {
  Section section("weights");
  section.Compare("weights", a.weights_size(), b.weights_size());
  int64_t bytes_a = 0, bytes_b = 0;
  for (const plan::Weight& w : a.weights()) bytes_a += w.bytes();
  for (const plan::Weight& w : b.weights()) bytes_b += w.bytes();
  section.Compare("bytes", bytes_a, bytes_b);
  auto carried = [](const plan::Plan& p) {
    return std::string(p.weights_stripped() ? "stripped" : "in the plan");
  };
  section.Compare("weights' bytes", carried(a), carried(b));
  int changed = 0;
  for (int i = 0; i < std::min(a.weights_size(), b.weights_size()); ++i) {
    const plan::Weight& wa = a.weights(i);
    const plan::Weight& wb = b.weights(i);
    const bool same = wa.bytes() == wb.bytes() &&
                      (wa.sha256().empty() || wb.sha256().empty() ? wa.data() == wb.data()
                                                                  : wa.sha256() == wb.sha256());
    if (!same) {
      ++changed;
      const int t = wa.tensor();
      section.Note("weight " + std::to_string(i) + " ('" +
                   (t >= 0 && t < a.tensors_size() ? a.tensors(t).name() : std::string("?")) +
                   "') has other bytes");
    }
  }
  if (changed > 0) section.Note(std::to_string(changed) + " weight(s) with other bytes in all");
  return section.Done();
}

std::string OpName(const plan::Plan& plan, int op) {
  return op >= 0 && op < plan.ops_size() ? plan.ops(op).name() : "#" + std::to_string(op);
}

std::string DescribeStage(const plan::Plan& plan, const plan::Stage& stage) {
  std::string out = stage.strategy() == plan::MERGE ? "merged [" : "[";
  for (int g = 0; g < stage.groups_size(); ++g) {
    out += g ? " | " : "";
    for (int i = 0; i < stage.groups(g).ops_size(); ++i)
      out += (i ? ", " : "") + OpName(plan, stage.groups(g).ops(i));
  }
  return out + "]";
}

PlanSectionDiff ScheduleSection(const plan::Plan& a, const plan::Plan& b) {
  Section section("schedule");
  const plan::Schedule& sa = a.schedule();
  const plan::Schedule& sb = b.schedule();
  section.Compare("kind", sa.kind(), sb.kind());
  section.Compare("blocks", sa.blocks_size(), sb.blocks_size());
  auto totals = [](const plan::Schedule& s) {
    int stages = 0, merges = 0, widest = 0, concurrent = 0;
    for (const plan::Block& block : s.blocks()) {
      for (const plan::Stage& stage : block.stages()) {
        ++stages;
        merges += stage.strategy() == plan::MERGE;
        concurrent += stage.groups_size() > 1;
        widest = std::max(widest, stage.groups_size());
      }
    }
    return std::vector<int>{stages, merges, concurrent, widest};
  };
  const std::vector<int> ta = totals(sa), tb = totals(sb);
  section.Compare("stages", ta[0], tb[0]);
  section.Compare("merged stages", ta[1], tb[1]);
  section.Compare("stages running groups concurrently", ta[2], tb[2]);
  section.Compare("widest stage (groups)", ta[3], tb[3]);
  for (int blk = 0; blk < std::min(sa.blocks_size(), sb.blocks_size()); ++blk) {
    const plan::Block& ba = sa.blocks(blk);
    const plan::Block& bb = sb.blocks(blk);
    if (MessageDifferencer::Equals(ba, bb)) continue;
    // The first stage of the block that differs, in full.
    for (int s = 0; s < std::max(ba.stages_size(), bb.stages_size()); ++s) {
      const bool in_a = s < ba.stages_size(), in_b = s < bb.stages_size();
      if (in_a && in_b && MessageDifferencer::Equals(ba.stages(s), bb.stages(s))) continue;
      section.Note("block " + std::to_string(blk) + " (" + std::to_string(ba.stages_size()) +
                   " -> " + std::to_string(bb.stages_size()) + " stages), first at stage " +
                   std::to_string(s) + ": " + (in_a ? DescribeStage(a, ba.stages(s)) : "(none)") +
                   " -> " + (in_b ? DescribeStage(b, bb.stages(s)) : "(none)"));
      break;
    }
  }
  return section.Done();
}

PlanSectionDiff Memory(const plan::Plan& a, const plan::Plan& b) {
  Section section("memory");
  const plan::MemoryPlan& ma = a.memory();
  const plan::MemoryPlan& mb = b.memory();
  auto views = [](const plan::MemoryPlan& m) {
    int n = 0;
    for (const plan::TensorPlacement& p : m.placements()) n += p.is_view();
    return n;
  };
  const bool same_totals = ma.arena_bytes() == mb.arena_bytes() &&
                           ma.alignment() == mb.alignment() &&
                           ma.placements_size() == mb.placements_size() && views(ma) == views(mb);
  section.Compare("arena bytes", ma.arena_bytes(), mb.arena_bytes());
  section.Compare("alignment", ma.alignment(), mb.alignment());
  section.Compare("placements", ma.placements_size(), mb.placements_size());
  section.Compare("zero-copy views", views(ma), views(mb));
  if (same_totals && !MessageDifferencer::Equals(ma, mb))
    section.Note("the same sizes, but tensors placed at other offsets");
  return section.Done();
}

PlanSectionDiff Latency(const plan::Plan& a, const plan::Plan& b) {
  Section section("predicted latency");
  auto total = [](const plan::Plan& p) {
    double ms = 0;
    for (const plan::StageLatency& l : p.stage_latencies()) ms += l.latency_ms();
    return ms;
  };
  const double ta = total(a), tb = total(b);
  if (ta != tb) section.Note("total: " + Ms(ta) + " -> " + Ms(tb));
  std::string source_a = a.stage_latencies_size() ? a.stage_latencies(0).source() : "";
  std::string source_b = b.stage_latencies_size() ? b.stage_latencies(0).source() : "";
  section.Compare("source", source_a, source_b);
  if (ta == tb && a.stage_latencies_size() == b.stage_latencies_size()) {
    for (int i = 0; i < a.stage_latencies_size(); ++i) {
      if (!MessageDifferencer::Equals(a.stage_latencies(i), b.stage_latencies(i))) {
        section.Note("stage latencies differ from block " +
                     std::to_string(a.stage_latencies(i).block()) + " stage " +
                     std::to_string(a.stage_latencies(i).stage()));
        break;
      }
    }
  }
  return section.Done();
}

}  // namespace

bool PlanDiff::identical() const {
  for (const PlanSectionDiff& section : sections)
    if (section.differs) return false;
  return true;
}

PlanDiff DiffPlans(const plan::Plan& a, const plan::Plan& b) {
  PlanDiff diff;
  diff.sections = {Options(a, b), Device(a, b),          Model(a, b),  GraphSection(a, b),
                   Weights(a, b), ScheduleSection(a, b), Memory(a, b), Latency(a, b)};
  return diff;
}

std::string FormatPlanDiff(const PlanDiff& diff, const std::string& a_name,
                           const std::string& b_name) {
  std::string out;
  for (const PlanSectionDiff& section : diff.sections) {
    out += section.section + ": " + (section.differs ? "differs" : "same") + "\n";
    for (const std::string& detail : section.details) out += "  " + detail + "\n";
  }
  out += diff.identical() ? "the plans are the same (" + a_name + ", " + b_name + ")\n"
                          : "the plans differ (" + a_name + " -> " + b_name + ")\n";
  return out;
}

StatusOr<std::string> PlanDiffJson(const PlanDiff& diff, const std::string& a_name,
                                   const std::string& b_name) {
  using google::protobuf::Struct;
  Struct root;
  auto field = [](Struct* s, const std::string& key) -> google::protobuf::Value& {
    return (*s->mutable_fields())[key];
  };
  field(&root, "identical").set_bool_value(diff.identical());
  field(&root, "a").set_string_value(a_name);
  field(&root, "b").set_string_value(b_name);
  auto* sections = field(&root, "sections").mutable_list_value();
  for (const PlanSectionDiff& section : diff.sections) {
    Struct* entry = sections->add_values()->mutable_struct_value();
    field(entry, "section").set_string_value(section.section);
    field(entry, "differs").set_bool_value(section.differs);
    auto* details = field(entry, "details").mutable_list_value();
    for (const std::string& detail : section.details)
      details->add_values()->set_string_value(detail);
  }
  return MessageToJson(root);
}

}  // namespace ios

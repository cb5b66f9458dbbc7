// iosplan: tools for plan files. `iosplan diff A B` says whether and how two plans differ
// (options, device, model, graph, weights, schedule, memory plan, predicted latency), in words
// and with --json FILE as JSON; exit status 0 when they are the same, 1 when they differ, 2 on
// an error (as diff(1)). CI compares a regenerated plan with the committed one this way.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "plan/plan_diff.h"
#include "plan/plan_io.h"
#include "util/file_util.h"

namespace {

int Fail(const ios::Status& status) {
  std::fprintf(stderr, "iosplan: error: %s\n", status.message().c_str());
  return status.code() == ios::StatusCode::kInternal ? 1 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"iosplan: tools for ios plan files"};
  app.require_subcommand(1);
  CLI::App* diff = app.add_subcommand("diff", "Say whether and how two plans differ");
  std::string a, b, json_path;
  bool quiet = false;
  diff->add_option("A", a, "The first plan")->required();
  diff->add_option("B", b, "The second plan")->required();
  diff->add_option("--json", json_path, "Also write the differences as JSON to FILE");
  diff->add_flag("--quiet", quiet, "Print nothing; the exit status says (0 same, 1 differ)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? 0 : 2;
  }
  // Digests are checked: a corrupted plan is an error, not a difference.
  auto plan_a = ios::PlanFile::Open(a);
  if (!plan_a.ok()) return Fail(plan_a.status());
  auto plan_b = ios::PlanFile::Open(b);
  if (!plan_b.ok()) return Fail(plan_b.status());
  const ios::PlanDiff result = ios::DiffPlans(plan_a->plan(), plan_b->plan());
  if (!quiet) std::fputs(ios::FormatPlanDiff(result, a, b).c_str(), stdout);
  if (!json_path.empty()) {
    auto json = ios::PlanDiffJson(result, a, b);
    if (!json.ok()) return Fail(json.status());
    ios::Status written = ios::WriteFileAtomically(json_path, *json);
    if (!written.ok()) return Fail(written);
  }
  return result.identical() ? 0 : 1;
}

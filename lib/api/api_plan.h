// ios::Plan's hidden state, shared by the compile and session halves of the API.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "ios/compiler.h"
#include "iosplan.pb.h"

namespace ios {

struct Plan::Impl {
  // mutable: serialising moves the weights' bytes out of the message and back.
  mutable plan::Plan plan;
  bool strip_weights = false;
  SearchStatistics stats;
  std::string stats_json = "{}";  // the search's report as `iosc --stats-json` writes it
};

// The library's way in to a Plan's state (include/ios/compiler.h keeps it private).
struct PlanAccess {
  static std::unique_ptr<Plan::Impl> NewImpl() { return std::make_unique<Plan::Impl>(); }
  static Plan Make(std::unique_ptr<Plan::Impl> impl) { return Plan(std::move(impl)); }
  static const Plan::Impl& Of(const Plan& plan) { return *plan.impl_; }
};

}  // namespace ios

// Picking the plan for this machine from a folder of plans, one per GPU type (plans/ and
// iosrun FOLDER --device N): CI regenerates a plan per target, deployment picks by fingerprint.
#pragma once

#include <functional>
#include <string>

#include "iosplan.pb.h"
#include "util/status.h"

namespace ios {

struct PlanPickOptions {
  plan::DeviceFingerprint here;  // the device the plan will run on
  // Whether the backend runs a plan made for this fingerprint without --force (warnings aside):
  // CheckCpuFingerprint or CheckCudaFingerprint.
  std::function<bool(const plan::DeviceFingerprint&)> runs_here;
  bool force = false;  // take the closest compatible plan when none matches exactly
};

struct PlanPick {
  std::string path;
  std::string note;  // what was picked and why, for the log
};

// Among the *.iosplan files in `folder` (not its subfolders; each opened and checked), the one
// made for this device exactly: the same GPU name, compute capability and SM count, or the same
// CPU model, cores and instruction set. Several exact ones is an error naming them. Without
// one, InvalidInput names every plan with its device and the closest compatible one (one the
// backend runs, ranked by how many of those properties agree, measured plans before analytic
// ones); with `force`, that one is picked.
StatusOr<PlanPick> PickPlanInFolder(const std::string& folder, const PlanPickOptions& options);

}  // namespace ios

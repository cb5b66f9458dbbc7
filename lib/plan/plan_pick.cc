#include "plan/plan_pick.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <vector>

#include "plan/plan_info.h"
#include "plan/plan_io.h"

namespace ios {
namespace {

// How many of a device type's identifying properties two fingerprints share (0 to 3).
int Agreement(const plan::DeviceFingerprint& planned, const plan::DeviceFingerprint& here) {
  if (planned.kind() != here.kind()) return 0;
  if (here.kind() == "cuda")
    return (planned.gpu_name() == here.gpu_name()) +
           (planned.compute_major() == here.compute_major() &&
            planned.compute_minor() == here.compute_minor()) +
           (planned.multiprocessors() == here.multiprocessors());
  if (here.kind() == "cpu")
    return (planned.cpu_model() == here.cpu_model()) + (planned.cpu_cores() == here.cpu_cores()) +
           (planned.cpu_isa() == here.cpu_isa());
  return 0;
}

struct Candidate {
  std::string path;
  plan::DeviceFingerprint device;
  bool runs_here = false;
  int agreement = 0;
};

}  // namespace

StatusOr<PlanPick> PickPlanInFolder(const std::string& folder, const PlanPickOptions& options) {
  namespace fs = std::filesystem;
  std::error_code error;
  std::vector<std::string> paths;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    if (it->path().extension() == ".iosplan" && it->is_regular_file(error))
      paths.push_back(it->path().string());
  }
  if (error) return IoError(folder + ": cannot list the folder: " + error.message());
  std::sort(paths.begin(), paths.end());
  if (paths.empty()) return InvalidInput(folder + ": no plan (*.iosplan) in the folder");

  std::vector<Candidate> candidates;
  for (const std::string& path : paths) {
    IOS_ASSIGN_OR_RETURN(PlanFile file, PlanFile::Open(path));
    Candidate c;
    c.path = path;
    c.device = file.plan().device();
    c.runs_here = options.runs_here(c.device);
    c.agreement = Agreement(c.device, options.here);
    candidates.push_back(std::move(c));
  }
  std::vector<const Candidate*> exact;
  const Candidate* closest = nullptr;
  for (const Candidate& c : candidates) {
    if (!c.runs_here) continue;
    if (c.agreement == 3) exact.push_back(&c);
    // Ties keep the first by name; a measured plan (agreement >= 1) beats an analytic one.
    if (closest == nullptr || c.agreement > closest->agreement) closest = &c;
  }
  const std::string here = DeviceSummary(options.here);
  if (exact.size() == 1)
    return PlanPick{exact[0]->path, "picked " + exact[0]->path + ", made for this device (" +
                                        here + ")"};
  if (exact.size() > 1) {
    std::string names;
    for (const Candidate* c : exact) names += (names.empty() ? "" : ", ") + c->path;
    return InvalidInput(folder + ": several plans are made for this device (" + names +
                        "); keep one per device in the folder, or name the plan");
  }
  if (options.force && closest != nullptr)
    return PlanPick{closest->path, "no plan in " + folder + " is made for this device (" + here +
                                       "); --force: picked the closest compatible one, " +
                                       closest->path + " (" + DeviceSummary(closest->device) +
                                       ")"};
  std::string message = folder + ": no plan is made for this device (" + here + "). The folder has:";
  for (const Candidate& c : candidates)
    message += "\n  " + c.path + ": " + DeviceSummary(c.device) +
               (c.runs_here ? "" : " (does not run here)");
  message += closest == nullptr
                 ? "\nNone runs here; compile one with iosc for this device."
                 : "\nThe closest compatible one is " + closest->path +
                       "; pass --force to run it, or compile a plan for this device with iosc.";
  return InvalidInput(message);
}

}  // namespace ios

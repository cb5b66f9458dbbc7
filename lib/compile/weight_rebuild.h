// Weight-stripped plans (iosc --strip-weights, plan format 3.1), like TensorRT 10's
// weight-stripped engines: a plan per GPU type without a copy of the weights in each.
//
// The plan keeps each weight's size and SHA-256 and records how it is derived from the model
// (Weight.derivation). At load, AttachModelWeights rebuilds the weights from the model the plan
// was compiled from, the way iosc made them: the model must have the plan's model_sha256; it is
// imported with the plan's recorded options (batch, input_shapes), the recorded passes run (and
// a CPU plan's lowering, passes/cpu_lowering.h), and the convs of the schedule's MERGE stages
// are merged again. Each rebuilt weight must then have its recorded name, dtype, dims and
// SHA-256, so a rebuild that differs (another ios version's passes, say) is refused rather than
// run.
#pragma once

#include <map>
#include <string>

#include "ir/graph.h"
#include "iosplan.pb.h"
#include "plan/plan_io.h"
#include "util/status.h"

namespace ios {

// At compile time, before any pass: the SHA-256 of each constant of the imported model, by name.
std::map<std::string, std::string> ModelConstantDigests(const Graph& imported);

// Sets every weight's derivation in the plan built from `graph` (whose constants hold the
// weights' bytes, in PlanWeightTensors' order): INITIALIZER when a model constant has its name
// and bytes, MERGED for the other constants of a MERGE stage's ops, FOLDED for the rest.
Status RecordWeightDerivations(const std::map<std::string, std::string>& model_constants,
                               const Graph& graph, plan::Plan& plan);

// Rebuilds `file`'s weights from the model at `model_path` (its external data beside it) and
// hands them to the file (PlanFile::SetRebuiltWeights). InvalidInput, naming both files, for a
// plan that carries its weights, for another model, and for a rebuild that differs.
Status AttachModelWeights(PlanFile& file, const std::string& model_path);

// Zeros in place of a stripped plan's weights, for what needs only the plan's structure (the
// schedule picture); never for a run.
void AttachPlaceholderWeights(PlanFile& file);

}  // namespace ios

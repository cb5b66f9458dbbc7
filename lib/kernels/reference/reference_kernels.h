// Naive reference kernels: the numerical oracle. Constant folding evaluates nodes with them, and
// the CPU backend's tests compare the fast kernels against them. Written for clarity, not speed.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/tensor.h"
#include "util/status.h"

namespace ios {

// Computes the node's outputs from its inputs. An omitted optional input is a null pointer.
// `outputs` arrives sized to the node's output count; the kernel sets dtype, dims and data.
using ReferenceKernel = std::function<Status(const Node& node, const std::vector<const Tensor*>& inputs,
                                             std::vector<Tensor>* outputs)>;

// Null when there is no reference kernel for the op.
const ReferenceKernel* FindReferenceKernel(const std::string& op_type);

// Runs the node's reference kernel; an Unsupported status when there is none.
Status EvaluateReference(const Node& node, const std::vector<const Tensor*>& inputs,
                         std::vector<Tensor>* outputs);

}  // namespace ios

#include "plan/plan_validate.h"

#include <optional>
#include <string>
#include <vector>

#include "plan/plan_format.h"

namespace ios {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

class Validator {
 public:
  Validator(const plan::Plan& plan, const std::string& source, WeightBytes weights)
      : plan_(plan), source_(source), weights_(weights) {}

  Status Run() {
    IOS_RETURN_IF_ERROR(CheckVersion());
    IOS_RETURN_IF_ERROR(CheckTensors());
    IOS_RETURN_IF_ERROR(CheckWeights());
    IOS_RETURN_IF_ERROR(CheckOps());
    IOS_RETURN_IF_ERROR(CheckInterface());
    IOS_RETURN_IF_ERROR(CheckSchedule());
    IOS_RETURN_IF_ERROR(CheckMemory());
    return CheckLatencies();
  }

 private:
  Status Error(const std::string& what) const { return InvalidInput(source_ + ": " + what); }

  int num_tensors() const { return plan_.tensors_size(); }
  bool InRange(int64_t tensor) const { return tensor >= 0 && tensor < num_tensors(); }
  std::string OutOfRange(int64_t tensor) const {
    return "refers to tensor " + Str(tensor) + ", but the plan has " + Str(num_tensors()) +
           " tensors";
  }
  std::string DescribeTensor(int tensor) const {
    return "tensor " + Str(tensor) + " ('" + plan_.tensors(tensor).name() + "')";
  }
  std::string DescribeOp(int op) const {
    return "op " + Str(op) + " ('" + plan_.ops(op).name() + "')";
  }
  bool IsWeight(int tensor) const { return plan_.tensors(tensor).kind() == plan::WEIGHT; }

  Status CheckVersion() const {
    const uint32_t major = plan_.format_major();
    if (major >= kOldestPlanFormatMajor && major <= kPlanFormatMajor) return Status::Ok();
    std::string version = Str(major) + "." + Str(plan_.format_minor());
    std::string writer = plan_.producer().ios_version().empty()
                             ? ""
                             : " (written by ios " + plan_.producer().ios_version() + ")";
    std::string ours = "(ios " + std::string(IOS_VERSION) + " reads formats " +
                       Str(kOldestPlanFormatMajor) + ".x to " + Str(kPlanFormatMajor) + ".x)";
    if (major > kPlanFormatMajor) {
      return Error("plan format " + version + writer + " is newer than this build of ios reads " +
                   ours + "; rebuild the plan with this iosc or upgrade ios");
    }
    return Error("plan format " + version + writer + " is older than this build of ios reads " +
                 ours + "; rebuild the plan with this iosc");
  }

  Status CheckTensors() {
    if (num_tensors() == 0) return Error("the plan has no tensors");
    for (int t = 0; t < num_tensors(); ++t) {
      const plan::Tensor& tensor = plan_.tensors(t);
      if (DTypeFromPlan(tensor.dtype()) == DType::kUndefined)
        return Error(DescribeTensor(t) + " has an unknown dtype " + Str(tensor.dtype()));
      for (int64_t d : tensor.dims())
        if (d < 0) return Error(DescribeTensor(t) + " has a negative dimension " + Str(d));
      if (PlanTensorBytes(tensor) < 0) return Error(DescribeTensor(t) + " is impossibly large");
      const std::optional<Layout> layout = LayoutFromPlan(tensor.layout());
      if (!layout) return Error(DescribeTensor(t) + " has an unknown layout " + Str(tensor.layout()));
      if (*layout == Layout::kChannelsLast &&
          (tensor.kind() != plan::INTERMEDIATE || tensor.dtype() != plan::FLOAT32 ||
           !HasChannelsLastForm(Dims(tensor.dims().begin(), tensor.dims().end()))))
        return Error(DescribeTensor(t) +
                     " is channels-last, which only float32 intermediate tensors of rank 3 to 5 "
                     "may be");
      if (*layout == Layout::kChannelsBlocked8 &&
          (tensor.kind() != plan::INTERMEDIATE || tensor.dtype() != plan::FLOAT32 ||
           !HasChannelsBlocked8Form(Dims(tensor.dims().begin(), tensor.dims().end()))))
        return Error(DescribeTensor(t) +
                     " is channels-blocked-8, which only float32 intermediate tensors [N, C, H, W] "
                     "with C a multiple of 8 may be");
      switch (tensor.kind()) {
        case plan::INPUT:
        case plan::OUTPUT:
        case plan::INTERMEDIATE:
          if (tensor.weight() != -1)
            return Error(DescribeTensor(t) + " is not a weight but refers to weight " +
                         Str(tensor.weight()));
          break;
        case plan::WEIGHT:
          if (tensor.weight() < 0 || tensor.weight() >= plan_.weights_size())
            return Error(DescribeTensor(t) + " refers to weight " + Str(tensor.weight()) +
                         ", but the plan has " + Str(plan_.weights_size()) + " weights");
          if (plan_.weights(tensor.weight()).tensor() != t)
            return Error(DescribeTensor(t) + " refers to weight " + Str(tensor.weight()) +
                         ", which belongs to tensor " +
                         Str(plan_.weights(tensor.weight()).tensor()));
          break;
        default:
          return Error(DescribeTensor(t) + " has an unknown kind " + Str(tensor.kind()));
      }
    }
    return Status::Ok();
  }

  Status CheckWeights() const {
    for (int w = 0; w < plan_.weights_size(); ++w) {
      const plan::Weight& weight = plan_.weights(w);
      std::string what = "weight " + Str(w);
      if (!InRange(weight.tensor())) return Error(what + " " + OutOfRange(weight.tensor()));
      const plan::Tensor& tensor = plan_.tensors(weight.tensor());
      what += " of " + DescribeTensor(weight.tensor());
      if (tensor.kind() != plan::WEIGHT || tensor.weight() != w)
        return Error(what + ", but that tensor does not refer back to it");
      int64_t expected = PlanTensorBytes(tensor);
      const int64_t held = weights_ == WeightBytes::kInFile
                               ? (weight.data().empty() ? weight.bytes() : -1)
                               : static_cast<int64_t>(weight.data().size());
      if (held != expected)
        return Error(what + " has " + Str(held) + " bytes of data, but its dims and dtype need " +
                     Str(expected));
      if (weight.bytes() != expected)
        return Error(what + " records a size of " + Str(weight.bytes()) + " bytes, but needs " +
                     Str(expected));
    }
    return Status::Ok();
  }

  Status CheckOps() {
    if (plan_.ops_size() == 0) return Error("the plan has no ops");
    producer_.assign(num_tensors(), -1);
    for (int o = 0; o < plan_.ops_size(); ++o) {
      const plan::Op& op = plan_.ops(o);
      if (op.op_type().empty()) return Error(DescribeOp(o) + " has no op type");
      for (int i = 0; i < op.inputs_size(); ++i) {
        int32_t t = op.inputs(i);
        if (t != -1 && !InRange(t))
          return Error(DescribeOp(o) + " input " + Str(i) + " " + OutOfRange(t));
      }
      for (int i = 0; i < op.outputs_size(); ++i) {
        int32_t t = op.outputs(i);
        if (t == -1) continue;
        if (!InRange(t)) return Error(DescribeOp(o) + " output " + Str(i) + " " + OutOfRange(t));
        if (IsWeight(t))
          return Error(DescribeOp(o) + " output " + Str(i) + " writes " + DescribeTensor(t) +
                       ", which is a weight");
        if (producer_[t] >= 0)
          return Error(DescribeTensor(t) + " is written by both " + DescribeOp(producer_[t]) +
                       " and " + DescribeOp(o));
        producer_[t] = o;
      }
      for (const plan::Attribute& attr : op.attributes()) {
        std::string what = DescribeOp(o) + " attribute '" + attr.name() + "'";
        if (attr.value_case() == plan::Attribute::VALUE_NOT_SET)
          return Error(what + " has no value");
        if (attr.value_case() == plan::Attribute::kTensor) {
          if (!InRange(attr.tensor())) return Error(what + " " + OutOfRange(attr.tensor()));
          if (!IsWeight(attr.tensor()))
            return Error(what + " refers to " + DescribeTensor(attr.tensor()) +
                         ", which is not a weight");
        }
      }
    }
    return Status::Ok();
  }

  Status CheckInterface() const {
    std::vector<bool> seen(num_tensors(), false);
    for (int i = 0; i < plan_.inputs_size(); ++i) {
      int32_t t = plan_.inputs(i);
      std::string what = "graph input " + Str(i);
      if (!InRange(t)) return Error(what + " " + OutOfRange(t));
      if (IsWeight(t)) return Error(what + " is " + DescribeTensor(t) + ", which is a weight");
      if (producer_[t] >= 0)
        return Error(what + " is " + DescribeTensor(t) + ", which " + DescribeOp(producer_[t]) +
                     " writes");
      if (seen[t]) return Error(what + " repeats " + DescribeTensor(t));
      seen[t] = true;
    }
    for (int t = 0; t < num_tensors(); ++t)
      if (plan_.tensors(t).kind() == plan::INPUT && !seen[t])
        return Error(DescribeTensor(t) + " is an INPUT tensor but not among the graph inputs");
    if (plan_.outputs_size() == 0) return Error("the plan has no graph outputs");
    std::vector<bool> is_output(num_tensors(), false);
    for (int i = 0; i < plan_.outputs_size(); ++i) {
      int32_t t = plan_.outputs(i);
      if (!InRange(t)) return Error("graph output " + Str(i) + " " + OutOfRange(t));
      is_output[t] = true;
      if (!IsWeight(t) && !seen[t] && producer_[t] < 0)
        return Error("graph output " + Str(i) + " is " + DescribeTensor(t) +
                     ", which no op writes and which is no graph input");
    }
    for (int t = 0; t < num_tensors(); ++t)
      if (plan_.tensors(t).kind() == plan::OUTPUT && !is_output[t])
        return Error(DescribeTensor(t) + " is an OUTPUT tensor but not among the graph outputs");
    // Every tensor an op reads holds data: a weight, a graph input or another op's output.
    for (int o = 0; o < plan_.ops_size(); ++o) {
      const plan::Op& op = plan_.ops(o);
      for (int i = 0; i < op.inputs_size(); ++i) {
        int32_t t = op.inputs(i);
        if (t != -1 && !IsWeight(t) && !seen[t] && producer_[t] < 0)
          return Error(DescribeOp(o) + " input " + Str(i) + " reads " + DescribeTensor(t) +
                       ", which no op writes and which is no graph input");
      }
    }
    return Status::Ok();
  }

  Status CheckSchedule() const {
    std::vector<bool> scheduled(plan_.ops_size(), false);
    const plan::Schedule& schedule = plan_.schedule();
    for (int b = 0; b < schedule.blocks_size(); ++b) {
      for (int s = 0; s < schedule.blocks(b).stages_size(); ++s) {
        const plan::Stage& stage = schedule.blocks(b).stages(s);
        std::string where = "schedule block " + Str(b) + " stage " + Str(s);
        if (stage.strategy() != plan::CONCURRENT && stage.strategy() != plan::MERGE)
          return Error(where + " has an unknown strategy " + Str(stage.strategy()));
        if (stage.groups_size() == 0) return Error(where + " has no groups");
        for (int g = 0; g < stage.groups_size(); ++g) {
          for (int32_t o : stage.groups(g).ops()) {
            if (o < 0 || o >= plan_.ops_size())
              return Error(where + " group " + Str(g) + " refers to op " + Str(o) +
                           ", but the plan has " + Str(plan_.ops_size()) + " ops");
            if (scheduled[o]) return Error("the schedule runs " + DescribeOp(o) + " twice");
            scheduled[o] = true;
          }
        }
      }
    }
    for (int o = 0; o < plan_.ops_size(); ++o)
      if (!scheduled[o]) return Error("the schedule never runs " + DescribeOp(o));
    return Status::Ok();
  }

  Status CheckMemory() const {
    const plan::MemoryPlan& memory = plan_.memory();
    if (memory.alignment() <= 0)
      return Error("the memory plan's alignment is " + Str(memory.alignment()));
    if (memory.arena_bytes() < 0)
      return Error("the memory plan's arena size is " + Str(memory.arena_bytes()));
    std::vector<int> placement_of(num_tensors(), -1);
    for (int p = 0; p < memory.placements_size(); ++p) {
      const plan::TensorPlacement& placement = memory.placements(p);
      std::string what = "placement " + Str(p);
      int32_t t = placement.tensor();
      if (!InRange(t)) return Error(what + " " + OutOfRange(t));
      what += " of " + DescribeTensor(t);
      if (IsWeight(t)) return Error(what + ": a weight has no place in the arena");
      if (placement_of[t] >= 0)
        return Error(what + ": the tensor is already placed by placement " + Str(placement_of[t]));
      placement_of[t] = p;
      int64_t expected = PlanTensorBytes(plan_.tensors(t));
      if (placement.bytes() != expected)
        return Error(what + " has " + Str(placement.bytes()) + " bytes, but the tensor has " +
                     Str(expected));
      if (placement.is_view() && (!InRange(placement.view_of()) || IsWeight(placement.view_of())))
        return Error(what + " is a view of tensor " + Str(placement.view_of()) +
                     ", which is not an arena tensor of the plan");
      // A slice of a channels-last tensor is no byte range or batch-strided range; one of a
      // channels-blocked-8 tensor is a byte range (plan/tensor_views.h), never a strided one.
      if (placement.is_view()) {
        const plan::Layout view = plan_.tensors(t).layout();
        const plan::Layout base = plan_.tensors(placement.view_of()).layout();
        const bool blocked = view == plan::CHANNELS_BLOCKED_8 && base == plan::CHANNELS_BLOCKED_8 &&
                             placement.view_pitch() == 0;
        if (!blocked && (view != plan::ROW_MAJOR || base != plan::ROW_MAJOR))
          return Error(what + " is a view of tensor " + Str(placement.view_of()) +
                       ", but views are of row-major tensors, or contiguous ones of blocked "
                       "tensors, only");
      }
      if (placement.view_pitch() < 0 || (placement.view_pitch() != 0 && !placement.is_view()))
        return Error(what + " has a view pitch of " + Str(placement.view_pitch()) +
                     " bytes, but only a view may have one, and not a negative one");
      if (placement.offset() < 0 || placement.offset() > memory.arena_bytes() - placement.bytes())
        return Error(what + " at offset " + Str(placement.offset()) + " (" +
                     Str(placement.bytes()) + " bytes) lies outside the arena of " +
                     Str(memory.arena_bytes()) + " bytes");
    }
    for (int t = 0; t < num_tensors(); ++t)
      if (!IsWeight(t) && placement_of[t] < 0)
        return Error(DescribeTensor(t) + " has no place in the memory plan");
    return Status::Ok();
  }

  Status CheckLatencies() const {
    const plan::Schedule& schedule = plan_.schedule();
    for (int i = 0; i < plan_.stage_latencies_size(); ++i) {
      const plan::StageLatency& latency = plan_.stage_latencies(i);
      if (latency.block() < 0 || latency.block() >= schedule.blocks_size() || latency.stage() < 0 ||
          latency.stage() >= schedule.blocks(latency.block()).stages_size())
        return Error("stage latency " + Str(i) + " refers to block " + Str(latency.block()) +
                     " stage " + Str(latency.stage()) + ", which the schedule does not have");
    }
    return Status::Ok();
  }

  const plan::Plan& plan_;
  const std::string& source_;
  WeightBytes weights_;
  std::vector<int> producer_;  // per tensor, the op that writes it, or -1
};

}  // namespace

int64_t PlanTensorBytes(const plan::Tensor& tensor) {
  const DType dtype = DTypeFromPlan(tensor.dtype());
  if (DTypeSize(dtype) == 0) return -1;
  // The graph's rule for every shape (ir/tensor.h), so that the element count of any subset of
  // a plan tensor's dims fits in int64 too.
  return CheckedNumBytes(dtype, Dims(tensor.dims().begin(), tensor.dims().end()));
}

Status ValidatePlan(const plan::Plan& plan, const std::string& source, WeightBytes weights) {
  return Validator(plan, source, weights).Run();
}

}  // namespace ios

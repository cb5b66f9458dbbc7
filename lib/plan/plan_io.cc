#include "plan/plan_io.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "plan/plan_validate.h"
#include "util/file_util.h"

namespace ios {

Status WritePlanFile(const plan::Plan& plan, const std::string& path) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);  // map fields in key order
    if (!plan.SerializeToCodedStream(&coded) || coded.HadError())
      return Internal(path + ": cannot serialise the plan (is it larger than 2 GiB?)");
  }
  return WriteFileAtomically(path, bytes);
}

StatusOr<plan::Plan> ReadPlanFile(const std::string& path) {
  IOS_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
  plan::Plan plan;
  // Protobuf accepts many byte strings (even random ones can parse as unknown fields), so a plan
  // must also carry a format version, tensors and ops before it is validated in detail.
  if (!plan.ParseFromString(bytes) || plan.format_major() == 0 || plan.tensors_size() == 0 ||
      plan.ops_size() == 0) {
    return InvalidInput(path + ": not an ios plan (truncated or corrupted)");
  }
  IOS_RETURN_IF_ERROR(ValidatePlan(plan, path));
  return plan;
}

}  // namespace ios

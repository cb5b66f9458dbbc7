#include "iosrun/tensor_files.h"

#include <cmath>
#include <cstdio>
#include <sys/stat.h>

#include "onnx/tensor_proto.h"

namespace ios {
namespace {

std::string NumberedPath(const std::string& dir, const std::string& prefix, size_t i) {
  return dir + "/" + prefix + "_" + std::to_string(i) + ".pb";
}

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

StatusOr<std::vector<Tensor>> ReadNumberedTensors(const std::string& dir, const std::string& prefix) {
  std::vector<Tensor> tensors;
  for (size_t i = 0; FileExists(NumberedPath(dir, prefix, i)); ++i) {
    IOS_ASSIGN_OR_RETURN(Tensor t, ReadTensorFile(NumberedPath(dir, prefix, i)));
    tensors.push_back(std::move(t));
  }
  if (tensors.empty()) return InvalidInput(dir + ": no " + prefix + "_0.pb in this folder");
  return tensors;
}

Status WriteNumberedTensors(const std::string& dir, const std::string& prefix,
                            const std::vector<Tensor>& tensors, const std::vector<std::string>& names) {
  for (size_t i = 0; i < tensors.size(); ++i)
    IOS_RETURN_IF_ERROR(WriteTensorFile(tensors[i], names[i], NumberedPath(dir, prefix, i)));
  return Status::Ok();
}

std::string CompareOutputs(const std::vector<Tensor>& got, const std::vector<Tensor>& expected,
                           double atol, double rtol, bool* ok) {
  *ok = true;
  std::string report;
  if (got.size() != expected.size()) {
    *ok = false;
    return "the plan produced " + std::to_string(got.size()) + " output(s), the reference has " +
           std::to_string(expected.size()) + "\n";
  }
  for (size_t o = 0; o < got.size(); ++o) {
    const Tensor& a = got[o];
    const Tensor& b = expected[o];
    if (a.dims() != b.dims()) {
      *ok = false;
      report += "output " + std::to_string(o) + ": shape " + DimsToString(a.dims()) +
                ", reference " + DimsToString(b.dims()) + "\n";
      continue;
    }
    // The worst element is the one that exceeds its allowed error by the most.
    double worst_excess = -INFINITY, worst_abs = 0, worst_rel = 0, max_abs = 0;
    int64_t worst = 0, bad = 0;
    for (int64_t i = 0; i < a.num_elements(); ++i) {
      double x = a.FloatAt(i), y = b.FloatAt(i);
      double err = std::fabs(x - y);
      if (std::isnan(x) != std::isnan(y)) err = INFINITY;
      double excess = err - (atol + rtol * std::fabs(y));
      max_abs = std::max(max_abs, err);
      if (excess > 0) ++bad;
      if (excess > worst_excess) {
        worst_excess = excess;
        worst = i;
        worst_abs = err;
        worst_rel = err / std::max(std::fabs(y), 1e-30);
      }
    }
    char line[512];
    std::snprintf(line, sizeof(line),
                  "output %zu %s: %s, max abs error %.3g; worst element %lld: got %.9g, "
                  "expected %.9g (abs %.3g, rel %.3g); %lld of %lld elements outside "
                  "atol %.3g + rtol %.3g\n",
                  o, DimsToString(a.dims()).c_str(), bad ? "MISMATCH" : "ok", max_abs,
                  static_cast<long long>(worst), a.num_elements() ? a.FloatAt(worst) : 0.0,
                  a.num_elements() ? b.FloatAt(worst) : 0.0, worst_abs, worst_rel,
                  static_cast<long long>(bad), static_cast<long long>(a.num_elements()), atol, rtol);
    report += line;
    if (bad) *ok = false;
  }
  return report;
}

}  // namespace ios

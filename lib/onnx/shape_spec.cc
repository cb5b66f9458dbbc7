#include "onnx/shape_spec.h"

namespace ios {

StatusOr<std::pair<std::string, Dims>> ParseInputShapeSpec(const std::string& spec) {
  const size_t colon = spec.rfind(':');
  auto bad = [&](const std::string& why) {
    return InvalidInput("input shape '" + spec + "': " + why +
                        " (expected NAME:DIMS, e.g. images:1x3x640x640)");
  };
  if (colon == std::string::npos) return bad("no ':' between the input's name and its dims");
  std::pair<std::string, Dims> result;
  result.first = spec.substr(0, colon);
  if (result.first.empty()) return bad("no input name");
  const std::string dims = spec.substr(colon + 1);
  size_t start = 0;
  while (start < dims.size()) {
    size_t end = dims.find('x', start);
    if (end == std::string::npos) end = dims.size();
    const std::string part = dims.substr(start, end - start);
    if (part.empty() || part.size() > 12 ||
        part.find_first_not_of("0123456789") != std::string::npos)
      return bad("'" + part + "' is not a positive integer");
    const int64_t value = std::stoll(part);
    if (value <= 0) return bad("dimension " + part + " is not positive");
    result.second.push_back(value);
    start = end + 1;
    if (end + 1 == dims.size()) return bad("a trailing 'x'");
  }
  return result;
}

}  // namespace ios

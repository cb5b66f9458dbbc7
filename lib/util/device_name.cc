#include "util/device_name.h"

#include <algorithm>
#include <cctype>

namespace ios {

int CudaOrdinalOf(const std::string& device) {
  if (device == "cuda") return 0;
  const std::string digits = device.rfind("cuda:", 0) == 0 ? device.substr(5) : device;
  // Six digits at most, so that std::stoi cannot overflow.
  if (digits.empty() || digits.size() > 6 ||
      !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); }))
    return -1;
  return std::stoi(digits);
}

}  // namespace ios

// printf-style formatting into a std::string.
#pragma once

#include <cstdarg>
#include <string>

namespace ios {

std::string StringPrintf(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string StringVPrintf(const char* format, va_list args);

}  // namespace ios

// Where the tests find their data: the source tree (testdata/, for committed models) and the
// build tree (models/, which the models.generate fixture writes). Both are compiled in, and the
// environment variables IOS_TEST_SOURCE_DIR and IOS_TEST_BINARY_DIR override them, so that the
// test binaries also run from the GPU bundle (scripts/gpu_bundle.sh), far from their build.
#pragma once

#include <cstdlib>
#include <string>

namespace ios::testing {

inline std::string DirFromEnv(const char* variable, const char* compiled_in) {
  const char* value = std::getenv(variable);
  return value != nullptr && *value != '\0' ? value : compiled_in;
}

inline std::string TestSourceDir() { return DirFromEnv("IOS_TEST_SOURCE_DIR", IOS_SOURCE_DIR); }
inline std::string TestBinaryDir() { return DirFromEnv("IOS_TEST_BINARY_DIR", IOS_BINARY_DIR); }

}  // namespace ios::testing

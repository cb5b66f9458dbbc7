// Scratch files for the tests.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace ios::testing {

// `name` under gtest's temporary folder, prefixed with the process and the running test, so that
// no two tests (nor two test processes, as ctest runs them) share a file.
inline std::string TempPath(const std::string& name) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string owner = test != nullptr ? std::string(test->test_suite_name()) + "." + test->name()
                                      : std::string("no_test");
  std::replace(owner.begin(), owner.end(), '/', '_');  // parameterised tests' names have them
  return ::testing::TempDir() + "ios_" + std::to_string(::getpid()) + "_" + owner + "_" + name;
}

// Writes `bytes` to `path` as they are (a plan or cache file crafted by a test).
inline void WriteRaw(const std::string& path, const std::string& bytes) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr) << path;
  const size_t written = std::fwrite(bytes.data(), 1, bytes.size(), file);
  const int closed = std::fclose(file);  // closed whatever the write did
  EXPECT_EQ(written, bytes.size()) << path;
  EXPECT_EQ(closed, 0) << path;
}

}  // namespace ios::testing

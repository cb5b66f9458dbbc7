// The cuBLAS table (runtime/cuda/cublas_library.h) on any machine: the library opens and every
// function resolves without a GPU, and cuBLAS statuses become errors named by cuBLAS itself.
#include "runtime/cuda/cublas_library.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

namespace ios {
namespace {

TEST(CublasLibraryTest, OpensOnceWithEveryFunction) {
  StatusOr<const CublasFunctions*> cublas = Cublas();
  ASSERT_TRUE(cublas.ok()) << cublas.status().message();
  const CublasFunctions& f = *cublas.value();
  EXPECT_NE(f.create, nullptr);
  EXPECT_NE(f.destroy, nullptr);
  EXPECT_NE(f.set_stream, nullptr);
  EXPECT_NE(f.set_workspace, nullptr);
  EXPECT_NE(f.set_math_mode, nullptr);
  EXPECT_NE(f.set_pointer_mode, nullptr);
  EXPECT_NE(f.gemm_strided_batched_ex, nullptr);
  EXPECT_NE(f.get_status_name, nullptr);
  EXPECT_NE(f.get_status_string, nullptr);
  StatusOr<const CublasFunctions*> again = Cublas();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.value(), cublas.value());
  // The library is now in the process, under the soname ios was built against.
  void* loaded = dlopen(CublasLibraryName().c_str(), RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(loaded, nullptr) << CublasLibraryName();
  if (loaded != nullptr) dlclose(loaded);
}

TEST(CublasLibraryTest, TheResolvedFunctionsAreCuBlasOwn) {
  StatusOr<const CublasFunctions*> cublas = Cublas();
  ASSERT_TRUE(cublas.ok()) << cublas.status().message();
  // Pure host functions: callable without a device.
  EXPECT_EQ(std::string(cublas.value()->get_status_name(CUBLAS_STATUS_NOT_INITIALIZED)),
            "CUBLAS_STATUS_NOT_INITIALIZED");
  EXPECT_FALSE(std::string(cublas.value()->get_status_string(CUBLAS_STATUS_INVALID_VALUE)).empty());
}

TEST(CublasLibraryTest, StatusesNameTheCallPlaceAndStatus) {
  EXPECT_TRUE(CublasStatus(CUBLAS_STATUS_SUCCESS, "cublasX()", "f.cc", 3).ok());
  Status bad = CublasStatus(CUBLAS_STATUS_INVALID_VALUE, "cublasX()", "f.cc", 3);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("cublasX() failed at f.cc:3"), std::string::npos) << bad.message();
  EXPECT_NE(bad.message().find("CUBLAS_STATUS_INVALID_VALUE"), std::string::npos) << bad.message();
}

TEST(CublasLibraryTest, NameFollowsTheHeadersMajorVersion) {
  EXPECT_EQ(CublasLibraryName(), "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR));
}

}  // namespace
}  // namespace ios

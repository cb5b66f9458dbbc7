#include "runtime/cuda/cublas_library.h"

#include <dlfcn.h>

#include <mutex>
#include <type_traits>

#include "runtime/cuda/cuda_check.h"

namespace ios {
namespace {

// Overload resolution picks the declared exported function only if the signature matches it
// (unevaluated: nothing is linked).
static_assert(
    std::is_same_v<decltype(static_cast<CublasGemmStridedBatchedEx>(&cublasGemmStridedBatchedEx)),
                   CublasGemmStridedBatchedEx>);

// The folder of the shared object that holds `symbol` (with a trailing '/'), or "" when unknown.
std::string FolderOf(const void* symbol) {
  Dl_info info{};
  if (symbol == nullptr || dladdr(symbol, &info) == 0 || info.dli_fname == nullptr) return "";
  const std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

// RTLD_LOCAL: cuBLAS's symbols stay out of the global namespace, where they could shadow those
// of another cuBLAS that the embedding program loaded itself.
void* OpenCublas(std::string& error) {
  const std::string name = CublasLibraryName();
  if (void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
  error = dlerror();
  // The toolkit keeps cuBLAS beside the CUDA runtime, which ios links: with a runtime found by
  // a path the loader does not search again (an installed run path of another binary), look
  // there too. The runtime's function is looked up by name: in a binary built without -fPIC,
  // &cudaGetErrorString could be the binary's own PLT entry.
  const std::string folder = FolderOf(dlsym(RTLD_DEFAULT, "cudaGetErrorString"));
  if (folder.empty()) return nullptr;
  if (void* handle = dlopen((folder + name).c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
  error += "; " + std::string(dlerror());
  return nullptr;
}

// Sets `function` to the library's `symbol`, or adds the symbol's name to `missing`.
template <typename Function>
void ResolveSymbol(void* library, const char* symbol, Function& function, std::string& missing) {
  function = reinterpret_cast<Function>(dlsym(library, symbol));
  if (function == nullptr) missing += missing.empty() ? symbol : std::string(", ") + symbol;
}

StatusOr<CublasFunctions> LoadCublas() {
  std::string error;
  void* library = OpenCublas(error);
  if (library == nullptr)
    return InvalidInput("cannot load cuBLAS (" + CublasLibraryName() + "), which the CUDA " +
                        "backend needs: " + error +
                        ". Install the CUDA toolkit's cuBLAS or add its folder to LD_LIBRARY_PATH");
  // The exported names: cublas_v2.h maps cublasCreate and others to their _v2 symbols.
  CublasFunctions f;
  std::string missing;
  ResolveSymbol(library, "cublasCreate_v2", f.create, missing);
  ResolveSymbol(library, "cublasDestroy_v2", f.destroy, missing);
  ResolveSymbol(library, "cublasSetStream_v2", f.set_stream, missing);
  ResolveSymbol(library, "cublasSetWorkspace_v2", f.set_workspace, missing);
  ResolveSymbol(library, "cublasSetMathMode", f.set_math_mode, missing);
  ResolveSymbol(library, "cublasSetPointerMode_v2", f.set_pointer_mode, missing);
  ResolveSymbol(library, "cublasGemmStridedBatchedEx", f.gemm_strided_batched_ex, missing);
  ResolveSymbol(library, "cublasGetStatusName", f.get_status_name, missing);
  ResolveSymbol(library, "cublasGetStatusString", f.get_status_string, missing);
  if (!missing.empty()) {
    dlclose(library);
    return InvalidInput("the cuBLAS found as " + CublasLibraryName() + " lacks " + missing);
  }
  // The library stays open for the life of the process: handles and kernels refer to it.
  return f;
}

}  // namespace

std::string CublasLibraryName() { return "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR); }

StatusOr<const CublasFunctions*> Cublas() {
  static std::once_flag once;
  static StatusOr<CublasFunctions> loaded = Internal("cuBLAS not loaded");
  std::call_once(once, [] { loaded = LoadCublas(); });
  if (!loaded.ok()) return loaded.status();
  return &loaded.value();
}

Status CublasStatus(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return Status::Ok();
  // A status comes from a loaded cuBLAS, so its names are there; the number is the fallback.
  StatusOr<const CublasFunctions*> cublas = Cublas();
  const std::string name = cublas.ok()
                               ? std::string(cublas.value()->get_status_name(status)) + " (" +
                                     cublas.value()->get_status_string(status) + ")"
                               : "cuBLAS status " + std::to_string(static_cast<int>(status));
  return Internal(CudaCallPlace(call, file, line) + name);
}

}  // namespace ios

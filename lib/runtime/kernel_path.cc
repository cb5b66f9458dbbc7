#include "runtime/kernel_path.h"

namespace ios {

const char* KernelPathName(KernelPath path) {
  switch (path) {
    case KernelPath::kOwnKernel: return "own kernel";
    case KernelPath::kReference: return "reference";
    case KernelPath::kBehindReorder: return "behind a reorder";
  }
  return "?";
}

const char* KernelPathTag(KernelPath path) {
  switch (path) {
    case KernelPath::kOwnKernel: return "";
    case KernelPath::kReference: return "ref";
    case KernelPath::kBehindReorder: return "reorder";
  }
  return "?";
}

}  // namespace ios

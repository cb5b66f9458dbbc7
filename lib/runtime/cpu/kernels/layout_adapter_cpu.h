// Layout conversion on the CPU (ir/layout.h): a oneDNN reorder of a float32 tensor between
// row-major and channels-last or channels-blocked-8, and the adapter that lets a kernel which
// reads and writes row-major tensors run a node whose tensors are not. The adapter reorders each
// such input into a per-thread scratch buffer before the kernel runs, and each such output from
// one after; the layout assignment (passes/assign_layouts.h) keeps these to the edges of the runs
// of ops that take channels-last tensors, where they cost what the conv's own reorders would.
#pragma once

#include <memory>

#include "ir/layout.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "util/status.h"

namespace ios {

// Reorders float32 `dims` from one layout to another, on up to `threads` threads.
class LayoutReorderCpu {
 public:
  static StatusOr<std::unique_ptr<LayoutReorderCpu>> Create(const Dims& dims, Layout from,
                                                            Layout to);
  ~LayoutReorderCpu();
  Status Run(const void* src, void* dst, int threads);
  int64_t bytes() const;

 private:
  struct Impl;
  explicit LayoutReorderCpu(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// `context` with every input and output layout row-major: what a kernel behind the adapter is
// created for.
CpuKernelContext RowMajorContext(const CpuKernelContext& context);

// `inner`, made for RowMajorContext(context), run on the buffers of `context`. Channels-last and
// blocked tensors must be float32 of their layout's form (the plan validator's rule); anything
// else is an Internal error.
StatusOr<std::unique_ptr<CpuKernel>> WrapInLayoutAdapter(std::unique_ptr<CpuKernel> inner,
                                                         const CpuKernelContext& context);

// The kernel a layout adapter runs, or null when `kernel` is not an adapter.
const CpuKernel* LayoutAdapterInner(const CpuKernel& kernel);

}  // namespace ios

// Checks one node's CUDA kernel on a device against its reference kernel, for the own-kernel
// GPU tests: random inputs from the test, outputs poisoned before the run so that an element
// never written shows up, the kernel enqueued on a stream of a CudaStreamSet (with its cuDNN
// handle and workspace) directly or captured into a CUDA Graph. Creating the kernel needs no
// device, so that part is checked on every machine; the rest skips without a GPU.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../../kernel_math_test_util.h"
#include "../../op_cases/tolerance.h"
#include "../own_kernel_test_graph.h"
#include "gpu_test_util.h"
#include "kernels/reference/reference_kernels.h"
#include "runtime/cuda/kernels/cuda_kernel.h"
#include "runtime/cuda/cuda_streams.h"

namespace ios::testing {

#define ASSERT_CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call

struct RunOptions {
  bool through_graph = false;
  // A constant input the kernel must treat as computed at run time (shape inference wants it
  // constant, so the graph cannot say so itself); -1 for none.
  int runtime_input = -1;
  // The kernel asks cuDNN while it is created (ConvTranspose): it needs the stream's handle.
  bool needs_cudnn = false;
};

inline RunOptions Options(bool through_graph, int runtime_input = -1, bool needs_cudnn = false) {
  RunOptions options;
  options.through_graph = through_graph;
  options.runtime_input = runtime_input;
  options.needs_cudnn = needs_cudnn;
  return options;
}

inline void CheckOnGpu(OneNodeGraph& g, Tolerance tolerance, RunOptions options = {}) {
  Status built = g.Build();
  ASSERT_TRUE(built.ok()) << built.message();
  const Node& node = g.node();
  SCOPED_TRACE(node.op_type + " opset " + std::to_string(node.opset));
  std::vector<const Tensor*> reference_inputs;
  for (size_t i = 0; i < node.inputs.size(); ++i)
    reference_inputs.push_back(node.inputs[i] == kNoValue ? nullptr : &g.values()[i]);
  std::vector<Tensor> expected(node.outputs.size());
  Status reference = EvaluateReference(node, reference_inputs, &expected);
  ASSERT_TRUE(reference.ok()) << reference.message();

  CudaKernelContext context = g.Context();
  if (options.runtime_input >= 0) context.constants.at(options.runtime_input) = nullptr;
  if (!options.needs_cudnn) {
    // Creating the kernel needs no device, so it is checked on every machine.
    auto kernel = CreateCudaKernel(context);
    ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  }
  IOS_SKIP_WITHOUT_GPU();

  CudaStreamSetOptions set_options;
  set_options.num_streams = 1;
  auto set = CudaStreamSet::Create(set_options);
  ASSERT_TRUE(set.ok()) << set.status().message();
  context.cudnn = (*set)->stream(0).cudnn;
  auto kernel = CreateCudaKernel(context);
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  Status reserved = (*set)->Reserve(1, 0, (*kernel)->WorkspaceBytes());
  ASSERT_TRUE(reserved.ok()) << reserved.message();
  const CudaStreamContext& stream = (*set)->stream(0);

  std::vector<DeviceBuffer> buffers;
  std::vector<const void*> inputs;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i] == kNoValue) {
      inputs.push_back(nullptr);
      continue;
    }
    const Tensor& value = g.values()[i];
    auto buffer = DeviceBuffer::Allocate(value.num_bytes());
    ASSERT_TRUE(buffer.ok()) << buffer.status().message();
    if (value.num_bytes() > 0) {
      ASSERT_CUDA_OK(UploadOn(stream.stream, buffer->data(), value.raw(), value.num_bytes()));
    }
    inputs.push_back(buffer->data());
    buffers.push_back(std::move(*buffer));
  }
  std::vector<Tensor> got;
  std::vector<void*> outputs;
  for (const TensorType& type : context.output_types) {
    got.emplace_back(type.dtype, type.dims);
    auto buffer = DeviceBuffer::Allocate(got.back().num_bytes());
    ASSERT_TRUE(buffer.ok()) << buffer.status().message();
    if (got.back().num_bytes() > 0) {
      ASSERT_CUDA_OK(FillOn(stream.stream, buffer->data(), 0xff, got.back().num_bytes()));
    }
    outputs.push_back(buffer->data());
    buffers.push_back(std::move(*buffer));
  }

  if (options.through_graph) {
    // As the session does: one direct run first, so that a library's first-use setup happens
    // outside the capture; the outputs are poisoned again after it.
    Status first = kernel.value()->Enqueue(inputs, outputs, stream);
    ASSERT_TRUE(first.ok()) << first.message();
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream.stream));
    for (size_t o = 0; o < got.size(); ++o)
      ASSERT_CUDA_OK(FillOn(stream.stream, outputs[o], 0xff, got[o].num_bytes()));
    cudaGraph_t graph = nullptr;
    ASSERT_CUDA_OK(cudaStreamBeginCapture(stream.stream, cudaStreamCaptureModeThreadLocal));
    Status enqueued = kernel.value()->Enqueue(inputs, outputs, stream);
    ASSERT_CUDA_OK(cudaStreamEndCapture(stream.stream, &graph));
    ASSERT_TRUE(enqueued.ok()) << enqueued.message();
    cudaGraphExec_t exec = nullptr;
    ASSERT_CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
    ASSERT_CUDA_OK(cudaGraphLaunch(exec, stream.stream));
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream.stream));
    ASSERT_CUDA_OK(cudaGraphExecDestroy(exec));
    ASSERT_CUDA_OK(cudaGraphDestroy(graph));
  } else {
    Status enqueued = kernel.value()->Enqueue(inputs, outputs, stream);
    ASSERT_TRUE(enqueued.ok()) << enqueued.message();
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream.stream));
  }
  for (size_t o = 0; o < got.size(); ++o) {
    if (got[o].num_bytes() > 0) {
      ASSERT_CUDA_OK(DownloadOn(stream.stream, got[o].raw(), outputs[o], got[o].num_bytes()));
    }
    SCOPED_TRACE("output " + std::to_string(o));
    ExpectTensorsNear(expected[o], got[o], tolerance.abs, tolerance.rel);
  }
}

}  // namespace ios::testing

// The one-node harness of the CPU kernel tests: a one-node graph (one_node_graph.h) whose node
// runs through CreateCpuKernel (threads 1 and 2) and through the reference kernel (the oracle),
// with every output compared within a per-op tolerance; it also checks that the fast kernel
// (not the reference fallback) was the one that ran.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ir/fused_activation.h"
#include "kernels/reference/reference_kernels.h"
#include "one_node_graph.h"
#include "op_cases/tolerance.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "runtime/cpu/kernels/cpu_kernel_factories.h"
#include "runtime/cpu/kernels/layout_adapter_cpu.h"
#include "tensor_compare.h"

namespace ios::cpu_testing {

// The tolerance vocabulary is op_cases/tolerance.h's.
using testing::DotTolerance;
using testing::kElementwise;
using testing::kExact;
using testing::Tolerance;

inline Dims Ints(std::initializer_list<int64_t> values) { return Dims(values); }

// Float32 `tensor` (row-major) with its bytes reordered into `to` (from row-major), or back into
// row-major from `to` (`to_row_major`); its dims stay logical (ir/layout.h).
inline Tensor Relayout(const Tensor& tensor, Layout layout, bool to_row_major) {
  const Dims& dims = tensor.dims();
  Tensor out(tensor.dtype(), dims);
  const bool blocked = layout == Layout::kChannelsBlocked8;
  const Dims stored = blocked ? RowMajorStrides(dims) : LayoutStrides(dims, layout);
  const float* in = tensor.data<float>();
  float* dst = out.data<float>();
  const int64_t count = NumElements(dims);
  for (int64_t i = 0; i < count; ++i) {
    int64_t rest = i;
    int64_t offset = 0;
    if (blocked) {  // nChw8c, written out: [n][c / 8][h][w][c % 8]
      const int64_t w = rest % dims[3], h = rest / dims[3] % dims[2];
      const int64_t c = rest / (dims[3] * dims[2]) % dims[1];
      const int64_t n = rest / (dims[3] * dims[2] * dims[1]);
      offset = (((n * (dims[1] / 8) + c / 8) * dims[2] + h) * dims[3] + w) * 8 + c % 8;
    }
    for (size_t d = dims.size(); !blocked && d-- > 0;) {
      offset += (rest % dims[d]) * stored[d];
      rest /= dims[d];
    }
    if (to_row_major) {
      dst[i] = in[offset];
    } else {
      dst[offset] = in[i];
    }
  }
  return out;
}
inline int64_t RandomInt(std::mt19937& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// A one-node graph (one_node_graph.h) checked against the reference kernel.
class OneNodeCase : public testing::OneNodeBuilder<OneNodeCase> {
 public:
  OneNodeCase(std::string op_type, int64_t opset = 13)
      : OneNodeBuilder(std::move(op_type), opset, "cpu_kernels_test") {}

  OneNodeCase& Fused(ActivationKind kind, float alpha = 0.f, float beta = 0.f) {
    SetFusedActivation(node_.attrs, Activation{kind, alpha, beta});
    return *this;
  }

  // Stores the inputs and outputs in these layouts (missing ones: row-major): Check hands the
  // kernel its inputs reordered so and reads its outputs back. `adapted`: whether the kernel is
  // expected to run behind a layout adapter rather than take the layouts itself.
  OneNodeCase& Layouts(std::vector<Layout> inputs, std::vector<Layout> outputs,
                       bool adapted = false) {
    input_layouts_ = std::move(inputs);
    output_layouts_ = std::move(outputs);
    adapted_ = adapted;
    return *this;
  }

  // Output 0 is written over input `input`'s bytes, as an in-place memory plan places it
  // (plan/in_place.h): Check hands the kernel that input in the output's buffer.
  OneNodeCase& OutputOver(size_t input) {
    output_over_ = static_cast<int>(input);
    return *this;
  }

  // Runs the reference and CreateCpuKernel (threads 1 and 2) and compares every output.
  void Check(const Tolerance& tolerance, bool expect_fast = true) {
    SCOPED_TRACE(Describe());
    Graph graph = graph_;
    NodeId id = kNoNode;
    Status inferred = AddNode(graph, &id);
    ASSERT_TRUE(inferred.ok()) << inferred.message();
    const Node& n = graph.nodes[id];

    CpuKernelContext context;
    context.node = &n;
    std::vector<const Tensor*> reference_inputs;
    std::vector<const void*> buffers;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const bool present = n.inputs[i] != kNoValue;
      context.input_types.push_back(present ? TensorType{values_[i].dtype(), values_[i].dims()}
                                            : TensorType{});
      const Value* value = present ? &graph.values[n.inputs[i]] : nullptr;
      context.constants.push_back(value != nullptr && value->constant ? &*value->constant
                                                                      : nullptr);
      reference_inputs.push_back(present ? &values_[i] : nullptr);
      buffers.push_back(present ? values_[i].raw() : nullptr);
    }
    for (ValueId out : n.outputs)
      context.output_types.push_back(TensorType{graph.values[out].dtype, graph.values[out].dims});

    std::vector<Tensor> expected(n.outputs.size());
    Status reference = EvaluateReference(n, reference_inputs, &expected);
    ASSERT_TRUE(reference.ok()) << reference.message();

    context.input_layouts = input_layouts_;
    context.output_layouts = output_layouts_;
    std::vector<Tensor> stored_inputs;  // the inputs in their layouts
    stored_inputs.reserve(n.inputs.size());
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (context.input_layout(i) == Layout::kRowMajor || buffers[i] == nullptr ||
          context.constants[i] != nullptr)
        continue;
      stored_inputs.push_back(Relayout(values_[i], context.input_layout(i), false));
      buffers[i] = stored_inputs.back().raw();
    }

    StatusOr<std::unique_ptr<CpuKernel>> kernel = CreateCpuKernel(context);
    ASSERT_TRUE(kernel.ok()) << kernel.status().message();
    EXPECT_EQ(!IsReferenceFallbackCpuKernel(*kernel.value()), expect_fast)
        << (expect_fast ? "the reference fallback ran instead of the fast kernel"
                        : "expected the reference fallback");
    if (context.any_non_row_major()) {
      EXPECT_EQ(LayoutAdapterInner(*kernel.value()) != nullptr, adapted_)
          << (adapted_ ? "expected a layout adapter" : "the kernel ran behind a layout adapter");
    }

    for (int threads : {1, 2}) {
      SCOPED_TRACE("threads " + std::to_string(threads));
      std::vector<Tensor> got;
      std::vector<void*> out_buffers;
      for (const TensorType& type : context.output_types) {
        got.emplace_back(type.dtype, type.dims);
        // Poison the outputs so that an element the kernel never writes shows up.
        if (got.back().num_bytes() > 0) std::memset(got.back().raw(), 0xff, got.back().num_bytes());
        out_buffers.push_back(got.back().raw());
      }
      std::vector<const void*> run_inputs = buffers;
      if (output_over_ >= 0) {
        const size_t in = static_cast<size_t>(output_over_);
        ASSERT_LT(in, buffers.size());
        ASSERT_EQ(context.input_layout(in), context.output_layout(0));
        ASSERT_EQ(values_[in].num_bytes(), got[0].num_bytes());
        std::memcpy(got[0].raw(), buffers[in], got[0].num_bytes());
        run_inputs[in] = got[0].raw();
      }
      Status run = kernel.value()->Run(run_inputs, out_buffers, threads);
      ASSERT_TRUE(run.ok()) << run.message();
      for (size_t o = 0; o < got.size(); ++o) {
        const Layout layout = context.output_layout(o);
        Compare(expected[o], layout == Layout::kRowMajor ? got[o] : Relayout(got[o], layout, true),
                tolerance, o);
      }
    }
  }

  // The same node, run on many threads at once (each with its own output).
  void CheckConcurrent(const Tolerance& tolerance, int callers) {
    ASSERT_EQ(outputs_, 1);
    Graph graph = graph_;
    NodeId id = kNoNode;
    ASSERT_TRUE(AddNode(graph, &id).ok());
    const Node& n = graph.nodes[id];
    CpuKernelContext context;
    context.node = &n;
    std::vector<const Tensor*> reference_inputs;
    std::vector<const void*> buffers;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      context.input_types.push_back(TensorType{values_[i].dtype(), values_[i].dims()});
      const Value& value = graph.values[n.inputs[i]];
      context.constants.push_back(value.constant ? &*value.constant : nullptr);
      reference_inputs.push_back(&values_[i]);
      buffers.push_back(values_[i].raw());
    }
    const Value& out_value = graph.values[n.outputs[0]];
    context.output_types.push_back(TensorType{out_value.dtype, out_value.dims});
    std::vector<Tensor> expected(1);
    ASSERT_TRUE(EvaluateReference(n, reference_inputs, &expected).ok());
    StatusOr<std::unique_ptr<CpuKernel>> kernel = CreateCpuKernel(context);
    ASSERT_TRUE(kernel.ok()) << kernel.status().message();

    std::vector<Tensor> got;
    for (int i = 0; i < callers; ++i) got.emplace_back(out_value.dtype, out_value.dims);
    std::vector<Status> statuses(callers);
    std::vector<std::thread> threads;
    for (int i = 0; i < callers; ++i) {
      threads.emplace_back([&, i] {
        for (int repeat = 0; repeat < 3 && statuses[i].ok(); ++repeat)
          statuses[i] = kernel.value()->Run(buffers, {got[i].raw()}, 1 + i % 2);
      });
    }
    for (std::thread& t : threads) t.join();
    for (int i = 0; i < callers; ++i) {
      ASSERT_TRUE(statuses[i].ok()) << statuses[i].message();
      Compare(expected[0], got[i], tolerance, 0);
    }
  }

 private:
  std::string Describe() const {
    std::string text = node_.op_type + " opset " + std::to_string(node_.opset) + " inputs";
    for (const Tensor& t : values_) text += " " + DimsToString(t.dims());
    for (const auto& [name, value] : node_.attrs.all()) {
      text += " " + name;
      if (const auto* ints = std::get_if<std::vector<int64_t>>(&value)) {
        text += "=" + DimsToString(*ints);
      } else if (const auto* i = std::get_if<int64_t>(&value)) {
        text += "=" + std::to_string(*i);
      } else if (const auto* s = std::get_if<std::string>(&value)) {
        text += "=" + *s;
      } else if (const auto* f = std::get_if<float>(&value)) {
        text += "=" + std::to_string(*f);
      }
    }
    return text;
  }

  static void Compare(const Tensor& want, const Tensor& got, const Tolerance& tolerance,
                      size_t output) {
    SCOPED_TRACE("output " + std::to_string(output));
    testing::ExpectTensorsNear(want, got, tolerance.abs, tolerance.rel);
  }

  std::vector<Layout> input_layouts_;
  std::vector<Layout> output_layouts_;
  bool adapted_ = false;
  int output_over_ = -1;  // OutputOver's input, or -1
};

}  // namespace ios::cpu_testing

// How fast the CPU Resize kernel runs against the reference kernel on a detection neck's
// upsampling (1x64x80x80 -> 160x160, nearest and bilinear), median of a few runs, with 1 thread
// and with every core. A measurement to read, not a pass/fail check, so it is disabled:
//   ios_tests --gtest_also_run_disabled_tests --gtest_filter='*ResizeSpeed*'
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kernels/reference/reference_kernels.h"
#include "one_node_graph.h"
#include "random_tensor.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "tensor_compare.h"

namespace ios {
namespace {

class SpeedCase : public testing::OneNodeBuilder<SpeedCase> {
 public:
  explicit SpeedCase(int64_t opset) : OneNodeBuilder("Resize", opset, "resize_speed") {}
  Status Build() { return AddNode(graph_, &id_); }
  const Graph& graph() const { return graph_; }
  const Node& node() const { return graph_.nodes[id_]; }

 private:
  NodeId id_ = kNoNode;
};

template <typename Fn>
double MedianMs(int runs, Fn&& fn) {
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

TEST(DISABLED_CpuResizeSpeed, NeckUpsampling) {
  std::mt19937 rng(5);
  const Tensor x = testing::RandomFloats(rng, {1, 64, 80, 80});
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  struct Mode {
    const char* mode;
    const char* coordinate;
    const char* rounding;
  };
  for (const Mode& m :
       {Mode{"nearest", "asymmetric", "floor"}, Mode{"nearest", "half_pixel", "round_prefer_floor"},
        Mode{"linear", "half_pixel", "round_prefer_floor"},
        Mode{"linear", "align_corners", "round_prefer_floor"}}) {
    SpeedCase c(13);
    c.Input(x).Omitted().Constant(Tensor::FromFloat({1, 1, 2, 2}, {4}));
    c.Attr("mode", std::string(m.mode))
        .Attr("coordinate_transformation_mode", std::string(m.coordinate))
        .Attr("nearest_mode", std::string(m.rounding));
    ASSERT_TRUE(c.Build().ok());
    auto kernel = CreateCpuKernel(MakeCpuKernelContext(c.graph(), c.node()));
    ASSERT_TRUE(kernel.ok()) << kernel.status().message();
    Tensor y(DType::kFloat32, {1, 64, 160, 160});
    std::vector<Tensor> expected(1);
    const Tensor scales = c.values()[2];
    const double reference_ms = MedianMs(3, [&] {
      ASSERT_TRUE(EvaluateReference(c.node(), {&x, nullptr, &scales}, &expected).ok());
    });
    for (int threads : {1, cores}) {
      const double kernel_ms = MedianMs(21, [&] {
        ASSERT_TRUE((*kernel)->Run({x.raw(), nullptr, scales.raw()}, {y.raw()}, threads).ok());
      });
      // Float coordinates (as onnxruntime computes them) are off by up to 2^-24 of the index,
      // which moves a weight by ~1e-5 at index 160 (align_corners).
      testing::ExpectTensorsNear(expected[0], y, 3e-5, 1e-4);
      std::printf("RESIZE %-8s %-14s %2d thread(s): kernel %8.3f ms, reference %8.1f ms (%.0fx)\n",
                  m.mode, m.coordinate, threads, kernel_ms, reference_ms, reference_ms / kernel_ms);
    }
  }
}

}  // namespace
}  // namespace ios

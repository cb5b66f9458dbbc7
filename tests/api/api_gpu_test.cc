// The public API on a GPU, as a server uses it: linked against libios.so and the CUDA runtime
// only. Run on host buffers and RunOnDevice on device buffers and the caller's stream give the
// same outputs. Each test skips without a device (the ctest label `gpu`).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <ios/ios.h>

#include <string>
#include <vector>

namespace {

const std::string kModel =
    std::string(IOS_SOURCE_DIR) + "/testdata/models/pytorch_style_opset14.onnx";

#define SKIP_WITHOUT_GPU()                                                        \
  do {                                                                            \
    int count = 0;                                                                \
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0)                  \
      GTEST_SKIP() << "no CUDA device";                                           \
  } while (0)

TEST(ApiGpuTest, RunOnDeviceMatchesRunOnHostBuffers) {
  SKIP_WITHOUT_GPU();
  ios::CompileOptions compile;
  compile.device = "sim:V100";
  compile.schedule = "greedy";
  compile.batch = 2;
  ios::StatusOr<ios::Plan> plan = ios::Plan::Compile(kModel, compile);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ios::SessionOptions options;
  options.device = "cuda:0";
  auto session = ios::Session::FromPlan(*plan, options);
  ASSERT_TRUE(session.ok()) << session.status().message();
  EXPECT_EQ((*session)->device(), "cuda:0");
  const ios::TensorInfo& in = (*session)->inputs().at(0);
  const ios::TensorInfo& out = (*session)->outputs().at(0);

  std::vector<float> input(in.bytes / sizeof(float));
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(i % 17) / 17.f - 0.5f;
  std::vector<float> on_host(out.bytes / sizeof(float));
  ios::Status run = (*session)->Run({{in.name, input.data(), in.bytes}},
                                    {{out.name, on_host.data(), out.bytes}});
  ASSERT_TRUE(run.ok()) << run.message();

  void* device_in = nullptr;
  void* device_out = nullptr;
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaMalloc(&device_in, in.bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&device_out, out.bytes), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(device_in, input.data(), in.bytes, cudaMemcpyHostToDevice, stream),
            cudaSuccess);
  ios::Status on_device = (*session)->RunOnDevice({{in.name, device_in, in.bytes}},
                                                  {{out.name, device_out, out.bytes}}, stream);
  ASSERT_TRUE(on_device.ok()) << on_device.message();
  std::vector<float> from_device(out.bytes / sizeof(float));
  ASSERT_EQ(cudaMemcpyAsync(from_device.data(), device_out, out.bytes, cudaMemcpyDeviceToHost,
                            stream),
            cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(from_device, on_host);  // the same kernels on the same inputs

  // Host memory passed as a device buffer is refused, and names the input.
  ios::Status refused = (*session)->RunOnDevice({{in.name, input.data(), in.bytes}},
                                                {{out.name, device_out, out.bytes}}, stream);
  EXPECT_EQ(refused.code(), ios::StatusCode::kInvalidInput);
  EXPECT_NE(refused.message().find(in.name), std::string::npos) << refused.message();

  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  EXPECT_EQ(cudaFree(device_in), cudaSuccess);
  EXPECT_EQ(cudaFree(device_out), cudaSuccess);
}

}  // namespace

// The public API (include/ios) as a program sees it: linked against libios.so alone, with none
// of ios's internal headers.
#include <gtest/gtest.h>
#include <ios/ios.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

namespace {

const std::string kModel =
    std::string(IOS_SOURCE_DIR) + "/testdata/models/pytorch_style_opset14.onnx";

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "ios_api_test_" + std::to_string(::getpid()) + "_" + name;
}

ios::CompileOptions Greedy() {
  ios::CompileOptions options;
  options.device = "sim:V100";
  options.schedule = "greedy";
  options.batch = 2;
  return options;
}

// Runs `session` on an input of `value` everywhere; the first output's floats.
std::vector<float> RunOn(ios::Session& session, float value) {
  const ios::TensorInfo& in = session.inputs().at(0);
  const ios::TensorInfo& out = session.outputs().at(0);
  std::vector<float> input(in.bytes / sizeof(float), value), output(out.bytes / sizeof(float));
  ios::Status status = session.Run({{in.name, input.data(), in.bytes}},
                                   {{out.name, output.data(), out.bytes}});
  EXPECT_TRUE(status.ok()) << status.message();
  return output;
}

TEST(ApiTest, CompileSerialiseLoadAndRun) {
  ios::StatusOr<ios::Plan> plan = ios::Plan::Compile(kModel, Greedy());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->batch(), 2);
  EXPECT_EQ(plan->predicted_latency_ms(), 0);  // greedy: no cost source, no prediction
  EXPECT_FALSE(plan->statistics().searched);
  // Not searched: the schedule's kind, no parts.
  EXPECT_NE(plan->statistics_json().find("\"schedule\": \"greedy\""), std::string::npos)
      << plan->statistics_json();
  EXPECT_NE(plan->statistics_json().find("\"parts\": []"), std::string::npos);

  ios::SessionOptions options;
  options.device = "cpu";
  options.force = true;  // a sim:V100 plan on this CPU
  auto direct = ios::Session::FromPlan(*plan, options);
  ASSERT_TRUE(direct.ok()) << direct.status().message();
  ios::StatusOr<std::string> bytes = plan->Serialize();
  ASSERT_TRUE(bytes.ok());
  auto from_bytes = ios::Session::FromBytes(*bytes, options);
  ASSERT_TRUE(from_bytes.ok()) << from_bytes.status().message();
  const std::string path = TempPath("plan.iosplan");
  ASSERT_TRUE(plan->Save(path).ok());
  auto from_file = ios::Session::Open(path, options);
  ASSERT_TRUE(from_file.ok()) << from_file.status().message();

  const ios::Session& session = **from_file;
  EXPECT_EQ(session.device(), "cpu");
  ASSERT_EQ(session.inputs().size(), 1u);
  EXPECT_EQ(session.inputs()[0].dtype, ios::DataType::kFloat32);
  EXPECT_EQ(session.inputs()[0].dims.at(0), 2);
  EXPECT_EQ(session.inputs()[0].bytes,
            ios::DataTypeSize(ios::DataType::kFloat32) * 2 * 3 * 32 * 32);
  const std::vector<float> a = RunOn(**direct, 0.5f);
  EXPECT_EQ(RunOn(**from_bytes, 0.5f), a);
  EXPECT_EQ(RunOn(**from_file, 0.5f), a);
  EXPECT_NE(RunOn(**from_file, -1.0f), a);  // the input matters
  std::remove(path.c_str());
}

TEST(ApiTest, TheIosSearchReportsItsStatisticsAndProgress) {
  ios::CompileOptions options;
  options.device = "sim:V100";
  int calls = 0;
  options.progress = [&calls](const ios::CompileProgress& p) {
    ++calls;
    EXPECT_LE(p.parts_done, p.parts_total);
  };
  std::string log;
  options.log = [&log](const std::string& line) { log += line; };
  auto plan = ios::Plan::Compile(kModel, options);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  const ios::SearchStatistics& stats = plan->statistics();
  EXPECT_TRUE(stats.searched);
  EXPECT_GT(stats.parts, 0);
  EXPECT_GT(stats.sequential_latency_ms, 0);
  EXPECT_LE(stats.predicted_latency_ms, stats.sequential_latency_ms);
  EXPECT_NEAR(plan->predicted_latency_ms(), stats.predicted_latency_ms,
              1e-9 + 1e-9 * stats.predicted_latency_ms);
  EXPECT_GT(calls, 0);
  // The full report, as iosc --stats-json writes it: one entry per part, the same prediction.
  const std::string& json = plan->statistics_json();
  EXPECT_NE(json.find("\"parts\": ["), std::string::npos) << json;
  EXPECT_NE(json.find("\"cost_source\": \"sim:V100\""), std::string::npos) << json;
  size_t parts = 0;
  for (size_t at = json.find("\"block\":"); at != std::string::npos;
       at = json.find("\"block\":", at + 1))
    ++parts;
  EXPECT_EQ(parts, static_cast<size_t>(stats.parts)) << json;
  EXPECT_NE(log.find("canonicalised:"), std::string::npos) << log;
  EXPECT_NE(log.find("IOS search"), std::string::npos) << log;
}

TEST(ApiTest, ErrorsAreStatusesWithTheCliMessages) {
  auto missing = ios::Plan::Compile("/no/such/model.onnx", Greedy());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ios::StatusCode::kIoError);
  EXPECT_NE(missing.status().message().find("/no/such/model.onnx"), std::string::npos);

  auto garbage = ios::Plan::CompileBytes("not a model", "garbage.onnx", Greedy());
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.status().code(), ios::StatusCode::kInvalidInput);
  EXPECT_NE(garbage.status().message().find("garbage.onnx"), std::string::npos);

  auto bad_device = ios::Plan::Compile(kModel, [] {
    ios::CompileOptions options = Greedy();
    options.device = "tpu";
    return options;
  }());
  ASSERT_FALSE(bad_device.ok());
  EXPECT_NE(bad_device.status().message().find("--device"), std::string::npos);

  ios::CompileOptions unknown_schedule = Greedy();
  unknown_schedule.schedule = "fastest";
  auto fastest = ios::Plan::Compile(kModel, unknown_schedule);
  ASSERT_FALSE(fastest.ok());
  EXPECT_EQ(fastest.status().code(), ios::StatusCode::kInvalidInput);
  EXPECT_NE(fastest.status().message().find("got 'fastest'"), std::string::npos)
      << fastest.status().message();

  auto not_a_plan = ios::Session::FromBytes("definitely not a plan");
  ASSERT_FALSE(not_a_plan.ok());
  EXPECT_NE(not_a_plan.status().message().find("not an ios plan"), std::string::npos);

  // A sim plan on the CPU needs force, as iosrun does.
  auto plan = ios::Plan::Compile(kModel, Greedy());
  ASSERT_TRUE(plan.ok());
  ios::SessionOptions options;
  options.device = "cpu";
  auto refused = ios::Session::FromPlan(*plan, options);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("--force"), std::string::npos)
      << refused.status().message();

  options.force = true;
  auto session = ios::Session::FromPlan(*plan, options);
  ASSERT_TRUE(session.ok());
  const ios::TensorInfo& in = (*session)->inputs()[0];
  const ios::TensorInfo& out = (*session)->outputs()[0];
  std::vector<char> input(in.bytes), output(out.bytes);
  EXPECT_NE((*session)->Run({}, {}).message().find("is not given"), std::string::npos);
  EXPECT_NE((*session)->Run({{in.name, input.data(), in.bytes - 1}}, {}).message().find("needs"),
            std::string::npos);
  EXPECT_NE((*session)->Run({{in.name, input.data(), in.bytes}, {"extra", input.data(), 4}}, {})
                .message()
                .find("no input 'extra'"),
            std::string::npos);
  EXPECT_NE((*session)->Run({{in.name, input.data(), in.bytes}}, {{"nope", output.data(), 4}})
                .message()
                .find("no output 'nope'"),
            std::string::npos);
  EXPECT_TRUE((*session)->Run({{in.name, input.data(), in.bytes}},
                              {{out.name, output.data(), out.bytes}})
                  .ok());
  // Device buffers are for CUDA sessions; a CPU session says so instead of reading them.
  ios::Status on_device = (*session)->RunOnDevice({{in.name, input.data(), in.bytes}},
                                                  {{out.name, output.data(), out.bytes}}, nullptr);
  EXPECT_EQ(on_device.code(), ios::StatusCode::kInvalidInput);
  EXPECT_NE(on_device.message().find("use Run with host buffers"), std::string::npos)
      << on_device.message();
  // A device that is none: the message names the option and the accepted values.
  ios::SessionOptions tpu = options;
  tpu.device = "tpu";
  auto bad_session = ios::Session::FromPlan(*plan, tpu);
  ASSERT_FALSE(bad_session.ok());
  EXPECT_NE(bad_session.status().message().find("device must be 'cpu', 'cuda', 'cuda:N'"),
            std::string::npos)
      << bad_session.status().message();
  // value_or, and value() only after ok(): the documented way through a StatusOr.
  EXPECT_EQ(ios::StatusOr<int>(ios::Status(ios::StatusCode::kInvalidInput, "x")).value_or(7), 7);
}

TEST(ApiTest, AStrippedPlanRunsWithItsModelOnly) {
  ios::CompileOptions compile = Greedy();
  compile.strip_weights = true;
  auto plan = ios::Plan::Compile(kModel, compile);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  const std::string path = TempPath("stripped.iosplan");
  ASSERT_TRUE(plan->Save(path).ok());
  ios::SessionOptions options;
  options.device = "cpu";
  options.force = true;
  auto without = ios::Session::Open(path, options);
  ASSERT_FALSE(without.ok());
  EXPECT_NE(without.status().message().find("weight-stripped"), std::string::npos);
  options.weights_model_path = kModel;
  auto with = ios::Session::Open(path, options);
  ASSERT_TRUE(with.ok()) << with.status().message();
  auto full = ios::Session::FromPlan(*plan, [] {
    ios::SessionOptions o;
    o.device = "cpu";
    o.force = true;
    return o;
  }());
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(RunOn(**with, 0.25f), RunOn(**full, 0.25f));
  std::remove(path.c_str());
}

TEST(ApiTest, OneSessionRunsFromSeveralThreads) {
  auto plan = ios::Plan::Compile(kModel, Greedy());
  ASSERT_TRUE(plan.ok());
  ios::SessionOptions options;
  options.device = "cpu";
  options.force = true;
  options.threads = 1;
  auto session = ios::Session::FromPlan(*plan, options);
  ASSERT_TRUE(session.ok());
  const std::vector<float> expected[2] = {RunOn(**session, 1.0f), RunOn(**session, 2.0f)};
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i)
        if (RunOn(**session, t % 2 ? 2.0f : 1.0f) != expected[t % 2]) ++wrong;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(ApiTest, DeviceFingerprintsNameTheDevice) {
  ios::StatusOr<std::string> cpu = ios::DeviceFingerprintJson("cpu");
  ASSERT_TRUE(cpu.ok()) << cpu.status().message();
  EXPECT_NE(cpu->find("\"kind\": \"cpu\""), std::string::npos) << *cpu;
  EXPECT_NE(cpu->find("\"cpu_cores\": " +
                      std::to_string(std::max(1u, std::thread::hardware_concurrency()))),
            std::string::npos)
      << *cpu;
  EXPECT_EQ(ios::DeviceFingerprintJson("cpu").value_or(""), *cpu);  // stable: a cache key
  ios::StatusOr<std::string> v100 = ios::DeviceFingerprintJson("sim:V100");
  ASSERT_TRUE(v100.ok()) << v100.status().message();
  EXPECT_NE(*v100, *cpu);
  EXPECT_NE(*v100, ios::DeviceFingerprintJson("sim:A100").value_or(*v100));
  ios::StatusOr<std::string> tpu = ios::DeviceFingerprintJson("tpu");
  ASSERT_FALSE(tpu.ok());
  EXPECT_EQ(tpu.status().code(), ios::StatusCode::kInvalidInput);
  EXPECT_NE(tpu.status().message().find("'tpu'"), std::string::npos) << tpu.status().message();
}

TEST(ApiTest, VersionsAreReported) {
  const ios::VersionInfo version = ios::Version();
  EXPECT_FALSE(version.library.empty());
  EXPECT_EQ(version.api_major, IOS_API_VERSION_MAJOR);
  EXPECT_GE(version.plan_format_major, 3);
}

}  // namespace

// Weight-stripped plans (compile/weight_rebuild.h) and picking a plan from a folder by fingerprint
// (plan/plan_pick.h).
#include "compile/weight_rebuild.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "onnx/onnx_importer.h"
#include "passes/canonicalize.h"
#include "plan/plan_builder.h"
#include "plan/plan_io.h"
#include "plan/plan_loader.h"
#include "plan/plan_pick.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "small_fork_join_model.h"
#include "temp_files.h"
#include "util/file_util.h"
#include "util/sha256.h"

namespace ios {
namespace {

using testing::TempPath;

const std::string kModel = std::string(IOS_SOURCE_DIR) + "/testdata/models/pytorch_style_opset14.onnx";
const std::string kOtherModel =
    std::string(IOS_SOURCE_DIR) + "/testdata/models/residual_blocks_opset17.onnx";

std::string Joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : ",") + part;
  return out;
}

// What iosc does for a sequential plan of `model_path` at batch 2 with `passes`; the plan records
// `recorded_passes` (normally the same).
plan::Plan CompileModel(const std::string& model_path, const std::vector<std::string>& passes,
                        const std::vector<std::string>& recorded_passes) {
  auto bytes = ReadFileToString(model_path);
  EXPECT_TRUE(bytes.ok());
  ImportOptions import;
  import.batch = 2;
  auto graph = ImportOnnxFile(model_path, import);
  EXPECT_TRUE(graph.ok()) << graph.status().message();
  const auto digests = ModelConstantDigests(*graph);
  auto options = CanonicalizeOptionsForPasses(passes);
  EXPECT_TRUE(options.ok());
  CanonicalizeStats stats;
  EXPECT_TRUE(Canonicalize(*graph, *options, &stats).ok());
  testing::ScheduledGraph compiled = testing::ScheduleWithMemory(std::move(*graph), false);
  PlanMetadata meta;
  meta.options = {{"batch", "2"}, {"passes", Joined(recorded_passes)}};
  meta.model_sha256 = Sha256Hex(*bytes);
  meta.batch = 2;
  meta.device.set_kind("cpu");
  auto plan = BuildPlan(compiled.graph, compiled.schedule, compiled.memory, meta);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_TRUE(RecordWeightDerivations(digests, compiled.graph, *plan).ok());
  return *plan;
}

plan::Plan CompileModel(const std::string& model_path) {
  return CompileModel(model_path, CanonicalizePassNames(), CanonicalizePassNames());
}

std::vector<std::string> WeightBytes(LoadedPlan& loaded) {
  std::vector<std::string> bytes;
  for (const Value& value : loaded.graph.values)
    if (value.constant)
      bytes.emplace_back(reinterpret_cast<const char*>(value.constant->raw()),
                         value.constant->num_bytes());
  return bytes;
}

TEST(WeightRebuildTest, AStrippedPlanRebuiltFromItsModelHoldsTheFullPlansWeights) {
  const std::string full = TempPath("full.iosplan"), stripped = TempPath("stripped.iosplan");
  plan::Plan plan = CompileModel(kModel);
  int64_t weight_bytes = 0;
  for (const plan::Weight& weight : plan.weights()) weight_bytes += weight.bytes();
  ASSERT_TRUE(WritePlanFile(plan, full).ok());
  ASSERT_TRUE(WritePlanFile(plan, stripped, PlanWeights::kStrip).ok());
  // The stripped file is the full one without its data section.
  EXPECT_GE(static_cast<int64_t>(std::filesystem::file_size(full) -
                                 std::filesystem::file_size(stripped)),
            weight_bytes);
  EXPECT_GT(weight_bytes, 0);

  auto full_file = PlanFile::Open(full);
  ASSERT_TRUE(full_file.ok()) << full_file.status().message();
  auto full_loaded = LoadPlanFile(std::move(*full_file), CpuKernelCaps());
  ASSERT_TRUE(full_loaded.ok());

  auto file = PlanFile::Open(stripped);
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_TRUE(file->weights_stripped());
  ASSERT_TRUE(AttachModelWeights(*file, kModel).ok());
  auto loaded = LoadPlanFile(std::move(*file), CpuKernelCaps());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const std::vector<std::string> expected = WeightBytes(*full_loaded);
  EXPECT_FALSE(expected.empty());
  EXPECT_EQ(WeightBytes(*loaded), expected);
  std::remove(full.c_str());
  std::remove(stripped.c_str());
}

// Loading frees each rebuilt weight once it is in the graph: the weights are held once.
TEST(WeightRebuildTest, ARebuiltWeightIsFreedOnceRead) {
  const std::string path = TempPath("released.iosplan");
  ASSERT_TRUE(WritePlanFile(CompileModel(kModel), path, PlanWeights::kStrip).ok());
  auto file = PlanFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status().message();
  ASSERT_TRUE(AttachModelWeights(*file, kModel).ok());
  ASSERT_GE(file->plan().weights_size(), 2);
  std::vector<char> into(static_cast<size_t>(std::max(file->plan().weights(0).bytes(),
                                                      file->plan().weights(1).bytes())));
  ASSERT_TRUE(file->ReadWeight(0, into.data()).ok());
  file->ReleaseWeight(0);
  EXPECT_FALSE(file->ReadWeight(0, into.data()).ok()) << "weight 0 was freed";
  EXPECT_TRUE(file->ReadWeight(1, into.data()).ok()) << "weight 1 was not";
  std::remove(path.c_str());
}

TEST(WeightRebuildTest, EachWeightRecordsHowItDerivesFromTheModel) {
  const plan::Plan plan = CompileModel(kModel);
  int counts[4] = {};
  for (const plan::Weight& weight : plan.weights()) ++counts[weight.derivation()];
  EXPECT_EQ(counts[plan::DERIVATION_UNDEFINED], 0);
  EXPECT_GT(counts[plan::INITIALIZER], 0);  // the Gemm's weights, as they are
  EXPECT_GT(counts[plan::FOLDED], 0);       // convs with their BatchNorms folded in
  EXPECT_EQ(counts[plan::MERGED], 0);       // a sequential schedule merges nothing
}

TEST(WeightRebuildTest, WithoutItsModelAStrippedPlanDoesNotLoad) {
  const std::string path = TempPath("no_model.iosplan");
  ASSERT_TRUE(WritePlanFile(CompileModel(kModel), path, PlanWeights::kStrip).ok());
  auto file = PlanFile::Open(path);
  ASSERT_TRUE(file.ok());
  auto loaded = LoadPlanFile(std::move(*file), CpuKernelCaps());
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("--weights"), std::string::npos)
      << loaded.status().message();
  auto read = ReadPlanFile(path);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find("weight-stripped"), std::string::npos);
  std::remove(path.c_str());
}

TEST(WeightRebuildTest, AnotherModelIsRefused) {
  const std::string path = TempPath("other_model.iosplan");
  ASSERT_TRUE(WritePlanFile(CompileModel(kModel), path, PlanWeights::kStrip).ok());
  auto file = PlanFile::Open(path);
  ASSERT_TRUE(file.ok());
  Status status = AttachModelWeights(*file, kOtherModel);
  EXPECT_EQ(status.code(), StatusCode::kInvalidInput);
  EXPECT_NE(status.message().find("not the model"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find(kOtherModel), std::string::npos);
  std::remove(path.c_str());
}

TEST(WeightRebuildTest, ARebuildThatDiffersIsRefused) {
  // The plan's graph had its BatchNorms folded, but it records passes without that fold: the
  // rebuild makes other weights, which the recorded digests catch.
  std::vector<std::string> without_fold;
  for (const std::string& pass : CanonicalizePassNames())
    if (pass != "fold-batchnorm") without_fold.push_back(pass);
  const std::string path = TempPath("differs.iosplan");
  ASSERT_TRUE(WritePlanFile(CompileModel(kModel, CanonicalizePassNames(), without_fold), path,
                            PlanWeights::kStrip)
                  .ok());
  auto file = PlanFile::Open(path);
  ASSERT_TRUE(file.ok());
  Status status = AttachModelWeights(*file, kModel);
  EXPECT_EQ(status.code(), StatusCode::kInvalidInput);
  EXPECT_NE(status.message().find("differ from those"), std::string::npos) << status.message();
  std::remove(path.c_str());
}

TEST(WeightRebuildTest, APlanThatCarriesItsWeightsTakesNoModel) {
  const std::string path = TempPath("carries.iosplan");
  ASSERT_TRUE(WritePlanFile(CompileModel(kModel), path).ok());
  auto file = PlanFile::Open(path);
  ASSERT_TRUE(file.ok());
  Status status = AttachModelWeights(*file, kModel);
  EXPECT_EQ(status.code(), StatusCode::kInvalidInput);
  EXPECT_NE(status.message().find("carries its weights"), std::string::npos);
  std::remove(path.c_str());
}

TEST(WeightRebuildTest, BytesAfterAStrippedPlansBodyAreCorruption) {
  const std::string path = TempPath("extra.iosplan");
  ASSERT_TRUE(WritePlanFile(CompileModel(kModel), path, PlanWeights::kStrip).ok());
  auto bytes = ReadFileToString(path);
  ASSERT_TRUE(bytes.ok());
  ASSERT_TRUE(WriteFileAtomically(path, *bytes + std::string(64, '\0')).ok());
  auto file = PlanFile::Open(path);
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.status().message().find("corrupted"), std::string::npos)
      << file.status().message();
  std::remove(path.c_str());
}

// --- picking a plan from a folder ---

plan::DeviceFingerprint Cuda(const std::string& name, int major, int minor, int sms) {
  plan::DeviceFingerprint device;
  device.set_kind("cuda");
  device.set_gpu_name(name);
  device.set_compute_major(major);
  device.set_compute_minor(minor);
  device.set_multiprocessors(sms);
  return device;
}

plan::DeviceFingerprint SimFingerprint(const std::string& model) {
  plan::DeviceFingerprint device;
  device.set_kind("sim");
  device.set_sim_model(model);
  return device;
}

class PlanPickTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = TempPath("folder");
    std::filesystem::create_directories(folder_);
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }

  std::string Add(const std::string& name, const plan::DeviceFingerprint& device) {
    plan::Plan plan = CompileModel(kModel);
    *plan.mutable_device() = device;
    const std::string path = folder_ + "/" + name;
    EXPECT_TRUE(WritePlanFile(plan, path, PlanWeights::kStrip).ok());
    return path;
  }

  // A GPU like CheckCudaFingerprint: CUDA plans of its compute capability and analytic plans run.
  static PlanPickOptions On(const plan::DeviceFingerprint& here, bool force = false) {
    PlanPickOptions options;
    options.here = here;
    options.force = force;
    options.runs_here = [here](const plan::DeviceFingerprint& planned) {
      return planned.kind() == "sim" ||
             (planned.kind() == "cuda" && planned.compute_major() == here.compute_major() &&
              planned.compute_minor() == here.compute_minor());
    };
    return options;
  }

  std::string folder_;
};

TEST_F(PlanPickTest, PicksThePlanMadeForThisGpu) {
  Add("a100.iosplan", Cuda("NVIDIA A100-SXM4-80GB", 8, 0, 108));
  const std::string h100 = Add("h100.iosplan", Cuda("NVIDIA H100 80GB HBM3", 9, 0, 132));
  Add("sim-H100.iosplan", SimFingerprint("H100"));
  ASSERT_TRUE(WriteFileAtomically(folder_ + "/README.txt", "not a plan").ok());
  auto picked = PickPlanInFolder(folder_, On(Cuda("NVIDIA H100 80GB HBM3", 9, 0, 132)));
  ASSERT_TRUE(picked.ok()) << picked.status().message();
  EXPECT_EQ(picked->path, h100);
  EXPECT_NE(picked->note.find("made for this device"), std::string::npos);
}

TEST_F(PlanPickTest, WithoutAnExactMatchItNamesThePlansAndTheClosestAndNeedsForce) {
  const std::string a100 = Add("a100.iosplan", Cuda("NVIDIA A100-SXM4-80GB", 8, 0, 108));
  const std::string h100 = Add("h100.iosplan", Cuda("NVIDIA H100 80GB HBM3", 9, 0, 132));
  const std::string sim = Add("sim-H100.iosplan", SimFingerprint("H100"));
  const plan::DeviceFingerprint pcie = Cuda("NVIDIA H100 PCIe", 9, 0, 114);
  auto refused = PickPlanInFolder(folder_, On(pcie));
  ASSERT_FALSE(refused.ok());
  const std::string& message = refused.status().message();
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidInput);
  for (const std::string& path : {a100, h100, sim})
    EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("closest compatible one is " + h100), std::string::npos) << message;
  EXPECT_NE(message.find("--force"), std::string::npos);

  auto forced = PickPlanInFolder(folder_, On(pcie, /*force=*/true));
  ASSERT_TRUE(forced.ok());
  EXPECT_EQ(forced->path, h100);
  // Another architecture: only the analytic plan runs there.
  auto l4 = PickPlanInFolder(folder_, On(Cuda("NVIDIA L4", 8, 9, 58), /*force=*/true));
  ASSERT_TRUE(l4.ok());
  EXPECT_EQ(l4->path, sim);
}

TEST_F(PlanPickTest, NothingThatRunsHereIsRefusedEvenWithForce) {
  Add("a100.iosplan", Cuda("NVIDIA A100-SXM4-80GB", 8, 0, 108));
  PlanPickOptions options = On(Cuda("NVIDIA H100 80GB HBM3", 9, 0, 132), /*force=*/true);
  auto picked = PickPlanInFolder(folder_, options);
  ASSERT_FALSE(picked.ok());
  EXPECT_NE(picked.status().message().find("does not run here"), std::string::npos);
  EXPECT_NE(picked.status().message().find("None runs here"), std::string::npos);
}

TEST_F(PlanPickTest, TwoPlansForThisGpuAreAmbiguous) {
  Add("one.iosplan", Cuda("NVIDIA H100 80GB HBM3", 9, 0, 132));
  Add("two.iosplan", Cuda("NVIDIA H100 80GB HBM3", 9, 0, 132));
  auto picked = PickPlanInFolder(folder_, On(Cuda("NVIDIA H100 80GB HBM3", 9, 0, 132)));
  ASSERT_FALSE(picked.ok());
  EXPECT_NE(picked.status().message().find("several plans"), std::string::npos);
}

TEST_F(PlanPickTest, AnEmptyFolderOrACorruptedPlanIsAnError) {
  auto empty = PickPlanInFolder(folder_, On(Cuda("NVIDIA H100 80GB HBM3", 9, 0, 132)));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("no plan"), std::string::npos);
  ASSERT_TRUE(WriteFileAtomically(folder_ + "/bad.iosplan", "garbage").ok());
  auto bad = PickPlanInFolder(folder_, On(Cuda("NVIDIA H100 80GB HBM3", 9, 0, 132)));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("bad.iosplan"), std::string::npos);
}

}  // namespace
}  // namespace ios

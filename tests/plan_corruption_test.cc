// A plan checks itself as it loads (plan/plan_io.h): thousands of random bit flips in each part
// of the file — the header, the body's graph (tensors and ops), its schedule, the rest of the
// body, and the weights — are each refused, and none loads to run with wrong outputs. The counts
// are printed; a flip that loads anyway is run and must give the good plan's outputs bit for bit.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "plan/plan_builder.h"
#include "plan/plan_io.h"
#include "plan/plan_loader.h"
#include "runtime/cpu/cpu_session.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "small_fork_join_model.h"
#include "temp_files.h"
#include "util/file_util.h"

namespace ios {
namespace {

using testing::TempPath;
using testing::WriteRaw;

using google::protobuf::internal::WireFormatLite;

constexpr size_t kHeaderBytes = 56;
constexpr int kFlipsPerSection = 1000;

// The byte ranges [begin, end) of the body's top-level fields, by field number, found by walking
// the wire format.
std::multimap<int, std::pair<size_t, size_t>> FieldRanges(const std::string& body) {
  std::multimap<int, std::pair<size_t, size_t>> ranges;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(body.data()),
                                            static_cast<int>(body.size()));
  while (true) {
    const size_t begin = static_cast<size_t>(in.CurrentPosition());
    const uint32_t tag = in.ReadTag();
    if (tag == 0) break;
    if (!WireFormatLite::SkipField(&in, tag)) break;
    ranges.emplace(static_cast<int>(WireFormatLite::GetTagFieldNumber(tag)),
                   std::make_pair(begin, static_cast<size_t>(in.CurrentPosition())));
  }
  return ranges;
}

StatusOr<std::vector<Tensor>> LoadAndRun(const std::string& path, const Tensor& input) {
  IOS_ASSIGN_OR_RETURN(PlanFile file, PlanFile::Open(path));
  IOS_ASSIGN_OR_RETURN(LoadedPlan loaded, LoadPlanFile(std::move(file), CpuKernelCaps()));
  CpuSessionOptions options;
  options.threads = 1;
  IOS_ASSIGN_OR_RETURN(std::unique_ptr<CpuSession> session,
                       CpuSession::Create(std::move(loaded), options));
  IOS_RETURN_IF_ERROR(session->SetInputs({input}));
  IOS_RETURN_IF_ERROR(session->Run());
  return session->GetOutputs();
}

TEST(PlanCorruptionTest, ThousandsOfFlipsInEverySectionAreRefused) {
  testing::ScheduledGraph compiled = testing::ScheduleWithMemory(
      testing::SmallForkJoinGraph({1, 3, 8, 8}, "Relu"), /*greedy=*/true);
  PlanMetadata meta;
  meta.batch = 1;
  meta.device.set_kind("cpu");
  auto plan = BuildPlan(compiled.graph, compiled.schedule, compiled.memory, meta);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  const std::string path = TempPath("flipped.iosplan");
  ASSERT_TRUE(WritePlanFile(*plan, path).ok());
  const std::string good = ReadFileToString(path).value();

  Tensor input(DType::kFloat32, {1, 3, 8, 8});
  for (int64_t i = 0; i < input.num_elements(); ++i)
    input.data<float>()[i] = static_cast<float>(i % 7) - 3.0f;
  auto expected = LoadAndRun(path, input);
  ASSERT_TRUE(expected.ok()) << expected.status().message();

  // The sections, as byte ranges of the file.
  uint64_t body_size = 0;
  for (int i = 7; i >= 0; --i) body_size = (body_size << 8) | static_cast<uint8_t>(good[16 + i]);
  const std::string body = good.substr(kHeaderBytes, body_size);
  std::map<std::string, std::vector<std::pair<size_t, size_t>>> sections;
  sections["header"].push_back({0, kHeaderBytes});
  for (const auto& [field, range] : FieldRanges(body)) {
    const char* section = field == 7 || field == 9 ? "graph (tensors, ops)"
                          : field == 12            ? "schedule"
                                                   : "rest of the body";
    sections[section].push_back({kHeaderBytes + range.first, kHeaderBytes + range.second});
  }
  const size_t data_start = (kHeaderBytes + body_size + 63) / 64 * 64;
  sections["weights and padding"].push_back({data_start, good.size()});
  ASSERT_EQ(sections.size(), 5u);

  std::mt19937_64 rng(2026);
  for (const auto& [section, ranges] : sections) {
    size_t total = 0;
    for (const auto& range : ranges) total += range.second - range.first;
    ASSERT_GT(total, 0u) << section;
    int refused = 0, loaded_same = 0, wrong = 0;
    for (int flip = 0; flip < kFlipsPerSection; ++flip) {
      size_t at = rng() % total;
      for (const auto& range : ranges) {
        if (at < range.second - range.first) {
          at += range.first;
          break;
        }
        at -= range.second - range.first;
      }
      std::string bad = good;
      bad[at] = static_cast<char>(bad[at] ^ (1 << (rng() % 8)));
      WriteRaw(path, bad);
      auto got = LoadAndRun(path, input);
      if (!got.ok()) {
        EXPECT_NE(got.status().code(), StatusCode::kInternal) << got.status().message();
        ++refused;
        continue;
      }
      bool same = got->size() == expected->size();
      for (size_t o = 0; same && o < got->size(); ++o)
        same = (*got)[o].num_bytes() == (*expected)[o].num_bytes() &&
               std::memcmp((*got)[o].raw(), (*expected)[o].raw(), (*got)[o].num_bytes()) == 0;
      (same ? loaded_same : wrong) += 1;
    }
    std::printf("%-22s %5d flips: %5d refused, %d loaded with the same outputs, %d wrong\n",
                section.c_str(), kFlipsPerSection, refused, loaded_same, wrong);
    EXPECT_EQ(wrong, 0) << section;
    EXPECT_EQ(refused, kFlipsPerSection) << section;
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace ios

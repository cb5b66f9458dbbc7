// iosrun --check's comparison (iosrun/output_check.h): the statistics it reports and each rule's
// verdict on outputs built to separate them.
#include "iosrun/output_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace ios {
namespace {

Tensor Floats(const std::vector<float>& values) {
  return Tensor::FromFloat(values, {static_cast<int64_t>(values.size())});
}

OutputCheck CheckOne(const std::vector<float>& got, const std::vector<float>& expected,
                     ErrorStat stat, double atol, double rtol) {
  OutputCheckOptions options;
  options.atol.values[""] = atol;
  options.rtol.values[""] = rtol;
  options.stat.values[""] = stat;
  auto checks = CheckOutputs({Floats(got)}, {Floats(expected)}, {"y"}, options);
  EXPECT_EQ(checks.size(), 1u);
  return checks.empty() ? OutputCheck{} : checks[0];
}

TEST(OutputCheckTest, ReportsErrorStatisticsScaleAndCosine) {
  OutputCheck c =
      CheckOne({1.f, 2.f, 4.5f, -2.f}, {1.f, 2.f, 4.f, -2.f}, ErrorStat::kAllClose, 1e-4, 1e-4);
  EXPECT_DOUBLE_EQ(c.max_abs, 0.5);
  EXPECT_DOUBLE_EQ(c.mean_abs, 0.125);
  EXPECT_DOUBLE_EQ(c.max_rel, 0.125);
  EXPECT_DOUBLE_EQ(c.expected_scale, 4.0);
  EXPECT_DOUBLE_EQ(c.scaled_error, 0.125);
  const double dot = 1 + 4 + 18 + 4, norms = std::sqrt((1 + 4 + 20.25 + 4) * (1 + 4 + 16 + 4));
  EXPECT_NEAR(c.cosine, dot / norms, 1e-12);
  EXPECT_EQ(c.worst, 2);
  EXPECT_EQ(c.outside, 1);
  EXPECT_FALSE(c.passed);
}

TEST(OutputCheckTest, ScaledToleratesRoundingOfLargeActivationsThatAllcloseRejects) {
  // A large output whose small elements carry the float32 rounding of the large ones: every
  // element-wise rule fails on the near-zero element, the error against the scale is tiny.
  const std::vector<float> expected = {30000.f, -25000.f, 0.001f, 12000.f};
  const std::vector<float> got = {30000.f, -25000.f, 0.004f, 12000.f};
  EXPECT_FALSE(CheckOne(got, expected, ErrorStat::kAllClose, 1e-4, 1e-4).passed);
  EXPECT_FALSE(CheckOne(got, expected, ErrorStat::kElemwise, 1e-4, 1e-4).passed);
  EXPECT_TRUE(CheckOne(got, expected, ErrorStat::kScaled, 0, 1e-6).passed);
  // A wrong element of ordinary size fails the scaled rule too.
  EXPECT_FALSE(
      CheckOne({30000.f, -25000.f, 100.f, 12000.f}, expected, ErrorStat::kScaled, 0, 1e-4).passed);
}

TEST(OutputCheckTest, ElemwiseFailsOnlyWhenBothTolerancesAreExceeded) {
  // err 0.5 on 1000: rel 5e-4 within rtol 1e-3 but abs over atol 1e-3.
  EXPECT_TRUE(CheckOne({1000.5f}, {1000.f}, ErrorStat::kElemwise, 1e-3, 1e-3).passed);
  EXPECT_FALSE(CheckOne({1000.5f}, {1000.f}, ErrorStat::kElemwise, 1e-3, 1e-4).passed);
  // allclose adds the allowances: 1e-3 + 1e-3 * 1000 = 1.001 covers 0.5.
  EXPECT_TRUE(CheckOne({1000.5f}, {1000.f}, ErrorStat::kAllClose, 1e-3, 1e-3).passed);
}

TEST(OutputCheckTest, MeanAndMedianTolerateOneOutlierThatMaxDoesNot) {
  std::vector<float> expected(101, 1.f), got(101, 1.f);
  got[50] = 2.f;
  EXPECT_FALSE(CheckOne(got, expected, ErrorStat::kMax, 1e-3, 1e-3).passed);
  EXPECT_TRUE(CheckOne(got, expected, ErrorStat::kMean, 1e-2, 1e-2).passed);
  EXPECT_TRUE(CheckOne(got, expected, ErrorStat::kMedian, 0, 0).passed);
  EXPECT_DOUBLE_EQ(CheckOne(got, expected, ErrorStat::kMedian, 0, 0).median_abs, 0.0);
}

TEST(OutputCheckTest, NanAndShapeMismatchNeverPass) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (ErrorStat stat : {ErrorStat::kAllClose, ErrorStat::kElemwise, ErrorStat::kMean,
                         ErrorStat::kMedian, ErrorStat::kScaled}) {
    EXPECT_FALSE(CheckOne({1.f, nan, 3.f}, {1.f, 2.f, 3.f}, stat, 1, 1).passed)
        << ErrorStatName(stat);
  }
  OutputCheckOptions options;
  auto checks = CheckOutputs({Floats({1, 2})}, {Tensor::FromFloat({1, 2}, {1, 2})}, {"y"}, options);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_FALSE(checks[0].shapes_match);
  EXPECT_FALSE(checks[0].passed);
  EXPECT_NE(FormatOutputChecks(checks, 1, 2).find("MISMATCH"), std::string::npos);
}

TEST(OutputCheckTest, PerOutputSettingsAndTheirParsing) {
  OutputCheckOptions options;
  ASSERT_TRUE(ParsePerOutputTolerance("logits:0.5", &options.atol).ok());
  ASSERT_TRUE(ParsePerOutputTolerance("1e-6", &options.atol).ok());
  ASSERT_TRUE(ParsePerOutputStat("boxes:scaled", &options.stat).ok());
  EXPECT_DOUBLE_EQ(options.atol.For("logits"), 0.5);
  EXPECT_DOUBLE_EQ(options.atol.For("boxes"), 1e-6);
  EXPECT_EQ(options.stat.For("boxes"), ErrorStat::kScaled);
  EXPECT_EQ(options.stat.For("logits"), ErrorStat::kAllClose);
  EXPECT_TRUE(CheckPerOutputNames(options, {"logits", "boxes"}).ok());
  Status typo = CheckPerOutputNames(options, {"logit", "boxes"});
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.message().find("'logits', which is not an output"), std::string::npos);
  PerOutput<double> bad;
  for (const char* spec : {"-1", "x:", "abc", "1e400", "y:nan"})
    EXPECT_FALSE(ParsePerOutputTolerance(spec, &bad).ok()) << spec;
  PerOutput<ErrorStat> stat;
  EXPECT_FALSE(ParsePerOutputStat("quantile", &stat).ok());
}

}  // namespace
}  // namespace ios

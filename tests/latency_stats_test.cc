#include "util/latency_stats.h"

#include <gtest/gtest.h>

namespace ios {
namespace {

TEST(LatencyStatsTest, PercentilesUseNearestRank) {
  std::vector<double> samples;
  for (int i = 100; i >= 1; --i) samples.push_back(i);  // 1..100, unsorted
  LatencySummary s = SummarizeLatencies(samples);
  EXPECT_EQ(s.count, 100);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 100);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  EXPECT_DOUBLE_EQ(s.median, 50.5);
  EXPECT_DOUBLE_EQ(s.p90, 90);
  EXPECT_DOUBLE_EQ(s.p95, 95);
  EXPECT_DOUBLE_EQ(s.p99, 99);
}

TEST(LatencyStatsTest, SingleSampleAndCoefficientOfVariation) {
  LatencySummary one = SummarizeLatencies({3.0});
  EXPECT_DOUBLE_EQ(one.p99, 3.0);
  EXPECT_DOUBLE_EQ(one.coefficient_of_variation, 0.0);
  LatencySummary two = SummarizeLatencies({1.0, 3.0});
  EXPECT_DOUBLE_EQ(two.coefficient_of_variation, 0.5);  // stddev 1, mean 2
}

TEST(LatencyStatsTest, RobustMedianIgnoresOutliers) {
  EXPECT_DOUBLE_EQ(RobustMedian({10, 10.2, 9.8, 10.1, 9.9, 100}), 10.0);
  EXPECT_DOUBLE_EQ(RobustMedian({}), 0.0);
  EXPECT_DOUBLE_EQ(RobustMedian({5, 5, 5}), 5.0);
}

TEST(LatencyStatsTest, MedianSettlesWhenAMajorityAgrees) {
  EXPECT_FALSE(MedianSettled({}, 3, 0.05));
  EXPECT_FALSE(MedianSettled({1.0, 1.0}, 3, 0.05));                // too few
  EXPECT_TRUE(MedianSettled({1.0, 1.02, 0.99}, 3, 0.05));          // all within 5%
  EXPECT_FALSE(MedianSettled({1.0, 1.3, 0.7}, 3, 0.05));           // only the median agrees
  EXPECT_TRUE(MedianSettled({1.0, 1.01, 0.99, 4.0}, 3, 0.05));     // one spoiled sample of four
  EXPECT_FALSE(MedianSettled({1.0, 1.01, 2.0, 2.2}, 3, 0.05));     // two clusters: no majority
  EXPECT_TRUE(MedianSettled({1.0, 1.3, 0.7}, 3, 0.5));             // a looser tolerance
}

}  // namespace
}  // namespace ios

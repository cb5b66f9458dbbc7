#include "util/checked_int.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace ios {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(CheckedIntTest, ExactResultsWhereTheyFit) {
  const CheckedInt64 v = CheckedInt64(7) * 3 - 4 + (-2);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v.get(), 15);
  EXPECT_EQ((CheckedInt64(kMax) - kMax + kMin).value_or(1), kMin);
  EXPECT_EQ((CheckedInt64(int64_t{1} << 31) * (int64_t{1} << 31)).value_or(0), int64_t{1} << 62);
  EXPECT_EQ((-CheckedInt64(kMax)).value_or(0), -kMax);
  EXPECT_EQ((CheckedInt64(-7) / 2).value_or(0), -3);  // truncates, as C++ does
}

TEST(CheckedIntTest, EveryOperationMarksItsOverflow) {
  EXPECT_TRUE((CheckedInt64(kMax) + 1).overflowed());
  EXPECT_TRUE((CheckedInt64(kMin) - 1).overflowed());
  EXPECT_TRUE((CheckedInt64(int64_t{1} << 62) * 2).overflowed());
  EXPECT_TRUE((CheckedInt64(kMin) * -1).overflowed());
  EXPECT_TRUE((-CheckedInt64(kMin)).overflowed());
  EXPECT_TRUE((CheckedInt64(kMin) / -1).overflowed());
  EXPECT_TRUE((CheckedInt64(5) / 0).overflowed());
  // The Pad output size of a hostile file (issue 51): in + begin + end with pads near -2^62.
  EXPECT_TRUE((CheckedInt64(3) + int64_t{-4820069034516447405} + int64_t{-4823936624638977369})
                  .overflowed());
}

TEST(CheckedIntTest, TheMarkSticksThroughLaterSteps) {
  CheckedInt64 v = CheckedInt64(kMax) + 1;
  v = v - 2;  // would be back in range with wrapping arithmetic
  v *= 0;
  EXPECT_TRUE(v.overflowed());
  EXPECT_FALSE(v.get().has_value());
  EXPECT_EQ(v.value_or(-9), -9);
  // Comparisons with an overflowed value are all false, as NaN's.
  EXPECT_FALSE(v < 0);
  EXPECT_FALSE(v >= 0);
  EXPECT_FALSE(v == v);
  EXPECT_TRUE(v != 0);
}

TEST(CheckedIntTest, OrErrorNamesWhatOverflowed) {
  StatusOr<int64_t> fine = (CheckedInt64(2) + 3).OrError("x");
  ASSERT_TRUE(fine.ok());
  EXPECT_EQ(fine.value(), 5);
  StatusOr<int64_t> bad = (CheckedInt64(kMax) * 2).OrError("output dim 3 of Pad 'p'");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(bad.status().message().find("output dim 3 of Pad 'p' overflows 64 bits"),
            std::string::npos);
}

TEST(CheckedIntTest, FromDoubleTruncatesOrMarksWhatDoesNotFit) {
  EXPECT_EQ(CheckedInt64::FromDouble(2.9).value_or(0), 2);
  EXPECT_EQ(CheckedInt64::FromDouble(-2.9).value_or(0), -2);
  EXPECT_EQ(CheckedInt64::FromDouble(-0x1p63).value_or(0), kMin);
  // The largest double below 2^63.
  EXPECT_EQ(CheckedInt64::FromDouble(0x1.fffffffffffffp62).value_or(0),
            int64_t{0x7ffffffffffffc00});
  EXPECT_TRUE(CheckedInt64::FromDouble(0x1p63).overflowed());
  EXPECT_TRUE(CheckedInt64::FromDouble(-0x1.0000000000001p63).overflowed());
  EXPECT_TRUE(CheckedInt64::FromDouble(1e300).overflowed());
  EXPECT_TRUE(CheckedInt64::FromDouble(std::numeric_limits<double>::infinity()).overflowed());
  EXPECT_TRUE(CheckedInt64::FromDouble(-std::numeric_limits<double>::infinity()).overflowed());
  EXPECT_TRUE(CheckedInt64::FromDouble(std::numeric_limits<double>::quiet_NaN()).overflowed());
}

TEST(CheckedIntTest, FreeFunctionsLeaveTheResultAloneOnOverflow) {
  int64_t r = 42;
  EXPECT_FALSE(CheckedAdd(kMax, 1, &r));
  EXPECT_FALSE(CheckedSub(kMin, 1, &r));
  EXPECT_FALSE(CheckedMul(kMax, 2, &r));
  EXPECT_EQ(r, 42);
  EXPECT_TRUE(CheckedMul(-3, 4, &r));
  EXPECT_EQ(r, -12);
}

}  // namespace
}  // namespace ios

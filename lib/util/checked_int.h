// Overflow-checked int64 arithmetic for every value that comes from a file (dims, pads, strides,
// dilations, axes, starts and ends, steps, sizes, offsets, repeats): plain int64_t arithmetic on
// them is undefined behaviour once a hostile or mistaken file makes it overflow.
//
// CheckedInt64 carries an exact value or the mark that some step overflowed; the mark sticks
// through later steps, so a whole formula is written as usual and checked once at its end:
//
//   const CheckedInt64 out = CheckedInt64(in) + pad_begin + pad_end;
//   IOS_ASSIGN_OR_RETURN(int64_t size, out.OrError("axis 2's padded size"));
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "util/status.h"

namespace ios {

// a + b, a - b, a * b into *result; false (and *result untouched) when it overflows int64.
inline bool CheckedAdd(int64_t a, int64_t b, int64_t* result) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return false;
  *result = r;
  return true;
}
inline bool CheckedSub(int64_t a, int64_t b, int64_t* result) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return false;
  *result = r;
  return true;
}
inline bool CheckedMul(int64_t a, int64_t b, int64_t* result) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return false;
  *result = r;
  return true;
}

class CheckedInt64 {
 public:
  constexpr CheckedInt64() = default;
  // Implicit, so that plain integers mix into a formula.
  constexpr CheckedInt64(int64_t value) : value_(value) {}  // NOLINT(google-explicit-constructor)
  static constexpr CheckedInt64 Overflow() {
    CheckedInt64 v;
    v.overflowed_ = true;
    return v;
  }
  // `value` truncated toward zero, as a cast does; the overflow mark for NaN, infinities and
  // values outside int64, whose cast is undefined (a scale or a float Range read from a file).
  static CheckedInt64 FromDouble(double value) {
    // -2^63 and 2^63 are exact doubles; NaN fails both comparisons.
    if (!(value >= -0x1p63 && value < 0x1p63)) return Overflow();
    return CheckedInt64(static_cast<int64_t>(value));
  }

  bool overflowed() const { return overflowed_; }
  bool ok() const { return !overflowed_; }
  // The value, or nullopt once any step overflowed.
  std::optional<int64_t> get() const {
    return overflowed_ ? std::nullopt : std::optional<int64_t>(value_);
  }
  // The value; `fallback` once any step overflowed.
  int64_t value_or(int64_t fallback) const { return overflowed_ ? fallback : value_; }
  // The value, or InvalidInput("<what> overflows 64 bits").
  StatusOr<int64_t> OrError(const std::string& what) const {
    if (overflowed_) return InvalidInput(what + " overflows 64 bits");
    return value_;
  }

  friend CheckedInt64 operator+(CheckedInt64 a, CheckedInt64 b) {
    return Combine(a, b, CheckedAdd);
  }
  friend CheckedInt64 operator-(CheckedInt64 a, CheckedInt64 b) {
    return Combine(a, b, CheckedSub);
  }
  friend CheckedInt64 operator*(CheckedInt64 a, CheckedInt64 b) {
    return Combine(a, b, CheckedMul);
  }
  friend CheckedInt64 operator-(CheckedInt64 a) { return CheckedInt64(0) - a; }
  // Truncating division as C++'s; overflow for division by 0 and for INT64_MIN / -1.
  friend CheckedInt64 operator/(CheckedInt64 a, CheckedInt64 b) {
    if (a.overflowed_ || b.overflowed_ || b.value_ == 0 ||
        (a.value_ == std::numeric_limits<int64_t>::min() && b.value_ == -1))
      return Overflow();
    return CheckedInt64(a.value_ / b.value_);
  }
  CheckedInt64& operator+=(CheckedInt64 b) { return *this = *this + b; }
  CheckedInt64& operator-=(CheckedInt64 b) { return *this = *this - b; }
  CheckedInt64& operator*=(CheckedInt64 b) { return *this = *this * b; }

  // Comparisons of an overflowed value are false (as NaN's), so that a bound check written
  // `if (x < 0)` still needs ok() to pass: check ok() first.
  friend bool operator<(CheckedInt64 a, CheckedInt64 b) { return Both(a, b) && a.value_ < b.value_; }
  friend bool operator>(CheckedInt64 a, CheckedInt64 b) { return Both(a, b) && a.value_ > b.value_; }
  friend bool operator<=(CheckedInt64 a, CheckedInt64 b) {
    return Both(a, b) && a.value_ <= b.value_;
  }
  friend bool operator>=(CheckedInt64 a, CheckedInt64 b) {
    return Both(a, b) && a.value_ >= b.value_;
  }
  friend bool operator==(CheckedInt64 a, CheckedInt64 b) {
    return Both(a, b) && a.value_ == b.value_;
  }
  friend bool operator!=(CheckedInt64 a, CheckedInt64 b) { return !(a == b); }

 private:
  template <typename Op>
  static CheckedInt64 Combine(CheckedInt64 a, CheckedInt64 b, Op op) {
    int64_t r = 0;
    if (a.overflowed_ || b.overflowed_ || !op(a.value_, b.value_, &r)) return Overflow();
    return CheckedInt64(r);
  }
  static bool Both(CheckedInt64 a, CheckedInt64 b) { return !a.overflowed_ && !b.overflowed_; }

  int64_t value_ = 0;
  bool overflowed_ = false;
};

}  // namespace ios

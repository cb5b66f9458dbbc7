// The Cast math the CUDA kernel runs (kernels/math/cast_math.h), executed on the host and
// compared bytewise with the reference Cast for every pair of the dtypes it converts between,
// on random values plus the edge cases (NaN, infinities, signed zeros, int64 limits, half
// subnormals and rounding ties).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernel_math_test_util.h"
#include "kernels/math/cast_math.h"
#include "kernels/reference/reference_util.h"

namespace ios {
namespace {

using namespace testing;  // NOLINT: the helpers of kernel_math_test_util.h

struct CastDType {
  DType dtype;
  CastType cast;
  int32_t onnx;  // TensorProto.DataType
};

const CastDType kCastDTypes[] = {
    {DType::kFloat32, CastType::kFloat32, 1},  {DType::kFloat64, CastType::kFloat64, 11},
    {DType::kFloat16, CastType::kFloat16, 10}, {DType::kInt64, CastType::kInt64, 7},
    {DType::kInt32, CastType::kInt32, 6},      {DType::kInt8, CastType::kInt8, 3},
    {DType::kUint8, CastType::kUint8, 2},      {DType::kBool, CastType::kBool, 9},
};

// Values of every kind the source type can hold, as doubles (integers as int64).
std::vector<double> FloatValues(std::mt19937& rng) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> values = {0.0,
                                -0.0,
                                1.0,
                                -1.0,
                                0.5,
                                -0.5,
                                1.5,
                                2.5,
                                -2.5,
                                127.9,
                                128.0,
                                255.5,
                                256.0,
                                -129.0,
                                3e9,
                                -3e9,
                                1e19,
                                -1e19,
                                9.3e18,
                                -9.3e18,
                                65504.0,
                                65519.99,
                                65520.0,
                                1e-5,
                                6e-8,
                                2.9802322387695312e-08,  // 2^-25: ties to zero
                                8.940696716308594e-08,   // 1.5 * 2^-24: ties to even
                                1.00048828125,           // 1 + 2^-11: ties to even
                                inf,
                                -inf,
                                std::nan(""),
                                -std::nan(""),
                                1e-310};
  std::uniform_real_distribution<double> wide(-70000.0, 70000.0);
  std::uniform_real_distribution<double> narrow(-3.0, 3.0);
  for (int i = 0; i < 100; ++i) values.push_back(wide(rng));
  for (int i = 0; i < 100; ++i) values.push_back(narrow(rng));
  return values;
}

// A tensor of `dtype` filled from random bits and edge values.
Tensor SourceTensor(DType dtype, std::mt19937& rng) {
  const std::vector<double> floats = FloatValues(rng);
  const int64_t count = static_cast<int64_t>(floats.size());
  Tensor t(dtype, {count});
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t bits = (static_cast<uint64_t>(rng()) << 32) | rng();
    switch (dtype) {
      case DType::kFloat32:
        t.data<float>()[i] = static_cast<float>(floats[i]);
        break;
      case DType::kFloat64:
        t.data<double>()[i] = floats[i];
        break;
      case DType::kFloat16:  // every other one from random bits: NaN payloads, subnormals, ...
        t.data<uint16_t>()[i] = i % 2 == 0 ? DoubleToHalf(floats[i]) : static_cast<uint16_t>(bits);
        break;
      case DType::kInt64: {
        const int64_t edges[] = {
            0, 1, -1, INT64_MAX, INT64_MIN, 1 << 24, (1 << 24) + 1, (int64_t{1} << 53) + 1};
        t.data<int64_t>()[i] = i < 8 ? edges[i] : static_cast<int64_t>(bits);
        break;
      }
      case DType::kInt32:
        t.data<int32_t>()[i] = static_cast<int32_t>(bits);
        break;
      case DType::kInt8:
        t.data<int8_t>()[i] = static_cast<int8_t>(bits);
        break;
      case DType::kUint8:
        t.data<uint8_t>()[i] = static_cast<uint8_t>(bits);
        break;
      case DType::kBool:
        t.data<uint8_t>()[i] = static_cast<uint8_t>(bits & 1);
        break;
      default:
        break;
    }
  }
  return t;
}

TEST(KernelMathCastTest, EveryPairMatchesTheReferenceBytewise) {
  std::mt19937 rng(41);
  for (const CastDType& from : kCastDTypes) {
    const Tensor x = SourceTensor(from.dtype, rng);
    for (const CastDType& to : kCastDTypes) {
      SCOPED_TRACE(DTypeName(from.dtype) + " -> " + DTypeName(to.dtype));
      AttributeMap attrs;
      attrs.Set("to", int64_t{to.onnx});
      const Tensor want = Reference(MakeNode("Cast", 13, attrs), {&x})[0];
      ASSERT_EQ(want.dtype(), to.dtype);
      Tensor got(to.dtype, x.dims());
      for (int64_t i = 0; i < x.num_elements(); ++i)
        CastElement(from.cast, x.raw(), to.cast, got.raw(), i);
      if (from.dtype == DType::kFloat16 && to.dtype == DType::kFloat16) {
        // The kernel copies same-type casts; the element math canonicalises NaN payloads.
        for (int64_t i = 0; i < x.num_elements(); ++i) {
          const uint16_t h = x.data<uint16_t>()[i];
          if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0) continue;
          ASSERT_EQ(got.data<uint16_t>()[i], want.data<uint16_t>()[i]) << "element " << i;
        }
        continue;
      }
      for (int64_t i = 0; i < x.num_elements(); ++i) {
        const size_t elem = DTypeSize(to.dtype);
        if (std::memcmp(got.raw() + i * elem, want.raw() + i * elem, elem) != 0)
          ADD_FAILURE() << "element " << i << " differs";
      }
    }
  }
}

TEST(KernelMathCastTest, HalfConversionsRoundTripEveryHalf) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const uint16_t half = static_cast<uint16_t>(h);
    const double value = HalfToDouble(half);
    EXPECT_EQ(std::isnan(value), std::isnan(HalfBitsToDouble(half))) << h;
    if (std::isnan(value)) {
      EXPECT_EQ(DoubleToHalf(value), (half & 0x8000) | 0x7e00) << h;
      continue;
    }
    EXPECT_EQ(DoubleToBits(value), DoubleToBits(HalfBitsToDouble(half))) << h;
    EXPECT_EQ(DoubleToHalf(value), half) << h;
  }
}

TEST(KernelMathCastTest, DoubleToHalfMatchesTheReferenceOnRandomDoubles) {
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int> exponent(-30, 17);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  for (int i = 0; i < 200000; ++i) {
    const double v = std::ldexp(mantissa(rng), exponent(rng)) * (i % 2 == 0 ? 1 : -1);
    ASSERT_EQ(DoubleToHalf(v), DoubleToHalfBits(v)) << v;
  }
}

}  // namespace
}  // namespace ios

// The comparison, selection and Mean math the CUDA kernels run (kernels/math/compare_math.h,
// MeanFromSum in elementwise_math.h, through the broadcast maps of broadcast_math.h), executed
// on the host and compared with the reference kernels on random broadcast shapes and dtypes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernel_math_test_util.h"
#include "kernels/math/broadcast_math.h"
#include "kernels/math/compare_math.h"
#include "kernels/math/elementwise_math.h"
#include "ops/op_util.h"

namespace ios {
namespace {

using namespace testing;  // NOLINT: the helpers of kernel_math_test_util.h

// Values from a small set, so that equal pairs are common; NaN among the floats.
Tensor SmallValues(std::mt19937& rng, DType dtype, const Dims& dims) {
  Tensor t(dtype, dims);
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    const int64_t v = RandomInt(rng, -3, 3);
    const bool nan = RandomInt(rng, 0, 15) == 0;
    switch (dtype) {
      case DType::kFloat32:
        t.data<float>()[i] = nan ? std::nanf("") : 0.5f * static_cast<float>(v);
        break;
      case DType::kFloat64:
        t.data<double>()[i] = nan ? std::nan("") : 0.5 * static_cast<double>(v);
        break;
      case DType::kInt64:
        t.data<int64_t>()[i] = v * 1000000000000;
        break;
      case DType::kInt32:
        t.data<int32_t>()[i] = static_cast<int32_t>(v);
        break;
      case DType::kInt8:
        t.data<int8_t>()[i] = static_cast<int8_t>(v * 40);
        break;
      case DType::kUint8:
        t.data<uint8_t>()[i] = static_cast<uint8_t>(v + 3) * 40;
        break;
      case DType::kBool:
        t.data<uint8_t>()[i] = static_cast<uint8_t>(v > 0);
        break;
      default:
        break;
    }
  }
  return t;
}

template <typename T>
Tensor CompareThroughMaps(CompareOpKind op, const Tensor& a, const Tensor& b, const Dims& out) {
  OperandMap a_map, b_map;
  EXPECT_TRUE(BuildOperandMap(a.dims(), out, &a_map));
  EXPECT_TRUE(BuildOperandMap(b.dims(), out, &b_map));
  Tensor y(DType::kBool, out);
  for (int64_t i = 0; i < y.num_elements(); ++i)
    y.data<uint8_t>()[i] = ApplyCompare<T>(op, a.data<T>()[OperandOffset(a_map, i)],
                                           b.data<T>()[OperandOffset(b_map, i)]);
  return y;
}

Tensor CompareByDType(CompareOpKind op, const Tensor& a, const Tensor& b, const Dims& out) {
  switch (a.dtype()) {
    case DType::kFloat32:
      return CompareThroughMaps<float>(op, a, b, out);
    case DType::kFloat64:
      return CompareThroughMaps<double>(op, a, b, out);
    case DType::kInt64:
      return CompareThroughMaps<int64_t>(op, a, b, out);
    case DType::kInt32:
      return CompareThroughMaps<int32_t>(op, a, b, out);
    case DType::kInt8:
      return CompareThroughMaps<int8_t>(op, a, b, out);
    default:  // uint8 and bool
      return CompareThroughMaps<uint8_t>(op, a, b, out);
  }
}

TEST(KernelMathLogicTest, ComparisonsMatchTheReferenceOnRandomBroadcasts) {
  std::mt19937 rng(51);
  const std::vector<std::pair<const char*, CompareOpKind>> ops = {
      {"Equal", CompareOpKind::kEqual},
      {"Less", CompareOpKind::kLess},
      {"Greater", CompareOpKind::kGreater}};
  const DType dtypes[] = {DType::kFloat32, DType::kFloat64, DType::kInt64, DType::kInt32,
                          DType::kInt8,    DType::kUint8,   DType::kBool};
  for (int trial = 0; trial < 30; ++trial) {
    const Dims full = RandomDims(rng, 0, 5, 5);
    Dims a_dims = BroadcastableFrom(rng, full);
    Dims b_dims = BroadcastableFrom(rng, full);
    const Dims out = BroadcastDims(a_dims, b_dims).value();
    for (DType dtype : dtypes) {
      const Tensor a = SmallValues(rng, dtype, a_dims);
      const Tensor b = SmallValues(rng, dtype, b_dims);
      for (const auto& [name, op] : ops) {
        if (dtype == DType::kBool && op != CompareOpKind::kEqual) continue;  // as the reference
        SCOPED_TRACE(std::string(name) + " " + DTypeName(dtype) + " " + DimsToString(a_dims) + " " +
                     DimsToString(b_dims));
        ExpectTensorsNear(Reference(MakeNode(name, 13), {&a, &b})[0], CompareByDType(op, a, b, out),
                          0, 0);
      }
    }
  }
}

TEST(KernelMathLogicTest, NotMatchesTheReference) {
  std::mt19937 rng(52);
  const Tensor x = SmallValues(rng, DType::kBool, {4, 9});
  Tensor y(DType::kBool, x.dims());
  for (int64_t i = 0; i < x.num_elements(); ++i)
    y.data<uint8_t>()[i] = ApplyNot(x.data<uint8_t>()[i]);
  ExpectTensorsNear(Reference(MakeNode("Not", 13), {&x})[0], y, 0, 0);
}

template <typename T>
Tensor WhereThroughMaps(const Tensor& c, const Tensor& x, const Tensor& y, const Dims& out) {
  OperandMap c_map, x_map, y_map;
  EXPECT_TRUE(BuildOperandMap(c.dims(), out, &c_map));
  EXPECT_TRUE(BuildOperandMap(x.dims(), out, &x_map));
  EXPECT_TRUE(BuildOperandMap(y.dims(), out, &y_map));
  Tensor result(x.dtype(), out);
  const T* xd = reinterpret_cast<const T*>(x.raw());
  const T* yd = reinterpret_cast<const T*>(y.raw());
  T* rd = reinterpret_cast<T*>(result.raw());
  for (int64_t i = 0; i < result.num_elements(); ++i)
    rd[i] = ApplyWhere<T>(c.data<uint8_t>()[OperandOffset(c_map, i)], xd[OperandOffset(x_map, i)],
                          yd[OperandOffset(y_map, i)]);
  return result;
}

// Where moves elements by size, as the kernel does.
Tensor WhereBySize(const Tensor& c, const Tensor& x, const Tensor& y, const Dims& out) {
  switch (DTypeSize(x.dtype())) {
    case 1:
      return WhereThroughMaps<uint8_t>(c, x, y, out);
    case 4:
      return WhereThroughMaps<uint32_t>(c, x, y, out);
    default:
      return WhereThroughMaps<uint64_t>(c, x, y, out);
  }
}

TEST(KernelMathLogicTest, WhereMatchesTheReferenceWithThreeWayBroadcasting) {
  std::mt19937 rng(53);
  const DType dtypes[] = {DType::kFloat32, DType::kInt64, DType::kInt32,
                          DType::kUint8,   DType::kBool,  DType::kFloat64};
  for (int trial = 0; trial < 40; ++trial) {
    const Dims full = RandomDims(rng, 0, 5, 4);
    const Dims c_dims = BroadcastableFrom(rng, full);
    const Dims x_dims = BroadcastableFrom(rng, full);
    const Dims y_dims = BroadcastableFrom(rng, full);
    const Dims out = BroadcastDims(BroadcastDims(c_dims, x_dims).value(), y_dims).value();
    const DType dtype = dtypes[trial % 6];
    SCOPED_TRACE(DTypeName(dtype) + " " + DimsToString(c_dims) + " " + DimsToString(x_dims) + " " +
                 DimsToString(y_dims));
    const Tensor c = SmallValues(rng, DType::kBool, c_dims);
    const Tensor x = SmallValues(rng, dtype, x_dims);
    const Tensor y = SmallValues(rng, dtype, y_dims);
    ExpectTensorsNear(Reference(MakeNode("Where", 16), {&c, &x, &y})[0], WhereBySize(c, x, y, out),
                      0, 0);
  }
}

// Mean as the kernel computes it: the inputs folded with kAdd left to right into the output
// (through the operand maps), then MeanFromSum per element.
TEST(KernelMathLogicTest, MeanMatchesTheReferenceBitForBit) {
  std::mt19937 rng(54);
  for (int trial = 0; trial < 30; ++trial) {
    const Dims full = RandomDims(rng, 0, 4, 5);
    std::vector<Tensor> inputs;
    Dims out;
    for (int i = 0, n = static_cast<int>(RandomInt(rng, 1, 5)); i < n; ++i) {
      inputs.push_back(RandomFloats(rng, BroadcastableFrom(rng, full), -10.f, 10.f));
      out = i == 0 ? inputs[0].dims() : BroadcastDims(out, inputs.back().dims()).value();
    }
    SCOPED_TRACE(std::to_string(inputs.size()) + " inputs to " + DimsToString(out));
    std::vector<const Tensor*> pointers;
    for (const Tensor& t : inputs) pointers.push_back(&t);
    Tensor acc(DType::kFloat32, out);
    OperandMap first;
    ASSERT_TRUE(BuildOperandMap(inputs[0].dims(), out, &first));
    for (int64_t i = 0; i < acc.num_elements(); ++i)
      acc.data<float>()[i] = inputs[0].data<float>()[OperandOffset(first, i)];
    for (size_t k = 1; k < inputs.size(); ++k) {
      OperandMap map;
      ASSERT_TRUE(BuildOperandMap(inputs[k].dims(), out, &map));
      for (int64_t i = 0; i < acc.num_elements(); ++i)
        acc.data<float>()[i] = ApplyBinary(BinaryOpKind::kAdd, acc.data<float>()[i],
                                           inputs[k].data<float>()[OperandOffset(map, i)]);
    }
    for (int64_t i = 0; i < acc.num_elements(); ++i)
      acc.data<float>()[i] = MeanFromSum(acc.data<float>()[i], static_cast<int32_t>(inputs.size()));
    ExpectTensorsNear(Reference(MakeNode("Mean", 13), pointers)[0], acc, 0, 0);
  }
}

}  // namespace
}  // namespace ios

// erf in float without a libm call, written so that a compiler vectorises a loop over it (no
// branches, only selects; no calls): the CPU's Erf kernel runs it (runtime/cpu/kernels/unary_cpu.cc),
// where libm's erff keeps a loop scalar (28x onnxruntime's time on one thread).
//
// |x| <= 0.9: erf(x) = x P(x^2), P of degree 6. 0.9 < |x| < 3.92: erf(x) = 1 - exp(-x^2) S(|x|),
// where S(x) = erfc(x) exp(x^2) is smooth and is a polynomial of degree 12 in u = (x - 2.41) /
// 1.51. Beyond 3.92 erf rounds to +-1 in float. Both polynomials are least-squares fits
// (relative error weighted) made for ios on 20000 points of each interval against double
// precision erf/erfc. Evaluated in float: within 2.5 ulp and 1.3e-7 of erf over the whole float
// range (kernel_math_erf_test.cc); NaN stays NaN.
#pragma once

#include "kernels/math/exp_math.h"
#include "kernels/math/host_device.h"

namespace ios {

IOS_HD float ErfPoly(float x) {
  const float a = x < 0.f ? -x : x;
  const float x2 = x * x;
  float p = 8.617447747383267e-05f;
  p = p * x2 - 0.0008199535077437758f;
  p = p * x2 + 0.0052059004083275795f;
  p = p * x2 - 0.02686130627989769f;
  p = p * x2 + 0.1128372922539711f;
  p = p * x2 - 0.37612634897232056f;
  p = p * x2 + 1.128379225730896f;
  const float small = x * p;
  const float u = (a - 2.41f) * (1.f / 1.51f);
  float s = 1.7837423001765274e-05f;
  s = s * u - 5.16079380759038e-05f;
  s = s * u + 8.130002242978662e-05f;
  s = s * u - 0.0001939639332704246f;
  s = s * u + 0.0005362562369555235f;
  s = s * u - 0.0012967395596206188f;
  s = s * u + 0.0029877640772610903f;
  s = s * u - 0.006733748596161604f;
  s = s * u + 0.014683237299323082f;
  s = s * u - 0.030822893604636192f;
  s = s * u + 0.062073200941085815f;
  s = s * u - 0.1193474680185318f;
  s = s * u + 0.2177056223154068f;
  float large = 1.f - ExpPoly(-x2) * s;
  large = a >= 3.92f ? 1.f : large;
  large = x < 0.f ? -large : large;
  return a <= 0.9f ? small : large;  // NaN fails both compares: `large` is NaN
}

}  // namespace ios

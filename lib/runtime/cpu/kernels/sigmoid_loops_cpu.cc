// One clone per x86 vector width (cpu_vector_clones.h). This file is compiled without trapping
// math and signed zeros (lib/CMakeLists.txt): with them GCC masks every operation of the
// vectorised ExpPoly, about 1.3x slower; nothing here reads FP exceptions, and -0 only changes
// SiLU(-0)'s sign.
#include "runtime/cpu/kernels/sigmoid_loops_cpu.h"

#include "kernels/math/exp_math.h"
#include "runtime/cpu/kernels/cpu_vector_clones.h"

namespace ios {

IOS_VECTOR_CLONES void SigmoidLoop(const float* in, float* out, int64_t count) {
  for (int64_t i = 0; i < count; ++i) out[i] = SigmoidPoly(in[i]);
}

IOS_VECTOR_CLONES void SiluLoop(const float* in, float* out, int64_t count) {
  for (int64_t i = 0; i < count; ++i) out[i] = SiluPoly(in[i]);
}

}  // namespace ios

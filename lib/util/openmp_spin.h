// libgomp (the OpenMP runtime of Debian's oneDNN) reads its spin policy once, when it loads,
// before main. Its default keeps idle team threads spinning for ~300k iterations after every
// parallel region: good for one stream, but with concurrent stages the spinning threads steal
// the cores the other streams' workers need. Measured on 2 cores, Inception V3, medians of 3
// runs: greedy 210 -> 166 ms with a short spin, sequential 128 -> 157 ms. iosrun uses the short
// spin for plans with concurrent stages, and iosc profiles CPU stages under it so that the
// timings match. Re-executing the process is the only way to set it for libgomp.
#pragma once

namespace ios {

// Re-executes the current program with GOMP_SPINCOUNT=2000 unless the user set a spin policy
// (GOMP_SPINCOUNT or OMP_WAIT_POLICY): then it returns true. It returns false when it could not
// re-execute (no argv, or exec failed); on success it does not return.
bool ReexecWithShortOpenMpSpin(char** argv);

}  // namespace ios

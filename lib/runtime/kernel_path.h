// How a backend runs a node, as far as its speed goes: its own kernel; the reference kernel (the
// numerical oracle, written for exactness, not speed: a node on it can make a whole model tens of
// times slower); or its own kernel behind a layout adapter, which reorders the node's tensors
// around it. iosc reports the nodes on the last two (compile/slow_nodes.h), iosrun --profile
// marks them.
#pragma once

#include <string>

namespace ios {

enum class KernelPath { kOwnKernel, kReference, kBehindReorder };

// "own kernel", "reference", "behind a reorder".
const char* KernelPathName(KernelPath path);
// The short tags of iosrun --profile's table and the profile JSON: "", "ref", "reorder".
const char* KernelPathTag(KernelPath path);

}  // namespace ios

// Reading whole files and writing them atomically (temporary file + rename), so that a failed
// write never leaves a partial output or destroys an existing file.
#pragma once

#include <cstdio>
#include <functional>
#include <string>

#include "util/status.h"

namespace ios {

StatusOr<std::string> ReadFileToString(const std::string& path);
Status WriteFileAtomically(const std::string& path, const std::string& contents);
// The same for output written piece by piece: `write` gets the temporary file and returns false
// when a write failed.
Status WriteFileAtomicallyWith(const std::string& path,
                               const std::function<bool(std::FILE*)>& write);

// True when both paths name the same file or folder (through links, "..", or a relative and an
// absolute spelling); false when either does not exist yet.
bool IsSameFile(const std::string& a, const std::string& b);
// InvalidInput when `output` (given with `flag`) is the same file as `input`: writing it would
// destroy what the run reads.
Status CheckOutputIsNotInput(const std::string& input, const std::string& output,
                             const std::string& flag);

}  // namespace ios

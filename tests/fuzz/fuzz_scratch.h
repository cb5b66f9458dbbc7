// What the fuzz targets share: a private scratch folder per process (the loaders under test read
// files), and quiet logging.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ios::fuzz {

// This process's scratch folder (created once, under /dev/shm when it exists, else /tmp).
const std::string& ScratchDir();
// Writes `size` bytes to ScratchDir()/name, replacing it; returns the path.
std::string WriteScratchFile(const std::string& name, const uint8_t* data, size_t size);
// Turns spdlog off: a target's inputs are meant to be refused, and the log would drown the
// fuzzer's own output.
void QuietLogs();

}  // namespace ios::fuzz

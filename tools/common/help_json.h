// --help-json: a CLI's options as JSON, read from CLI11's own option list, from which
// scripts/cli_flags.py writes README.md's flag tables (so the two cannot drift apart).
#pragma once

#include <CLI/CLI.hpp>

namespace ios {

// Adds the hidden flag --help-json to `app`: it prints every visible option (names, value type,
// default, description, group, whether required or repeatable) as JSON on stdout, then exits 0.
void AddHelpJsonFlag(CLI::App* app);

}  // namespace ios

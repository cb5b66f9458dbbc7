// The table of ops ios supports and which backend runs each (`iosc --list-ops`), printed as the
// Markdown of docs/operators.md; a test keeps that page equal to this output.
#pragma once

#include <string>

namespace ios {

std::string OpSupportTableMarkdown();

}  // namespace ios

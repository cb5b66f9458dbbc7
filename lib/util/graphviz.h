// Rendering Graphviz DOT text with Graphviz's own `dot` program (Debian's graphviz package),
// run as a child process; the SVG is written atomically.
#pragma once

#include <string>

#include "util/status.h"

namespace ios {

// True when `dot` is on PATH.
bool HaveGraphvizDot();
// `dot -Tsvg` of `dot_text` into `svg_path`. InvalidInput naming the package when Graphviz is
// not installed; the program's own message when it fails.
Status RenderDotToSvg(const std::string& dot_text, const std::string& svg_path);

}  // namespace ios

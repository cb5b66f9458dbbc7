// ONNX → ios graph. Parses the protobuf itself (Debian's libonnx checker only knows opsets up to
// 17), checks the structure, and fixes the batch dimension. Every error names the file and,
// where there is one, the node, its op and its opset.
#pragma once

#include <cstdint>
#include <string>

#include "ir/graph.h"
#include "util/status.h"

namespace ios {

inline constexpr int64_t kMinSupportedOpset = 7;
inline constexpr int64_t kMaxSupportedOpset = 21;

struct ImportOptions {
  int64_t batch = 1;  // replaces dimension 0 of every runtime input, symbolic or numeric
};

StatusOr<Graph> ImportOnnxFile(const std::string& path, const ImportOptions& options);
// Same, from the bytes of a model; `source` names it in messages. Pass the bytes with std::move
// to have them freed once parsed (a large model is then never held three times).
StatusOr<Graph> ImportOnnxBytes(std::string bytes, const std::string& source,
                                const ImportOptions& options);

}  // namespace ios

// ONNX → ios graph. Parses the protobuf itself (Debian's libonnx checker only knows opsets up to
// 17), reads external tensor data (onnx/external_data.h), checks the structure, and fixes the
// inputs' shapes. Every error names the file and, where there is one, the node, its op and its
// opset, or the tensor.
//
// Input shapes: an input listed in `input_shapes` takes that shape (its rank must be the
// model's, and its static dimensions other than the batch must agree). Every other input takes
// `batch` as its dimension 0 where that is symbolic, or static when no input's dimension 0 is
// symbolic and it equals that of the first input of the highest rank (the batch of a model
// exported with a static batch of 1 can be changed so; a [1, C] operand beside [N, C], a [2]
// scale beside [1, 3, H, W] or ScatterND's indices keep theirs).
// A symbol (dim_param) names one value everywhere: once an input
// fixes it, every dimension with that symbol takes that value ("?", which paddle2onnx writes for
// any free dimension, names none; shapes given that disagree on a symbol are used as given, and
// the symbol then binds nothing). A dimension left unknown is an error naming the input, the
// dimension, its symbol and the flag that fixes it.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "ir/graph.h"
#include "util/status.h"

namespace ios {

// The default-domain opsets ios reads. Every op ios supports has been checked against onnx's
// schemas up to kMaxSupportedOpset (tests/python/test_opset_range.py): its later versions add
// element types only, or attributes that do not apply to the types ios runs.
inline constexpr int64_t kMinSupportedOpset = 7;
inline constexpr int64_t kMaxSupportedOpset = 28;

struct ImportOptions {
  int64_t batch = 1;  // dimension 0 of every runtime input not in `input_shapes`
  std::map<std::string, Dims> input_shapes;  // per input name, its whole shape
  // The folder external tensor data is relative to; ImportOnnxFile sets the model file's.
  // Empty for ImportOnnxBytes: a model with external data is then refused.
  std::string external_data_dir;
  // More nodes than this (in the main graph) is refused before anything is built; 0 = no limit.
  int64_t max_nodes = 1000000;
};

// The folder a model file's external data is relative to: the file's own ("." for a bare name).
std::string ModelFolder(const std::string& model_path);

// InvalidInput for a model of 2 GiB or more (protobuf's limit for one message), naming the fix
// (external data). CheckOnnxFileSize checks a file before it is read.
Status CheckOnnxSize(uint64_t bytes, const std::string& source);
Status CheckOnnxFileSize(const std::string& path);

// Parses the file as it is read, so that the file's bytes and the parsed model are never both
// held. `file_sha256`, when given, receives the SHA-256 (hex) of exactly the bytes parsed, as
// soon as they parse as a protobuf: a caller checking which model it was given sees the digest
// even when the import then refuses the model.
StatusOr<Graph> ImportOnnxFile(const std::string& path, const ImportOptions& options,
                               std::string* file_sha256 = nullptr);
// Same, from the bytes of a model; `source` names it in messages. Pass the bytes with std::move
// to have them freed once parsed (a large model is then never held three times).
StatusOr<Graph> ImportOnnxBytes(std::string bytes, const std::string& source,
                                const ImportOptions& options);

}  // namespace ios

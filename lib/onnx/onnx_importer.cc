#include "onnx/onnx_importer.h"

#include <onnx/onnx_pb.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <istream>
#include <map>
#include <memory>
#include <set>
#include <streambuf>
#include <vector>

#include "onnx/attribute_proto.h"
#include "onnx/external_data.h"
#include "onnx/tensor_proto.h"
#include "ops/op_registry.h"
#include "util/file_util.h"
#include "util/sha256.h"

namespace ios {
namespace {

bool IsDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

// A named dimension: "?" is what some exporters (paddle2onnx) write for any unknown dimension,
// so it names none.
bool HasSymbol(const onnx::TensorShapeProto_Dimension& dim) {
  return dim.has_dim_param() && !dim.dim_param().empty() && dim.dim_param() != "?";
}

StatusOr<int64_t> DefaultOpset(const onnx::ModelProto& model, const std::string& source) {
  for (const auto& opset : model.opset_import()) {
    if (!IsDefaultDomain(opset.domain())) continue;
    int64_t version = opset.version();
    if (version < kMinSupportedOpset || version > kMaxSupportedOpset) {
      return InvalidInput(source + ": opset " + std::to_string(version) +
                          " is outside the supported range " + std::to_string(kMinSupportedOpset) +
                          ".." + std::to_string(kMaxSupportedOpset) +
                          "; convert the model with onnx.version_converter");
    }
    return version;
  }
  return InvalidInput(source + ": the model imports no default-domain (ai.onnx) opset");
}

// A Constant node's value, from whichever of its attributes is set.
StatusOr<Tensor> ConstantNodeValue(const onnx::NodeProto& node, const std::string& what,
                                   ExternalDataReader* external) {
  for (const auto& attr : node.attribute()) {
    const std::string& name = attr.name();
    if (name == "value") return TensorFromProto(attr.t(), what, external);
    if (name == "value_float") return Tensor::FromFloat({attr.f()}, {});
    if (name == "value_floats")
      return Tensor::FromFloat(std::vector<float>(attr.floats().begin(), attr.floats().end()),
                               {attr.floats_size()});
    if (name == "value_int") return Tensor::FromInt64({attr.i()}, {});
    if (name == "value_ints")
      return Tensor::FromInt64(std::vector<int64_t>(attr.ints().begin(), attr.ints().end()),
                               {attr.ints_size()});
  }
  return Unsupported(what + ": Constant with a sparse or string value is not supported");
}

class Importer {
 public:
  // Initializer bytes are released from `model` as they are converted, so that a large model is
  // not held twice.
  Importer(onnx::ModelProto& model, std::string source, const ImportOptions& options)
      : model_(model), source_(std::move(source)), options_(options) {
    if (!options_.external_data_dir.empty())
      external_ = std::make_unique<ExternalDataReader>(options_.external_data_dir);
  }

  StatusOr<Graph> Run() {
    graph_.source_path = source_;
    graph_.name = model_.graph().name();
    IOS_ASSIGN_OR_RETURN(graph_.opset, DefaultOpset(model_, source_));
    IOS_RETURN_IF_ERROR(ImportInitializers());
    IOS_RETURN_IF_ERROR(ImportInputs());
    IOS_RETURN_IF_ERROR(CheckOpsSupported());
    IOS_RETURN_IF_ERROR(ImportNodes());
    IOS_RETURN_IF_ERROR(ImportOutputs());
    graph_.RebuildUses();
    IOS_RETURN_IF_ERROR(graph_.TopologicalOrder().status().WithContext(source_));
    return std::move(graph_);
  }

 private:
  std::string NodeWhat(const onnx::NodeProto& node, int index) const {
    return source_ + ": node '" + NodeName(node, index) + "' (" + node.op_type() + ", opset " +
           std::to_string(graph_.opset) + ")";
  }
  int64_t DomainOpset(const std::string& domain) const {
    if (IsDefaultDomain(domain)) return graph_.opset;
    for (const auto& opset : model_.opset_import())
      if (opset.domain() == domain) return opset.version();
    return 0;
  }
  static std::string NodeName(const onnx::NodeProto& node, int index) {
    return node.name().empty() ? "#" + std::to_string(index) : node.name();
  }

  Status DefineValue(Value value) {
    if (by_name_.count(value.name)) {
      return InvalidInput(source_ + ": tensor '" + value.name + "' is defined more than once");
    }
    std::string name = value.name;
    by_name_[name] = graph_.AddValue(std::move(value));
    return Status::Ok();
  }

  Status ImportInitializers() {
    for (onnx::TensorProto& init : *model_.mutable_graph()->mutable_initializer()) {
      IOS_ASSIGN_OR_RETURN(
          Tensor tensor,
          TensorFromProto(init, source_ + ": initializer '" + init.name() + "'", external_.get()));
      std::string().swap(*init.mutable_raw_data());  // frees the bytes, not just the size
      Value value;
      value.name = init.name();
      value.dtype = tensor.dtype();
      value.dims = tensor.dims();
      value.has_shape = true;
      value.constant = std::move(tensor);
      IOS_RETURN_IF_ERROR(DefineValue(std::move(value)));
    }
    return Status::Ok();
  }

  // The runtime inputs (not initializers), in the model's order.
  std::vector<const onnx::ValueInfoProto*> RuntimeInputs() const {
    std::vector<const onnx::ValueInfoProto*> inputs;
    for (const auto& input : model_.graph().input())
      if (!by_name_.count(input.name())) inputs.push_back(&input);  // IR < 4 lists initializers
    return inputs;
  }

  // The shape of every runtime input, per ImportOptions (see the header).
  StatusOr<std::map<std::string, Dims>> InputShapes(
      const std::vector<const onnx::ValueInfoProto*>& inputs) const {
    std::string names;
    for (const auto* input : inputs) names += (names.empty() ? "'" : ", '") + input->name() + "'";
    for (const auto& [name, dims] : options_.input_shapes) {
      bool found = false;
      for (const auto* input : inputs) found = found || input->name() == name;
      if (!found)
        return InvalidInput(source_ + ": an input shape is given for '" + name +
                            "', which is not an input of the model (its inputs: " + names + ")");
    }
    std::map<std::string, int64_t> symbols;  // dim_param -> its value
    std::map<std::string, std::string> fixed_by;
    std::set<std::string> ambiguous;  // given two values by the shapes given
    // The shapes given win: a symbol they give two values (against ONNX's rule that one symbol
    // is one value) binds nothing, with a warning.
    auto fix_symbol = [&](const std::string& symbol, int64_t value, const std::string& by) {
      auto [it, inserted] = symbols.emplace(symbol, value);
      if (!inserted && it->second != value && ambiguous.insert(symbol).second) {
        spdlog::warn(
            "{}: the model's dimension '{}' is {} for {} but {} for {}; the shapes given "
            "are used as they are, and no other dimension takes '{}' from them",
            source_, symbol, it->second, fixed_by[symbol], value, by, symbol);
      }
      fixed_by.emplace(symbol, by);
    };
    std::map<std::string, Dims> shapes;
    // Inputs given a shape first: their symbols then fix the other inputs' dimensions.
    for (const auto* input : inputs) {
      auto given = options_.input_shapes.find(input->name());
      if (given == options_.input_shapes.end()) continue;
      const std::string what = source_ + ": input '" + input->name() + "'";
      IOS_ASSIGN_OR_RETURN(const auto* dims, ModelDims(*input, what));
      const Dims& shape = given->second;
      if (static_cast<int>(shape.size()) != dims->size())
        return InvalidInput(what + " has rank " + std::to_string(dims->size()) +
                            ", but the shape given for it, " + DimsToString(shape) + ", has " +
                            std::to_string(shape.size()) + " dimensions");
      for (int d = 0; d < dims->size(); ++d) {
        const auto& dim = (*dims)[d];
        if (shape[d] <= 0)
          return InvalidInput(what + ": the shape given for it, " + DimsToString(shape) +
                              ", has a non-positive dimension");
        if (d > 0 && dim.has_dim_value() && dim.dim_value() != shape[d])
          return InvalidInput(what + ": the shape given for it, " + DimsToString(shape) +
                              ", contradicts the model's static dimension " + std::to_string(d) +
                              " (" + std::to_string(dim.dim_value()) + ")");
        if (HasSymbol(dim)) fix_symbol(dim.dim_param(), shape[d], "input '" + input->name() + "'");
      }
      shapes[input->name()] = shape;
    }
    for (const std::string& symbol : ambiguous) symbols.erase(symbol);
    // Then the batch: dimension 0 of every other input.
    for (const auto* input : inputs) {
      if (shapes.count(input->name())) continue;
      IOS_ASSIGN_OR_RETURN(const auto* dims,
                           ModelDims(*input, source_ + ": input '" + input->name() + "'"));
      if (dims->size() > 0 && HasSymbol((*dims)[0]) && !symbols.count((*dims)[0].dim_param()) &&
          !ambiguous.count((*dims)[0].dim_param()))
        symbols[(*dims)[0].dim_param()] = options_.batch;
    }
    // A static dimension 0 is the batch, and replaced, only where it can be: when no input's
    // dimension 0 is symbolic, and it equals that of the first input of the highest rank (the
    // images). A broadcast operand of [1, C] beside [N, C], a [2] scale beside [1, 3, H, W], or
    // ScatterND's indices, keep theirs.
    bool symbolic_batch = false;
    int64_t static_batch = -1;
    int highest_rank = 0;
    for (const auto* input : inputs) {
      IOS_ASSIGN_OR_RETURN(const auto* dims,
                           ModelDims(*input, source_ + ": input '" + input->name() + "'"));
      if (dims->size() == 0) continue;
      if (HasSymbol((*dims)[0]) || !(*dims)[0].has_dim_value()) {
        symbolic_batch = true;
      } else if (dims->size() > highest_rank) {
        highest_rank = dims->size();
        static_batch = (*dims)[0].dim_value();
      }
    }
    for (const auto* input : inputs) {
      if (shapes.count(input->name())) continue;
      const std::string what = source_ + ": input '" + input->name() + "'";
      IOS_ASSIGN_OR_RETURN(const auto* dims, ModelDims(*input, what));
      Dims shape;
      for (int d = 0; d < dims->size(); ++d) {
        const auto& dim = (*dims)[d];
        auto symbol = HasSymbol(dim) ? symbols.find(dim.dim_param()) : symbols.end();
        if (symbol != symbols.end()) {
          shape.push_back(symbol->second);
        } else if (d == 0 && (!dim.has_dim_value() ||
                              (!symbolic_batch && dim.dim_value() == static_batch))) {
          shape.push_back(options_.batch);  // a static batch is replaced too
        } else if (dim.has_dim_value()) {
          if (dim.dim_value() <= 0)
            return InvalidInput(what + ": dimension " + std::to_string(d) + " is " +
                                std::to_string(dim.dim_value()) + "; dimensions must be positive");
          shape.push_back(dim.dim_value());
        } else {
          return FreeDimensionError(*input, *dims, d, what);
        }
      }
      shapes[input->name()] = shape;
    }
    return shapes;
  }

  StatusOr<const google::protobuf::RepeatedPtrField<onnx::TensorShapeProto_Dimension>*> ModelDims(
      const onnx::ValueInfoProto& input, const std::string& what) const {
    if (!input.type().has_tensor_type()) return Unsupported(what + " is not a tensor");
    if (!input.type().tensor_type().has_shape()) return InvalidInput(what + " has no shape");
    return &input.type().tensor_type().shape().dim();
  }

  // "dimension 2 ('height') is free; fix it with --input-shape images:1x3x<height>x<width>".
  Status FreeDimensionError(
      const onnx::ValueInfoProto& input,
      const google::protobuf::RepeatedPtrField<onnx::TensorShapeProto_Dimension>& dims, int d,
      const std::string& what) const {
    std::string example;
    for (int i = 0; i < dims.size(); ++i) {
      std::string part = i == 0                    ? std::to_string(options_.batch)
                         : dims[i].has_dim_value() ? std::to_string(dims[i].dim_value())
                         : HasSymbol(dims[i])      ? "<" + dims[i].dim_param() + ">"
                                                   : "<dim" + std::to_string(i) + ">";
      example += (i == 0 ? "" : "x") + part;
    }
    const std::string symbol =
        HasSymbol(dims[d]) ? " (the symbol '" + dims[d].dim_param() + "')" : " (unnamed)";
    return InvalidInput(what + ": dimension " + std::to_string(d) + symbol +
                        " is free; give the input's shape with --input-shape " + input.name() +
                        ":" + example);
  }

  Status ImportInputs() {
    const std::vector<const onnx::ValueInfoProto*> inputs = RuntimeInputs();
    IOS_ASSIGN_OR_RETURN(auto shapes, InputShapes(inputs));
    for (const auto* input : inputs) {
      const std::string what = source_ + ": input '" + input->name() + "'";
      const auto& tensor_type = input->type().tensor_type();
      Value value;
      value.name = input->name();
      value.dtype = DTypeFromOnnx(tensor_type.elem_type());
      if (value.dtype == DType::kUndefined) {
        return Unsupported(what + " has element type " + std::to_string(tensor_type.elem_type()) +
                           ", which ios does not support");
      }
      value.dims = shapes.at(input->name());
      if (CheckedNumBytes(value.dtype, value.dims) < 0)
        return InvalidInput(what + " has shape " + DimsToString(value.dims) +
                            ", whose size overflows 64 bits");
      value.has_shape = true;
      ValueId id = static_cast<ValueId>(graph_.values.size());
      IOS_RETURN_IF_ERROR(DefineValue(std::move(value)));
      graph_.inputs.push_back(id);
    }
    return Status::Ok();
  }

  // Lists every unsupported node at once, so that a user sees the whole gap in one run.
  Status CheckOpsSupported() const {
    std::string unsupported;
    int count = 0;
    const auto& nodes = model_.graph().node();
    for (int i = 0; i < nodes.size(); ++i) {
      const auto& node = nodes[i];
      bool known = IsDefaultDomain(node.domain()) &&
                   (node.op_type() == "Constant" || OpRegistry::Global().Find(node.op_type()));
      if (known) continue;
      ++count;
      unsupported += "\n  node '" + NodeName(node, i) +
                     "': " + (IsDefaultDomain(node.domain()) ? "" : node.domain() + "::") +
                     node.op_type() + " (opset " + std::to_string(DomainOpset(node.domain())) + ")";
    }
    if (count == 0) return Status::Ok();
    return Unsupported(source_ + ": " + std::to_string(count) +
                       " node(s) use ops that ios does not "
                       "support:" +
                       unsupported);
  }

  Status ImportNodes() {
    const auto& nodes = model_.graph().node();
    // First define every node output so that inputs can refer to nodes listed later (ONNX
    // requires topological order, but files in the wild do not always keep it).
    std::vector<std::vector<ValueId>> outputs(nodes.size());
    for (int i = 0; i < nodes.size(); ++i) {
      const auto& node = nodes[i];
      if (node.op_type() == "Constant") {
        if (node.output_size() != 1) return InvalidInput(NodeWhat(node, i) + ": needs 1 output");
        IOS_ASSIGN_OR_RETURN(Tensor tensor,
                             ConstantNodeValue(node, NodeWhat(node, i), external_.get()));
        Value value;
        value.name = node.output(0);
        value.dtype = tensor.dtype();
        value.dims = tensor.dims();
        value.has_shape = true;
        value.constant = std::move(tensor);
        IOS_RETURN_IF_ERROR(DefineValue(std::move(value)).WithContext(NodeWhat(node, i)));
        continue;
      }
      for (const std::string& name : node.output()) {
        if (name.empty()) {
          outputs[i].push_back(kNoValue);
          continue;
        }
        outputs[i].push_back(static_cast<ValueId>(graph_.values.size()));
        Value value;
        value.name = name;
        IOS_RETURN_IF_ERROR(DefineValue(std::move(value)).WithContext(NodeWhat(node, i)));
      }
    }
    std::string dangling;
    for (int i = 0; i < nodes.size(); ++i) {
      const auto& proto = nodes[i];
      if (proto.op_type() == "Constant") continue;
      Node node;
      node.name = NodeName(proto, i);
      node.op_type = proto.op_type();
      node.opset = graph_.opset;
      node.outputs = outputs[i];
      for (const std::string& name : proto.input()) {
        if (name.empty()) {
          node.inputs.push_back(kNoValue);
          continue;
        }
        auto it = by_name_.find(name);
        if (it == by_name_.end()) {
          dangling += "\n  " + NodeWhat(proto, i) + " reads '" + name + "'";
          continue;
        }
        node.inputs.push_back(it->second);
      }
      for (const auto& attr : proto.attribute()) {
        IOS_ASSIGN_OR_RETURN(AttributeValue value, AttributeFromProto(attr, NodeWhat(proto, i)));
        node.attrs.Set(attr.name(), std::move(value));
      }
      graph_.AddNode(std::move(node));
    }
    if (!dangling.empty()) {
      return InvalidInput(source_ +
                          ": inputs that no node, initializer or graph input produces "
                          "(a dangling input or a missing initializer):" +
                          dangling);
    }
    return Status::Ok();
  }

  Status ImportOutputs() {
    for (const auto& output : model_.graph().output()) {
      auto it = by_name_.find(output.name());
      if (it == by_name_.end()) {
        return InvalidInput(source_ + ": graph output '" + output.name() +
                            "' is not produced by any node");
      }
      graph_.outputs.push_back(it->second);
      // The declared element type, until inference computes it: passes that keep the graph's
      // interface (float16 widening) read it.
      Value& value = graph_.values[it->second];
      const int32_t elem_type = output.type().tensor_type().elem_type();
      if (value.dtype == DType::kUndefined && !value.constant && elem_type != 0)
        value.dtype = DTypeFromOnnx(elem_type);
    }
    if (graph_.outputs.empty()) return InvalidInput(source_ + ": the graph has no outputs");
    return Status::Ok();
  }

  onnx::ModelProto& model_;
  std::string source_;
  ImportOptions options_;
  Graph graph_;
  std::map<std::string, ValueId> by_name_;
  std::unique_ptr<ExternalDataReader> external_;  // when the model's folder is known
};

}  // namespace

Status CheckOnnxSize(uint64_t bytes, const std::string& source) {
  // Protobuf cannot parse a message of 2 GiB or more: models that large keep their weights in
  // external data files, which is what the ONNX format has them for.
  if (bytes < (uint64_t{1} << 31)) return Status::Ok();
  return InvalidInput(source + ": the file is " + std::to_string(bytes >> 20) +
                      " MiB, past protobuf's 2 GiB limit for one message; save the model with "
                      "its weights as external data (onnx.save(model, path, "
                      "save_as_external_data=True))");
}

Status CheckOnnxFileSize(const std::string& path) {
  std::error_code error;
  const uintmax_t size = std::filesystem::file_size(path, error);
  if (error) return Status::Ok();  // reading the file reports what is wrong with it
  return CheckOnnxSize(static_cast<uint64_t>(size), path);
}

namespace {

Status CheckBatch(const ImportOptions& options) {
  if (options.batch > 0) return Status::Ok();
  return InvalidInput("the batch size must be positive, got " + std::to_string(options.batch));
}

const char* const kNotOnnx =
    ": not a valid ONNX model (the file is truncated, corrupted or not ONNX)";

// A parsed model to a graph: what ImportOnnxBytes and ImportOnnxFile share.
StatusOr<Graph> ImportParsed(onnx::ModelProto& model, const std::string& source,
                             const ImportOptions& options) {
  // Random bytes sometimes parse as a protobuf; an ONNX model also needs a graph with nodes.
  if (!model.has_graph() || model.graph().node_size() == 0 || model.ir_version() <= 0)
    return InvalidInput(source + kNotOnnx);
  if (options.max_nodes > 0 && model.graph().node_size() > options.max_nodes) {
    return InvalidInput(source + ": the graph has " + std::to_string(model.graph().node_size()) +
                        " nodes, more than the limit of " + std::to_string(options.max_nodes) +
                        " (iosc --max-nodes raises it)");
  }
  return Importer(model, source, options).Run();
}

}  // namespace

StatusOr<Graph> ImportOnnxBytes(std::string bytes, const std::string& source,
                                const ImportOptions& options) {
  IOS_RETURN_IF_ERROR(CheckBatch(options));
  if (bytes.empty()) return InvalidInput(source + ": the file is empty, not an ONNX model");
  IOS_RETURN_IF_ERROR(CheckOnnxSize(static_cast<uint64_t>(bytes.size()), source));
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) return InvalidInput(source + kNotOnnx);
  std::string().swap(bytes);  // the parsed model holds everything from here on
  return ImportParsed(model, source, options);
}

std::string ModelFolder(const std::string& model_path) {
  const std::string folder = std::filesystem::path(model_path).parent_path().string();
  return folder.empty() ? "." : folder;
}

namespace {

// The file as an istream for protobuf's parser, read in large pieces, each hashed as it passes.
class HashingFileBuffer : public std::streambuf {
 public:
  HashingFileBuffer(std::FILE* file, Sha256Stream* hash) : file_(file), hash_(hash) {}

  bool read_failed() const { return std::ferror(file_) != 0; }
  std::string read_error() const { return std::strerror(read_errno_); }
  // Reads (and hashes) whatever the parser left, so the digest covers the whole file.
  void Drain() {
    while (underflow() != traits_type::eof()) setg(eback(), egptr(), egptr());
  }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    const size_t got = std::fread(buffer_.data(), 1, buffer_.size(), file_);
    if (got == 0) {
      if (std::ferror(file_)) read_errno_ = errno;
      return traits_type::eof();
    }
    if (hash_) hash_->Update(buffer_.data(), got);
    setg(buffer_.data(), buffer_.data(), buffer_.data() + got);
    return traits_type::to_int_type(*gptr());
  }

 private:
  std::FILE* file_;
  Sha256Stream* hash_;
  std::vector<char> buffer_ = std::vector<char>(size_t{1} << 20);
  int read_errno_ = 0;
};

}  // namespace

StatusOr<Graph> ImportOnnxFile(const std::string& path, const ImportOptions& options,
                               std::string* file_sha256) {
  IOS_RETURN_IF_ERROR(CheckBatch(options));
  IOS_RETURN_IF_ERROR(CheckOnnxFileSize(path));
  ImportOptions with_folder = options;
  if (with_folder.external_data_dir.empty()) with_folder.external_data_dir = ModelFolder(path);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       std::fclose);
  if (!file) return IoError(path + ": cannot open: " + std::strerror(errno));
  Sha256Stream hash;
  HashingFileBuffer buffer(file.get(), file_sha256 ? &hash : nullptr);
  std::istream in(&buffer);
  auto read_failed = [&]() { return IoError(path + ": read failed: " + buffer.read_error()); };
  if (in.peek() == std::istream::traits_type::eof()) {
    if (buffer.read_failed()) return read_failed();
    return InvalidInput(path + ": the file is empty, not an ONNX model");
  }
  onnx::ModelProto model;
  const bool parsed = model.ParseFromIstream(&in);
  if (buffer.read_failed()) return read_failed();
  if (!parsed) return InvalidInput(path + kNotOnnx);
  if (file_sha256) {
    buffer.Drain();
    if (buffer.read_failed()) return read_failed();
    *file_sha256 = hash.FinishHex();
    if (file_sha256->empty()) return Internal(path + ": cannot compute its SHA-256");
  }
  file.reset();
  return ImportParsed(model, path, with_folder);
}

}  // namespace ios

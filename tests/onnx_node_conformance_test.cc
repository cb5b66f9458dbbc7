// Conformance of the reference kernels, and of the CPU backend's kernels, against ONNX's own
// backend node tests (the Debian package libonnx-testdata). Each directory named in
// tests/onnx_node_tests_expected.txt holds a model.onnx and test_data_set_*/{input,output}_N.pb;
// its nodes are converted to ios Nodes, evaluated in order, and the graph outputs compared with
// the expected tensors (float: abs 1e-5 + rel 1e-4; integers and bools exactly). The reference
// suite evaluates each node with EvaluateReference; the CPU suite runs it as a CPU plan would
// (CreateCpuKernel on two threads, with its output types from shape inference and the test's
// initializers as constants), whichever of its own kernel or the reference fallback that picks.
//
// Entries "onnx-pip:NAME" name tests of ops newer than libonnx-testdata (onnx 1.12, opset 17),
// such as Gelu (opset 20): scripts/onnx_node_testdata.py writes them from the installed Python
// onnx package into BUILD/onnx-node-tests/node (the ctest fixture onnx_node_data.generate runs
// it first). They run as the OnnxPipNodeTests instance and skip, saying so, when the folder is
// missing.
//
// To regenerate the list, run the disabled survey, which tries every node test whose ops all
// have a reference kernel:
//   ios_tests --gtest_also_run_disabled_tests --gtest_filter='*ConformanceSurvey*'
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/reference/reference_kernels.h"
#include "one_node_graph.h"
#include "onnx/attribute_proto.h"
#include "onnx/tensor_proto.h"
#include "runtime/cpu/kernels/cpu_kernel.h"
#include "test_paths.h"

namespace ios {
namespace {

namespace fs = std::filesystem;

const char* const kNodeTestDir = IOS_ONNX_NODE_TEST_DIR;
const char* const kPipNodeTestDir = IOS_ONNX_PIP_NODE_TEST_DIR;
// The prefix of the expected list's entries that live in kPipNodeTestDir.
const std::string kPipPrefix = "onnx-pip:";

bool IsPipTest(const std::string& name) { return name.rfind(kPipPrefix, 0) == 0; }

std::string ExpectedListPath() {
  return testing::TestSourceDir() + "/tests/onnx_node_tests_expected.txt";
}

// The directory names in the expected list: one per line, '#' starts a comment. `pip` selects
// the "onnx-pip:" entries, or all the others.
std::vector<std::string> LoadExpectedList(bool pip) {
  std::vector<std::string> names;
  std::ifstream in(ExpectedListPath());
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    const size_t begin = line.find_first_not_of(" \t\r");
    if (begin == std::string::npos) continue;
    const size_t end = line.find_last_not_of(" \t\r");
    std::string name = line.substr(begin, end - begin + 1);
    if (IsPipTest(name) == pip) names.push_back(name);
  }
  return names;
}

StatusOr<onnx::ModelProto> LoadModel(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return IoError("cannot open " + path);
  onnx::ModelProto model;
  if (!model.ParseFromIstream(&in)) return InvalidInput(path + " is not a ModelProto");
  return model;
}

int64_t DefaultDomainOpset(const onnx::ModelProto& model) {
  for (const auto& opset : model.opset_import())
    if (opset.domain().empty() || opset.domain() == "ai.onnx") return opset.version();
  return 0;
}

StatusOr<Node> NodeFromOnnx(const onnx::NodeProto& proto, int64_t opset) {
  if (!proto.domain().empty() && proto.domain() != "ai.onnx")
    return Unsupported("node domain '" + proto.domain() + "'");
  Node node;
  node.name = proto.name();
  node.op_type = proto.op_type();
  node.opset = opset;
  for (const auto& attr : proto.attribute()) {
    auto value = AttributeFromProto(attr, "node '" + proto.name() + "'");
    if (!value.ok()) return value.status();
    node.attrs.Set(attr.name(), std::move(value).value());
  }
  return node;
}

// Empty when the tensors agree; otherwise what differs.
std::string CompareTensors(const Tensor& expected, const Tensor& actual) {
  if (expected.dtype() != actual.dtype())
    return "dtype " + DTypeName(actual.dtype()) + ", expected " + DTypeName(expected.dtype());
  if (expected.dims() != actual.dims())
    return "dims " + DimsToString(actual.dims()) + ", expected " + DimsToString(expected.dims());
  const bool is_float = expected.dtype() == DType::kFloat32 || expected.dtype() == DType::kFloat64;
  if (!is_float) {
    if (expected.num_bytes() != actual.num_bytes() ||
        (expected.num_bytes() > 0 &&
         std::memcmp(expected.raw(), actual.raw(), expected.num_bytes()) != 0)) {
      for (int64_t i = 0; i < expected.num_elements(); ++i)
        if (expected.IntAt(i) != actual.IntAt(i))
          return "element " + std::to_string(i) + " is " + std::to_string(actual.IntAt(i)) +
                 ", expected " + std::to_string(expected.IntAt(i));
      return "bytes differ";
    }
    return "";
  }
  for (int64_t i = 0; i < expected.num_elements(); ++i) {
    const double e = expected.FloatAt(i);
    const double a = actual.FloatAt(i);
    if (std::isnan(e) && std::isnan(a)) continue;
    if (std::isinf(e) && e == a) continue;
    if (!(std::fabs(a - e) <= 1e-5 + 1e-4 * std::fabs(e))) {
      std::ostringstream message;
      message.precision(9);
      message << "element " << i << " is " << a << ", expected " << e;
      return message.str();
    }
  }
  return "";
}

// The node on the CPU backend, as a plan runs it: CreateCpuKernel with the node's output types
// from shape inference, two threads. Inputs that models carry as constants are constants: the
// test's initializers and the integer inputs after the first (pads, shapes, axes, repeats, which
// the node tests feed as graph inputs); when shape inference needs more (Clip's bounds), every
// input after the first.
class CpuNode : public testing::OneNodeBuilder<CpuNode> {
 public:
  explicit CpuNode(const Node& node)
      : OneNodeBuilder(node.op_type, node.opset, "node test"), source_(node) {}

  // Input `value` (null: omitted), and whether the test holds it as an initializer.
  void Add(const Tensor* value, bool initializer) { sources_.push_back({value, initializer}); }

  Status Run(std::vector<Tensor>* outputs) {
    outputs_ = static_cast<int>(outputs->size());
    Graph graph;
    NodeId id = kNoNode;
    Status inferred = Build(Constants::kInitializersAndIntegers, &graph, &id);
    if (!inferred.ok()) inferred = Build(Constants::kAllButTheFirst, &graph, &id);
    if (!inferred.ok()) inferred = Build(Constants::kAll, &graph, &id);
    if (!inferred.ok()) return Unsupported("no CPU plan holds this node: " + inferred.message());
    const Node& node = graph.nodes[id];
    IOS_ASSIGN_OR_RETURN(std::unique_ptr<CpuKernel> kernel,
                         CreateCpuKernel(MakeCpuKernelContext(graph, node)));
    std::vector<const void*> inputs;
    // An empty tensor still has an address in a plan's arena.
    static const uint64_t kEmpty = 0;
    for (const Source& source : sources_)
      inputs.push_back(source.value == nullptr       ? nullptr
                       : source.value->num_bytes() > 0 ? static_cast<const void*>(source.value->raw())
                                                       : &kEmpty);
    std::vector<void*> buffers;
    for (size_t o = 0; o < outputs->size(); ++o) {
      const Value& out = graph.values[node.outputs[o]];
      (*outputs)[o] = Tensor(out.dtype, out.dims);
      static uint64_t empty_output = 0;
      buffers.push_back((*outputs)[o].num_bytes() > 0 ? static_cast<void*>((*outputs)[o].raw())
                                                      : &empty_output);
    }
    return kernel->Run(inputs, buffers, /*threads=*/2);
  }

 private:
  struct Source {
    const Tensor* value;
    bool initializer;
  };

  enum class Constants { kInitializersAndIntegers, kAllButTheFirst, kAll };

  // The one-node graph with its output types inferred.
  Status Build(Constants constants, Graph* graph, NodeId* id) {
    graph_ = Graph();
    graph_.opset = source_.opset;
    node_.inputs.clear();
    node_.attrs = source_.attrs;
    node_.name = source_.name;
    values_.clear();
    for (size_t i = 0; i < sources_.size(); ++i) {
      const Source& source = sources_[i];
      if (source.value == nullptr) {
        Omitted();
        continue;
      }
      const DType dtype = source.value->dtype();
      const bool integer = dtype == DType::kInt64 || dtype == DType::kInt32;
      const bool constant = source.initializer || constants == Constants::kAll ||
                            (i > 0 && (integer || constants == Constants::kAllButTheFirst));
      Input(*source.value, constant);
    }
    *graph = graph_;
    return AddNode(*graph, id);
  }

  Node source_;
  std::vector<Source> sources_;
};

enum class Backend { kReference, kCpu };

struct NodeTestOutcome {
  Status status;         // not ok: the test could not run (unsupported, bad data, kernel error)
  std::string mismatch;  // non-empty: it ran and an output differs
};

// A bare name is a directory of data/node; "pytorch-converted/test_X" and the like name a
// directory under data/ (the same format, exported by older PyTorch at opset 6);
// "onnx-pip:test_X" is a directory of kPipNodeTestDir.
fs::path TestDirectory(const std::string& name) {
  if (IsPipTest(name)) return fs::path(kPipNodeTestDir) / name.substr(kPipPrefix.size());
  if (name.find('/') != std::string::npos) return fs::path(kNodeTestDir).parent_path() / name;
  return fs::path(kNodeTestDir) / name;
}

// Runs every test_data_set_* of one node test directory.
NodeTestOutcome RunNodeTest(const std::string& name, Backend backend = Backend::kReference) {
  const fs::path dir = TestDirectory(name);
  auto model = LoadModel((dir / "model.onnx").string());
  if (!model.ok()) return {model.status(), ""};
  const onnx::GraphProto& graph = model->graph();
  const int64_t opset = DefaultDomainOpset(*model);

  std::vector<fs::path> data_sets;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_directory() && entry.path().filename().string().rfind("test_data_set_", 0) == 0)
      data_sets.push_back(entry.path());
  std::sort(data_sets.begin(), data_sets.end());
  if (data_sets.empty()) return {IoError("no test_data_set_* in " + dir.string()), ""};

  for (const auto& value : graph.input())
    if (!value.type().has_tensor_type())
      return {Unsupported("graph input '" + value.name() + "' is not a tensor"), ""};
  for (const auto& value : graph.output())
    if (!value.type().has_tensor_type())
      return {Unsupported("graph output '" + value.name() + "' is not a tensor"), ""};

  for (const fs::path& data_set : data_sets) {
    std::map<std::string, Tensor> values;
    for (const auto& init : graph.initializer()) {
      auto tensor = TensorFromProto(init, "initializer '" + init.name() + "'");
      if (!tensor.ok()) return {tensor.status(), ""};
      values[init.name()] = std::move(tensor).value();
    }
    for (int i = 0; i < graph.input_size(); ++i) {
      const fs::path file = data_set / ("input_" + std::to_string(i) + ".pb");
      if (!fs::exists(file)) continue;  // an initializer-backed input
      auto tensor = ReadTensorFile(file.string());
      if (!tensor.ok()) return {tensor.status(), ""};
      values[graph.input(i).name()] = std::move(tensor).value();
    }
    std::set<std::string> initializers;
    for (const auto& init : graph.initializer()) initializers.insert(init.name());
    for (const onnx::NodeProto& proto : graph.node()) {
      auto node = NodeFromOnnx(proto, opset);
      if (!node.ok()) return {node.status().WithContext(proto.op_type()), ""};
      std::vector<const Tensor*> inputs;
      CpuNode cpu_node(*node);
      for (const std::string& input : proto.input()) {
        if (input.empty()) {
          inputs.push_back(nullptr);
          cpu_node.Add(nullptr, false);
          continue;
        }
        auto it = values.find(input);
        if (it == values.end()) return {InvalidInput("no value for input '" + input + "'"), ""};
        inputs.push_back(&it->second);
        cpu_node.Add(&it->second, /*initializer=*/initializers.count(input) > 0);
      }
      std::vector<Tensor> outputs(static_cast<size_t>(proto.output_size()));
      Status status = backend == Backend::kCpu ? cpu_node.Run(&outputs)
                                               : EvaluateReference(*node, inputs, &outputs);
      if (!status.ok()) return {status, ""};
      for (int i = 0; i < proto.output_size(); ++i)
        if (!proto.output(i).empty()) values[proto.output(i)] = std::move(outputs[i]);
    }
    for (int i = 0; i < graph.output_size(); ++i) {
      const fs::path file = data_set / ("output_" + std::to_string(i) + ".pb");
      auto expected = ReadTensorFile(file.string());
      if (!expected.ok()) return {expected.status(), ""};
      auto it = values.find(graph.output(i).name());
      if (it == values.end())
        return {Internal("output '" + graph.output(i).name() + "' was not computed"), ""};
      std::string diff = CompareTensors(*expected, it->second);
      if (!diff.empty())
        return {Status::Ok(),
                data_set.filename().string() + " output '" + graph.output(i).name() + "': " + diff};
    }
  }
  return {Status::Ok(), ""};
}

class OnnxNodeConformanceTest : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxNodeConformanceTest, MatchesOnnxExpectedOutputs) {
  if (IsPipTest(GetParam())) {
    if (!fs::exists(kPipNodeTestDir))
      GTEST_SKIP() << "no node tests from the Python onnx package at " << kPipNodeTestDir
                   << " (the onnx_node_data.generate fixture writes them: see "
                      "scripts/onnx_node_testdata.py; without the onnx package it cannot)";
  } else if (!fs::exists(kNodeTestDir)) {
    GTEST_SKIP() << "ONNX node tests not installed at " << kNodeTestDir;
  }
  NodeTestOutcome outcome = RunNodeTest(GetParam());
  ASSERT_TRUE(outcome.status.ok()) << outcome.status.message();
  EXPECT_EQ(outcome.mismatch, "");
}

class OnnxNodeCpuConformanceTest : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxNodeCpuConformanceTest, CpuBackendMatchesOnnxExpectedOutputs) {
  if (IsPipTest(GetParam())) {
    if (!fs::exists(kPipNodeTestDir)) GTEST_SKIP() << "no node tests at " << kPipNodeTestDir;
  } else if (!fs::exists(kNodeTestDir)) {
    GTEST_SKIP() << "ONNX node tests not installed at " << kNodeTestDir;
  }
  NodeTestOutcome outcome = RunNodeTest(GetParam(), Backend::kCpu);
  // Nodes no plan can hold (training-mode Dropout, legacy broadcasting, MaxPool's indices):
  // the reference suite covers them.
  if (outcome.status.code() == StatusCode::kUnsupported &&
      outcome.status.message().find("no CPU plan holds this node") != std::string::npos)
    GTEST_SKIP() << outcome.status.message();
  ASSERT_TRUE(outcome.status.ok()) << outcome.status.message();
  EXPECT_EQ(outcome.mismatch, "");
}

std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(OnnxNodeTests, OnnxNodeConformanceTest,
                         ::testing::ValuesIn(LoadExpectedList(/*pip=*/false)), TestName);
INSTANTIATE_TEST_SUITE_P(OnnxPipNodeTests, OnnxNodeConformanceTest,
                         ::testing::ValuesIn(LoadExpectedList(/*pip=*/true)), TestName);
INSTANTIATE_TEST_SUITE_P(OnnxNodeTests, OnnxNodeCpuConformanceTest,
                         ::testing::ValuesIn(LoadExpectedList(/*pip=*/false)), TestName);
INSTANTIATE_TEST_SUITE_P(OnnxPipNodeTests, OnnxNodeCpuConformanceTest,
                         ::testing::ValuesIn(LoadExpectedList(/*pip=*/true)), TestName);

TEST(OnnxNodeConformanceListTest, ExpectedListIsNotEmpty) {
  EXPECT_FALSE(LoadExpectedList(false).empty()) << "cannot read " << ExpectedListPath();
  EXPECT_FALSE(LoadExpectedList(true).empty()) << "no onnx-pip: entries in " << ExpectedListPath();
}

// Tries every node test whose ops all have a reference kernel and prints one line per test:
// PASS, FAIL (an output differs) or ERROR (with the status). Used to regenerate the list.
TEST(DISABLED_OnnxNodeConformanceSurvey, RunsEveryNodeTestOfSupportedOps) {
  if (!fs::exists(kNodeTestDir)) GTEST_SKIP() << "ONNX node tests not installed";
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kNodeTestDir))
    names.push_back(entry.path().filename().string());
  for (const char* extra : {"pytorch-converted", "pytorch-operator", "simple"}) {
    const fs::path dir = fs::path(kNodeTestDir).parent_path() / extra;
    if (!fs::exists(dir)) continue;
    for (const auto& entry : fs::directory_iterator(dir))
      names.push_back(std::string(extra) + "/" + entry.path().filename().string());
  }
  if (fs::exists(kPipNodeTestDir)) {
    for (const auto& entry : fs::directory_iterator(kPipNodeTestDir))
      names.push_back(kPipPrefix + entry.path().filename().string());
  } else {
    std::printf("SURVEY (no onnx-pip tests: %s is missing)\n", kPipNodeTestDir);
  }
  std::sort(names.begin(), names.end());
  int pass = 0, total = 0;
  for (const std::string& name : names) {
    auto model = LoadModel((TestDirectory(name) / "model.onnx").string());
    if (!model.ok()) continue;
    bool all_supported = model->graph().node_size() > 0;
    std::string ops;
    for (const auto& node : model->graph().node()) {
      all_supported = all_supported && FindReferenceKernel(node.op_type()) != nullptr;
      if (ops.find(node.op_type()) == std::string::npos)
        ops += (ops.empty() ? "" : ",") + node.op_type();
    }
    if (!all_supported) continue;
    ++total;
    NodeTestOutcome outcome = RunNodeTest(name);
    std::string verdict = "PASS";
    if (!outcome.status.ok()) {
      verdict = "ERROR " + outcome.status.message();
    } else if (!outcome.mismatch.empty()) {
      verdict = "FAIL " + outcome.mismatch;
    } else {
      ++pass;
    }
    std::printf("SURVEY %s [%s] %s\n", name.c_str(), ops.c_str(), verdict.c_str());
  }
  std::printf("SURVEY passed %d of %d\n", pass, total);
}

}  // namespace
}  // namespace ios

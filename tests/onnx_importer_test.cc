#include "onnx/onnx_importer.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "util/sha256.h"

namespace ios {
namespace {

// A one-Relu model whose input has the given dims (a string is a symbolic dim).
onnx::ModelProto ReluModel(const std::vector<std::string>& dims, int64_t opset = 13) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  auto* op = model.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  auto* graph = model.mutable_graph();
  auto* input = graph->add_input();
  input->set_name("x");
  auto* type = input->mutable_type()->mutable_tensor_type();
  type->set_elem_type(onnx::TensorProto::FLOAT);
  for (const std::string& d : dims) {
    auto* dim = type->mutable_shape()->add_dim();
    if (std::isdigit(static_cast<unsigned char>(d[0])) || d[0] == '-')
      dim->set_dim_value(std::stoll(d));
    else
      dim->set_dim_param(d);
  }
  auto* node = graph->add_node();
  node->set_name("relu");
  node->set_op_type("Relu");
  node->add_input("x");
  node->add_output("y");
  graph->add_output()->set_name("y");
  return model;
}

StatusOr<Graph> Import(const onnx::ModelProto& model, int64_t batch = 1) {
  ImportOptions options;
  options.batch = batch;
  return ImportOnnxBytes(model.SerializeAsString(), "model.onnx", options);
}

TEST(OnnxImporterTest, BatchReplacesDimensionZeroAndItsSymbolElsewhere) {
  auto graph = Import(ReluModel({"N", "3", "N", "5"}), 4);
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  EXPECT_EQ(graph->values[graph->inputs[0]].dims, (Dims{4, 3, 4, 5}));
  auto numeric = Import(ReluModel({"7", "3"}), 2);
  ASSERT_TRUE(numeric.ok());
  EXPECT_EQ(numeric->values[numeric->inputs[0]].dims, (Dims{2, 3}));
}

TEST(OnnxImporterTest, OpsetRangeIsEnforced) {
  EXPECT_TRUE(Import(ReluModel({"N", "3"}, 7)).ok());
  EXPECT_TRUE(Import(ReluModel({"N", "3"}, 21)).ok());
  EXPECT_TRUE(Import(ReluModel({"N", "3"}, kMaxSupportedOpset)).ok());
  auto too_new = Import(ReluModel({"N", "3"}, kMaxSupportedOpset + 1));
  ASSERT_FALSE(too_new.ok());
  EXPECT_NE(too_new.status().message().find("opset " + std::to_string(kMaxSupportedOpset + 1)),
            std::string::npos);
  EXPECT_NE(too_new.status().message().find("7.." + std::to_string(kMaxSupportedOpset)),
            std::string::npos)
      << too_new.status().message();
  EXPECT_FALSE(Import(ReluModel({"N", "3"}, 6)).ok());
}

TEST(OnnxImporterTest, ConstantNodesAndLegacyInitializerInputsBecomeConstants) {
  onnx::ModelProto model = ReluModel({"N", "2"}, 9);
  auto* graph = model.mutable_graph();
  // IR 3 style: the initializer is listed among the inputs too.
  auto* init = graph->add_initializer();
  init->set_name("w");
  init->set_data_type(onnx::TensorProto::FLOAT);
  init->add_dims(2);
  init->add_float_data(1.5f);
  init->add_float_data(-2.f);
  graph->add_input()->set_name("w");
  auto* constant = graph->add_node();
  constant->set_op_type("Constant");
  constant->add_output("c");
  auto* attr = constant->add_attribute();
  attr->set_name("value_ints");
  attr->set_type(onnx::AttributeProto::INTS);
  attr->add_ints(3);
  auto* add = graph->add_node();
  add->set_name("add");
  add->set_op_type("Add");
  add->add_input("y");
  add->add_input("w");
  add->add_output("z");
  graph->mutable_output(0)->set_name("z");
  auto imported = Import(model);
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  EXPECT_EQ(imported->inputs.size(), 1u);  // w is a constant, not a runtime input
  ValueId w = imported->FindValue("w");
  ASSERT_TRUE(imported->values[w].constant.has_value());
  EXPECT_FLOAT_EQ(imported->values[w].constant->data<float>()[1], -2.f);
  ValueId c = imported->FindValue("c");
  ASSERT_NE(c, kNoValue);
  EXPECT_EQ(imported->values[c].constant->ToInt64Vector(), (std::vector<int64_t>{3}));
  EXPECT_EQ(imported->nodes.size(), 2u);  // the Constant node became a value
}

TEST(OnnxImporterTest, EveryUnsupportedNodeIsListed) {
  onnx::ModelProto model = ReluModel({"N", "3"});
  for (const char* op : {"LSTM", "Einsum"}) {
    auto* node = model.mutable_graph()->add_node();
    node->set_name(std::string("my_") + op);
    node->set_op_type(op);
    node->add_input("y");
    node->add_output(std::string("out_") + op);
  }
  auto graph = Import(model);
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.status().code(), StatusCode::kUnsupported);
  const std::string& message = graph.status().message();
  EXPECT_NE(message.find("2 node(s)"), std::string::npos) << message;
  EXPECT_NE(message.find("'my_LSTM': LSTM (opset 13)"), std::string::npos) << message;
  EXPECT_NE(message.find("'my_Einsum': Einsum (opset 13)"), std::string::npos) << message;
}

TEST(OnnxImporterTest, GarbageIsNotAModel) {
  ImportOptions options;
  auto graph =
      ImportOnnxBytes(std::string("\x08\x01 hello, not onnx at all", 24), "junk.onnx", options);
  ASSERT_FALSE(graph.ok());
  EXPECT_NE(graph.status().message().find("junk.onnx: not a valid ONNX model"), std::string::npos);
}

std::string WriteTempFile(const std::string& name, const std::string& bytes) {
  const std::string path =
      ::testing::TempDir() + "ios_importer_test_" + std::to_string(::getpid()) + "_" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// A file several times the importer's read size: it is parsed and hashed in pieces.
TEST(OnnxImporterTest, AFileIsHashedAsItIsParsed) {
  onnx::ModelProto model = ReluModel({"N", "3"});
  onnx::TensorProto* weight = model.mutable_graph()->add_initializer();
  weight->set_name("w");
  weight->set_data_type(onnx::TensorProto::FLOAT);
  const int64_t count = (int64_t{3} << 20) / 4 + 5;
  weight->add_dims(count);
  std::vector<float> values(static_cast<size_t>(count));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 1000) - 500.f;
  weight->set_raw_data(values.data(), values.size() * sizeof(float));
  const std::string bytes = model.SerializeAsString();
  const std::string path = WriteTempFile("hashed.onnx", bytes);

  std::string digest;
  auto graph = ImportOnnxFile(path, ImportOptions{}, &digest);
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  EXPECT_EQ(digest, Sha256Hex(bytes));
  const ValueId w = graph->FindValue("w");
  ASSERT_NE(w, kNoValue);
  const Tensor& tensor = *graph->values[w].constant;
  ASSERT_EQ(tensor.num_elements(), count);
  EXPECT_EQ(tensor.data<float>()[count - 1], values.back());
  EXPECT_TRUE(ImportOnnxFile(path, ImportOptions{}).ok()) << "the digest is optional";

  // A model the importer refuses still has its digest: the caller can tell another model.
  auto* lstm = model.mutable_graph()->add_node();
  lstm->set_op_type("LSTM");
  lstm->add_input("y");
  lstm->add_output("z");
  const std::string refused_bytes = model.SerializeAsString();
  const std::string refused = WriteTempFile("refused.onnx", refused_bytes);
  digest.clear();
  auto unsupported = ImportOnnxFile(refused, ImportOptions{}, &digest);
  ASSERT_FALSE(unsupported.ok());
  EXPECT_EQ(unsupported.status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(digest, Sha256Hex(refused_bytes));
  std::remove(path.c_str());
  std::remove(refused.c_str());
}

TEST(OnnxImporterTest, UnreadableFilesNameTheirProblem) {
  const std::string junk = WriteTempFile("junk.onnx", std::string("\x08\x01 hello, not onnx"));
  std::string digest;
  auto garbage = ImportOnnxFile(junk, ImportOptions{}, &digest);
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(garbage.status().message().find(junk + ": not a valid ONNX model"), std::string::npos)
      << garbage.status().message();
  EXPECT_EQ(digest, "");

  const std::string empty = WriteTempFile("empty.onnx", "");
  auto nothing = ImportOnnxFile(empty, ImportOptions{}, &digest);
  ASSERT_FALSE(nothing.ok());
  EXPECT_NE(nothing.status().message().find("the file is empty"), std::string::npos)
      << nothing.status().message();

  const std::string placeholder = WriteTempFile("folder.onnx", "");
  const std::string folder = placeholder + ".d";
  std::filesystem::create_directory(folder);
  auto directory = ImportOnnxFile(folder, ImportOptions{}, &digest);
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.status().code(), StatusCode::kIoError);
  EXPECT_NE(directory.status().message().find(folder + ": read failed"), std::string::npos)
      << directory.status().message();

  auto missing = ImportOnnxFile(folder + "/absent.onnx", ImportOptions{}, &digest);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("cannot open"), std::string::npos)
      << missing.status().message();
  std::remove(junk.c_str());
  std::remove(empty.c_str());
  std::remove(placeholder.c_str());
  std::filesystem::remove(folder);
}

}  // namespace
}  // namespace ios

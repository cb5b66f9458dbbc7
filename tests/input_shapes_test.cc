// Input shapes at import: --batch for dimension 0, --input-shape (ImportOptions::input_shapes)
// for whole shapes, symbols that carry a value from one input to another, and the errors for a
// dimension left free, an unknown input, a wrong rank and a shape that contradicts the model.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

#include "onnx/onnx_importer.h"
#include "onnx/shape_spec.h"

namespace ios {
namespace {

// Add(a, b) -> y; each dim is a number or a symbol.
onnx::ModelProto AddModel(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  auto* opset = model.add_opset_import();
  opset->set_version(17);
  auto* graph = model.mutable_graph();
  for (const auto& [name, dims] : {std::pair{"a", a}, std::pair{"b", b}}) {
    auto* input = graph->add_input();
    input->set_name(name);
    auto* type = input->mutable_type()->mutable_tensor_type();
    type->set_elem_type(onnx::TensorProto::FLOAT);
    for (const std::string& d : dims) {
      auto* dim = type->mutable_shape()->add_dim();
      if (std::isdigit(static_cast<unsigned char>(d[0])))
        dim->set_dim_value(std::stoll(d));
      else if (!d.empty() && d != "?")
        dim->set_dim_param(d);
    }
  }
  auto* node = graph->add_node();
  node->set_name("add");
  node->set_op_type("Add");
  node->add_input("a");
  node->add_input("b");
  node->add_output("y");
  graph->add_output()->set_name("y");
  return model;
}

StatusOr<Graph> Import(const onnx::ModelProto& model, std::map<std::string, Dims> shapes = {},
                       int64_t batch = 1) {
  ImportOptions options;
  options.batch = batch;
  options.input_shapes = std::move(shapes);
  return ImportOnnxBytes(model.SerializeAsString(), "model.onnx", options);
}

Dims InputDims(const Graph& graph, size_t i) { return graph.values[graph.inputs[i]].dims; }

std::string MessageOf(const StatusOr<Graph>& graph) {
  return graph.ok() ? "(imported)" : graph.status().message();
}

TEST(InputShapesTest, BatchFixesDimensionZeroAndItsSymbolEverywhere) {
  auto graph = Import(AddModel({"N", "3", "8"}, {"N", "3", "8"}), {}, 4);
  ASSERT_TRUE(graph.ok()) << MessageOf(graph);
  EXPECT_EQ(InputDims(*graph, 0), (Dims{4, 3, 8}));
  EXPECT_EQ(InputDims(*graph, 1), (Dims{4, 3, 8}));
}

TEST(InputShapesTest, BatchReplacesOnlyTheStaticDimensionsZeroThatAreTheBatch) {
  // A static batch of 1 on both inputs is the model's batch: both take --batch.
  auto both = Import(AddModel({"1", "3"}, {"1", "3"}), {}, 8);
  ASSERT_TRUE(both.ok()) << MessageOf(both);
  EXPECT_EQ(InputDims(*both, 0), (Dims{8, 3}));
  EXPECT_EQ(InputDims(*both, 1), (Dims{8, 3}));
  // Beside a symbolic batch, a static dimension 0 is not the batch: [1, 3] broadcasts.
  auto mixed = Import(AddModel({"N", "3"}, {"1", "3"}), {}, 8);
  ASSERT_TRUE(mixed.ok()) << MessageOf(mixed);
  EXPECT_EQ(InputDims(*mixed, 0), (Dims{8, 3}));
  EXPECT_EQ(InputDims(*mixed, 1), (Dims{1, 3}));
  // All static: one that differs from the first input's dimension 0 keeps its own.
  auto other = Import(AddModel({"4", "3"}, {"1", "3"}), {}, 2);
  ASSERT_TRUE(other.ok()) << MessageOf(other);
  EXPECT_EQ(InputDims(*other, 0), (Dims{2, 3}));
  EXPECT_EQ(InputDims(*other, 1), (Dims{1, 3}));
  // The batch is that of the input of the highest rank: a [2] operand first does not decide it.
  auto images = Import(AddModel({"2"}, {"1", "3", "2"}), {}, 5);
  ASSERT_TRUE(images.ok()) << MessageOf(images);
  EXPECT_EQ(InputDims(*images, 0), (Dims{2}));
  EXPECT_EQ(InputDims(*images, 1), (Dims{5, 3, 2}));
}

TEST(InputShapesTest, AGivenShapeFixesItsSymbolsForTheOtherInputs) {
  // Detection-style free H and W: fixing them on `a` fixes them on `b` too, and a's batch
  // symbol carries over as well.
  auto graph = Import(AddModel({"N", "3", "height", "width"}, {"N", "1", "height", "width"}),
                      {{"a", {2, 3, 480, 640}}});
  ASSERT_TRUE(graph.ok()) << MessageOf(graph);
  EXPECT_EQ(InputDims(*graph, 0), (Dims{2, 3, 480, 640}));
  EXPECT_EQ(InputDims(*graph, 1), (Dims{2, 1, 480, 640}));
}

TEST(InputShapesTest, AFreeDimensionNamesTheInputTheDimensionItsSymbolAndTheFlag) {
  auto graph = Import(AddModel({"N", "3", "height", "32"}, {"N", "3", "height", "32"}));
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.status().code(), StatusCode::kInvalidInput);
  const std::string message = graph.status().message();
  EXPECT_NE(message.find("input 'a': dimension 2 (the symbol 'height') is free"), std::string::npos)
      << message;
  EXPECT_NE(message.find("--input-shape a:1x3x<height>x32"), std::string::npos) << message;
  // An unnamed unknown dimension too.
  auto unnamed = Import(AddModel({"N", "?"}, {"N", "4"}));
  ASSERT_FALSE(unnamed.ok());
  EXPECT_NE(MessageOf(unnamed).find("dimension 1 (unnamed) is free"), std::string::npos)
      << MessageOf(unnamed);
}

TEST(InputShapesTest, GivenShapesWinOverASymbolTheyGiveTwoValues) {
  // ONNX says one symbol is one value, but the shapes the user gives are used as given; the
  // symbol then binds nothing else.
  auto graph = Import(AddModel({"N", "L"}, {"N", "L"}), {{"a", {1, 5}}, {"b", {1, 6}}});
  ASSERT_TRUE(graph.ok()) << MessageOf(graph);
  EXPECT_EQ(InputDims(*graph, 0), (Dims{1, 5}));
  EXPECT_EQ(InputDims(*graph, 1), (Dims{1, 6}));
  // A second input that would take 'L' from such shapes is free.
  auto free = Import(AddModel({"L", "L"}, {"N", "L"}), {{"a", {5, 6}}});
  ASSERT_FALSE(free.ok());
  EXPECT_NE(MessageOf(free).find("input 'b': dimension 1 (the symbol 'L') is free"),
            std::string::npos)
      << MessageOf(free);
}

TEST(InputShapesTest, AQuestionMarkNamesNoDimension) {
  // paddle2onnx writes "?" for every free dimension: two of them need not be equal.
  auto graph = Import(AddModel({"N", "3", "?", "?"}, {"N", "3", "?", "?"}),
                      {{"a", {1, 3, 48, 192}}, {"b", {1, 3, 48, 192}}});
  ASSERT_TRUE(graph.ok()) << MessageOf(graph);
  EXPECT_EQ(InputDims(*graph, 0), (Dims{1, 3, 48, 192}));
  auto free = Import(AddModel({"N", "3", "?", "?"}, {"N", "3", "8", "8"}), {{"a", {1, 3, 8, 8}}});
  EXPECT_TRUE(free.ok()) << MessageOf(free);  // b is static; a's "?"s bound nothing
  auto unnamed = Import(AddModel({"N", "3", "?", "8"}, {"N", "3", "8", "8"}));
  ASSERT_FALSE(unnamed.ok());
  EXPECT_NE(MessageOf(unnamed).find("dimension 2 (unnamed) is free"), std::string::npos)
      << MessageOf(unnamed);
}

TEST(InputShapesTest, UnknownInputWrongRankAndContradictionsAreRefused) {
  const onnx::ModelProto model = AddModel({"N", "3", "H", "W"}, {"N", "3", "H", "W"});
  auto unknown = Import(model, {{"images", {1, 3, 8, 8}}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(MessageOf(unknown).find("'images', which is not an input of the model (its "
                                    "inputs: 'a', 'b')"),
            std::string::npos)
      << MessageOf(unknown);
  auto rank = Import(model, {{"a", {1, 3, 8}}});
  ASSERT_FALSE(rank.ok());
  EXPECT_NE(MessageOf(rank).find("input 'a' has rank 4"), std::string::npos) << MessageOf(rank);
  auto contradiction = Import(model, {{"a", {1, 4, 8, 8}}});
  ASSERT_FALSE(contradiction.ok());
  EXPECT_NE(MessageOf(contradiction).find("contradicts the model's static dimension 1 (3)"),
            std::string::npos)
      << MessageOf(contradiction);
  auto zero = Import(model, {{"a", {1, 3, 0, 8}}});
  EXPECT_FALSE(zero.ok());
  // Dimension 0 may change, as --batch changes a static batch.
  auto batch = Import(AddModel({"1", "3"}, {"1", "3"}), {{"a", {8, 3}}}, 8);
  ASSERT_TRUE(batch.ok()) << MessageOf(batch);
  EXPECT_EQ(InputDims(*batch, 0), (Dims{8, 3}));
  EXPECT_EQ(InputDims(*batch, 1), (Dims{8, 3}));
}

TEST(InputShapeSpecTest, ParsesNameAndDims) {
  auto spec = ParseInputShapeSpec("images:1x3x640x640");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->first, "images");
  EXPECT_EQ(spec->second, (Dims{1, 3, 640, 640}));
  auto colon = ParseInputShapeSpec("input:0:2x5");  // the name keeps its colon
  ASSERT_TRUE(colon.ok());
  EXPECT_EQ(colon->first, "input:0");
  EXPECT_EQ(colon->second, (Dims{2, 5}));
  auto scalar = ParseInputShapeSpec("t:");
  ASSERT_TRUE(scalar.ok());
  EXPECT_TRUE(scalar->second.empty());
  for (const char* bad :
       {"images", ":1x3", "x:1x0", "x:1xx3", "x:1x3x", "x:-1x3", "x:1,3", "x:99999999999999x2"}) {
    auto parsed = ParseInputShapeSpec(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidInput) << bad;
  }
}

}  // namespace
}  // namespace ios

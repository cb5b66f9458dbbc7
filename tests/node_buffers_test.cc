#include "runtime/node_buffers.h"

#include <gtest/gtest.h>

#include "runtime/session_inputs.h"
#include "test_graph_builder.h"

namespace ios {
namespace {

using testing::GraphBuilder;

TEST(NodeBuffersTest, ResolvesEveryNodeOnceAndNamesAValueWithoutMemory) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 2, 4, 4});
  ValueId y = b.Op("Relu", {x}, {}, "relu");
  ValueId z = b.Op("Sigmoid", {y}, {}, "sigmoid");
  Graph graph = b.Finish({z});
  std::vector<float> storage(3 * 32);
  std::vector<void*> value_ptr(graph.values.size(), nullptr);
  value_ptr[x] = storage.data();
  value_ptr[y] = storage.data() + 32;
  value_ptr[z] = storage.data() + 64;

  auto buffers = ResolveNodeBuffers(graph, value_ptr);
  ASSERT_TRUE(buffers.ok()) << buffers.status().message();
  ASSERT_EQ(buffers->size(), graph.nodes.size());
  EXPECT_EQ((*buffers)[1].inputs, (std::vector<const void*>{value_ptr[y]}));
  EXPECT_EQ((*buffers)[1].outputs, (std::vector<void*>{value_ptr[z]}));

  value_ptr[z] = nullptr;  // the sigmoid writes a value the plan gave no memory
  auto missing = ResolveNodeBuffers(graph, value_ptr);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("'sigmoid'"), std::string::npos);
  EXPECT_NE(missing.status().message().find("writes"), std::string::npos);
}

TEST(SessionInputsTest, RefusesAWrongCountDtypeOrShape) {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 3});
  Graph graph = b.Finish({b.Op("Relu", {x})});
  EXPECT_TRUE(CheckSessionInputs(graph, {Tensor(DType::kFloat32, {1, 3})}).ok());
  EXPECT_FALSE(CheckSessionInputs(graph, {}).ok());
  Status shape = CheckSessionInputs(graph, {Tensor(DType::kFloat32, {1, 4})});
  ASSERT_FALSE(shape.ok());
  EXPECT_NE(shape.message().find("('x') must be"), std::string::npos) << shape.message();
  EXPECT_FALSE(CheckSessionInputs(graph, {Tensor(DType::kInt64, {1, 3})}).ok());
}

}  // namespace
}  // namespace ios

// External tensor data (onnx/external_data.h): weights in one or several files beside the model,
// at offsets (past 2 GiB too), and the refusals: a location that leaves the model's folder, a
// missing file, data past a file's end, a length that disagrees with the dims, and a model read
// from bytes with no folder. Each error names the file and the tensor.
#include "onnx/external_data.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "onnx/onnx_importer.h"

namespace ios {
namespace {

namespace fs = std::filesystem;

class ExternalDataTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ios_external_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "model");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes `values` as float32 at `offset` of model/<file> (creating or extending it).
  void WriteFloats(const std::string& file, int64_t offset, const std::vector<float>& values) {
    const fs::path path = dir_ / "model" / file;
    if (!fs::exists(path)) std::ofstream(path, std::ios::binary).close();
    std::fstream out(path, std::ios::binary | std::ios::in | std::ios::out);
    out.seekp(offset);
    out.write(reinterpret_cast<const char*>(values.data()),
              static_cast<std::streamsize>(values.size() * sizeof(float)));
  }

  // y = x * w + b for x [1, 4]; w and b are initializers whose data is where `entries` say.
  struct Entry {
    std::string location;
    int64_t offset = -1;  // -1: not written into the model
    int64_t length = -1;
  };
  std::string WriteModel(const Entry& w, const Entry& b) {
    onnx::ModelProto model;
    model.set_ir_version(8);
    model.add_opset_import()->set_version(17);
    auto* graph = model.mutable_graph();
    auto* input = graph->add_input();
    input->set_name("x");
    auto* type = input->mutable_type()->mutable_tensor_type();
    type->set_elem_type(onnx::TensorProto::FLOAT);
    type->mutable_shape()->add_dim()->set_dim_value(1);
    type->mutable_shape()->add_dim()->set_dim_value(4);
    for (const auto& [name, entry] : {std::pair{"w", w}, std::pair{"b", b}}) {
      auto* init = graph->add_initializer();
      init->set_name(name);
      init->set_data_type(onnx::TensorProto::FLOAT);
      init->add_dims(4);
      init->set_data_location(onnx::TensorProto::EXTERNAL);
      auto add = [&](const std::string& key, const std::string& value) {
        auto* kv = init->add_external_data();
        kv->set_key(key);
        kv->set_value(value);
      };
      add("location", entry.location);
      if (entry.offset >= 0) add("offset", std::to_string(entry.offset));
      if (entry.length >= 0) add("length", std::to_string(entry.length));
    }
    for (const auto& [op, a, bb, out] :
         {std::tuple{"Mul", "x", "w", "xw"}, std::tuple{"Add", "xw", "b", "y"}}) {
      auto* node = graph->add_node();
      node->set_op_type(op);
      node->set_name(op);
      node->add_input(a);
      node->add_input(bb);
      node->add_output(out);
    }
    graph->add_output()->set_name("y");
    const std::string path = (dir_ / "model" / "model.onnx").string();
    std::ofstream(path, std::ios::binary) << model.SerializeAsString();
    return path;
  }

  const Tensor& Constant(const Graph& graph, const std::string& name) {
    for (const Value& value : graph.values)
      if (value.name == name && value.constant) return *value.constant;
    ADD_FAILURE() << "no constant " << name;
    static const Tensor empty;
    return empty;
  }

  static std::string MessageOf(const StatusOr<Graph>& graph) {
    return graph.ok() ? "(imported)" : graph.status().message();
  }

  fs::path dir_;
};

TEST_F(ExternalDataTest, ReadsTensorsFromSeveralFilesAtTheirOffsets) {
  WriteFloats("weights.bin", 64, {1, 2, 3, 4});
  fs::create_directories(dir_ / "model" / "sub");  // a subfolder is fine
  WriteFloats("sub/bias.bin", 0, {0.5f, 0.25f, -1, -2});
  const std::string path = WriteModel({"weights.bin", 64, 16}, {"sub/bias.bin", -1, -1});
  auto graph = ImportOnnxFile(path, ImportOptions{});
  ASSERT_TRUE(graph.ok()) << MessageOf(graph);
  const Tensor& w = Constant(*graph, "w");
  const Tensor& b = Constant(*graph, "b");
  ASSERT_EQ(w.num_elements(), 4);
  EXPECT_EQ(std::vector<float>(w.data<float>(), w.data<float>() + 4),
            (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(std::vector<float>(b.data<float>(), b.data<float>() + 4),
            (std::vector<float>{0.5f, 0.25f, -1, -2}));
}

TEST_F(ExternalDataTest, ReadsATensorPastTwoGibibytes) {
  // A sparse file: the tensor lies 3 GiB in, as in a model whose weights pass protobuf's limit.
  const int64_t offset = int64_t{3} << 30;
  WriteFloats("big.data", offset, {9, 8, 7, 6});
  WriteFloats("big.data", 0, {1, 1, 1, 1});
  const std::string path = WriteModel({"big.data", offset, 16}, {"big.data", 0, 16});
  auto graph = ImportOnnxFile(path, ImportOptions{});
  ASSERT_TRUE(graph.ok()) << MessageOf(graph);
  EXPECT_EQ(Constant(*graph, "w").data<float>()[0], 9.f);
  EXPECT_EQ(Constant(*graph, "w").data<float>()[3], 6.f);
}

TEST_F(ExternalDataTest, LocationsOutsideTheModelsFolderAreRefused) {
  WriteFloats("ok.bin", 0, {1, 2, 3, 4});
  std::ofstream(dir_ / "outside.bin", std::ios::binary) << std::string(16, '\0');
  for (const std::string& location :
       {std::string("../outside.bin"), std::string("sub/../../outside.bin"),
        (dir_ / "outside.bin").string()}) {
    auto graph = ImportOnnxFile(WriteModel({location, 0, 16}, {"ok.bin", 0, 16}), {});
    ASSERT_FALSE(graph.ok()) << location;
    EXPECT_EQ(graph.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(MessageOf(graph).find("initializer 'w'"), std::string::npos) << MessageOf(graph);
    EXPECT_NE(MessageOf(graph).find("must lie in the model's folder"), std::string::npos)
        << MessageOf(graph);
  }
  // A symbolic link inside the folder that points out of it.
  fs::create_symlink(dir_ / "outside.bin", dir_ / "model" / "link.bin");
  auto linked = ImportOnnxFile(WriteModel({"link.bin", 0, 16}, {"ok.bin", 0, 16}), {});
  ASSERT_FALSE(linked.ok());
  EXPECT_NE(MessageOf(linked).find("outside"), std::string::npos) << MessageOf(linked);
}

TEST_F(ExternalDataTest, MissingFileShortFileAndWrongLengthNameTheFileAndTensor) {
  WriteFloats("w.bin", 0, {1, 2, 3, 4});
  auto missing = ImportOnnxFile(WriteModel({"w.bin", 0, 16}, {"gone.data", 0, 16}), {});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(MessageOf(missing).find("initializer 'b'"), std::string::npos) << MessageOf(missing);
  EXPECT_NE(MessageOf(missing).find("gone.data is missing"), std::string::npos)
      << MessageOf(missing);

  auto past_end = ImportOnnxFile(WriteModel({"w.bin", 8, -1}, {"w.bin", 0, 16}), {});
  ASSERT_FALSE(past_end.ok());
  EXPECT_NE(MessageOf(past_end).find("initializer 'w'"), std::string::npos);
  EXPECT_NE(MessageOf(past_end).find("runs past the end of"), std::string::npos)
      << MessageOf(past_end);

  auto length = ImportOnnxFile(WriteModel({"w.bin", 0, 12}, {"w.bin", 0, 16}), {});
  ASSERT_FALSE(length.ok());
  EXPECT_NE(MessageOf(length).find("length is 12 bytes, but its type and dims need 16"),
            std::string::npos)
      << MessageOf(length);

  auto no_location = ImportOnnxFile(WriteModel({"", 0, 16}, {"w.bin", 0, 16}), {});
  ASSERT_FALSE(no_location.ok());
  EXPECT_NE(MessageOf(no_location).find("no location"), std::string::npos);
}

TEST_F(ExternalDataTest, BytesWithoutAFolderCannotReadExternalData) {
  WriteFloats("w.bin", 0, {1, 2, 3, 4});
  const std::string path = WriteModel({"w.bin", 0, 16}, {"w.bin", 0, 16});
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto graph = ImportOnnxBytes(bytes, "memory", ImportOptions{});
  ASSERT_FALSE(graph.ok());
  EXPECT_NE(MessageOf(graph).find("its data is external"), std::string::npos) << MessageOf(graph);
  ImportOptions options;
  options.external_data_dir = (dir_ / "model").string();
  EXPECT_TRUE(ImportOnnxBytes(bytes, "memory", options).ok());
}

TEST(ExternalDataRefTest, OffsetAndLengthMustBeNonNegativeIntegers) {
  onnx::TensorProto proto;
  auto* location = proto.add_external_data();
  location->set_key("location");
  location->set_value("w.bin");
  auto* offset = proto.add_external_data();
  offset->set_key("offset");
  for (const char* bad : {"-4", "1e3", "", "0x10", "99999999999999999999"}) {
    offset->set_value(bad);
    EXPECT_FALSE(ParseExternalDataRef(proto, "t").ok()) << bad;
  }
  offset->set_value("4096");
  auto ref = ParseExternalDataRef(proto, "t");
  ASSERT_TRUE(ref.ok());
  EXPECT_EQ(ref->offset, 4096);
  EXPECT_EQ(ref->length, -1);
}

}  // namespace
}  // namespace ios

// The YOLO model front end: which input takes the image and which output is the head, by the
// rules run, compare, calibrate, doctor and the mixed search share.
#include <gtest/gtest.h>

#include "core/error.h"
#include "vision/yolo_model.h"

namespace edgeq {
namespace {

Graph model(std::vector<ValueInfo> inputs, std::vector<ValueInfo> outputs) {
  Graph g;
  g.inputs = std::move(inputs);
  g.outputs = std::move(outputs);
  return g;
}

const ValueInfo kImage{"images", DType::kFloat32, {1, 3, 480, 640}};

TEST(YoloModel, HeadIsOutput0ElseTheOnlyRank3Output) {
  EXPECT_EQ(yolo_head_output(model({kImage}, {{"a", DType::kFloat32, {1, 56, 8400}},
                                              {"output0", DType::kFloat32, {1, 84, 8400}}})),
            "output0");
  EXPECT_EQ(yolo_head_output(model({kImage}, {{"det", DType::kFloat32, {1, 84, 8400}}})), "det");
  EXPECT_FALSE(yolo_head_output(model(
      {kImage}, {{"a", DType::kFloat32, {1, 84, 8400}}, {"b", DType::kFloat32, {1, 84, 8400}}})));
  EXPECT_FALSE(yolo_head_output(model({kImage}, {{"p", DType::kFloat32, {1, 64, 80, 80}}})));
}

TEST(YoloModel, MissingHeadNamesTheOutputs) {
  try {
    require_yolo_head_output(model({kImage}, {{"p", DType::kFloat32, {1, 64, 80, 80}}}));
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("p [1,64,80,80]"), std::string::npos) << e.what();
  }
}

TEST(YoloModel, ImageInputAndItsSize) {
  const Graph g = model({kImage}, {});
  EXPECT_EQ(yolo_image_input(g).name, "images");
  EXPECT_EQ(yolo_input_height(g), 480);
  EXPECT_EQ(yolo_input_width(g), 640);
  EXPECT_EQ(yolo_input_height(model({{"x", DType::kFloat32, {1, 3, -1, -1}}}, {})), 640);
  EXPECT_THROW(yolo_image_input(model({kImage, kImage}, {})), Error);
  EXPECT_THROW(yolo_image_input(model({{"x", DType::kFloat32, {1, 1, 64, 64}}}, {})), Error);
}

}  // namespace
}  // namespace edgeq

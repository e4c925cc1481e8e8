// The public calls the study runs on (include/edgeq): stats_for_arm (edgeq/arm_stats.h) gives an
// arm the statistics calibrating it gives, quantize_model_io (edgeq/quantize_io.h) writes what
// quantize() writes with quantize_io, and compare keeps the detections of the first images.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "edgeq/arm_stats.h"
#include "edgeq/calibrate.h"
#include "edgeq/compare.h"
#include "edgeq/error.h"
#include "edgeq/quantize.h"
#include "edgeq/quantize_io.h"
#include "ir/cut.h"
#include "ir/onnx_io.h"
#include "test_util.h"
#include "vision/synthetic_scenes.h"
#include "zoo/yolo11.h"

namespace edgeq {
namespace {

// A zoo model at 160 pixels, its arm B (backbone and neck: P3, P4, P5) and three scenes.
struct Fixture {
  std::string dir;
  Model full = Model::from_bytes(serialize_onnx(build_yolo11("yolo11n-pose", 160)), "pose");
  Model arm_b = [] {
    CutSpec spec;
    spec.arm = Arm::kB;
    return Model::from_bytes(serialize_onnx(cut_model(build_yolo11("yolo11n-pose", 160), spec)),
                             "arm B");
  }();
  std::shared_ptr<ImageSource> images;
  std::shared_ptr<CalibrationStats> all;  // of the full model
};

const Fixture& fixture() {
  static const Fixture f = [] {
    Fixture f;
    f.dir = test::temp_dir("arm_stats_api");
    write_synthetic_scenes(f.dir + "/images", 3, 5);
    f.images = std::make_shared<ImageSource>(ImageSource::from_path(f.dir + "/images"));
    CalibrateOptions co;
    co.n = 3;
    f.all = std::make_shared<CalibrationStats>(calibrate(f.full, *f.images, co).stats);
    return f;
  }();
  return f;
}

TEST(ArmStatsApi, QuantizesTheArmAsItsOwnCalibrationDoes) {
  const Fixture& f = fixture();
  CalibrateOptions co;
  co.n = 3;
  const CalibrationStats& all = *f.all;
  const CalibrationStats own = calibrate(f.arm_b, *f.images, co).stats;
  const CalibrationStats derived = stats_for_arm(all, f.arm_b);
  EXPECT_EQ(derived.model_sha256(), f.arm_b.sha256());
  EXPECT_EQ(derived.values(), own.values());
  EXPECT_LT(derived.values(), all.values());
  QuantizeOptions q;
  q.scheme = Scheme::kW8A16;
  EXPECT_EQ(quantize(f.arm_b, derived, q).bytes(), quantize(f.arm_b, own, q).bytes());
  // The full model is no cut of its arm: its outputs have no statistics there.
  EXPECT_THROW(stats_for_arm(own, f.full), Error);
}

TEST(ArmStatsApi, QuantizedIoAfterTheFactEqualsQuantizeIo) {
  const Fixture& f = fixture();
  const CalibrationStats& stats = *f.all;
  QuantizeOptions q;
  const Model plain = Model::from_bytes(quantize(f.full, stats, q).bytes(), "q");
  q.quantize_io = QuantizeIo::kBoth;
  const QuantizedModel coded = quantize(f.full, stats, q);
  const Model after = quantize_model_io(plain, stats, QuantizeIo::kBoth);
  EXPECT_EQ(after.bytes(), coded.bytes());
  EXPECT_EQ(after.inputs()[0].dtype, "uint8");
  EXPECT_EQ(quantize_model_io(plain, stats, QuantizeIo::kNone).bytes(), plain.bytes());
  EXPECT_EQ(quantize_model_io(plain, stats).bytes(), after.bytes());  // both: the default
  EXPECT_THROW(quantize_model_io(plain, stats, static_cast<QuantizeIo>(9)), Error);
}

TEST(ArmStatsApi, CompareKeepsTheFirstImagesDetections) {
  const Fixture& f = fixture();
  const Model q = Model::from_bytes(quantize(f.full, *f.all, QuantizeOptions{}).bytes(), "q");
  const std::string images = f.dir + "/images";
  CompareOptions o;
  o.n = 2;
  const nlohmann::json plain = nlohmann::json::parse(compare(f.full, q, images, o).json);
  EXPECT_FALSE(plain.contains("per_image"));
  o.keep_detections = 2;
  const nlohmann::json kept = nlohmann::json::parse(compare(f.full, q, images, o).json);
  ASSERT_EQ(kept["per_image"].size(), 2u);
  for (const auto& im : kept["per_image"]) {
    EXPECT_GT(im["width"].get<int>(), 0);
    for (const char* side : {"ref", "test"})
      for (const auto& d : im[side]) EXPECT_EQ(d["box"].size(), 4u);
    for (const auto& m : im["matches"]) {
      EXPECT_LT(m[0].get<size_t>(), im["ref"].size());
      EXPECT_LT(m[1].get<size_t>(), im["test"].size());
    }
  }
  nlohmann::json without = kept;
  without.erase("per_image");
  EXPECT_EQ(without, plain);
}

}  // namespace
}  // namespace edgeq

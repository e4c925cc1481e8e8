// The field's delivered defect end to end through the CLI, on images where it shows: coco8-pose
// photos shrunk and tiled 3 x 3 on a 640 x 640 canvas, so that many small people stand beyond
// 325.5 px (where the vendor's box-decode encoding [-0.59, 40.69] pins stride-8 boxes).
//   calibrate -> quantize W8A16 -> patch the decode to the vendor range -> compare: extra and
//   missing boxes; patch to [-0.6, 80.6] -> compare: recovered (as good as plain W8A16).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "cli_util.h"
#include "core/file_io.h"
#include "ir/head_decode.h"
#include "ir/onnx_io.h"
#include "test_util.h"
#include "vision/image_io.h"

namespace edgeq {
namespace {

// Writes one 3 x 3 mosaic per source image (the image itself in every cell, each cell letterboxed).
std::string write_tiled_images(const std::vector<std::string>& sources, const std::string& dir) {
  ensure_dir(dir);
  for (size_t k = 0; k < sources.size(); ++k) {
    cv::Mat src = read_image(sources[k]);
    cv::Mat canvas(640, 640, CV_8UC3, cv::Scalar(114, 114, 114));
    const int cell = 640 / 3;
    double r = std::min(double(cell) / src.cols, double(cell) / src.rows);
    cv::Mat small;
    cv::resize(src, small, cv::Size(int(src.cols * r), int(src.rows * r)), 0, 0, cv::INTER_AREA);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        small.copyTo(canvas(cv::Rect(j * cell, i * cell, small.cols, small.rows)));
    cv::imwrite(dir + "/tiled_" + std::to_string(k) + ".jpg", canvas);
  }
  return dir;
}

// Detection part of `edgeq compare` (the mosaics have no labels).
nlohmann::json compare(const std::string& ref, const std::string& test, const std::string& images,
                       const std::string& json) {
  auto r = test::run_cli("compare --quiet --ref '" + ref + "' --test '" + test + "' --images '" +
                         images + "' --json '" + json + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(read_file(json))["detections"];
}

TEST(FieldDefect, VendorDecodeEncodingLosesBoxesAndPatchRecovers) {
  EDGEQ_REQUIRE_REAL_DATA();
  const std::string model = test::real_model_path();
  const std::string coco = test::coco8_pose_dir() + "/images";
  const std::string dir = test::temp_dir("field");
  const std::string tiled = write_tiled_images(list_images(coco), dir + "/tiled");

  auto run = [](const std::string& args) {
    auto r = test::run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  };
  run("calibrate --model '" + model + "' --images '" + coco + "' --out '" + dir + "/stats.cbor'");
  run("quantize --model '" + model + "' --stats '" + dir +
      "/stats.cbor' --scheme w8a16 --range minmax "
      "--out '" +
      dir + "/q.onnx'");
  auto decode = find_box_decode(load_onnx(model));
  ASSERT_TRUE(decode.has_value());
  const std::string names = decode->concat + "," + decode->centre + "," + decode->size;
  run("patch --model '" + dir + "/q.onnx' --tensor '" + names +
      "' --range -0.59 40.69 --bits 16 --out '" + dir + "/vendor.onnx'");
  run("patch --model '" + dir + "/vendor.onnx' --tensor '" + names +
      "' --range -0.6 80.6 --bits 16 --out '" + dir + "/fixed.onnx'");

  auto base = compare(model, dir + "/q.onnx", tiled, dir + "/base.json");
  auto vendor = compare(model, dir + "/vendor.onnx", tiled, dir + "/vendor.json");
  auto fixed = compare(model, dir + "/fixed.onnx", tiled, dir + "/fixed.json");
  auto line = [](const char* what, const nlohmann::json& d) {
    std::printf("%-22s ref %d test %d matched %d (%.1f%%) extra %d missing %d\n", what,
                d["ref"].get<int>(), d["test"].get<int>(), d["matched"].get<int>(),
                100 * d["match_rate"].get<double>(), d["extra"].get<int>(),
                d["missing"].get<int>());
  };
  line("W8A16", base);
  line("W8A16 vendor decode", vendor);
  line("W8A16 patched decode", fixed);
  const int lost_vendor = vendor["extra"].get<int>() + vendor["missing"].get<int>();
  const int lost_fixed = fixed["extra"].get<int>() + fixed["missing"].get<int>();
  const int lost_base = base["extra"].get<int>() + base["missing"].get<int>();
  EXPECT_GT(base["ref"].get<int>(), 20);  // the mosaics really hold many people
  EXPECT_GE(lost_vendor, lost_base + 5);  // the defect shows as extra / missing boxes
  EXPECT_LE(lost_fixed, lost_base + 1);   // and the patch recovers
  EXPECT_GT(fixed["match_rate"].get<double>(), vendor["match_rate"].get<double>());
}

}  // namespace
}  // namespace edgeq

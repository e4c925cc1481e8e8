// File names are bytes (issue 27): a model, a folder and photos whose names are not UTF-8 go
// through run (--json, --report, --ledger), calibrate --json, compare --json, bench --ledger and
// the study (data.json, index.html, cache reuse, ledger row). Every report is written, is UTF-8
// text, and gives each name back byte for byte (the \udcXX form of core/json_text.h); before, one
// such name made run --json write nothing and killed the study.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_util.h"
#include "core/file_io.h"
#include "core/json_text.h"
#include "ir/onnx_io.h"
#include "test_util.h"
#include "vision/synthetic_scenes.h"
#include "zoo/yolo11.h"

namespace edgeq {
namespace {
namespace fs = std::filesystem;
using test::run_cli;
using test::shell_quote;

nlohmann::json read_report(const std::string& path) {
  const std::string text = read_file(path);
  EXPECT_TRUE(is_utf8(text)) << path;
  return parse_json_text(text);
}

TEST(ByteNamesCli, EveryReportGivesTheNamesBackByteForByte) {
  const std::string dir = test::temp_dir("byte-names");
  const std::string model = dir + "/m\xff.onnx", photos = dir + "/caf\xe9";
  save_onnx(build_yolo11("yolo11n-pose", 64), model);
  const auto written = write_synthetic_scenes(photos, 2, 3);
  const std::string photo = photos + "/p\xfe.jpg";
  fs::rename(written[0], photo);
  const std::string m = shell_quote(model), p = shell_quote(photos), d = shell_quote(dir);

  auto r = run_cli("run --model " + m + " --image " + p + " --json " + d + "/r.json --report " + d +
                   "/rep.json --ledger " + d + "/l.sqlite");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json detections = read_report(dir + "/r.json");
  ASSERT_EQ(detections.size(), 2u);
  EXPECT_EQ(detections[0]["image"], photo);
  const nlohmann::json report = read_report(dir + "/rep.json");
  EXPECT_EQ(report["model"], model);
  EXPECT_EQ(report["source"], photos);

  r = run_cli("calibrate --model " + m + " --images " + p + " --out " + d + "/s.json --json " + d +
              "/c.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_report(dir + "/c.json")["model"], model);
  r = run_cli("compare --ref " + m + " --test " + m + " --images " + p + " --json " + d +
              "/cmp.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_report(dir + "/cmp.json")["ref"], model);
  r = run_cli("bench --model " + m + " --runs 1 --warmup 0 --ledger " + d + "/l.sqlite");
  ASSERT_EQ(r.exit_code, 0) << r.err;

  const std::string study = "study --models " + m + " --images " + p + " --test " + p +
                            " --arms C --schemes w8a16 --bench-runs 1 --bench-warmup 0 " +
                            "--thumbnails 2 --out " + d + "/out --ledger " + d + "/l.sqlite";
  r = run_cli(study);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json data = read_report(dir + "/out/data.json");
  EXPECT_EQ(data["inputs"]["test_images"]["names"][0], "p\xfe.jpg");
  ASSERT_EQ(data["runs"].size(), 1u);
  EXPECT_EQ(data["runs"][0]["model"], "m\xff");
  EXPECT_EQ(data["runs"][0]["per_image"][0]["image"], "p\xfe.jpg");
  const std::string html = read_file(dir + "/out/index.html");
  EXPECT_TRUE(is_utf8(html));
  EXPECT_NE(html.find("\"name\":\"p\\udcfe.jpg\""), std::string::npos);
  r = run_cli(study);  // the cache entries hold the names too, and are read back
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("7 steps (7 cached)"), std::string::npos) << r.out;

  r = run_cli("ledger show " + d + "/l.sqlite @3");  // bench's row: its options hold the path
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("m\\udcff.onnx"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace edgeq

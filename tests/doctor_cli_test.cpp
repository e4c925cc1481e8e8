// edgeq doctor from the command line: text and JSON reports on a small QDQ model with a stats
// file, and clear errors for bad input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "core/file_io.h"
#include "graph_builders.h"
#include "ir/onnx_io.h"
#include "test_util.h"

namespace edgeq {
namespace {

using test::node;

// x [1,2,4,4] -> Conv 1x1 -> c -> Sigmoid -> s; the Sigmoid and what follows stay float.
struct Files {
  std::string dir, qdq, stats;
};

Files make_files() {
  Graph g;
  g.inputs = {{"x", DType::kFloat32, {1, 2, 4, 4}}};
  g.outputs = {{"s", DType::kFloat32, {1, 2, 4, 4}}};
  g.initializers["w"] = Tensor::from_vector<float>({2, 2, 1, 1}, {0.5f, -1.0f, 2.0f, 0.25f});
  g.nodes.push_back(node("conv", "Conv", {"x", "w"}, {"c"}));
  g.nodes.push_back(node("sig", "Sigmoid", {"c"}, {"s"}));
  Stats s = test::calibrate(g, "x", test::uniform_inputs(3, 9, 0, 1));
  QuantConfig c = config_for_scheme(Scheme::kW8A8);
  c.exclude_nodes = {"sig"};
  Files f;
  f.dir = test::temp_dir("doctor_cli");
  f.qdq = f.dir + "/q.onnx";
  f.stats = f.dir + "/s.json";
  save_onnx(test::export_qdq_model(g, s, c).graph, f.qdq);
  save_stats(s, f.stats);
  return f;
}

TEST(DoctorCli, TextAndJsonReports) {
  Files f = make_files();
  test::CliResult r = test::run_cli("doctor --model " + f.qdq + " --stats " + f.stats +
                                    " --target rknn --json " + f.dir + "/d.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("doctor (target rknn): QDQ model"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("error [float-tail]"), std::string::npos) << r.out;
  auto j = nlohmann::json::parse(read_file(f.dir + "/d.json"));
  EXPECT_EQ(j["target"], "rknn");
  EXPECT_EQ(j["encodings_from"], "model");
  EXPECT_GE(j["summary"]["errors"].get<int>(), 1);
  ASSERT_FALSE(j["findings"].empty());
  EXPECT_EQ(j["findings"][0]["severity"], "error");  // most severe first
  bool sig = false;
  for (const auto& x : j["findings"]) sig |= x.value("node", "") == "sig";
  EXPECT_TRUE(sig);
  EXPECT_EQ(j["ranges"].size(), 3u);  // x, c, s
}

// --all prints every finding the JSON report holds, each on its own "severity [kind]" line; the
// default groups them by kind (counts) and points at --all only when it leaves some out.
TEST(DoctorCli, AllPrintsEveryFinding) {
  Files f = make_files();
  const std::string base = "doctor --model " + f.qdq + " --stats " + f.stats + " --target rknn";
  test::CliResult all = test::run_cli(base + " --all --max-info 1000 --json " + f.dir + "/a.json");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const auto j = nlohmann::json::parse(read_file(f.dir + "/a.json"));
  ASSERT_GE(j["findings"].size(), 3u);
  for (const auto& x : j["findings"]) {
    const std::string line =
        x["severity"].get<std::string>() + " [" + x["kind"].get<std::string>() + "] ";
    const size_t at = all.out.find(line);
    ASSERT_NE(at, std::string::npos) << line << "\n" << all.out;
    EXPECT_NE(all.out.find(x["message"].get<std::string>()), std::string::npos)
        << x["message"] << "\n"
        << all.out;
  }
  EXPECT_EQ(all.out.find("not shown"), std::string::npos) << all.out;
  // The float-tail error names what to change.
  EXPECT_NE(all.out.find("; to change: "), std::string::npos) << all.out;

  test::CliResult grouped = test::run_cli(base);
  ASSERT_EQ(grouped.exit_code, 0) << grouped.err;
  EXPECT_NE(grouped.out.find("error [float-tail] "), std::string::npos) << grouped.out;
  if (grouped.out.find(" more: ") != std::string::npos) {
    EXPECT_NE(grouped.out.find("--all lists every finding"), std::string::npos) << grouped.out;
  } else {
    EXPECT_EQ(grouped.out.find("--all"), std::string::npos) << grouped.out;
  }
}

// The sensitivity ranking through the program: both rankings' progress (a bar per task; the
// second task once overran the first's bar and crashed), the mixed set and the JSON.
TEST(DoctorCli, SensitivityRanksValuesAndWritesTheMixedSet) {
  const std::string dir = test::temp_dir("doctor_cli_sensitivity");
  const std::string model = dir + "/z.onnx";
  ASSERT_EQ(test::run_cli("zoo yolo11n-pose -o " + model + " --imgsz 64").exit_code, 0);
  test::CliResult r =
      test::run_cli("doctor --model " + model + " --images " + test::coco8_pose_dir() +
                    "/images/train --max-images 2 --sensitivity 1 --top-percent 5 --json " + dir +
                    "/d.json --mixed-out " + dir + "/mixed.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("mixed set: "), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("block sensitivity"), std::string::npos) << r.err;
  const auto j = nlohmann::json::parse(read_file(dir + "/d.json"));
  const auto& s = j["sensitivity"];
  EXPECT_EQ(s["images"], 1);
  ASSERT_GT(s["ranking"].size(), 100u);
  EXPECT_GE(s["ranking"][0]["loss"].get<double>(), s["ranking"][1]["loss"].get<double>());
  EXPECT_FALSE(s["blocks"].empty());
  const auto mixed = nlohmann::json::parse(read_file(dir + "/mixed.json"));
  EXPECT_EQ(mixed["a16"], s["a16"]);
  EXPECT_EQ(mixed["a16"].size(), (s["ranking"].size() * 5 + 99) / 100);
}

TEST(DoctorCli, BadInputIsAClearError) {
  Files f = make_files();
  write_file_atomic(
      f.dir + "/e.json",
      R"({"version": "1.0.0", "activation_encodings": [{"name": "ghost", "dtype": "INT",
      "enc_type": "PER_TENSOR", "bw": 8, "is_sym": false, "scale": [0.1], "offset": [0]}],
      "param_encodings": []})");
  test::CliResult r =
      test::run_cli("doctor --model " + f.qdq + " --encodings " + f.dir + "/e.json");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("activation 'ghost' is not a value of the model"), std::string::npos)
      << r.err;
  r = test::run_cli("doctor --model " + f.qdq + " --target hexagon");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("unknown target 'hexagon'"), std::string::npos) << r.err;
  r = test::run_cli("doctor --model " + f.dir + "/missing.onnx");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("missing.onnx"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace edgeq

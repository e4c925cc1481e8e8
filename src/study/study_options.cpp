#include "study/study_options.h"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <type_traits>

#include "core/comma_list.h"
#include "core/error.h"
#include "core/json_number.h"
#include "core/option_range.h"
#include "core/path_name.h"
#include "ir/cut.h"
#include "vision/image_io.h"

namespace edgeq {
namespace {

// Strings name files (models, images, out, a target table): a NUL byte is refused, not cut at.
std::vector<std::string> list_value(const nlohmann::json& v, const std::string& key) {
  if (v.is_string()) {
    check_path_name(v.get<std::string>(), "study config: '" + key + "'");
    return comma_list(v.get<std::string>());
  }
  EDGEQ_CHECK(v.is_array(), "study config: '", key,
              "' must be an array or a comma-separated string");
  std::vector<std::string> out;
  for (const auto& x : v) {
    EDGEQ_CHECK(x.is_string(), "study config: '", key, "' must hold strings");
    out.push_back(x.get<std::string>());
    check_path_name(out.back(), "study config: '" + key + "'");
  }
  return out;
}

// 2.7, -1 for a count, 1e12 for an int: refused, not truncated or wrapped (core/json_number.h).
template <typename T>
T number_value(const nlohmann::json& v, const std::string& key) {
  return json_number<T>(v, "study config: '" + key + "'");
}

std::string string_value(const nlohmann::json& v, const std::string& key) {
  EDGEQ_CHECK(v.is_string(), "study config: '", key, "' must be a string");
  check_path_name(v.get<std::string>(), "study config: '" + key + "'");
  return v.get<std::string>();
}

// "auto": nullopt (the target's placement).
std::optional<Placement> placement_value(const nlohmann::json& v, const std::string& key) {
  const std::string s = string_value(v, key);
  if (detail::same_name(s, "auto")) return std::nullopt;
  try {
    return parse<Placement>(s);
  } catch (const Error&) {
    fail("study config: ", key, ": '", s, "' is not one of auto, ", choices_text<Placement>());
  }
}

bool bool_value(const nlohmann::json& v, const std::string& key) {
  EDGEQ_CHECK(v.is_boolean(), "study config: '", key, "' must be true or false, got ", v.dump());
  return v.get<bool>();
}

}  // namespace

StudyScheme parse_study_scheme(const std::string& s) {
  StudyScheme r;
  r.name = s;
  for (const Scheme base : {Scheme::kW8A16, Scheme::kW8A8})
    if (s == edgeq::name(base)) {  // as written: the name labels the study's runs
      r.base = base;
      return r;
    }
  const std::string prefix = "w8a8-auto";
  if (s.rfind(prefix, 0) == 0 && s.size() > prefix.size()) {
    const std::string p = s.substr(prefix.size());
    size_t used = 0;
    double v = -1;
    try {
      v = std::stod(p, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == p.size() && v > 0 && v <= 100) {
      r.base = Scheme::kW8A8;
      r.auto_percent = v;
      return r;
    }
  }
  fail("schemes: '", s, "' is not a scheme (w8a16, w8a8, or w8a8-autoP with P in (0, 100])");
}

StudyOptions study_options_from_json(const nlohmann::json& j, StudyOptions o) {
  EDGEQ_CHECK(j.is_object(), "study config: expected a JSON object");
  for (const auto& [key, v] : j.items()) {
    if (key == "models")
      o.models = list_value(v, key);
    else if (key == "schemes")
      o.schemes = list_value(v, key);
    else if (key == "arms")
      o.arms = list_value(v, key);
    else if (key == "images")
      o.images = string_value(v, key);
    else if (key == "test")
      o.test = string_value(v, key);
    else if (key == "labels")
      o.labels = string_value(v, key);
    else if (key == "probe_labels")
      o.probe_labels = string_value(v, key);
    else if (key == "val")
      o.val = string_value(v, key);
    else if (key == "target")
      o.target = string_value(v, key);
    else if (key == "placement")
      o.placement = placement_value(v, key);
    else if (key == "range")
      o.range = parse<RangeMethod>(string_value(v, key), "study config: range");
    else if (key == "out")
      o.out = string_value(v, key);
    else if (key == "calib_n")
      o.calib_n = number_value<size_t>(v, key);
    else if (key == "seed")
      o.seed = number_value<uint64_t>(v, key);
    else if (key == "histogram_stride")
      o.histogram_stride = number_value<int>(v, key);
    else if (key == "test_n")
      o.test_n = number_value<int>(v, key);
    else if (key == "auto_n")
      o.auto_n = number_value<int>(v, key);
    else if (key == "bench_runs")
      o.bench_runs = number_value<int>(v, key);
    else if (key == "bench_warmup")
      o.bench_warmup = number_value<int>(v, key);
    else if (key == "threads")
      o.threads = number_value<int>(v, key);
    else if (key == "thumbnails")
      o.thumbnails = number_value<int>(v, key);
    else if (key == "probe_folds")
      o.probe_folds = number_value<int>(v, key);
    else if (key == "probe_l2")
      o.probe_l2 = number_value<double>(v, key);
    else if (key == "weight_repair")
      o.weight_repair = bool_value(v, key);
    else
      fail("study config: unknown key '", key, "'");
  }
  return o;
}

nlohmann::json study_options_to_json(const StudyOptions& o) {
  nlohmann::json j = {{"models", o.models},
                      {"images", o.images},
                      {"test", o.test},
                      {"labels", o.labels},
                      {"probe_labels", o.probe_labels},
                      {"val", o.val},
                      {"schemes", o.schemes},
                      {"arms", o.arms},
                      {"target", o.target},
                      {"placement", o.placement ? edgeq::name(*o.placement) : "auto"},
                      {"range", edgeq::name(o.range)},
                      {"out", o.out},
                      {"calib_n", o.calib_n},
                      {"seed", o.seed},
                      {"histogram_stride", o.histogram_stride},
                      {"test_n", o.test_n},
                      {"auto_n", o.auto_n},
                      {"bench_runs", o.bench_runs},
                      {"bench_warmup", o.bench_warmup},
                      {"threads", o.threads},
                      {"thumbnails", o.thumbnails},
                      {"probe_folds", o.probe_folds},
                      {"probe_l2", o.probe_l2}};
  if (o.weight_repair) j["weight_repair"] = true;  // absent: as before the option existed
  return j;
}

Placement study_placement(const StudyOptions& o) {
  if (o.placement) return *o.placement;
  if (o.target == "qnn-htp") return Placement::kQnn;
  if (o.target == "cpu" || o.target == "openvino") return Placement::kCpu;
  return Placement::kOrt;
}

void check_study_options(const StudyOptions& o) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // Every choice names one of its values (a value cast from a number may not): name() throws.
  (void)edgeq::name(study_placement(o));
  (void)edgeq::name(o.range);
  EDGEQ_CHECK(!o.models.empty(), "study: no model given (models: M1.onnx, M2.onnx)");
  std::set<std::string> stems;
  for (const std::string& m : o.models) {
    EDGEQ_CHECK(fs::is_regular_file(m, ec), "models: no such file: ", m);
    EDGEQ_CHECK(stems.insert(fs::path(m).stem().string()).second, "models: two models are named '",
                fs::path(m).stem().string(), "' (the study names models by file name)");
  }
  EDGEQ_CHECK(!o.images.empty() && fs::exists(o.images, ec), "images: no such file or folder: '",
              o.images, "'");
  EDGEQ_CHECK(!o.test.empty() && fs::exists(o.test, ec), "test: no such file or folder: '", o.test,
              "'");
  EDGEQ_CHECK(o.labels.empty() || fs::is_directory(o.labels, ec),
              "labels: no such folder: ", o.labels);
  EDGEQ_CHECK(o.probe_labels.empty() || fs::is_regular_file(o.probe_labels, ec),
              "probe_labels: no such file: ", o.probe_labels);
  EDGEQ_CHECK(o.val.empty() || fs::exists(o.val, ec), "val: no such file or folder: ", o.val);
  EDGEQ_CHECK(!o.out.empty(), "study: out is required");
  EDGEQ_CHECK(!o.schemes.empty(), "schemes: no scheme given");
  for (const std::string& s : o.schemes) parse_study_scheme(s);
  check_unique(o.schemes, "schemes");
  EDGEQ_CHECK(!o.arms.empty(), "arms: no arm given");
  std::set<Arm> arms;
  for (const std::string& a : o.arms)
    EDGEQ_CHECK(arms.insert(parse<Arm>(a, "arms")).second, "arms: '", a,
                "' names an arm given before (each arm runs once)");
  check_option("calib_n", o.calib_n, ranges::kImages);
  check_option("threads", o.threads, ranges::threads());
  check_option("histogram_stride", o.histogram_stride, ranges::kHistogramStride);
  check_option("bench_runs", o.bench_runs, ranges::kRuns);
  check_option("bench_warmup", o.bench_warmup, ranges::kWarmup);
  check_option("auto_n", o.auto_n, ranges::kImages);
  check_option("test_n", o.test_n, ranges::kImagesOrAll);
  check_option("thumbnails", o.thumbnails, ranges::kCount);
  check_option("probe_folds", o.probe_folds, ranges::kFolds);
  check_option("probe_l2", o.probe_l2, ranges::kPenalty);
  refuse_set(inert_study_options(o));
  check_distinct_files(study_inputs(o), {study_out_folder(o)});
}

std::vector<InertOption> inert_study_options(const StudyOptions& o) {
  const StudyOptions d;
  bool search = false, w8a16 = false;
  for (const std::string& s : o.schemes) {
    try {
      const StudyScheme scheme = parse_study_scheme(s);
      search |= scheme.auto_percent > 0;
      w8a16 |= scheme.base == Scheme::kW8A16;
    } catch (const Error&) {
      // check_study_options names the scheme
    }
  }
  const std::string autop = "a w8a8-autoP scheme (the mixed-precision search)";
  std::vector<InertOption> inert;
  if (!search) {
    inert.push_back({"val", autop, o.val != d.val});
    inert.push_back({"auto_n", autop, o.auto_n != d.auto_n});
  }
  // Weight repair runs where the scheme has a repair step: GPTQ, w8a16's default.
  if (!w8a16) inert.push_back({"weight_repair", "a w8a16 scheme", o.weight_repair});
  if (o.probe_labels.empty()) {
    inert.push_back({"probe_folds", "probe_labels", o.probe_folds != d.probe_folds});
    inert.push_back({"probe_l2", "probe_labels", o.probe_l2 != d.probe_l2});
  }
  return inert;
}

std::vector<RoleFile> study_inputs(const StudyOptions& o) {
  std::vector<RoleFile> in;
  for (const std::string& m : o.models) in.push_back({"models", m});
  for (const auto& [key, spec] : {std::pair<const char*, const std::string&>{"images", o.images},
                                  {"test", o.test},
                                  {"val", o.val}})
    in.push_back(image_input(key, spec));
  in.push_back({"labels", o.labels, RoleFile::kFile, with_extension(".txt")});
  in.push_back({"probe_labels", o.probe_labels});
  return in;
}

RoleFile study_out_folder(const StudyOptions& o) {
  return {"out", o.out, RoleFile::kFolder, [](const std::string& f) {
            return f == "data.json" || f == "index.html" || f.rfind("cache/", 0) == 0;
          }};
}

}  // namespace edgeq

#include "eval/compare.h"

#include <filesystem>
#include <iomanip>
#include <map>
#include <optional>
#include <ostream>

#include "core/error.h"
#include "core/interrupt.h"
#include "core/npy.h"
#include "eval/label_source.h"
#include "ir/onnx_io.h"
#include "ir/raw_head.h"
#include "runtime/executor.h"
#include "runtime/host_decode.h"
#include "vision/image_io.h"
#include "vision/labels.h"
#include "vision/letterbox.h"
#include "vision/yolo_layout.h"
#include "vision/yolo_model.h"

namespace edgeq {
namespace {
namespace fs = std::filesystem;

// The model's image input, with a fixed height and width; errors name `which` model.
const ValueInfo& single_image_input(const Graph& g, const std::string& which) {
  try {
    const ValueInfo& in = yolo_image_input(g);
    EDGEQ_CHECK(in.shape[2] > 0 && in.shape[3] > 0, "input '", in.name,
                "' has a dynamic height or width: ", shape_str(in.shape));
    return in;
  } catch (const Error& e) {
    fail(which, " model: ", e.what());
  }
}

std::vector<std::string> image_list(const std::string& spec, int max_images) {
  std::error_code ec;
  EDGEQ_CHECK(fs::exists(spec, ec), "images: no such file or folder: ", spec);
  std::vector<std::string> paths;
  if (fs::is_directory(spec, ec)) {
    paths = list_images(spec);
    EDGEQ_CHECK(!paths.empty(), "images: no images (jpg, jpeg, png, bmp, webp) in folder ", spec);
  } else {
    EDGEQ_CHECK(is_image_path(spec), "images: not an image file or folder: ", spec);
    paths = {spec};
  }
  if (max_images > 0 && static_cast<int>(paths.size()) > max_images) paths.resize(max_images);
  return paths;
}

// One image's outputs written by another engine: dir/<k>/<output>.npy (dir/<output>.npy for a
// single image), shapes as declared.
std::map<std::string, Tensor> read_test_outputs(const std::string& dir, size_t k,
                                                const std::vector<OutputError>& outputs) {
  std::map<std::string, Tensor> out;
  for (const OutputError& o : outputs) {
    std::string file = o.name;
    for (char& c : file)
      if (c == '/' || c == '\\' || c == ':') c = '_';
    std::error_code ec;
    fs::path path = fs::path(dir) / std::to_string(k) / (file + ".npy");
    if (k == 0 && !fs::exists(path.parent_path(), ec))  // ort_run.js's layout for one input
      path = fs::path(dir) / (file + ".npy");
    EDGEQ_CHECK(fs::is_regular_file(path, ec), "test outputs: no file ", path.string(),
                " for output '", o.name, "' of image ", k);
    Tensor t = load_npy(path.string());
    bool fits = t.shape().size() == o.shape.size();
    for (size_t d = 0; fits && d < o.shape.size(); ++d)
      fits = o.shape[d] < 0 || o.shape[d] == t.shape()[d];
    EDGEQ_CHECK(t.dtype() == DType::kFloat32 && (o.shape.empty() || fits),
                "test outputs: ", path.string(), " is ", dtype_name(t.dtype()), " ",
                shape_str(t.shape()), "; output '", o.name, "' is float32 ", shape_str(o.shape));
    out[o.name] = std::move(t);
  }
  return out;
}

}  // namespace

std::vector<ValueInfo> compared_outputs(const Graph& ref, const Graph& test) {
  if (!raw_head_layout(ref) && !raw_head_layout(test)) {
    bool same = ref.outputs.size() == test.outputs.size();
    for (size_t i = 0; same && i < ref.outputs.size(); ++i)
      same = ref.outputs[i].name == test.outputs[i].name &&
             ref.outputs[i].shape == test.outputs[i].shape;
    EDGEQ_CHECK(same, "the test model's outputs differ from the reference model's: reference has ",
                describe_outputs(ref), "; test has ", describe_outputs(test));
    return ref.outputs;
  }
  // A raw-head model against a full one (or another raw head): the outputs both runs give, the
  // decoded output0 among them.
  std::vector<ValueInfo> both;
  const std::vector<ValueInfo> test_outs = run_outputs(test);
  for (const ValueInfo& r : run_outputs(ref))
    for (const ValueInfo& t : test_outs)
      if (t.name == r.name) {
        EDGEQ_CHECK(t.shape == r.shape, "output '", r.name, "' is ", shape_str(r.shape),
                    " in the reference model but ", shape_str(t.shape), " in the test model");
        both.push_back(r);
      }
  EDGEQ_CHECK(!both.empty(),
              "the test and reference models have no output in common: reference "
              "gives ",
              describe_outputs(ref), "; test gives ", describe_outputs(test));
  return both;
}

CompareResult run_compare(const CompareRunOptions& opt, std::ostream* progress) {
  CompareHooks hooks;
  if (progress) {
    hooks.note = [progress](const std::string& line) { *progress << line << "\n"; };
    hooks.image = [progress](size_t done, size_t total, const std::string& line) {
      *progress << "[" << done << "/" << total << "] " << line << "\n" << std::flush;
    };
  }
  return run_compare(load_onnx(opt.ref_model), load_onnx(opt.test_model), opt, hooks);
}

CompareResult run_compare(Graph ref_g, Graph test_g, const CompareRunOptions& opt,
                          const CompareHooks& hooks) {
  CompareResult rep;
  rep.options = opt;
  const std::vector<ValueInfo> outputs = compared_outputs(ref_g, test_g);
  const std::optional<RawHeadLayout> test_head = raw_head_layout(test_g);
  const ValueInfo ref_in = single_image_input(ref_g, "reference");
  const ValueInfo test_in = single_image_input(test_g, "test");
  EDGEQ_CHECK(ref_in.name == test_in.name && ref_in.shape == test_in.shape,
              "the test model's input differs from the reference model's: reference has ",
              ref_in.name, " ", shape_str(ref_in.shape), "; test has ", test_in.name, " ",
              shape_str(test_in.shape));
  const std::vector<std::string> images = image_list(opt.images, opt.max_images);
  EDGEQ_CHECK(opt.test_outputs.empty() || opt.exec == ExecMode::kSimulate,
              "test outputs read from files were computed by another engine: no execution mode "
              "applies to them");
  if (!opt.save_inputs.empty()) fs::create_directories(opt.save_inputs);
  std::error_code ec;
  const std::string images_root =
      fs::is_directory(opt.images, ec) ? opt.images : fs::path(opt.images).parent_path().string();

  const auto det_out = yolo_head_output(ref_g);
  std::optional<YoloLayout> layout;
  if (det_out) {
    const ValueInfo* vi = nullptr;
    for (const auto& o : outputs)
      if (o.name == *det_out) vi = &o;
    EDGEQ_CHECK(vi, "the test model gives no '", *det_out, "' to compare detections with");
    layout = yolo_layout_for(ref_g, vi->shape);
    rep.has_detections = true;
    rep.detection_output = *det_out;
    rep.pose = layout->is_pose();
  }
  LabelSource labels;
  LabelSchema label_schema;  // what the labels must fit: the model's classes and keypoints
  if (layout) label_schema = {layout->num_classes, layout->num_keypoints};
  if (rep.has_detections)
    labels = resolve_label_source(images_root, images, opt.labels);
  else
    EDGEQ_CHECK(opt.labels.empty(), "labels given but the models have no YOLO head output (",
                describe_outputs(ref_g), ")");
  rep.has_labels = labels.enabled;
  rep.labels_from = labels.description;
  rep.labels_unmatched = labels.unmatched;
  if (hooks.note && !labels.unmatched.empty()) hooks.note("warning: " + labels.unmatched);

  for (const auto& o : outputs) rep.outputs.push_back({o.name, o.shape, {}, {}, {}, {}});
  std::vector<TensorErrorAccumulator> tensor_acc(rep.outputs.size());
  const bool board = !opt.test_outputs.empty();  // per-channel moments for the board check
  std::vector<ChannelStatsAccumulator> ref_ch(rep.outputs.size()), test_ch(rep.outputs.size());
  DetectionDiffAccumulator det_acc(opt.match_iou);
  std::optional<TaskMetricsAccumulator> ref_task, test_task;
  if (labels.enabled) {
    // Parse every label file first: bad labels fail before the long run, and pose metrics are
    // computed when the model predicts keypoints and the labels carry them.
    bool pose_labels = false;
    for (const auto& f : labels.files)
      for (const auto& o : read_yolo_labels(f, 1, 1, label_schema))
        pose_labels = pose_labels || !o.kpts.empty();
    ref_task.emplace(rep.pose && pose_labels);
    test_task.emplace(rep.pose && pose_labels);
  }

  ExecutorOptions eo;
  eo.threads = opt.threads;
  const int in_h = static_cast<int>(ref_in.shape[2]), in_w = static_cast<int>(ref_in.shape[3]);
  Executor ref_ex(std::move(ref_g), eo);
  ExecutorOptions test_eo = eo;
  test_eo.exec = opt.exec;
  test_eo.emulate = opt.emulate;
  Executor test_ex(std::move(test_g), test_eo);
  if (hooks.note)
    for (const std::string& line : test_ex.notices()) hooks.note(line);
  // What another engine's files hold: a raw head's own outputs (decoded here), else the compared.
  std::vector<OutputError> dumped;
  if (test_head)
    for (const auto& o : test_head->outputs)
      dumped.push_back(
          {o.name, {1, test_head->channels_of(o.part), o.height, o.width}, {}, {}, {}, {}});
  else
    dumped = rep.outputs;
  PostprocessOptions map_post = opt.post;
  map_post.conf = opt.map_conf;

  for (size_t i = 0; i < images.size(); ++i) {
    throw_if_interrupted();  // a front end's Ctrl-C / SIGTERM (core/interrupt.h)
    const std::string& path = images[i];
    cv::Mat bgr = read_image(path);
    LetterboxInfo lb;
    const Tensor x = preprocess_image(bgr, in_h, in_w, &lb);
    if (!opt.save_inputs.empty())
      save_npy(x, (fs::path(opt.save_inputs) / (std::to_string(i) + ".npy")).string());
    auto r = ref_ex.run({{ref_in.name, x}});
    auto t = opt.test_outputs.empty() ? test_ex.run({{test_in.name, x}})
                                      : read_test_outputs(opt.test_outputs, i, dumped);
    if (!opt.test_outputs.empty() && test_head)  // a board's raw head: decoded here
      t[test_head->decoded] = decode_raw_head(*test_head, t);
    for (size_t k = 0; k < rep.outputs.size(); ++k) {
      const std::string& name = rep.outputs[k].name;
      tensor_acc[k].add(r.at(name), t.at(name), "output '" + name + "'");
      if (board && r.at(name).rank() >= 2) {
        ref_ch[k].add(r.at(name));
        test_ch[k].add(t.at(name));
      }
    }
    int64_t nr = 0, nt = 0, nm = 0;
    if (rep.has_detections) {
      const Tensor& ry = r.at(*det_out);
      const Tensor& ty = t.at(*det_out);
      auto rd = postprocess(ry, lb, opt.post, *layout);
      auto td = postprocess(ty, lb, opt.post, *layout);
      nr = static_cast<int64_t>(rd.size());
      nt = static_cast<int64_t>(td.size());
      nm = det_acc.add(rd, td);
      if (static_cast<int>(i) < opt.keep_detections)
        rep.per_image.push_back({path, bgr.cols, bgr.rows, rd, td});
      if (labels.enabled) {
        const auto objs = read_yolo_labels(labels.files[i], bgr.cols, bgr.rows, label_schema);
        ref_task->add(objs, postprocess(ry, lb, map_post, *layout), labels.files[i]);
        test_task->add(objs, postprocess(ty, lb, map_post, *layout), labels.files[i]);
      }
    }
    if (hooks.image)
      hooks.image(i + 1, images.size(),
                  path + ": ref " + std::to_string(nr) + ", test " + std::to_string(nt) +
                      ", matched " + std::to_string(nm));
  }
  for (size_t k = 0; k < rep.outputs.size(); ++k) {
    OutputError& o = rep.outputs[k];
    o.error = tensor_acc[k].result();
    o.ref_channels = ref_ch[k].result();
    o.test_channels = test_ch[k].result();
    o.diverging = first_diverging_block(o.ref_channels, o.test_channels);
  }
  rep.detections = det_acc.result();
  if (rep.has_detections && hooks.note && !rep.detections.match_rate)
    hooks.note("notice: " + match_rate_notice(rep.detections));
  rep.images = static_cast<int64_t>(images.size());
  if (labels.enabled) {
    rep.ref_metrics = ref_task->result();
    rep.test_metrics = test_task->result();
  }
  return rep;
}

}  // namespace edgeq

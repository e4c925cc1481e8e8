// Session: an executor planned once, and the run command's per-frame Detector over it.
#include "edgeq/session.h"

#include <mutex>
#include <opencv2/core.hpp>
#include <optional>

#include "api/api_impl.h"
#include "api/exec_options.h"
#include "core/error.h"
#include "frames/detector.h"
#include "runtime/executor.h"
#include "vision/image_io.h"
#include "vision/yolo_layout.h"
#include "vision/yolo_model.h"

namespace edgeq {
struct Session::Impl {
  Impl(const Model& m, const SessionOptions& o)
      : graph(impl_of(m).graph), executor(graph, session_executor_options(o)) {
    post.conf = o.conf;
    post.iou = o.iou;
    post.max_det = o.max_det;
  }
  Detector& detector() {
    if (!det) det.emplace(executor, detector_spec(graph), post);
    return *det;
  }
  Graph graph;
  Executor executor;
  PostprocessOptions post;
  std::optional<Detector> det;
  std::mutex m;
};

Session::Session(const Model& model, const SessionOptions& options)
    : impl_(std::make_unique<Impl>(model, options)) {}
Session::~Session() = default;
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;

std::vector<Session::Detection> Session::predict(const ImageFrame& frame) {
  std::vector<ImageFrame> one{frame};
  const ImageSource src = ImageSource::from_frames(std::move(one));
  const cv::Mat bgr = impl_of(src).read(impl_of(src).entries[0]);
  std::lock_guard<std::mutex> lock(impl_->m);
  FrameWork w;
  w.frame.name = src.name(0);
  w.frame.bgr = bgr;
  Detector& d = impl_->detector();
  d.letterbox(w);
  d.infer(w);
  d.decode(w);
  std::vector<Session::Detection> out;
  for (const auto& x : w.detections) {
    Session::Detection p{x.box[0], x.box[1], x.box[2], x.box[3], x.score, x.cls, {}};
    for (const auto& k : x.kpts) p.keypoints.push_back({k.x, k.y, k.v});
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<Session::Detection> Session::predict(const std::string& image_path) {
  const cv::Mat bgr = read_image(image_path);
  ImageFrame f;
  f.width = bgr.cols, f.height = bgr.rows, f.name = image_path;
  f.bgr.assign(bgr.data, bgr.data + bgr.total() * 3);
  return predict(f);
}

int Session::keypoints() const {
  const DetectorSpec spec = detector_spec(impl_->graph);
  for (const ValueInfo& o : run_outputs(impl_->graph))  // a raw head's output0 included
    if (o.name == spec.output)
      return resolve_yolo_layout(o.shape, spec.kpt_shape, spec.names).num_keypoints;
  return 0;
}

std::vector<TensorData> Session::run(const std::vector<TensorData>& inputs) {
  std::map<std::string, Tensor> in;
  for (const TensorData& t : inputs) {
    int64_t n = 1;
    for (int64_t d : t.shape) {
      EDGEQ_CHECK(d >= 0, "input '", t.name, "': negative dimension");
      n *= d;
    }
    EDGEQ_CHECK(static_cast<size_t>(n) == t.values.size(), "input '", t.name, "': shape holds ", n,
                " values, got ", t.values.size());
    in[t.name] = Tensor::from_vector<float>(t.shape, t.values);
  }
  std::lock_guard<std::mutex> lock(impl_->m);
  std::map<std::string, Tensor> outs = impl_->executor.run(in);
  std::vector<TensorData> result;
  for (const ValueInfo& o : run_outputs(impl_->graph)) {
    const Tensor& t = outs.at(o.name);
    EDGEQ_CHECK(t.dtype() == DType::kFloat32, "output '", o.name, "' is ", dtype_name(t.dtype()),
                "; Session::run returns float32 outputs only");
    const float* p = t.data<float>();
    result.push_back({o.name, t.shape(), std::vector<float>(p, p + t.numel())});
  }
  return result;
}

std::vector<std::string> Session::notices() {
  std::lock_guard<std::mutex> lock(impl_->m);
  return impl_->executor.notices();
}

}  // namespace edgeq

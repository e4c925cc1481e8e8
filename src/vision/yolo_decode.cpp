#include "vision/yolo_decode.h"

#include "core/error.h"

namespace edgeq {

static void check_output(const Tensor& out, const YoloLayout& lay) {
  EDGEQ_CHECK(out.dtype() == DType::kFloat32, "YOLO output must be float32, got ",
              dtype_name(out.dtype()));
  const Shape want{1, lay.channels(), lay.num_anchors};
  EDGEQ_CHECK(out.shape() == want, "YOLO output has shape ", shape_str(out.shape()),
              " but the layout expects ", shape_str(want));
}

std::vector<Candidate> decode_candidates(const Tensor& out, const YoloLayout& lay, float conf) {
  check_output(out, lay);
  const float* p = out.data<float>();
  const int64_t n = lay.num_anchors;
  // Best class per anchor, walking rows (contiguous) rather than columns.
  std::vector<float> best(p + 4 * n, p + 5 * n);
  std::vector<int> best_cls(n, 0);
  for (int c = 1; c < lay.num_classes; ++c) {
    const float* row = p + (4 + c) * n;
    for (int64_t i = 0; i < n; ++i) {
      if (row[i] > best[i]) {
        best[i] = row[i];
        best_cls[i] = c;
      }
    }
  }
  std::vector<Candidate> out_c;
  for (int64_t i = 0; i < n; ++i) {
    if (!(best[i] > conf)) continue;
    const float cx = p[i], cy = p[n + i], w = p[2 * n + i], h = p[3 * n + i];
    Candidate c;
    c.box = {cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2};
    c.score = best[i];
    c.cls = best_cls[i];
    c.anchor = static_cast<int>(i);
    out_c.push_back(c);
  }
  return out_c;
}

std::vector<Keypoint> decode_keypoints(const Tensor& out, const YoloLayout& lay, int anchor) {
  check_output(out, lay);
  EDGEQ_CHECK(anchor >= 0 && anchor < lay.num_anchors, "anchor ", anchor, " out of range");
  std::vector<Keypoint> k(lay.num_keypoints);
  const float* p = out.data<float>();
  const int64_t n = lay.num_anchors;
  const int64_t base = 4 + lay.num_classes;
  for (int j = 0; j < lay.num_keypoints; ++j) {
    const int64_t row = base + static_cast<int64_t>(j) * lay.keypoint_dims;
    k[j].x = p[row * n + anchor];
    k[j].y = p[(row + 1) * n + anchor];
    k[j].v = lay.keypoint_dims == 3 ? p[(row + 2) * n + anchor] : 1.0f;
  }
  return k;
}

}  // namespace edgeq

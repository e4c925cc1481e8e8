#include "vision/postprocess.h"

#include "vision/nms.h"
#include "vision/yolo_decode.h"

namespace edgeq {

std::vector<Detection> decode_detections(const Tensor& output0, const PostprocessOptions& opt,
                                         const YoloLayout& layout) {
  const std::vector<Candidate> cands = decode_candidates(output0, layout, opt.conf);
  std::vector<Detection> dets;
  for (int i : nms(cands, opt.iou, opt.max_det)) {
    const Candidate& c = cands[i];
    Detection d;
    for (int k = 0; k < 4; ++k) d.box[k] = c.box[k];
    d.score = c.score;
    d.cls = c.cls;
    d.kpts = decode_keypoints(output0, layout, c.anchor);
    dets.push_back(std::move(d));
  }
  return dets;
}

std::vector<Detection> postprocess(const Tensor& output0, const LetterboxInfo& lb,
                                   const PostprocessOptions& opt, const YoloLayout& layout) {
  std::vector<Detection> dets = decode_detections(output0, opt, layout);
  for (Detection& d : dets) {
    const BoxXYXY b = unletterbox_box(d.xyxy(), lb);
    for (int k = 0; k < 4; ++k) d.box[k] = b[k];
    for (Keypoint& p : d.kpts) p = unletterbox_point(p, lb);
  }
  return dets;
}

}  // namespace edgeq

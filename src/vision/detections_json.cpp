#include "vision/detections_json.h"

#include "core/error.h"
#include "core/json_number.h"

namespace edgeq {

nlohmann::json detection_to_json(const Detection& d) {
  nlohmann::json j;
  j["box"] = {d.box[0], d.box[1], d.box[2], d.box[3]};
  j["score"] = d.score;
  j["class"] = d.cls;
  if (!d.kpts.empty()) {
    nlohmann::json k = nlohmann::json::array();
    for (const Keypoint& p : d.kpts) k.push_back({p.x, p.y, p.v});
    j["keypoints"] = std::move(k);
  }
  return j;
}

nlohmann::json detections_to_json(const std::string& image, const std::vector<Detection>& dets) {
  nlohmann::json arr = nlohmann::json::array();
  for (const Detection& d : dets) arr.push_back(detection_to_json(d));
  return {{"image", image}, {"detections", std::move(arr)}};
}

std::vector<Detection> detections_from_json(const nlohmann::json& j, const std::string& what) {
  EDGEQ_CHECK(j.is_object() && j.contains("detections") && j["detections"].is_array(), what,
              ": expected an object with a \"detections\" array");
  std::vector<Detection> out;
  size_t i = 0;
  for (const auto& e : j["detections"]) {
    const std::string at = what + ": detection " + std::to_string(i++);
    try {
      Detection d;
      const auto& box = e.at("box");
      EDGEQ_CHECK(box.is_array() && box.size() == 4, at, ": \"box\" must hold 4 numbers");
      for (int k = 0; k < 4; ++k) d.box[k] = json_number<float>(box[k], at + ": \"box\"");
      d.score = json_number_at<float>(e, "score", at);
      d.cls = json_number_at<int>(e, "class", at);
      if (e.contains("keypoints")) {
        for (const auto& p : e["keypoints"]) {
          EDGEQ_CHECK(p.is_array() && (p.size() == 2 || p.size() == 3), at,
                      ": each keypoint must be [x, y] or [x, y, v]");
          const std::string kp = at + ": keypoint";
          d.kpts.push_back({json_number<float>(p[0], kp), json_number<float>(p[1], kp),
                            p.size() == 3 ? json_number<float>(p[2], kp) : 1.0f});
        }
      }
      out.push_back(std::move(d));
    } catch (const nlohmann::json::exception& ex) {
      fail(at, ": ", ex.what());
    }
  }
  return out;
}

}  // namespace edgeq

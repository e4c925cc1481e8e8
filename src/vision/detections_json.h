// Detections <-> JSON: {"image": ..., "detections": [{"box": [x1,y1,x2,y2], "score": s,
// "class": c, "keypoints": [[x, y, v], ...]}]} ("keypoints" only for pose models).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "vision/detection.h"

namespace edgeq {

nlohmann::json detection_to_json(const Detection& d);
nlohmann::json detections_to_json(const std::string& image, const std::vector<Detection>& dets);
// Reads the "detections" array of an object written by detections_to_json. Throws naming
// `what` when a field is missing or has the wrong type.
std::vector<Detection> detections_from_json(const nlohmann::json& j,
                                            const std::string& what = "detections json");

}  // namespace edgeq

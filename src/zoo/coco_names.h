// The 80 COCO class names in Ultralytics' order (coco.yaml), for detect models' metadata.
#pragma once
#include <string>
#include <vector>

namespace edgeq::zoo {

const std::vector<std::string>& coco_class_names();

}  // namespace edgeq::zoo

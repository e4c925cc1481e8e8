// The model zoo: YOLO11 detect and pose networks with the official topology
// (ultralytics/cfg/models/11/yolo11.yaml and yolo11-pose.yaml), exported the way
// `yolo export format=onnx opset=17 imgsz=640` writes them, with deterministic synthetic weights.
// They stand in for real exports wherever no trained model is at hand.
#pragma once
#include <string>
#include <vector>

#include "ir/graph.h"

namespace edgeq {

// "yolo11n", "yolo11s", "yolo11n-pose", "yolo11s-pose".
std::vector<std::string> zoo_model_names();
// Builds one zoo model: input "images" [1,3,640,640], output "output0" [1, 4+nc(+51), 8400].
// Another `imgsz` (a multiple of 32, as `yolo export imgsz=N`) gives the same topology and conv
// weights on an [1,3,N,N] input with (N/8)^2 + (N/16)^2 + (N/32)^2 anchors (the class bias keeps
// the expected number of candidates): a small model runs fast where tests need many frames.
// Throws an edgeq::Error listing the valid names for an unknown one.
Graph build_yolo11(const std::string& name, int64_t imgsz = 640);

}  // namespace edgeq

// The raw head of a YOLO11 model (detect or pose): the graph up to the head's last convolutions,
// without the decode (DFL softmax and expectation, anchors and strides, sigmoid, keypoint decode,
// the concatenation into output0). NPUs that refuse float decode ops run such a graph whole; the
// decode runs on the host (runtime/host_decode.h), which makes output0 again.
//
// The head's last convolutions are found by structure, never by node names: walking back from the
// graph outputs through every op, a Conv stops the walk unless it is the DFL's expectation (a Conv
// that reads a Softmax, through move-only ops). Per scale (stride = input height / map height):
// the box distribution logits (4 * reg_max channels, read by the DFL), the class logits (nc) and,
// for pose, the keypoints' raw values (nk * kd).
//
// The layout travels in the ONNX metadata (key kRawHeadKey, JSON), so nothing downstream needs a
// flag: {"version":1,"decoded":"output0","reg_max":16,"num_classes":1,"kpt_shape":[17,3],
//  "input":[640,640],"outputs":[{"name":"...","kind":"box","stride":8,"height":80,"width":80},
//  ...]} with the outputs in output0's anchor order: scale by scale (stride ascending), box, class,
// keypoints within a scale.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace edgeq {

inline constexpr const char* kRawHeadKey = "edgeq_raw_head";

enum class HeadPart { kBox, kClass, kKeypoints };

struct RawHeadOutput {
  std::string name;
  HeadPart part = HeadPart::kBox;
  int stride = 0;
  int64_t height = 0, width = 0;  // the map's size
};

struct RawHeadLayout {
  std::string decoded = "output0";  // the name the host decode gives its output
  int reg_max = 16;
  int num_classes = 0;
  int num_keypoints = 0, keypoint_dims = 0;  // 0, 0 for a detect head
  int64_t input_h = 0, input_w = 0;
  std::vector<RawHeadOutput> outputs;  // output0's anchor order

  int64_t channels_of(HeadPart part) const;
  int64_t anchors() const;           // sum of height * width over the scales
  int64_t decoded_channels() const;  // 4 + nc + nk * kd
  // The decoded output as the full model declares it: [1, 4 + nc + nk * kd, anchors].
  ValueInfo decoded_info() const;
};

// The float YOLO model cut after the head's last convolutions: those convolutions' outputs are
// the graph outputs (output0's anchor order), dead nodes and unused weights removed, the layout in
// the metadata (the model's other metadata kept). Throws one line saying what is missing when the
// model has no recognisable YOLO head (no head output, no DFL softmax, a scale without its box or
// class convolution, channel counts that do not add up to output0's) or is already quantized.
Graph cut_raw_head(const Graph& model);

std::string raw_head_json(const RawHeadLayout& layout);
// The layout a raw-head model carries; nullopt when it carries none. Throws one line ("raw-head
// metadata of model 'x': ...") when the metadata is damaged or does not fit the graph (an output it
// names is missing or has another shape).
std::optional<RawHeadLayout> raw_head_layout(const Graph& g);

std::string_view head_part_name(HeadPart part);

}  // namespace edgeq

#include "vision/yolo_model.h"

#include "core/error.h"
#include "ir/raw_head.h"

namespace edgeq {

const ValueInfo& yolo_image_input(const Graph& g) {
  EDGEQ_CHECK(g.inputs.size() == 1, "expected a model with one input, this one has ",
              g.inputs.size());
  const ValueInfo& in = g.inputs[0];
  EDGEQ_CHECK(in.shape.size() == 4 && in.shape[1] == 3, "input '", in.name,
              "' is not an image input [N,3,H,W]: ", shape_str(in.shape));
  return in;
}

int yolo_input_height(const Graph& g) {
  const int64_t h = yolo_image_input(g).shape[2];
  return h > 0 ? static_cast<int>(h) : 640;
}

int yolo_input_width(const Graph& g) {
  const int64_t w = yolo_image_input(g).shape[3];
  return w > 0 ? static_cast<int>(w) : 640;
}

std::optional<std::string> yolo_head_output(const Graph& g) {
  if (const auto raw = raw_head_layout(g)) return raw->decoded;
  for (const auto& o : g.outputs)
    if (o.name == "output0") return o.name;
  if (g.outputs.size() == 1 && g.outputs[0].shape.size() == 3) return g.outputs[0].name;
  return std::nullopt;
}

std::string require_yolo_head_output(const Graph& g) {
  const auto head = yolo_head_output(g);
  EDGEQ_CHECK(head, "the model has no YOLO head output ('output0', or a single [1,C,anchors] ",
              "output); its outputs: ", describe_outputs(g));
  return *head;
}

std::vector<ValueInfo> run_outputs(const Graph& g) {
  std::vector<ValueInfo> out = g.outputs;
  if (const auto raw = raw_head_layout(g)) out.push_back(raw->decoded_info());
  return out;
}

std::string describe_outputs(const Graph& g) {
  std::string s;
  for (const auto& o : g.outputs) s += (s.empty() ? "" : ", ") + o.name + " " + shape_str(o.shape);
  return s.empty() ? "none" : s;
}

}  // namespace edgeq

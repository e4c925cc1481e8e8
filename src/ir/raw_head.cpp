#include "ir/raw_head.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.h"
#include "ir/op_traits.h"
#include "ir/shape_inference.h"

namespace edgeq {
namespace {

using nlohmann::json;

constexpr const char* kPartNames[] = {"box", "class", "keypoints"};

// The head output the decode writes: "output0", or else the only output when it is rank 3.
const ValueInfo& head_output(const Graph& g) {
  for (const auto& o : g.outputs)
    if (o.name == "output0") return o;
  EDGEQ_CHECK(g.outputs.size() == 1 && g.outputs[0].shape.size() == 3, "model '", g.name,
              "' has no YOLO head output ('output0', or a single [1,C,anchors] output): no raw "
              "head to cut");
  return g.outputs[0];
}

// The node that makes `value`, seen through move-only ops (Reshape, Transpose, ...); -1 for none.
int source_through_moves(const Graph& g, std::string value) {
  for (;;) {
    const int p = g.producer_of(value);
    if (p < 0 || !is_move_only(g.nodes[p].op_type) || g.nodes[p].inputs.empty()) return p;
    value = g.nodes[p].inputs[0];
  }
}

// The DFL's expectation: a Conv whose data input comes from a Softmax.
bool is_dfl_conv(const Graph& g, const Node& n) {
  if (n.op_type != "Conv" || n.inputs.empty()) return false;
  const int src = source_through_moves(g, n.inputs[0]);
  return src >= 0 && g.nodes[src].op_type == "Softmax";
}

// The head's last convolutions: walking back from the head output, the first Conv on each path
// that is not the DFL's.
std::vector<int> last_convolutions(const Graph& g, const std::string& head, int* reg_max) {
  std::vector<int> found;
  std::set<int> seen;
  std::vector<std::string> stack{head};
  *reg_max = 0;
  while (!stack.empty()) {
    const std::string v = stack.back();
    stack.pop_back();
    const int p = g.producer_of(v);
    if (p < 0 || !seen.insert(p).second) continue;
    const Node& n = g.nodes[p];
    if (n.op_type == "Conv" && !is_dfl_conv(g, n)) {
      found.push_back(p);
      continue;
    }
    if (n.op_type == "Conv") {
      auto w = g.initializers.find(n.inputs.size() > 1 ? n.inputs[1] : "");
      EDGEQ_CHECK(w != g.initializers.end() && w->second.rank() == 4, "the DFL convolution ",
                  n.describe(), " has no constant 4-D weight");
      *reg_max = static_cast<int>(w->second.shape()[1]);
    }
    for (const auto& in : n.inputs)
      if (!in.empty()) stack.push_back(in);
  }
  EDGEQ_CHECK(*reg_max > 0, "model '", g.name, "' has no DFL (a Softmax read by a Conv) before '",
              head, "': not a YOLO detect or pose head");
  std::sort(found.begin(), found.end());
  return found;
}

// Of the convolutions `convs`, the one whose output the same node reads as `box`'s (the
// per-scale Concat of box and class logits), or -1.
int concat_partner(const Graph& g, const std::string& box, const std::vector<std::string>& convs) {
  for (int c : g.consumers_of(box))
    for (const auto& in : g.nodes[c].inputs)
      if (in != box && std::find(convs.begin(), convs.end(), in) != convs.end())
        return static_cast<int>(std::find(convs.begin(), convs.end(), in) - convs.begin());
  return -1;
}

std::vector<int64_t> kpt_shape_of(const Graph& g, int64_t channels) {
  if (auto meta = g.metadata_value("kpt_shape")) {
    std::vector<int64_t> v;
    try {
      for (const auto& x : json::parse(*meta)) v.push_back(x.get<int64_t>());
    } catch (const json::exception&) {
      v.clear();
    }
    if (v.size() == 2 && v[0] > 0 && (v[1] == 2 || v[1] == 3) && v[0] * v[1] == channels) return v;
  }
  return channels % 3 == 0 ? std::vector<int64_t>{channels / 3, 3}
                           : std::vector<int64_t>{channels / 2, 2};
}

// An integer field of the metadata in [lo, hi] (a float or a huge number is refused, never cast).
int64_t int_field(const json& j, const char* key, int64_t lo, int64_t hi) {
  const json& v = j.at(key);
  EDGEQ_CHECK(v.is_number_integer(), key, " is not an integer: ", v.dump());
  const int64_t x =
      v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX) ? hi + 1 : v.get<int64_t>();
  EDGEQ_CHECK(x >= lo && x <= hi, key, " ", v.dump(), " is outside [", lo, ", ", hi, "]");
  return x;
}

HeadPart parse_part(const std::string& s) {
  for (int i = 0; i < 3; ++i)
    if (s == kPartNames[i]) return static_cast<HeadPart>(i);
  fail("unknown part '", s, "' (box, class or keypoints)");
}

}  // namespace

std::string_view head_part_name(HeadPart part) {
  return kPartNames[static_cast<int>(part)];
}

int64_t RawHeadLayout::channels_of(HeadPart part) const {
  switch (part) {
    case HeadPart::kBox:
      return 4 * int64_t{reg_max};
    case HeadPart::kClass:
      return num_classes;
    case HeadPart::kKeypoints:
      return int64_t{num_keypoints} * keypoint_dims;
  }
  return 0;
}

int64_t RawHeadLayout::anchors() const {
  int64_t n = 0;
  for (const auto& o : outputs)
    if (o.part == HeadPart::kBox) n += o.height * o.width;
  return n;
}

int64_t RawHeadLayout::decoded_channels() const {
  return 4 + num_classes + int64_t{num_keypoints} * keypoint_dims;
}

ValueInfo RawHeadLayout::decoded_info() const {
  return {decoded, DType::kFloat32, {1, decoded_channels(), anchors()}};
}

Graph cut_raw_head(const Graph& model) {
  for (const auto& n : model.nodes)
    EDGEQ_CHECK(n.op_type != "QuantizeLinear" && n.op_type != "DequantizeLinear", "model '",
                model.name,
                "' is quantized: cut the raw head from the float model, then quantize it");
  const ValueInfo head = head_output(model);
  EDGEQ_CHECK(!model.inputs.empty() && model.inputs[0].shape.size() == 4 &&
                  model.inputs[0].shape[2] > 0 && model.inputs[0].shape[3] > 0,
              "model '", model.name,
              "' needs an image input [1,3,H,W] of fixed size for a raw head");
  RawHeadLayout layout;
  layout.decoded = head.name;
  layout.input_h = model.inputs[0].shape[2];
  layout.input_w = model.inputs[0].shape[3];
  const std::vector<int> convs = last_convolutions(model, head.name, &layout.reg_max);

  Graph g = model;
  g.outputs.clear();
  for (int c : convs) g.outputs.push_back({model.nodes[c].outputs[0], DType::kFloat32, {}});
  std::set<std::string> outs;
  for (const auto& o : g.outputs) outs.insert(o.name);
  g.sort_topologically();
  g.remove_dead_nodes();
  std::vector<ValueInfo> vi;
  for (auto& v : g.value_info)
    if (!outs.count(v.name)) vi.push_back(v);
  g.value_info = std::move(vi);
  infer_output_shapes(g);

  // Group by map size (one scale each), then tell box, class and keypoints apart.
  std::map<int, std::vector<ValueInfo>> scales;  // stride -> outputs
  for (const auto& o : g.outputs) {
    EDGEQ_CHECK(o.shape.size() == 4 && o.shape[2] > 0 && o.shape[3] > 0 &&
                    layout.input_h % o.shape[2] == 0 && layout.input_w % o.shape[3] == 0 &&
                    layout.input_h / o.shape[2] == layout.input_w / o.shape[3],
                "head convolution output '", o.name, "' ", shape_str(o.shape),
                " is not a feature map of the input's ", layout.input_h, "x", layout.input_w);
    scales[static_cast<int>(layout.input_h / o.shape[2])].push_back(o);
  }
  const int64_t box_channels = 4 * int64_t{layout.reg_max};
  std::vector<ValueInfo> ordered;
  for (auto& [stride, list] : scales) {
    std::vector<std::string> names;
    for (const auto& o : list) names.push_back(o.name);
    int box = -1;
    for (size_t i = 0; i < list.size(); ++i)
      if (list[i].shape[1] == box_channels && concat_partner(model, names[i], names) >= 0)
        box = static_cast<int>(i);
    EDGEQ_CHECK(box >= 0 && list.size() >= 2 && list.size() <= 3, "stride ", stride,
                ": expected a box convolution (", box_channels,
                " channels, concatenated with the class logits) and a class convolution (and for "
                "pose a keypoint one), found ",
                list.size(), " convolution outputs");
    const int cls = concat_partner(model, names[box], names);
    std::vector<std::pair<HeadPart, ValueInfo>> parts{{HeadPart::kBox, list[box]},
                                                      {HeadPart::kClass, list[cls]}};
    for (size_t i = 0; i < list.size(); ++i)
      if (static_cast<int>(i) != box && static_cast<int>(i) != cls)
        parts.push_back({HeadPart::kKeypoints, list[i]});
    const int nc = static_cast<int>(list[cls].shape[1]);
    const int64_t kch = parts.size() == 3 ? parts[2].second.shape[1] : 0;
    if (layout.outputs.empty()) {
      layout.num_classes = nc;
      if (kch > 0) {
        const auto kpt = kpt_shape_of(model, kch);
        layout.num_keypoints = static_cast<int>(kpt[0]);
        layout.keypoint_dims = static_cast<int>(kpt[1]);
      }
    }
    EDGEQ_CHECK(nc == layout.num_classes && kch == layout.channels_of(HeadPart::kKeypoints),
                "stride ", stride,
                ": the class or keypoint convolution has another channel count "
                "than at the other scales");
    for (const auto& [part, o] : parts) {
      layout.outputs.push_back({o.name, part, stride, o.shape[2], o.shape[3]});
      ordered.push_back(o);
    }
  }
  EDGEQ_CHECK(head.shape.size() == 3 &&
                  (head.shape[1] < 0 || head.shape[1] == layout.decoded_channels()) &&
                  (head.shape[2] < 0 || head.shape[2] == layout.anchors()),
              "the head convolutions give ", layout.decoded_channels(), " channels and ",
              layout.anchors(), " anchors but '", head.name, "' is ", shape_str(head.shape));
  g.outputs = std::move(ordered);
  g.metadata.push_back({kRawHeadKey, raw_head_json(layout)});
  return g;
}

std::string raw_head_json(const RawHeadLayout& layout) {
  json outs = json::array();
  for (const auto& o : layout.outputs)
    outs.push_back({{"name", o.name},
                    {"kind", std::string(head_part_name(o.part))},
                    {"stride", o.stride},
                    {"height", o.height},
                    {"width", o.width}});
  json j = {{"version", 1},
            {"decoded", layout.decoded},
            {"reg_max", layout.reg_max},
            {"num_classes", layout.num_classes},
            {"kpt_shape", json::array({layout.num_keypoints, layout.keypoint_dims})},
            {"input", json::array({layout.input_h, layout.input_w})},
            {"outputs", outs}};
  return j.dump();
}

std::optional<RawHeadLayout> raw_head_layout(const Graph& g) {
  const auto meta = g.metadata_value(kRawHeadKey);
  if (!meta) return std::nullopt;
  RawHeadLayout l;
  try {
    const json j = json::parse(*meta);
    EDGEQ_CHECK(int_field(j, "version", 0, 1000) == 1, "version ", j.at("version").dump(),
                " (this edgeq reads version 1)");
    l.decoded = j.at("decoded").get<std::string>();
    l.reg_max = static_cast<int>(int_field(j, "reg_max", 1, 64));
    l.num_classes = static_cast<int>(int_field(j, "num_classes", 1, 100000));
    const json& kpt = j.at("kpt_shape");
    EDGEQ_CHECK(kpt.is_array() && kpt.size() == 2, "kpt_shape needs 2 numbers");
    l.num_keypoints =
        static_cast<int>(int_field({{"kpt_shape[0]", kpt[0]}}, "kpt_shape[0]", 0, 1000));
    l.keypoint_dims = static_cast<int>(int_field({{"kpt_shape[1]", kpt[1]}}, "kpt_shape[1]", 0, 3));
    const json& in = j.at("input");
    EDGEQ_CHECK(in.is_array() && in.size() == 2, "input needs a height and a width");
    l.input_h = int_field({{"input[0]", in[0]}}, "input[0]", 1, 1 << 16);
    l.input_w = int_field({{"input[1]", in[1]}}, "input[1]", 1, 1 << 16);
    EDGEQ_CHECK(l.reg_max > 0 && l.reg_max <= 64 && l.num_classes > 0 && l.num_keypoints >= 0 &&
                    (l.num_keypoints == 0 ? l.keypoint_dims == 0
                                          : l.keypoint_dims == 2 || l.keypoint_dims == 3),
                "reg_max, num_classes or kpt_shape out of range");
    for (const auto& o : j.at("outputs")) {
      RawHeadOutput out{o.at("name").get<std::string>(),
                        parse_part(o.at("kind").get<std::string>()),
                        static_cast<int>(int_field(o, "stride", 1, 1 << 16)),
                        int_field(o, "height", 1, 1 << 16), int_field(o, "width", 1, 1 << 16)};
      EDGEQ_CHECK(out.stride > 0 && out.height * out.stride == l.input_h &&
                      out.width * out.stride == l.input_w,
                  "output '", out.name, "': stride ", out.stride, " and map ", out.height, "x",
                  out.width, " do not fit the ", l.input_h, "x", l.input_w, " input");
      l.outputs.push_back(out);
    }
    // Every scale has one output of each part, in box, class, keypoints order.
    const size_t per_scale = l.num_keypoints > 0 ? 3 : 2;
    EDGEQ_CHECK(!l.outputs.empty() && l.outputs.size() % per_scale == 0, "expected ", per_scale,
                " outputs per scale, got ", l.outputs.size(), " in all");
    for (size_t i = 0; i < l.outputs.size(); ++i)
      EDGEQ_CHECK(static_cast<size_t>(l.outputs[i].part) == i % per_scale &&
                      l.outputs[i].stride == l.outputs[i - i % per_scale].stride,
                  "output '", l.outputs[i].name, "' is out of place (each scale lists box, class",
                  per_scale == 3 ? ", keypoints" : "", ")");
    for (const auto& o : l.outputs) {
      const ValueInfo* vi = nullptr;
      for (const auto& go : g.outputs)
        if (go.name == o.name) vi = &go;
      EDGEQ_CHECK(vi, "it names output '", o.name, "', which the model does not have");
      const Shape want{1, l.channels_of(o.part), o.height, o.width};
      bool fits = vi->shape.size() == 4;
      for (size_t d = 0; fits && d < 4; ++d) fits = vi->shape[d] < 0 || vi->shape[d] == want[d];
      EDGEQ_CHECK(fits, "output '", o.name, "' is ", shape_str(vi->shape), " but its ",
                  head_part_name(o.part), " part needs ", shape_str(want));
    }
    for (const auto& go : g.outputs)
      EDGEQ_CHECK(go.name != l.decoded, "the decoded output's name '", l.decoded,
                  "' is already an output of the model");
  } catch (const json::exception& e) {
    fail("raw-head metadata (", kRawHeadKey, ") of model '", g.name, "' is damaged: ", e.what());
  } catch (const Error& e) {
    fail("raw-head metadata (", kRawHeadKey, ") of model '", g.name, "' is damaged: ", e.what());
  }
  return l;
}

}  // namespace edgeq

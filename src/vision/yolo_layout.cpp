#include "vision/yolo_layout.h"

#include <cctype>

#include "core/error.h"

namespace edgeq {

std::string YoloLayout::class_name(int cls) const {
  if (cls >= 0 && cls < static_cast<int>(class_names.size())) return class_names[cls];
  return "class" + std::to_string(cls);
}

std::vector<int> parse_int_list(const std::string& s) {
  std::vector<int> out;
  size_t i = 0;
  while (i < s.size()) {
    if (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '-') {
      size_t used = 0;
      try {
        out.push_back(std::stoi(s.substr(i), &used));
      } catch (const std::exception&) {
        fail("cannot read integer list from metadata value '", s, "'");
      }
      i += used;
    } else {
      ++i;
    }
  }
  return out;
}

std::vector<std::string> parse_class_names(const std::string& s) {
  // Python dict repr with integer keys: every quoted string is a value.
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size(); ++i) {
    const char q = s[i];
    if (q != '\'' && q != '"') continue;
    std::string name;
    size_t j = i + 1;
    for (; j < s.size() && s[j] != q; ++j) {
      if (s[j] == '\\' && j + 1 < s.size()) ++j;
      name += s[j];
    }
    EDGEQ_CHECK(j < s.size(), "unterminated string in metadata names '", s, "'");
    out.push_back(name);
    i = j;
  }
  return out;
}

YoloLayout resolve_yolo_layout(const Shape& shape, const std::optional<std::string>& kpt_shape,
                               const std::optional<std::string>& names) {
  const std::string expected =
      "expected a YOLO raw output [1, 4 + classes + keypoints, anchors], got " + shape_str(shape);
  EDGEQ_CHECK(shape.size() == 3, expected, " (rank ", shape.size(), ")");
  EDGEQ_CHECK(shape[0] == 1, expected, " (batch must be 1)");
  const int64_t ch = shape[1];
  YoloLayout lay;
  lay.num_anchors = shape[2];
  EDGEQ_CHECK(lay.num_anchors > 0, expected, " (no anchors)");
  EDGEQ_CHECK(ch >= 5, expected, " (", ch, " channels; need 4 box rows and at least 1 class)");

  if (names) lay.class_names = parse_class_names(*names);
  if (kpt_shape) {
    std::vector<int> k = parse_int_list(*kpt_shape);
    EDGEQ_CHECK(k.size() == 2 && k[0] > 0 && (k[1] == 2 || k[1] == 3), "metadata kpt_shape '",
                *kpt_shape, "' is not [keypoints, 2 or 3]");
    lay.num_keypoints = k[0];
    lay.keypoint_dims = k[1];
  }
  if (kpt_shape || names) {
    lay.source = "metadata";
    lay.num_classes = names ? static_cast<int>(lay.class_names.size())
                            : static_cast<int>(ch - 4 - lay.num_keypoints * lay.keypoint_dims);
    EDGEQ_CHECK(lay.num_classes >= 1, expected, " (metadata gives ", lay.num_classes,
                " classes; need at least 1)");
    EDGEQ_CHECK(lay.channels() == ch, expected, ": metadata says ", lay.num_classes,
                " classes and ", lay.num_keypoints, "x", lay.keypoint_dims,
                " keypoint values, which needs ", lay.channels(), " channels, not ", ch);
    return lay;
  }
  lay.source = "channel count";
  if (ch == 56) {
    lay.num_classes = 1;
    lay.num_keypoints = 17;
    lay.keypoint_dims = 3;
  } else {
    lay.num_classes = static_cast<int>(ch - 4);
  }
  return lay;
}

YoloLayout yolo_layout_for(const Graph& g, const Shape& output_shape) {
  return resolve_yolo_layout(output_shape, g.metadata_value("kpt_shape"),
                             g.metadata_value("names"));
}

}  // namespace edgeq

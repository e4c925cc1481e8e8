// YOLO label files (vision/labels.h): parse_yolo_labels on arbitrary text for a 640 x 480 image,
// checked against a model whose class count and keypoints the first two bytes choose (byte 0:
// classes 0..80, 0 for no model; byte 1: keypoints 0..17, 0 for a detect model); the rest is the
// file. What it accepts fits that model (classes, keypoints, visibilities, centres, sizes) and
// formats back to text that parses, against the same model, to as many objects.
#include "fuzz_util.h"
#include "vision/labels.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace edgeq;
  if (size < 2) return 0;
  const LabelSchema schema{data[0] % 81, data[1] % 18};
  std::vector<Label> labels;
  if (!fuzz::accepts([&] {
        labels =
            parse_yolo_labels(fuzz::bytes_of(data + 2, size - 2), 640, 480, "fuzz.txt", schema);
      }))
    return 0;
  for (const Label& l : labels) {
    fuzz::require(schema.classes == 0 || (l.cls >= 0 && l.cls < schema.classes),
                  "accepted a class the model does not have");
    fuzz::require(l.box[2] > l.box[0] && l.box[3] > l.box[1], "accepted a box without an area");
    fuzz::require(schema.keypoints == 0 || l.kpts.empty() ||
                      l.kpts.size() == static_cast<size_t>(schema.keypoints),
                  "accepted another keypoint count than the model's");
    for (const Keypoint& k : l.kpts)
      fuzz::require(k.v >= 0 && k.v <= 2, "accepted a visibility outside 0..2");
  }
  std::vector<Label> back;
  fuzz::require(fuzz::accepts([&] {
                  back = parse_yolo_labels(format_yolo_labels(labels, 640, 480), 640, 480,
                                           "formatted", schema);
                }),
                "formatted labels do not parse");
  fuzz::require(back.size() == labels.size(), "round trip changed the number of objects");
  return 0;
}

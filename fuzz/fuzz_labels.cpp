// YOLO label files (vision/labels.h): parse_yolo_labels on arbitrary text for a 640 x 480 image;
// what it accepts formats back to text that parses to as many objects.
#include "fuzz_util.h"
#include "vision/labels.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace edgeq;
  std::vector<Label> labels;
  if (!fuzz::accepts(
          [&] { labels = parse_yolo_labels(fuzz::bytes_of(data, size), 640, 480, "fuzz.txt"); }))
    return 0;
  std::vector<Label> back;
  fuzz::require(fuzz::accepts([&] {
                  back = parse_yolo_labels(format_yolo_labels(labels, 640, 480), 640, 480);
                }),
                "formatted labels do not parse");
  fuzz::require(back.size() == labels.size(), "round trip changed the number of objects");
  return 0;
}

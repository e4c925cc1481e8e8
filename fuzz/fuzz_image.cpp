// Image decoding (vision/image_io.h, OpenCV's decoders underneath) and the letterbox that
// follows it: arbitrary bytes as an image file, read_image, then preprocess_image to 64 x 64.
// OpenCV's pixel limit is lowered (OPENCV_IO_MAX_IMAGE_PIXELS) so that a header claiming a huge
// image is refused instead of exhausting the fuzzer's memory.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "fuzz_util.h"
#include "vision/image_io.h"
#include "vision/letterbox.h"

namespace {

std::string scratch;

void remove_scratch() {
  std::remove(scratch.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("OPENCV_IO_MAX_IMAGE_PIXELS", "4194304", 1);
  const char* tmp = std::getenv("TMPDIR");
  scratch =
      std::string(tmp && *tmp ? tmp : "/tmp") + "/edgeq_fuzz_image_" + std::to_string(getpid());
  std::atexit(remove_scratch);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace edgeq;
  {
    std::ofstream f(scratch, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  fuzz::accepts([&] {
    cv::Mat img = read_image(scratch);
    LetterboxInfo info;
    Tensor t = preprocess_image(img, 64, 64, &info);
    fuzz::require(t.numel() == 3 * 64 * 64, "preprocessed tensor has the wrong size");
  });
  return 0;
}

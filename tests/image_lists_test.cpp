// Which files are image lists (issue 46): a file named as images that is not an image or a folder
// is read as a list only when it says it is one (a .txt / .lst / .list name, or a first line that
// is an image path); every entry is checked before any work; and no message carries what such a
// file holds beyond a shortened, escaped path.
#include <gtest/gtest.h>

#include <filesystem>
#include <opencv2/imgcodecs.hpp>

#include "calib/calibration_images.h"
#include "cli_util.h"
#include "core/file_io.h"
#include "test_util.h"
#include "vision/synthetic_scenes.h"

namespace edgeq {
namespace {
namespace fs = std::filesystem;

struct ListDir {
  std::string dir;
  ListDir() : dir(test::temp_dir("image_lists")) {
    fs::create_directories(dir + "/img");
    for (int i = 0; i < 2; ++i)
      cv::imwrite(dir + "/img/p" + std::to_string(i) + ".jpg", synthetic_scene(i, 3, 64, 48));
  }
  std::string write(const std::string& name, const std::string& text) const {
    write_file_atomic(dir + "/" + name, text);
    return dir + "/" + name;
  }
};

TEST(ImageLists, ListsSayTheyAreLists) {
  const ListDir d;
  // A .txt list with a comment and a blank line; a list without a list extension whose first
  // line is an image.
  EXPECT_EQ(
      list_calibration_images(d.write("a.txt", "# photos\nimg/p0.jpg\n\n img/p1.jpg \n")).size(),
      2u);
  const auto plain = list_calibration_images(d.write("calib", "img/p1.jpg\nimg/p0.jpg\n"));
  ASSERT_EQ(plain.size(), 2u);
  EXPECT_EQ(plain[0].path, d.dir + "/img/p1.jpg");
}

TEST(ImageLists, OtherFilesAreRefusedWithoutEchoingThem) {
  const ListDir d;
  const std::string secret = "API_KEY=sk-live-0123456789abcdef";
  for (const char* name : {"secret.cfg", "settings", "notes.md"}) {
    const std::string msg =
        test::error_of([&] { list_calibration_images(d.write(name, secret + "\nimg/p0.jpg\n")); });
    EXPECT_NE(msg.find("is not an image"), std::string::npos) << msg;
    EXPECT_NE(msg.find(name), std::string::npos) << msg;
    EXPECT_EQ(msg.find("sk-live"), std::string::npos) << msg;
  }
  // A binary file whose first bytes happen to form an image name is not a list either.
  std::string binary = "img/p0.jpg\n";
  binary += std::string("\0\x01\x02 RIFF", 9);
  EXPECT_NE(test::error_of([&] {
              list_calibration_images(d.write("blob.bin", binary));
            }).find("is not an image"),
            std::string::npos);
  // A video is named as such, and none of its bytes reach the message.
  const char header[] = "RIFF\x10\0\0\0AVI LIST\x1b]0;pwned\x07";
  const std::string avi = d.write("v.avi", std::string(header, sizeof header - 1));
  const std::string msg = test::error_of([&] { list_calibration_images(avi); });
  EXPECT_NE(msg.find("is a video"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("RIFF"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("pwned"), std::string::npos) << msg;
}

TEST(ImageLists, EveryEntryIsCheckedFirstAndNamedByLine) {
  const ListDir d;
  const std::string msg = test::error_of(
      [&] { list_calibration_images(d.write("l.txt", "img/p0.jpg\n# gone:\nimg/missing.jpg\n")); });
  EXPECT_NE(msg.find("line 3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("missing.jpg"), std::string::npos) << msg;
  EXPECT_NE(test::error_of([&] {
              list_calibration_images(d.write("e.txt", "# none\n\n"));
            }).find("names no image"),
            std::string::npos);
  // A long entry is shortened in the message, not quoted whole.
  const std::string long_name = "img/" + std::string(400, 'x') + ".jpg";
  const std::string long_msg =
      test::error_of([&] { list_calibration_images(d.write("long.txt", long_name + "\n")); });
  EXPECT_NE(long_msg.find("..."), std::string::npos) << long_msg;
  EXPECT_LT(long_msg.size(), 300u) << long_msg;
}

// Through the program: a config file given as --images is refused in one line without its content.
TEST(ImageLists, CalibrateDoesNotEchoAConfigFile) {
  const ListDir d;
  const std::string cfg = d.write("secret.cfg", "API_KEY=sk-live-0123456789abcdef\n");
  const auto r = test::run_cli("calibrate --model " + test::shell_quote(test::real_model_path()) +
                               " --images " + test::shell_quote(cfg) + " --out " +
                               test::shell_quote(d.dir + "/s.json"));
  test::expect_refusal(r, "is not an image", d.dir + "/s.json");
  EXPECT_EQ(r.err.find("sk-live"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("sk-live"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace edgeq

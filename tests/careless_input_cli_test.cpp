// Careless input through the program (issue 27): an output that is an input is refused before any
// work and the input keeps its bytes (run --draw into the photos' folder, run --json / calibrate
// --out / cut --out / compare --json onto the model, quantize --out and --encodings on one file);
// a file that only turns out to be an input when written (infer --out over its --input) is
// refused by the writer; devices are refused by every reader in one line, without hanging;
// numbers out of range (a negative queue, fractional or huge thread counts) are refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_util.h"
#include "core/file_io.h"
#include "core/sha256.h"
#include "test_util.h"

namespace edgeq {
namespace {
namespace fs = std::filesystem;
using test::run_cli;
using test::shell_quote;

size_t error_lines(const std::string& s) {
  size_t n = 0;
  for (size_t p = s.find("error"); p != std::string::npos; p = s.find("error", p + 1)) ++n;
  return n;
}

// A copy of the real model and two photos in a scratch folder, so a failed guard cannot damage
// the repository's files.
struct Scratch {
  std::string dir, model, photos;
};

Scratch scratch(const std::string& name) {
  Scratch s;
  s.dir = test::temp_dir(name);
  s.model = s.dir + "/m.onnx";
  s.photos = s.dir + "/photos";
  fs::copy_file(test::real_model_path(), s.model);
  fs::create_directories(s.photos);
  for (const char* p : {"000000000036.jpg", "000000000049.jpg"})
    fs::copy_file(test::coco8_pose_dir() + "/images/train/" + p, s.photos + "/" + p);
  return s;
}

std::string digest(const std::string& path) {
  return sha256_hex(read_file(path));
}

// `args` must fail in one line naming `needle`, and `input` keep its bytes.
void expect_input_kept(const std::string& args, const std::string& needle,
                       const std::string& input) {
  const std::string before = digest(input);
  const auto r = run_cli(args);
  EXPECT_NE(r.exit_code, 0) << args;
  EXPECT_NE(r.err.find(needle), std::string::npos) << args << "\n" << r.err;
  EXPECT_EQ(error_lines(r.err), 1u) << r.err;
  EXPECT_EQ(digest(input), before) << input << " changed by: " << args;
}

TEST(CarelessInputCli, OutputsNeverOverwriteInputs) {
  EDGEQ_REQUIRE_REAL_DATA();
  const Scratch s = scratch("guard_outputs");
  const std::string m = shell_quote(s.model), photos = shell_quote(s.photos);
  expect_input_kept("run --model " + m + " --image " + photos + " --draw " + photos,
                    "--draw " + s.photos + " is the folder of --image",
                    s.photos + "/000000000036.jpg");
  EXPECT_EQ(std::distance(fs::directory_iterator(s.photos), fs::directory_iterator()), 2);
  expect_input_kept("run --model " + m + " --image " + photos + " --json " + m,
                    "--json " + s.model + " is the same file as --model", s.model);
  expect_input_kept("calibrate --model " + m + " --images " + photos + " --out " + m,
                    "is the same file as --model", s.model);
  expect_input_kept("cut --model " + m + " --arm A --out " + shell_quote(s.dir + "/./m.onnx"),
                    "is the same file as --model", s.model);
  expect_input_kept("compare --ref " + m + " --test " + m + " --images " + photos + " --json " + m,
                    "--json " + s.model + " is the same file as --ref", s.model);
  expect_input_kept("inspect --model " + m + " --json " + m, "is the same file as --model",
                    s.model);
  const std::string q = s.dir + "/q.onnx";
  const auto r =
      run_cli("quantize --model " + m + " --stats " + shell_quote(s.dir + "/s.cbor") +
              " --scheme w8a8 --out " + shell_quote(q) + " --encodings " + shell_quote(q));
  test::expect_refusal(r, "--encodings " + q + " is the same file as --out " + q, q);
  EXPECT_EQ(r.out.find("wrote"), std::string::npos) << r.out;
}

TEST(CarelessInputCli, WriterRefusesToReplaceAnInputItRead) {
  EDGEQ_REQUIRE_REAL_DATA();
  const Scratch s = scratch("guard_writer");
  // One photo drawn into its own folder: the drawing is named after the photo (--image is a file,
  // --draw a folder: not the same file, not the same folder). The writer used to be the first to
  // see it; since issue 46 the check before work knows the names a --draw folder receives.
  const std::string photo = s.photos + "/000000000036.jpg";
  expect_input_kept("run --model " + shell_quote(s.model) + " --image " + shell_quote(photo) +
                        " --draw " + shell_quote(s.photos),
                    "--image " + photo + " lies in --draw " + s.photos, photo);
}

TEST(CarelessInputCli, DevicesAreOneLineAndNeverRead) {
  const std::string d = test::temp_dir("guard_devices");
  for (const std::string& args :
       {std::string("inspect --model /dev/zero"),
        "quantize --model " + shell_quote(test::real_model_path()) +
            " --stats /dev/zero --scheme w8a8 --out " + shell_quote(d + "/q.onnx"),
        "study --config /dev/zero --out " + shell_quote(d + "/study"),
        "probe --model " + shell_quote(test::real_model_path()) + " --images " +
            shell_quote(test::coco8_pose_dir() + "/images") + " --labels /dev/zero"}) {
    const auto r = run_cli(args);
    EXPECT_NE(r.exit_code, 0) << args;
    EXPECT_NE(r.err.find("not a regular file: /dev/zero"), std::string::npos) << args << "\n"
                                                                              << r.err;
    EXPECT_EQ(error_lines(r.err), 1u) << r.err;
  }
  EXPECT_FALSE(fs::exists(d + "/q.onnx"));
  EXPECT_FALSE(fs::exists(d + "/study"));
}

// Checked before the work, not after it: an output under a file (quantize --auto-out used to fail
// after the whole search) and an arm named twice (it ran twice). --auto 0, which skipped the
// search without a word, is in QuantAuto.BadInputIsOneLineAndWritesNothing.
TEST(CarelessInputCli, BadOutputsAndRepeatsAreRefusedBeforeWork) {
  const std::string d = test::temp_dir("careless_before");
  const std::string m = test::real_model_path(), photos = test::coco8_pose_dir() + "/images";
  write_file_atomic(d + "/notes.txt", "a file, not a folder\n");
  const std::string q = "quantize --model " + shell_quote(m) + " --stats " +
                        shell_quote(d + "/s.cbor") + " --scheme w8a8 --images " +
                        shell_quote(photos) + " --out " + shell_quote(d + "/q.onnx");
  auto r = run_cli(q + " --auto 5 --auto-out " + shell_quote(d + "/notes.txt/set.json"));
  test::expect_refusal(r,
                       "--auto-out " + d + "/notes.txt/set.json cannot be written: " + d +
                           "/notes.txt is a file, not a folder",
                       d + "/q.onnx");
  r = run_cli("study --models " + shell_quote(m) + " --images " + shell_quote(photos) + " --test " +
              shell_quote(photos) + " --arms C,C,c --out " + shell_quote(d + "/st"));
  test::expect_refusal(r, "arms: 'C' names an arm given before", d + "/st");
}

// Numbers are range-checked, in flags and in the study's config: "-1" used to wrap to 2^64-1,
// 2.7 to truncate, 1e12 to overflow.
TEST(CarelessInputCli, NumbersOutOfRangeAreRefused) {
  const std::string d = test::temp_dir("careless_numbers");
  const std::string m = test::real_model_path(), photos = test::coco8_pose_dir() + "/images";
  auto r = run_cli("run --model " + shell_quote(m) + " --image " + shell_quote(photos) +
                   " --pipeline --queue -1");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--queue: -1 is outside [1, 4096]"), std::string::npos) << r.err;
  for (const char* bad :
       {"\"threads\": -7", "\"threads\": 2.7", "\"threads\": 1e12", "\"calib_n\": -1"}) {
    const std::string cfg = d + "/c.json";
    write_file_atomic(cfg, "{\"models\": [\"" + m + "\"], \"images\": \"" + photos +
                               "\", \"test\": \"" + photos + "\", \"out\": \"" + d + "/study\", " +
                               bad + "}");
    r = run_cli("study --config " + shell_quote(cfg));
    EXPECT_NE(r.exit_code, 0) << bad;
    EXPECT_EQ(error_lines(r.err), 1u) << bad << ": " << r.err;
    EXPECT_TRUE(r.err.find("threads") != std::string::npos ||
                r.err.find("calib_n") != std::string::npos)
        << bad << ": " << r.err;
  }
  EXPECT_FALSE(fs::exists(d + "/study"));
}

// A command that fails before it has results leaves nothing behind: no new ledger file (it used
// to be created, empty, by every failed command given --ledger) and no --json / --draw folder.
TEST(CarelessInputCli, FailedCommandsCreateNoLedgerAndNoFolders) {
  const std::string d = test::temp_dir("careless_nothing");
  const std::string m = test::real_model_path(), photos = test::coco8_pose_dir() + "/images/val";
  const std::string ledger = d + "/new.sqlite";
  // quantize: statistics that do not exist.
  auto r = run_cli("quantize --model " + shell_quote(m) + " --stats " +
                   shell_quote(d + "/no.cbor") + " --scheme w8a8 --out " +
                   shell_quote(d + "/q.onnx") + " --ledger " + shell_quote(ledger));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(fs::exists(ledger)) << r.err;
  // run: a model that is not ONNX, with output folders that do not exist yet.
  write_file_atomic(d + "/bad.onnx", "not a model");
  r = run_cli("run --model " + shell_quote(d + "/bad.onnx") + " --image " + shell_quote(photos) +
              " --json " + shell_quote(d + "/out/dets.json") + " --draw " +
              shell_quote(d + "/drawn") + " --ledger " + shell_quote(ledger));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(fs::exists(d + "/out")) << r.err;
  EXPECT_FALSE(fs::exists(d + "/drawn")) << r.err;
  EXPECT_FALSE(fs::exists(ledger)) << r.err;
  // The same ledger is created by the first command that succeeds.
  r = run_cli("calibrate --model " + shell_quote(m) + " --images " + shell_quote(photos) +
              " --n 1 --out " + shell_quote(d + "/s.cbor") + " --ledger " + shell_quote(ledger));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(ledger));
  EXPECT_NE(r.err.find("ledger: recorded run 1"), std::string::npos) << r.err;
}

// A link back up a photo folder: `run` sees each photo once (2 images used to become 82 frames).
TEST(CarelessInputCli, SymlinkLoopInAnImageFolderRunsEachPhotoOnce) {
  const Scratch s = scratch("careless_symlink_loop");
  fs::create_directory_symlink("..", s.photos + "/up");
  const auto r = run_cli("run --model " + shell_quote(s.model) + " --image " +
                         shell_quote(s.photos) + " --json " + shell_quote(s.dir + "/d.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto frames = nlohmann::json::parse(read_file(s.dir + "/d.json"));
  EXPECT_EQ(frames.size(), 2u);
}

// A mosaic joins the labels of four files: files with different layouts (17 keypoints, none)
// are refused before any work, naming both (augment used to write files mixing 5- and 56-number
// lines that compare then rejected). One layout gives label files of that layout only.
TEST(CarelessInputCli, AugmentRefusesLabelFilesOfTwoLayouts) {
  const Scratch s = scratch("careless_augment_layouts");
  fs::create_directories(s.dir + "/labels");
  std::string pose = "0 0.5 0.5 0.4 0.6";
  for (int k = 0; k < 17; ++k) pose += " 0.5 0.5 2";
  write_file_atomic(s.dir + "/labels/000000000036.txt", pose + "\n");
  write_file_atomic(s.dir + "/labels/000000000049.txt", "0 0.5 0.5 0.2 0.2\n");
  const std::string cmd = "augment --images " + shell_quote(s.photos) + " --labels " +
                          shell_quote(s.dir + "/labels") + " --n 4 --out ";
  auto r = run_cli(cmd + shell_quote(s.dir + "/mixed"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("000000000049.txt has 0 keypoints per object but"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("000000000036.txt has 17"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(s.dir + "/mixed"));
  write_file_atomic(s.dir + "/labels/000000000049.txt", pose + "\n" + pose + "\n");
  r = run_cli(cmd + shell_quote(s.dir + "/ok"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t lines = 0;
  for (const auto& e : fs::directory_iterator(s.dir + "/ok/labels")) {
    std::istringstream in(read_file(e.path().string()));
    for (std::string line; std::getline(in, line);) {
      if (line.empty()) continue;
      std::istringstream words(line);
      size_t n = 0;
      for (std::string w; words >> w;) ++n;
      EXPECT_EQ(n, 56u) << e.path() << ": " << line;
      ++lines;
    }
  }
  EXPECT_GT(lines, 0u);
}

}  // namespace
}  // namespace edgeq

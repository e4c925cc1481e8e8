// Outputs through the program (issue 46), each command that writes tried the careless way:
// - an output naming the ledger (bench / run / calibrate / quantize / compare --json or --out onto
//   --ledger, study --ledger inside its --out) is refused before work, and the ledger keeps its
//   runs (it used to be replaced by JSON, "recorded run 8" printed, exit 0);
// - a file inside an output folder among the files written there (run --json into --draw, study
//   --plan onto OUT/data.json) and an existing file of an input folder (run --report, calibrate,
//   compare, probe, doctor --json onto a photo, scenes --video over a photo of --images) are
//   refused before any frame or image is processed;
// - a --draw folder inside the image folder (or around it) whose drawings would replace photos
//   not read yet is refused before the first frame;
// - outputs that are not regular files are written through, never replaced: a FIFO, a link to a
//   FIFO, to /dev/null or to this process's stdout, and "-" for text reports; "-" for a binary
//   output is refused. Every test writes only to files and links it made itself.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <thread>

#include "cli_util.h"
#include "core/file_io.h"
#include "core/sha256.h"
#include "edgeq/ledger.h"
#include "ir/onnx_io.h"
#include "test_util.h"
#include "vision/synthetic_scenes.h"
#include "zoo/yolo11.h"

namespace edgeq {
namespace {
namespace fs = std::filesystem;
using test::run_cli;
using test::shell_quote;

// A small model, two photos in img/ and a ledger of three runs, in a scratch folder.
struct Scratch {
  std::string dir, model, img, ledger;
  std::string q(const std::string& p) const { return shell_quote(p); }
};

Scratch scratch(const std::string& name) {
  Scratch s;
  s.dir = test::temp_dir(name);
  s.model = s.dir + "/m.onnx";
  s.img = s.dir + "/img";
  s.ledger = s.dir + "/l.sqlite";
  save_onnx(build_yolo11("yolo11n-pose", 64), s.model);
  const auto written = write_synthetic_scenes(s.img, 2, 5);
  fs::rename(written[0], s.img + "/x.jpg");
  Ledger ledger(s.ledger, true);
  for (int i = 0; i < 3; ++i) ledger.record("bench", "{\"median_ms\": 30}");
  return s;
}

std::string digest(const std::string& path) {
  return sha256_hex(read_file(path));
}

// Runs in the ledger; 0 when it is no longer one.
size_t ledger_runs(const std::string& path) {
  try {
    return Ledger(path).runs().size();
  } catch (const std::exception&) {
    return 0;
  }
}

// `args` is refused in one line holding `needle`, `kept` keeps its bytes and nothing was
// processed (no frame line, no "wrote" on stdout).
void expect_refused_before_work(const std::string& args, const std::string& needle,
                                const std::string& kept) {
  const std::string before = digest(kept);
  const auto r = run_cli(args);
  EXPECT_NE(r.exit_code, 0) << args;
  EXPECT_NE(r.err.find(needle), std::string::npos) << args << "\n" << r.err;
  EXPECT_EQ(r.err.find("error"), r.err.rfind("error")) << r.err;  // one error line
  EXPECT_EQ(r.out, "") << args;
  EXPECT_EQ(digest(kept), before) << kept << " changed by: " << args;
}

TEST(OutputGuardCli, NoOutputMayNameTheLedger) {
  const Scratch s = scratch("outguard_ledger");
  const std::string m = s.q(s.model), img = s.q(s.img), l = s.q(s.ledger);
  const std::string same = " is the same file as ";
  for (const std::string& args : {
           "bench --model " + m + " --runs 1 --ledger " + l + " --json " + l,
           "run --model " + m + " --image " + img + " --ledger " + l + " --json " + l,
           "run --model " + m + " --image " + img + " --ledger " + l + " --report " + l,
           "calibrate --model " + m + " --images " + img + " --ledger " + l + " --out " + l,
           "calibrate --model " + m + " --images " + img + " --out " + s.q(s.dir + "/s.cbor") +
               " --ledger " + l + " --json " + l,
           "quantize --model " + m + " --stats " + s.q(s.dir + "/s.cbor") +
               " --scheme w8a8 --ledger " + l + " --out " + l,
           "quantize --model " + m + " --stats " + s.q(s.dir + "/s.cbor") +
               " --scheme w8a8 --out " + s.q(s.dir + "/q.onnx") + " --ledger " + l +
               " --encodings " + l,
           "compare --ref " + m + " --test " + m + " --images " + img + " --ledger " + l +
               " --json " + l,
       }) {
    const std::string kept = read_file(s.ledger);
    expect_refused_before_work(args, same, s.ledger);
    EXPECT_EQ(ledger_runs(s.ledger), 3u) << args;
    write_file_atomic(s.ledger, kept);  // each command meets the same ledger
  }
  // The study's ledger inside its own folder, where its results go (a fresh study used to run to
  // the end, then write its results and record into one file).
  const std::string study = "study --arms C --schemes w8a16 --models " + m + " --images " + img +
                            " --test " + img + " --out ";
  const std::string fresh = s.dir + "/fresh";
  auto r = run_cli(study + s.q(fresh) + " --ledger " + s.q(fresh + "/data.json"));
  test::expect_refusal(r, "--ledger " + fresh + "/data.json lies in out " + fresh, fresh);
  const std::string out = s.dir + "/study";
  fs::create_directories(out);
  write_file_atomic(out + "/data.json", "{\"results\": 1}\n");
  // study --plan onto the results it would describe.
  expect_refused_before_work(study + s.q(out) + " --plan " + s.q(out + "/data.json"),
                             "--plan " + out + "/data.json lies in out " + out, out + "/data.json");
  // A ledger that is a device (or a link to one) is refused when it is opened, before the work
  // (bench used to run, then fail with SQLite's "disk I/O error").
  fs::create_symlink("/dev/null", s.dir + "/null.sqlite");
  for (const std::string& ledger : {std::string("/dev/null"), s.dir + "/null.sqlite"})
    expect_refused_before_work("bench --model " + m + " --runs 1 --ledger " + s.q(ledger),
                               "is not a regular file", s.model);
}

// An output onto a photo of an input folder fails before any image is read (run --report used to
// fail only after every frame), for every command that reads an image folder.
TEST(OutputGuardCli, NoOutputReplacesAPhotoOfAnInputFolder) {
  const Scratch s = scratch("outguard_photo");
  const std::string m = s.q(s.model), img = s.q(s.img), x = s.img + "/x.jpg", qx = s.q(x);
  const std::string needle = x + " is one of the files of ";
  for (const std::string& args : {
           "run --model " + m + " --image " + img + " --report " + qx,
           "run --model " + m + " --image " + img + " --json " + qx,
           "calibrate --model " + m + " --images " + img + " --out " + s.q(s.dir + "/s.cbor") +
               " --json " + qx,
           "compare --ref " + m + " --test " + m + " --images " + img + " --json " + qx,
           "doctor --model " + m + " --images " + img + " --json " + qx,
           "probe --model " + m + " --images " + img + " --labels " + s.q(s.dir + "/p.csv") +
               " --json " + qx,
           "scenes --video " + qx + " --images " + img,
       })
    expect_refused_before_work(args, needle, x);
  // A video is written as a video: never under an image's name.
  expect_refused_before_work("scenes --video " + s.q(s.dir + "/v.jpg") + " --n 2", "name an .avi",
                             x);
  EXPECT_FALSE(fs::exists(s.dir + "/v.jpg"));
}

// run --draw: drawings never replace photos, read yet or not, and no other output is one of them.
TEST(OutputGuardCli, DrawingsReplaceNoPhotoAndNoOtherOutput) {
  const Scratch s = scratch("outguard_draw");
  const std::string m = s.q(s.model);
  // nest/a.jpg's drawing would be nest/sub/a.jpg, a photo read later as a frame.
  const std::string nest = s.dir + "/nest";
  fs::create_directories(nest + "/sub");
  fs::copy_file(s.img + "/x.jpg", nest + "/a.jpg");
  fs::copy_file(s.img + "/scene_001.jpg", nest + "/sub/a.jpg");
  expect_refused_before_work(
      "run --model " + m + " --image " + s.q(nest) + " --draw " + s.q(nest + "/sub"),
      "drawing " + nest + "/sub/a.jpg is the same file as image " + nest + "/sub/a.jpg",
      nest + "/sub/a.jpg");
  EXPECT_EQ(std::distance(fs::recursive_directory_iterator(nest), {}), 3);
  // The draw folder around the image folder: nest/sub/sub/b.jpg would be drawn onto nest/sub/b.jpg.
  fs::create_directories(nest + "/sub/sub");
  fs::copy_file(s.img + "/x.jpg", nest + "/sub/b.jpg");
  fs::copy_file(s.img + "/x.jpg", nest + "/sub/sub/b.jpg");
  expect_refused_before_work(
      "run --model " + m + " --image " + s.q(nest + "/sub") + " --draw " + s.q(nest),
      "drawing " + nest + "/sub/b.jpg is the same file as image " + nest + "/sub/b.jpg",
      nest + "/sub/b.jpg");
  // --json named like a drawing, in the --draw folder.
  const std::string dd = s.dir + "/dd";
  fs::create_directories(dd);
  write_file_atomic(dd + "/x.jpg", "an earlier drawing");
  expect_refused_before_work("run --model " + m + " --image " + s.q(s.img) + " --draw " + s.q(dd) +
                                 " --json " + s.q(dd + "/x.jpg"),
                             "--json " + dd + "/x.jpg lies in --draw " + dd, dd + "/x.jpg");
  // What does not collide runs: drawings in a folder inside the image folder, JSON beside them.
  fs::remove_all(nest + "/sub");
  const auto r = run_cli("run --model " + m + " --image " + s.q(nest) + " --draw " +
                         s.q(nest + "/drawn") + " --json " + s.q(nest + "/drawn/d.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_regular_file(nest + "/drawn/a.jpg"));
  EXPECT_TRUE(fs::is_regular_file(nest + "/drawn/d.json"));
}

mode_t lstat_type(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

// Outputs that are not regular files are written through, never replaced.
TEST(OutputGuardCli, StreamsAreWrittenThroughNeverReplaced) {
  const Scratch s = scratch("outguard_streams");
  const std::string inspect = "inspect --model " + s.q(s.model) + " --json ";
  auto r = run_cli(inspect + s.q(s.dir + "/plain.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string json = read_file(s.dir + "/plain.json");
  // "-" and a link to this process's stdout: the JSON after the printed summary.
  fs::create_symlink("/proc/self/fd/1", s.dir + "/stdout");
  for (const std::string& out : {std::string("-"), s.dir + "/stdout"}) {
    r = run_cli(inspect + s.q(out));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_GT(r.out.size(), json.size()) << out;
    EXPECT_EQ(r.out.substr(r.out.size() - json.size()), json) << out;
  }
  EXPECT_EQ(lstat_type(s.dir + "/stdout"), S_IFLNK);
  // A link to /dev/null: the link and /dev/null stay what they are.
  fs::create_symlink("/dev/null", s.dir + "/null");
  r = run_cli(inspect + s.q(s.dir + "/null"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(fs::read_symlink(s.dir + "/null"), "/dev/null");
  EXPECT_EQ(lstat_type("/dev/null"), S_IFCHR);
  // A FIFO, directly and through a link: the reader gets the JSON, the FIFO stays.
  const std::string fifo = s.dir + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::create_symlink("pipe", s.dir + "/to_pipe");
  for (const std::string& out : {fifo, s.dir + "/to_pipe"}) {
    const int rd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    ASSERT_GE(rd, 0);
    std::atomic<bool> done{false};
    std::string got;
    std::thread reader([&] {  // drains while the program writes (more than a pipe holds)
      char buf[65536];
      for (bool last = false; !last;) {
        last = done.load();
        pollfd p{rd, POLLIN, 0};
        ::poll(&p, 1, 50);
        for (ssize_t n; (n = ::read(rd, buf, sizeof buf)) > 0;)
          got.append(buf, static_cast<size_t>(n));
      }
    });
    r = run_cli(inspect + s.q(out));
    done = true;
    reader.join();
    ::close(rd);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(got, json) << out;
    EXPECT_EQ(lstat_type(fifo), S_IFIFO);
  }
  EXPECT_EQ(lstat_type(s.dir + "/to_pipe"), S_IFLNK);
  // A link to a file elsewhere: the file is replaced, the link stays.
  fs::create_directories(s.dir + "/elsewhere");
  write_file_atomic(s.dir + "/elsewhere/summary.json", "old");
  fs::create_symlink("elsewhere/summary.json", s.dir + "/link.json");
  r = run_cli(inspect + s.q(s.dir + "/link.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lstat_type(s.dir + "/link.json"), S_IFLNK);
  EXPECT_EQ(read_file(s.dir + "/elsewhere/summary.json"), json);
  // "-" for a binary output is refused before work.
  const std::string dash = (fs::current_path() / "-").string();  // where "-" used to go
  r = run_cli("cut --model " + s.q(s.model) + " --arm C --out -");
  test::expect_refusal(r, "--out -: standard output ('-') takes text and JSON reports only", dash);
  r = run_cli("zoo yolo11n -o -");
  test::expect_refusal(r, "-o -: standard output", dash);
}

// The other commands that write into folders or name binary outputs, the same way.
TEST(OutputGuardCli, FolderOutputsOfEveryCommandAreChecked) {
  const Scratch s = scratch("outguard_folders");
  const std::string m = s.q(s.model), img = s.q(s.img);
  // infer names its files after the model's outputs: known, and checked, before it runs.
  const std::string out = s.dir + "/out";
  fs::create_directories(out);
  write_file_atomic(out + "/output0.npy", "an input tensor");
  expect_refused_before_work(
      "infer --model " + m + " --input " + s.q(out + "/output0.npy") + " --out " + s.q(out),
      "--out " + out + "/output0.npy is the same file as --input", out + "/output0.npy");
  // compare --save-inputs writes DIR/<k>.npy: --json there is refused.
  expect_refused_before_work(
      "compare --ref " + m + " --test " + m + " --images " + img + " --save-inputs " + s.q(out) +
          " --json " + s.q(out + "/output0.npy"),
      "--json " + out + "/output0.npy lies in --save-inputs " + out, out + "/output0.npy");
  // augment writes OUT/images and OUT/labels: a photo there is refused.
  fs::create_directories(s.dir + "/aug/images");
  fs::copy_file(s.img + "/x.jpg", s.dir + "/aug/images/x.jpg");
  expect_refused_before_work("augment --images " + s.q(s.dir + "/aug/images/x.jpg") + " --labels " +
                                 s.q(s.dir) + " --out " + s.q(s.dir + "/aug"),
                             "lies in --out " + s.dir + "/aug", s.dir + "/aug/images/x.jpg");
  // Binary outputs take no "-"; a folder is no file.
  for (const std::string& args :
       {"patch --model " + m + " --tensor a --range 0 1 --out -",
        "stats merge " + s.q(s.dir + "/a.cbor") + " " + s.q(s.dir + "/b.cbor") + " -o -",
        "calibrate --model " + m + " --images " + img + " --out -"})
    expect_refused_before_work(args, "-: standard output ('-') takes text and JSON reports only",
                               s.model);
  expect_refused_before_work("zoo yolo11n -o " + s.q(out), "-o " + out + " is a folder", s.model);
}

}  // namespace
}  // namespace edgeq

// test::shared_fixture (test_util.h): several processes asking for one fixture at once build it
// once and all see it complete; a folder a killed process left half built is built again.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/file_io.h"
#include "test_util.h"

namespace edgeq {
namespace {
namespace fs = std::filesystem;

// Sets EDGEQ_TEST_FIXTURES for the test's life, then puts back what was there.
class FixtureRoot {
 public:
  explicit FixtureRoot(const std::string& root) {
    if (const char* v = std::getenv("EDGEQ_TEST_FIXTURES")) old_ = v, had_ = true;
    ::setenv("EDGEQ_TEST_FIXTURES", root.c_str(), 1);
  }
  ~FixtureRoot() {
    if (had_)
      ::setenv("EDGEQ_TEST_FIXTURES", old_.c_str(), 1);
    else
      ::unsetenv("EDGEQ_TEST_FIXTURES");
  }

 private:
  std::string old_;
  bool had_ = false;
};

// Appends a line to `log` and writes the fixture's one file, slowly enough that the other
// processes ask while it is being built.
void build_slowly(const std::string& dir, const std::string& log) {
  std::ofstream(log, std::ios::app) << ::getpid() << "\n";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::ofstream(dir + "/value") << "42";
}

TEST(SharedFixtures, BuiltOnceForProcessesAskingAtOnce) {
  const std::string scratch = test::temp_dir("shared_fixture");
  const std::string log = scratch + "/builds.log";
  FixtureRoot root(scratch + "/root");
  std::vector<pid_t> children;
  for (int k = 0; k < 3; ++k) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const std::string dir =
          test::shared_fixture("once", [&](const std::string& d) { build_slowly(d, log); });
      const bool ok = read_file(dir + "/value") == "42" && fs::exists(dir + "/.complete");
      ::_exit(ok ? 0 : 1);
    }
    children.push_back(pid);
  }
  const std::string dir =
      test::shared_fixture("once", [&](const std::string& d) { build_slowly(d, log); });
  EXPECT_EQ(read_file(dir + "/value"), "42");
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a process saw no fixture";
  }
  std::ifstream in(log);
  int builds = 0;
  for (std::string line; std::getline(in, line);) ++builds;
  EXPECT_EQ(builds, 1);
}

TEST(SharedFixtures, HalfBuiltFolderIsBuiltAgain) {
  const std::string scratch = test::temp_dir("shared_fixture");
  FixtureRoot root(scratch + "/root");
  fs::create_directories(scratch + "/root/half");
  std::ofstream(scratch + "/root/half/stale") << "left by a killed process";
  int builds = 0;
  const std::string dir = test::shared_fixture("half", [&](const std::string& d) {
    ++builds;
    std::ofstream(d + "/value") << "7";
  });
  EXPECT_EQ(builds, 1);
  EXPECT_FALSE(fs::exists(dir + "/stale"));
  EXPECT_EQ(read_file(dir + "/value"), "7");
  // Complete now: asked again, it is read, not built.
  test::shared_fixture("half", [&](const std::string&) { ++builds; });
  EXPECT_EQ(builds, 1);
}

}  // namespace
}  // namespace edgeq

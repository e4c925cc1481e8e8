#include <unistd.h>

#include <cstdlib>

#include "commands.h"

namespace {

// libgomp (used by our kernels and by oneDNN) reads its wait policy once, when it loads. Its
// default (spin ~300k iterations, then sleep) collapses when other processes compete for the cores,
// while fully passive waiting pays a wake-up on each of the ~300 parallel regions per frame. On a
// shared 2-core machine a short spin held up under heavy and light load alike, where each of the
// other two lost badly under one of them (numbers in docs/status.md, "Measurements moved from code
// comments"). So unless the user chose, run again once with a short spin (GOMP_SPINCOUNT=5000).
void choose_omp_wait_policy(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT")) return;
  setenv("GOMP_SPINCOUNT", "5000", 1);
  execv("/proc/self/exe", argv);  // on failure, carry on with the default policy
}

}  // namespace

int main(int argc, char** argv) {
  choose_omp_wait_policy(argv);
  return edgeq::cli::run_command_line(argc, argv);
}

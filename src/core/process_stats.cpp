#include "core/process_stats.h"

#include <omp.h>

#include <fstream>
#include <string>

namespace edgeq {

size_t peak_rss_bytes() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  return 0;
}

int available_cores() {
  return omp_get_num_procs();
}

}  // namespace edgeq

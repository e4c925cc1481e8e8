#include "study/study_claims.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "core/error.h"
#include "core/file_io.h"
#include "core/option_range.h"

namespace edgeq {
namespace {

namespace fs = std::filesystem;

double now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

struct Claim {
  std::string worker;
  double expires = 0;
};

// A claim file's holder and expiry; a file being written (empty, cut short) counts as fresh from
// its modification time, and so does an expiry no lease can reach (inf, years ahead: written by
// hand or by an older edgeq that took any --lease), which would hold the step forever.
Claim read_claim(const std::string& path, double lease_s) {
  Claim c;
  std::error_code ec;
  std::istringstream in(read_file(path, 4096));
  const bool complete = std::getline(in, c.worker) && (in >> c.expires) && !c.worker.empty();
  if (complete && std::isfinite(c.expires) && c.expires <= now_s() + ranges::kLeaseSeconds.hi)
    return c;
  const auto mtime = fs::last_write_time(path, ec);
  const double age =
      ec ? 0 : std::chrono::duration<double>(fs::file_time_type::clock::now() - mtime).count();
  return {complete ? c.worker : "", now_s() - age + lease_s};
}

}  // namespace

StepClaims::StepClaims(std::string dir, std::string worker, double lease_s)
    : dir_(std::move(dir)), worker_(std::move(worker)), lease_s_(lease_s) {
  check_option("lease", lease_s_, ranges::kLeaseSeconds);
  ensure_dir(dir_);
  allow_updates_in(dir_);  // claim files are read, then renewed in place
  beat_ = std::thread([this] { heartbeat(); });
}

StepClaims::~StepClaims() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
  }
  cv_.notify_all();
  beat_.join();
}

std::string StepClaims::path(const std::string& step) const {
  return dir_ + "/" + step + ".claim";
}

void StepClaims::write_claim(const std::string& step) const {
  std::ostringstream os;
  os.precision(17);
  os << worker_ << "\n" << now_s() + lease_s_ << "\n";
  write_file_atomic(path(step), os.str());
}

bool StepClaims::try_claim(const std::string& step) {
  const std::string p = path(step);
  for (int attempt = 0; attempt < 3; ++attempt) {
    const int fd = ::open(p.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
    if (fd >= 0) {
      ::close(fd);
      write_claim(step);  // the holder and lease (an empty file reads as fresh meanwhile)
      std::lock_guard<std::mutex> lock(m_);
      held_.insert(step);
      return true;
    }
    EDGEQ_CHECK(errno == EEXIST, "cannot create the claim ", p, ": ", std::strerror(errno));
    Claim c;
    try {
      c = read_claim(p, lease_s_);
    } catch (const Error&) {
      continue;  // released or taken over meanwhile: try again
    }
    if (c.worker != worker_ && c.expires > now_s()) return false;  // a live worker holds it
    // Expired, or an earlier process of this worker: set it aside (one rename wins) and retry.
    static std::atomic<int> serial{0};
    const std::string aside =
        p + ".stale." + std::to_string(::getpid()) + "." + std::to_string(serial++);
    if (std::rename(p.c_str(), aside.c_str()) == 0) std::remove(aside.c_str());
  }
  return false;
}

void StepClaims::release(const std::string& step) {
  {
    std::lock_guard<std::mutex> lock(m_);
    held_.erase(step);
  }
  std::remove(path(step).c_str());
}

void StepClaims::heartbeat() {
  std::unique_lock<std::mutex> lock(m_);
  const auto every = std::chrono::duration<double>(lease_s_ / 3);
  while (!cv_.wait_for(lock, every, [this] { return stop_; })) {
    for (const std::string& step : held_) {
      try {
        write_claim(step);
      } catch (const Error&) {
        // The next beat tries again; a claim that lapses is taken over, never corrupted.
      }
    }
  }
}

}  // namespace edgeq

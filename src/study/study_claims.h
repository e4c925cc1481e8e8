// Claims on study steps shared by several worker processes (edgeq study --worker i/N): one claim
// file per step in CACHE/claims, created with O_CREAT | O_EXCL, holding the worker's name and a
// lease that a heartbeat thread renews while the step runs. A claim whose lease ran out (its
// worker died without releasing it) or that names this worker (a restarted worker i: only one
// process runs as worker i at a time) is taken over: renamed aside (one rename wins), then
// created anew. Needs a POSIX file system with atomic rename and exclusive create: a local disk,
// NFS v3 or later, a Kubernetes PVC; not an object store mounted without them.
#pragma once
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <thread>

namespace edgeq {

class StepClaims {
 public:
  // `worker`: this worker's name ("1/4"); `lease_s`: how long a claim lives without renewal.
  StepClaims(std::string dir, std::string worker, double lease_s);
  ~StepClaims();  // stops the heartbeat; claims still held stay (their leases run out)
  StepClaims(const StepClaims&) = delete;
  StepClaims& operator=(const StepClaims&) = delete;

  // True when this worker now holds the claim on `step`; false when another live worker does.
  bool try_claim(const std::string& step);
  // Gives the claim up (the step's result is in the cache, or it failed).
  void release(const std::string& step);

 private:
  std::string path(const std::string& step) const;
  void write_claim(const std::string& step) const;  // atomically, with a fresh lease
  void heartbeat();

  std::string dir_, worker_;
  double lease_s_;
  std::mutex m_;
  std::condition_variable cv_;
  std::set<std::string> held_;
  bool stop_ = false;
  std::thread beat_;
};

}  // namespace edgeq

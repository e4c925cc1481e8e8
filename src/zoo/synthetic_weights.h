// Deterministic synthetic weights: every tensor's raw draw depends only on a fixed seed and the
// tensor's name, never on build order. (Zoo convs are then rescaled on calibration activations,
// computed single-threaded, so a model is byte-identical from build to build on one machine;
// another CPU's oneDNN kernels may change the last bits.)
#pragma once
#include <cstdint>
#include <string>

#include "core/tensor.h"

namespace edgeq::zoo {

// A small, portable PRNG (splitmix64) with a Box-Muller normal; no std:: distributions, whose
// output differs between standard libraries.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next_u64();
  double uniform();  // in (0, 1)
  double normal();   // N(0, 1)

 private:
  uint64_t state_;
  bool has_spare_ = false;
  double spare_ = 0;
};

// Seed for one named tensor: FNV-1a of the name mixed with the model-wide seed.
uint64_t tensor_seed(uint64_t model_seed, const std::string& name);

// A float32 tensor of N(mean, std^2) values drawn from tensor_seed(model_seed, name).
Tensor normal_tensor(uint64_t model_seed, const std::string& name, Shape shape, double mean,
                     double std);

}  // namespace edgeq::zoo

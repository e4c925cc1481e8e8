#include "zoo/synthetic_weights.h"

#include <cmath>

namespace edgeq::zoo {

uint64_t Rng::next_u64() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double Rng::uniform() {
  // 53 random bits, shifted by half a step so 0 and 1 never occur.
  return (static_cast<double>(next_u64() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

double Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  const double kTwoPi = 6.283185307179586;
  double r = std::sqrt(-2.0 * std::log(uniform()));
  double a = kTwoPi * uniform();
  spare_ = r * std::sin(a);
  has_spare_ = true;
  return r * std::cos(a);
}

uint64_t tensor_seed(uint64_t model_seed, const std::string& name) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : name) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h ^ (model_seed * 0x9E3779B97F4A7C15ull);
}

Tensor normal_tensor(uint64_t model_seed, const std::string& name, Shape shape, double mean,
                     double std) {
  Tensor t(DType::kFloat32, std::move(shape));
  Rng rng(tensor_seed(model_seed, name));
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<float>(mean + std * rng.normal());
  return t;
}

}  // namespace edgeq::zoo

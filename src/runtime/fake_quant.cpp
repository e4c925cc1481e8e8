#include "runtime/fake_quant.h"

#include <sstream>

namespace edgeq {

int FakeQuantParams::bits() const {
  int b = 1;
  while ((int64_t{1} << b) < codes()) ++b;
  return b;
}

std::string FakeQuantParams::describe() const {
  std::ostringstream os;
  os << bits() << "-bit grid, scale " << scale << ", codes " << lo << ".." << hi
     << " (zero point subtracted)";
  return os.str();
}

void fake_quant_span(const float* x, float* y, int64_t n, const FakeQuantParams& p) {
  const float s = p.scale, lo = p.lo, hi = p.hi;
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = fake_quant(x[i], s, lo, hi);
}

void set_fake_quant(Node& n, const char* attr, const FakeQuantParams& p) {
  Attribute a;
  a.kind = Attribute::Kind::kFloats;
  a.floats = {p.scale, p.lo, p.hi};
  n.attrs[attr] = a;
}

FakeQuantParams fake_quant_of(const Node& n, const char* attr) {
  std::vector<float> f = n.attr_floats(attr);
  if (f.size() != 3) return {};
  return {f[0], f[1], f[2]};
}

}  // namespace edgeq

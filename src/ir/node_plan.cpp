#include "ir/node_plan.h"

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

}  // namespace edgeq

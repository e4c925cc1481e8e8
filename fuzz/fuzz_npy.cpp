// .npy reader (core/npy.h): parse_npy on arbitrary bytes; what it accepts serializes and parses
// back to the same tensor.
#include <cstring>

#include "core/npy.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace edgeq;
  Tensor t;
  if (!fuzz::accepts([&] { t = parse_npy(fuzz::bytes_of(data, size), "fuzz.npy"); })) return 0;
  Tensor back;
  fuzz::require(fuzz::accepts([&] { back = parse_npy(serialize_npy(t), "round trip"); }),
                "serialized tensor does not parse");
  fuzz::require(back.dtype() == t.dtype() && back.shape() == t.shape() &&
                    std::memcmp(back.raw(), t.raw(), t.nbytes()) == 0,
                "round trip changed the tensor");
  return 0;
}

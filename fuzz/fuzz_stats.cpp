// Calibration stats files (calib/stats.h, CBOR or JSON): parse_stats on arbitrary bytes; for
// what it accepts, merging with itself, quantiles and tail counts of every histogram.
#include "calib/stats.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace edgeq;
  Stats s;
  if (!fuzz::accepts([&] { s = parse_stats(fuzz::bytes_of(data, size), "fuzz.stats"); })) return 0;
  fuzz::accepts([&] {
    Stats twice = merge_stats(s, s);
    for (const auto& [name, h] : twice.values) {
      for (double q : {0.0, 0.001, 0.5, 0.999, 1.0}) (void)h.quantile(q);
      (void)h.count_below(h.min() + (h.max() - h.min()) / 3);
      (void)h.count_above(h.max() - (h.max() - h.min()) / 3);
    }
  });
  return 0;
}

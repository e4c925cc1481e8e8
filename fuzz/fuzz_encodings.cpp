// AIMET-style encodings JSON (encode/encodings_json.h): encodings_from_json on arbitrary text; what
// it accepts writes back (1.0.0 and 0.6.1) to text that parses again.
#include "encode/encodings_json.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace edgeq;
  EncodingSet set;
  if (!fuzz::accepts([&] { set = encodings_from_json(fuzz::bytes_of(data, size), "fuzz.json"); }))
    return 0;
  for (const char* version : {"1.0.0", "0.6.1"}) {
    std::string text;
    if (!fuzz::accepts([&] { text = encodings_to_json(set, version); })) continue;
    fuzz::require(fuzz::accepts([&] { encodings_from_json(text, "round trip"); }),
                  "written encodings do not parse");
  }
  return 0;
}

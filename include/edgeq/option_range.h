// The range of every count, duration, seed and threshold option, in one table (option_range.cpp),
// with one check of a value and one parse of a text against a range: the library's validation
// (what C++ and Python callers get) and front ends' parsers (parse_option below) accept
// the same values, and every refusal is one line naming the option and what it accepts:
//   "threads: 100000 is outside [0, 32] (0: all cores; at most 4 per CPU)"
//   "conf: '0.5x' is not a number; expected one in [0, 1]"
#pragma once
#include <string>
#include <type_traits>
#include <vector>

#include "edgeq/error.h"

namespace edgeq {

struct OptionRange {
  // Bounds as long double: exact for every 64-bit integer (a 64-bit mantissa) and every double.
  long double lo = 0, hi = 0;
  bool integer = true;   // a whole number (an integer option); else any finite number
  bool lo_open = false;  // (lo, hi]: lo itself is refused
  std::string note;      // what a value means, e.g. "0: all cores"

  bool contains(long double v) const { return (lo_open ? v > lo : v >= lo) && v <= hi; }
  // "[0, 32] (0: all cores)", "(0, 100]".
  std::string text() const;
};

// The most threads a thread or worker count may ask for: 4 per CPU of this machine, at least 16.
// More only slows a run down (measured with 10000 threads: docs/status.md, "Measurements moved from
// code comments") and beyond a few thousand thread creation fails or crashes; 4 per CPU still lets
// a 2-core CI machine run the thread-determinism tests' 1, 2, 3 (and 3 workers x 3 threads), and
// the floor of 16 keeps a script written on a workstation (8 or 16 threads) valid on a small
// container.
int max_threads();

namespace ranges {
OptionRange threads();                      // [0, max_threads()], 0: all cores
OptionRange workers();                      // [1, max_threads()]
OptionRange workers_or_auto();              // [0, max_threads()], 0: one per thread, at most 8
extern const OptionRange kImages;           // [1, 1e9] images sampled / used
extern const OptionRange kImagesOrAll;      // [0, 1e9], 0: all
extern const OptionRange kImagesOrOff;      // [0, 1e9], 0: off
extern const OptionRange kSeed;             // [0, 2^64 - 1]
extern const OptionRange kSeed32;           // [0, 2^32 - 1]
extern const OptionRange kRuns;             // [1, 1e6] timed runs
extern const OptionRange kWarmup;           // [0, 1e6] untimed runs
extern const OptionRange kMaxDet;           // [1, 1e6] detections per image
extern const OptionRange kQueue;            // [1, 4096] frames a pipeline queue holds
extern const OptionRange kFolds;            // [2, 1000] cross-validation folds
extern const OptionRange kHistogramStride;  // [1, 1024]
extern const OptionRange kLeaseSeconds;     // [1, 86400] a study claim's lease
extern const OptionRange kFraction;         // [0, 1] scores and IoUs
extern const OptionRange kPercent;          // [0, 100]
extern const OptionRange kBudgetPercent;    // (0, 100] the search's budget
extern const OptionRange kPercentile;       // [50, 100]
extern const OptionRange kPenalty;          // (0, 1e6] an L2 penalty
extern const OptionRange kMemoryMib;        // [1, 1048576] (1 TiB)
extern const OptionRange kCount;            // [0, 1e9] a count of things printed or drawn
extern const OptionRange kFrames;           // [1, 1e6] images or frames written
extern const OptionRange kFps;              // (0, 1000] frames per second
extern const OptionRange kShards;           // [1, 1e6] shards / workers of a split
extern const OptionRange kImageSide;        // [16, 8192] pixels of a written image or frame
extern const OptionRange kImgsz;            // [64, 1280] a zoo model's input size
}  // namespace ranges

namespace detail {
// `text` as a number in r ("-1", "3", "0.25", "1e-3"; integers: digits with an optional sign,
// nothing else; no spaces, hex, inf or nan), or an Error whose message does not name the option:
// "'0.5x' is not a number; expected one in [0, 1]".
long double parse_in_range(const std::string& text, const OptionRange& r);
// "100000 is outside [0, 32] (0: all cores)" when v is outside r, else "".
std::string range_problem(long double v, const OptionRange& r);
}  // namespace detail

// An option that does nothing with the others as they are (percentile without range
// "percentile"): its name, what it needs, and whether it is set to other than its default.
struct InertOption {
  std::string name, needs;
  bool set = false;
};
// Refuses the first inert option that is set: "percentile does nothing without range percentile".
void refuse_set(const std::vector<InertOption>& inert);

// v, or an Error "NAME: V is outside RANGE". T: any integer or floating type.
template <typename T>
T check_option(const std::string& name, T v, const OptionRange& r) {
  static_assert(std::is_arithmetic_v<T>, "a number option");
  if constexpr (std::is_floating_point_v<T>)
    EDGEQ_CHECK(v == v, name, ": nan is not a number; expected one in ", r.text());
  const std::string problem = detail::range_problem(static_cast<long double>(v), r);
  EDGEQ_CHECK(problem.empty(), name, ": ", problem);
  return v;
}

// `text` as T in r, or an Error "NAME: 'TEXT' is not a number; ..." / "NAME: TEXT is outside ...".
template <typename T>
T parse_option(const std::string& name, const std::string& text, const OptionRange& r) {
  static_assert(std::is_arithmetic_v<T>, "a number option");
  try {
    return static_cast<T>(detail::parse_in_range(text, r));
  } catch (const Error& e) {
    fail(name, ": ", e.what());
  }
}

}  // namespace edgeq

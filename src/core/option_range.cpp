#include "core/option_range.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace edgeq {
namespace {

// A bound or a value: an integer in full when it is one that fits 64 bits, else 10 digits.
std::string bound(long double v) {
  char buf[64];
  if (v == std::floor(v) && v >= 0 && v <= 18446744073709551615.0L)
    std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v));
  else if (v == std::floor(v) && v < 0 && v >= -9223372036854775807.0L)
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  else
    std::snprintf(buf, sizeof buf, "%.10Lg", v);
  return buf;
}

// A number as the user wrote it, at most 40 characters (fail() escapes control characters).
std::string shown(const std::string& text) {
  return text.size() <= 40 ? text : text.substr(0, 37) + "...";
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// [+-]digits for an integer; [+-]digits[.digits][e[+-]digits] (or .digits) otherwise.
bool number_syntax(const std::string& s, bool integer) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  size_t digits = 0;
  while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  if (!integer && i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (!integer && i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    size_t exp_digits = 0;
    while (i < s.size() && is_digit(s[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

OptionRange integers(long double lo, long double hi, std::string note = "") {
  return {lo, hi, true, false, std::move(note)};
}

OptionRange numbers(long double lo, long double hi, bool lo_open = false) {
  return {lo, hi, false, lo_open, ""};
}

}  // namespace

std::string OptionRange::text() const {
  std::string t = (lo_open ? "(" : "[") + bound(lo) + ", " + bound(hi) + "]";
  return note.empty() ? t : t + " (" + note + ")";
}

int max_threads() {
  static const int n = [] {
    const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
    return static_cast<int>(std::max(16u, 4 * std::min(cpus, 1u << 16)));
  }();
  return n;
}

namespace ranges {

OptionRange threads() {
  return integers(0, max_threads(), "0: all cores; at most 4 per CPU");
}
OptionRange workers() {
  return integers(1, max_threads(), "at most 4 per CPU");
}
OptionRange workers_or_auto() {
  return integers(0, max_threads(), "0: one per thread, at most 8; at most 4 per CPU");
}

const OptionRange kImages = integers(1, 1e9);
const OptionRange kImagesOrAll = integers(0, 1e9, "0: all");
const OptionRange kImagesOrOff = integers(0, 1e9, "0: off");
const OptionRange kSeed = integers(0, 18446744073709551615.0L);
const OptionRange kSeed32 = integers(0, 4294967295.0L);
const OptionRange kRuns = integers(1, 1e6);
const OptionRange kWarmup = integers(0, 1e6);
const OptionRange kMaxDet = integers(1, 1e6);
const OptionRange kQueue = integers(1, 4096);
const OptionRange kFolds = integers(2, 1000);
const OptionRange kHistogramStride = integers(1, 1024);
const OptionRange kLeaseSeconds = {1, 86400, false, false, "seconds"};
const OptionRange kFraction = numbers(0, 1);
const OptionRange kPercent = numbers(0, 100);
const OptionRange kBudgetPercent = numbers(0, 100, true);
const OptionRange kPercentile = numbers(50, 100);
const OptionRange kPenalty = numbers(0, 1e6, true);
const OptionRange kMemoryMib = integers(1, 1 << 20);
const OptionRange kCount = integers(0, 1e9);
const OptionRange kFrames = integers(1, 1e6);
const OptionRange kFps = numbers(0, 1000, true);
const OptionRange kShards = integers(1, 1e6);
const OptionRange kImageSide = integers(16, 8192);
const OptionRange kImgsz = integers(64, 1280, "a multiple of 32");

}  // namespace ranges

void refuse_set(const std::vector<InertOption>& inert) {
  for (const InertOption& o : inert) EDGEQ_CHECK(!o.set, o.name, " does nothing without ", o.needs);
}

namespace detail {

long double parse_in_range(const std::string& text, const OptionRange& r) {
  if (!number_syntax(text, r.integer)) {
    const bool number = number_syntax(text, false);  // "2.5" for a count
    fail("'", shown(text), "' is not ", number ? "a whole number" : "a number", "; expected ",
         r.integer ? "an integer" : "one", " in ", r.text());
  }
  // strtold is exact for an integer of up to 64 bits (a 64-bit mantissa); a longer one lands far
  // outside any range; a decimal beyond long double's range becomes inf, outside too.
  const long double v = std::strtold(text.c_str(), nullptr);
  const std::string problem = range_problem(v, r);
  if (!problem.empty()) fail(shown(text), problem.substr(problem.find(" is outside")));
  return v;
}

std::string range_problem(long double v, const OptionRange& r) {
  if (r.contains(v) && (!r.integer || v == std::floor(v))) return "";
  return bound(v) + " is outside " + r.text();
}

}  // namespace detail
}  // namespace edgeq

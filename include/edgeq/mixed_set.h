// Mixed-precision sets: the values to keep at 16 bit under W8A8 (QuantizeOptions::mixed), as a
// doctor's sensitivity ranking or the mixed-precision search chooses them, in one file form:
//   {"format": "edgeq-mixed", "version": 1, "a16": ["v1", "v2", ...],
//    "ranking": [{"value": "v1", "loss": 0.031}, ...]}   (ranking optional, informative: the
//    sensitivity that ranked the value)
// The reader also takes a plain JSON list of names, or a text file with one name per line
// ('#' starts a comment).
#pragma once
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace edgeq {

struct DoctorReport;

struct MixedSet {
  std::vector<std::string> a16;
  std::vector<std::pair<std::string, double>> ranking;  // value, its sensitivity
};

// The set a doctor's sensitivity ranking chose (DoctorReport::mixed), with the ranking.
MixedSet mixed_set(const DoctorReport& report);

// The file form (indented JSON ending in a newline), and the file written atomically.
std::string mixed_set_to_json(const MixedSet& m);
void save_mixed_set(const MixedSet& m, const std::string& path);
// The value names of any of the three forms (`what` names the text in messages). Throws one line
// naming the file and the entry at fault.
std::set<std::string> parse_mixed_set(const std::string& text, const std::string& what);
std::set<std::string> load_mixed_set(const std::string& path);

}  // namespace edgeq

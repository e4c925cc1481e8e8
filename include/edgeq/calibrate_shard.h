// Shards of a calibration sample written as text ("i/N"), for front ends that take them so.
#pragma once
#include <string>

namespace edgeq {

struct CalibrationShard {
  int index = 0, count = 1;  // CalibrateOptions::shard_index, shard_count
};

// "i/N" (0 <= i < N) -> the shard. Throws one line quoting `text` for any other form or an i or
// N out of range.
CalibrationShard parse_calibration_shard(const std::string& text);

}  // namespace edgeq

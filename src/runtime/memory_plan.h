// Assigns arena offsets to buffers by liveness: buffers whose lifetimes overlap never share bytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace edgeq {

struct BufferLife {
  size_t bytes = 0;
  int first = 0;  // step that writes it
  int last = 0;   // last step that reads it (inclusive)
};

// Returns one offset per buffer (64-byte aligned) and the arena size in *total.
std::vector<size_t> plan_arena(const std::vector<BufferLife>& buffers, size_t* total);

}  // namespace edgeq

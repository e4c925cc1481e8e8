// How a model runs on edgeq's executor: the exec / emulate / threads that bench, compare,
// Session (and so detect) and infer share, checked by one validate().
#pragma once
#include "edgeq/choices.h"

namespace edgeq {

struct ExecOptions {
  // How a QDQ model runs: kSimulate in float with fake-quant steps (bit-identical to its Q/DQ
  // ops), kInt8 with 8-bit activations as codes on integer kernels. Float models run the same
  // either way.
  ExecMode mode = ExecMode::kSimulate;
  // With kInt8 only: kAvx2 reproduces ONNX Runtime's int8 kernels on x86 without VNNI (products
  // added in int16 pairs that saturate) on any machine; kNone: exact integer sums.
  Int8Emulation emulate = Int8Emulation::kNone;
  int threads = 0;  // inference threads, 0: all cores (ranges::threads())
};

// Throws edgeq::Error, one line naming the option, for an emulate other than none with a mode
// that is not int8, or threads out of range.
void validate(const ExecOptions& options);

}  // namespace edgeq

// ONNX models (ir/onnx_io.h, then runtime/executor.h): parse_onnx on arbitrary bytes, plan what
// it accepts on one thread, and when its inputs are small, run it once on zeros.
#include "fuzz_util.h"
#include "ir/onnx_io.h"
#include "runtime/executor.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace edgeq;
  Graph g;
  if (!fuzz::accepts([&] { g = parse_onnx(fuzz::bytes_of(data, size), "fuzz.onnx"); })) return 0;
  fuzz::accepts([&] {
    ExecutorOptions opt;
    opt.threads = 1;
    Executor ex(g, opt);
    ex.prepare();
    std::map<std::string, Tensor> inputs;
    int64_t elements = 0;
    for (const ValueInfo& v : g.inputs) {
      for (int64_t d : v.shape)
        if (d < 0 || d > (1 << 16)) return;  // symbolic or large: planned, not run
      elements += shape_numel(v.shape);
      if (elements > (1 << 16)) return;
      inputs[v.name] = Tensor(v.dtype, v.shape);
    }
    ex.run(inputs);
  });
  return 0;
}

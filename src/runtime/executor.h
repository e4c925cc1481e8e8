// Executor: plans a Graph once (shapes, constant folding, fusion, layouts, buffer liveness) and
// runs it many times. Hooks attach to values by name; a hooked value is always materialized in
// its logical (ONNX) layout before the hook sees it, and fusion never hides it.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "edgeq/choices.h"
#include "ir/graph.h"
#include "ir/raw_head.h"
#include "runtime/int8_pairs.h"
#include "runtime/kernel.h"

namespace edgeq {

// How a QDQ model runs: kSimulate in float with fake-quant steps (bit-identical to running every
// QuantizeLinear and DequantizeLinear); kInt8 with its 8-bit activations as uint8 codes and integer
// kernels (runtime/int8_lowering.h). Float models run the same either way, but kInt8 refuses a
// model without 8-bit activations.
// (edgeq::ExecMode: edgeq/choices.h; parse<ExecMode>() / name())

struct ExecutorOptions {
  int threads = 0;            // 0: all cores
  bool fuse = true;           // Conv+Sigmoid+Mul -> Conv with SiLU post-op, when nothing watches
  bool channels_last = true;  // keep 4-D activations in NHWC between layout-aware kernels
  bool profile = false;       // time every step (see Executor::profile())
  // QDQ models: each activation's QuantizeLinear -> DequantizeLinear pair runs as one fake-quant
  // step, fused into the kernel that produces the value where it can (runtime/qdq_fold.h); the
  // results are bit-identical to running every Q and DQ as its own op (false).
  bool fold_qdq = true;
  ExecMode exec = ExecMode::kSimulate;
  // Graph inputs and outputs that carry codes (quantize --quantize-io) are seen as float: the
  // input quantized, the outputs dequantized (runtime/float_io.h). false: run() takes and
  // returns the codes.
  bool float_io = true;
  // kInt8 only: reproduce another CPU's int8 arithmetic (runtime/int8_pairs.h).
  Int8Emulation emulate = Int8Emulation::kNone;
  // A raw-head model (ir/raw_head.h; its metadata says so): run() also returns the decoded output
  // (output0) that the host decode (runtime/host_decode.h) makes from the head's outputs, when
  // the outputs are float (float_io).
  bool host_decode = true;
};

// Accumulated time of one planned step (a kernel or a layout conversion) over all runs.
struct StepTime {
  std::string what;  // node description or "layout conversion of ..."
  std::string op;    // op type, or "LayoutConversion"
  double ms = 0;
  int64_t flops = 0;  // 2 x its multiply-adds (ir/node_work.h), 0 for steps without
  bool int8 = false;  // its multiply-adds run on 8-bit codes (QConv)
};

// Called after a value is computed, with the value in its ONNX layout. Must not keep the
// reference past the call (the buffer is reused).
using Hook = std::function<void(const std::string& value, const Tensor& t)>;

// What a hook is shown: the value in its ONNX layout (a converted copy when the executor keeps
// it in NHWC), or the value as stored (any layout; for statistics that ignore element order,
// this avoids the conversion).
enum class HookView { kLogical, kAsStored };

// Sees one value per run in pieces instead of whole: begin() with the value as stored once it is
// computed, then every element exactly once through part() (from several threads at once, each
// with its omp_get_thread_num()), then end(). When the value's reader is an elementwise kernel,
// the pieces arrive while that kernel reads them, so statistics cost no second read of memory.
class StreamObserver {
 public:
  virtual ~StreamObserver() = default;
  virtual void begin(const Tensor& stored) = 0;
  virtual void part(const float* values, int64_t n, int thread) = 0;
  virtual void end() = 0;
};

struct Plan;

class Executor {
 public:
  explicit Executor(Graph graph, ExecutorOptions opt = {});
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Watches one value (a graph input, node output or graph output). "*" watches every
  // float activation. Hooks must be added before the first run (or call prepare() again).
  void add_hook(const std::string& value, Hook fn, HookView view = HookView::kLogical);
  // Streams one float activation to `obs` (not owned; must outlive the runs). Like a hook, it
  // keeps the value from being fused away.
  void add_stream_observer(const std::string& value, StreamObserver* obs);
  void clear_hooks();

  // Builds the plan; run() calls it when needed. Throws on unsupported ops or bad shapes.
  void prepare();
  // Runs the graph. Inputs are checked against the graph's declared shapes and types.
  std::map<std::string, Tensor> run(const std::map<std::string, Tensor>& inputs);

  const Graph& graph() const { return graph_; }
  // Type and shape of any value after planning (logical ONNX shape).
  const ValueDesc& desc(const std::string& value);
  // Values that are computed at run time (not constants), in execution order.
  std::vector<std::string> activations();
  // Bytes of the activation arena from the liveness plan, and of the weights.
  size_t arena_bytes();
  size_t weight_bytes() const;
  int threads() const;
  // Runs from the next run on with `threads` (1 to threads()): fewer threads give the same results
  // (the thread-determinism tests), so a pipeline can hand a core to its other stages.
  void set_threads(int threads);
  // Per-step times accumulated over runs when ExecutorOptions::profile is set (the first run's
  // include building the kernels' primitives: reset_profile() after warm-up runs drops them).
  std::vector<StepTime> profile() const;
  void reset_profile();
  // After planning: the values the plan keeps in memory (its own buffer or an alias of one), in
  // plan order. Values fused away (a Conv output absorbed by its SiLU, a Sigmoid inside a fused
  // SiLU, a QuantizeLinear's codes) are not among them.
  std::vector<std::string> stored_values();
  // The graph that runs after planning's rewrites (QDQ folding, fusion, int8 lowering).
  const Graph& runtime_graph();
  // After planning: one line per thing the user should know about how the model runs (with
  // --exec int8, the ops that read or write 8-bit values but run in float).
  std::vector<std::string> notices();
  // After planning: for each streamed value, the op type of the kernel that passes it on while
  // reading it, or "" when it is fed whole after its step.
  std::map<std::string, std::string> stream_readers() const;
  // A raw-head model's layout (from its metadata), or nullptr.
  const RawHeadLayout* raw_head() const { return raw_head_ ? &*raw_head_ : nullptr; }
  // Time of the last run's host decode (0 when there is none); run() includes it.
  double last_host_decode_ms() const { return last_host_decode_ms_; }

 private:
  void call_hooks(const std::string& value, const Tensor& logical, const Tensor& stored);
  bool needs_logical_view(const std::string& value) const;
  Graph graph_;
  ExecutorOptions opt_;
  struct HookEntry {
    Hook fn;
    HookView view;
  };
  std::map<std::string, std::vector<HookEntry>> hooks_;
  std::map<std::string, StreamObserver*> streams_;
  std::unique_ptr<Plan> plan_;
  std::optional<RawHeadLayout> raw_head_;
  double last_host_decode_ms_ = 0;
  double host_decode_total_ms_ = 0;  // over runs, for profile()
};

}  // namespace edgeq

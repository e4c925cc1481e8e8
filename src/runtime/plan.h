// The executor's plan: what the planning passes build and Executor::run walks. Internal to
// src/runtime (the passes: plan_rewrites.h, step_planner.h, plan_memory.h).
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/executor.h"
#include "runtime/kernel.h"
#include "runtime/layout.h"

namespace edgeq {

// A buffer holding one value in one layout.
struct Slot {
  std::string value;
  ValueDesc desc;  // logical
  Layout layout = Layout::kPlain;
  bool external = false;  // graph input (caller's memory) or graph output (fresh per run)
  int first = 0, last = 0;
  int alias_of = -1;  // another slot whose bytes this one reuses (a view op's output)
  size_t offset = 0;
  Tensor view;  // physical view into the arena or external memory
};

struct StreamCall {
  StreamObserver* observer;
  int slot;  // the streamed value's stored slot
};

struct Step {
  enum class Kind { kKernel, kToNHWC, kToPlain } kind = Kind::kKernel;
  std::unique_ptr<Kernel> kernel;
  std::string what;  // node description for errors
  std::string op;
  int node = -1;  // index into the runtime graph's nodes (kernel steps)
  double ms = 0;  // accumulated when profiling
  std::vector<const Tensor*> in;
  std::vector<Tensor*> out;
  std::vector<int> in_slots, out_slots;
  struct HookCall {
    std::string value;
    int logical_slot = -1;  // plain copy, when some hook wants the logical view
    int stored_slot = -1;
  };
  std::vector<HookCall> hooks;
  std::vector<StreamCall> streams_during;  // fed by this step's kernel as it reads them
  std::vector<StreamCall> streams_after;   // fed here after the step (no kernel could)
  LayoutObserver seen;                     // a conversion's, feeding its stream
};

struct Plan {
  ValueDescs descs;                         // every value, logical
  std::map<std::string, Tensor> constants;  // initializers and folded values
  std::vector<std::string> activation_order;
  Graph runtime;  // the nodes that run, after the rewrites
  std::vector<std::string> notices;
  std::vector<Slot> slots;
  std::vector<Step> steps;
  std::vector<std::pair<std::string, int>> input_slots;   // graph input -> slot
  std::vector<std::pair<std::string, int>> output_slots;  // graph output -> slot (-1: constant)
  std::vector<std::pair<std::string, int>> input_hooks;   // graph inputs are stored plain
  std::vector<StreamCall> input_streams;
  Tensor arena;
  size_t arena_bytes = 0;
  int threads = 1;
};

// What the caller watches, as the planning passes need it.
struct Watches {
  std::set<std::string> protect;  // graph outputs and watched values: never fused away
  bool all = false;               // "*": every float activation
  std::function<bool(const std::string&)> hooked;       // a hook sees this value
  std::function<bool(const std::string&)> wants_plain;  // ... in its ONNX layout
  std::map<std::string, StreamObserver*> streams;
};

}  // namespace edgeq

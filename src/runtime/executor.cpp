#include "runtime/executor.h"

#include <omp.h>

#include <chrono>
#include <cstdlib>
#include <unordered_map>
#include <unordered_set>

#include "core/option_range.h"
#include "core/process_stats.h"
#include "ir/node_work.h"
#include "runtime/constant_folding.h"
#include "runtime/float_io.h"
#include "runtime/host_decode.h"
#include "runtime/plan.h"
#include "runtime/plan_memory.h"
#include "runtime/plan_rewrites.h"
#include "runtime/step_planner.h"

namespace edgeq {

namespace {

// A stream no kernel feeds: all of it, in parallel pieces.
void feed_whole(StreamObserver& obs, const Tensor& t) {
  obs.begin(t);
  const float* x = t.data<float>();
  const int64_t n = t.numel(), piece = 1 << 15;
  const int64_t pieces = (n + piece - 1) / piece;
#pragma omp parallel for schedule(static) if (n >= 2 * piece)
  for (int64_t k = 0; k < pieces; ++k)
    obs.part(x + k * piece, std::min(piece, n - k * piece), omp_get_thread_num());
  obs.end();
}

}  // namespace

Executor::Executor(Graph graph, ExecutorOptions opt) : graph_(std::move(graph)), opt_(opt) {
  check_option("threads", opt_.threads, ranges::threads());
  if (opt_.float_io) float_io_view(graph_);
  if (opt_.host_decode && opt_.float_io) raw_head_ = raw_head_layout(graph_);
}
Executor::~Executor() = default;

void Executor::add_hook(const std::string& value, Hook fn, HookView view) {
  hooks_[value].push_back({std::move(fn), view});
  plan_.reset();
}

void Executor::add_stream_observer(const std::string& value, StreamObserver* obs) {
  streams_[value] = obs;
  plan_.reset();
}

void Executor::clear_hooks() {
  hooks_.clear();
  streams_.clear();
  plan_.reset();
}

int Executor::threads() const {
  if (opt_.threads > 0) return opt_.threads;
  return available_cores();
}

void Executor::set_threads(int threads) {
  EDGEQ_CHECK(threads >= 1 && threads <= this->threads(), "inference threads must be in [1, ",
              this->threads(), "], got ", threads);
  opt_.threads = threads;
  if (plan_) plan_->threads = threads;
}

size_t Executor::weight_bytes() const {
  size_t b = 0;
  for (const auto& kv : graph_.initializers) b += kv.second.nbytes();
  return b;
}

// Planning in passes: types, shapes and constants (runtime/constant_folding.h); the graph that
// runs (plan_rewrites.h); steps, layouts and buffers (step_planner.h); memory (plan_memory.h).
void Executor::prepare() {
  auto plan = std::make_unique<Plan>();
  Plan& p = *plan;
  p.threads = threads();
  Graph g = graph_;
  g.sort_topologically();
  // Every pass below reads a node's first output (a fuzzed model's Sigmoid without one crashed
  // the SiLU fusion).
  for (const Node& n : g.nodes) EDGEQ_CHECK(!n.outputs.empty(), n.describe(), ": has no outputs");

  ShapePass shapes = infer_and_fold(g);
  p.descs = std::move(shapes.descs);
  p.constants = std::move(shapes.constants);
  p.activation_order = std::move(shapes.activation_order);

  Watches w;
  w.all = hooks_.count("*") != 0;
  for (const auto& o : g.outputs) w.protect.insert(o.name);
  for (const auto& kv : hooks_) w.protect.insert(kv.first);
  for (const auto& kv : streams_) w.protect.insert(kv.first);
  w.hooked = [this](const std::string& v) { return hooks_.count(v) != 0; };
  w.wants_plain = [this](const std::string& v) { return needs_logical_view(v); };
  w.streams = streams_;

  p.runtime = edgeq::runtime_graph(g, shapes.folded, p.descs, opt_, w, p.notices);
  plan_steps(p, g, opt_, w);
  plan_memory(p);
  plan_ = std::move(plan);
}

std::map<std::string, Tensor> Executor::run(const std::map<std::string, Tensor>& inputs) {
  if (!plan_) prepare();
  Plan& p = *plan_;
  omp_set_num_threads(p.threads);
  for (const auto& kv : inputs)
    EDGEQ_CHECK(graph_.find_input(kv.first), "'", kv.first, "' is not an input of this model");
  for (const auto& [name, id] : p.input_slots) {
    auto it = inputs.find(name);
    EDGEQ_CHECK(it != inputs.end(), "missing model input '", name, "'");
    const Slot& sl = p.slots[id];
    const Tensor& t = it->second;
    if (t.dtype() != sl.desc.dtype || t.shape() != sl.desc.shape)
      fail("input '", name, "' expects ", dtype_name(sl.desc.dtype), " ", shape_str(sl.desc.shape),
           " but got ", dtype_name(t.dtype()), " ", shape_str(t.shape()));
    p.slots[id].view = Tensor::view(t.dtype(), t.shape(), const_cast<void*>(t.raw()));
  }
  std::map<std::string, Tensor> result;
  for (const auto& [name, id] : p.output_slots) {
    if (id < 0) {
      result[name] = p.constants.at(name).clone();
      continue;
    }
    Slot& sl = p.slots[id];
    if (sl.view.raw() != nullptr && graph_.find_input(name)) continue;  // output == input
    Tensor t = Tensor::uninitialized(sl.desc.dtype, sl.desc.shape);     // the steps write it all
    sl.view = Tensor::view(t.dtype(), t.shape(), t.raw());
    result[name] = t;
  }
  for (const auto& [name, id] : p.input_hooks) call_hooks(name, p.slots[id].view, p.slots[id].view);
  for (const auto& sc : p.input_streams) feed_whole(*sc.observer, p.slots[sc.slot].view);
  for (Step& s : p.steps) {
    auto t0 =
        opt_.profile ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
    for (const auto& sc : s.streams_during) sc.observer->begin(p.slots[sc.slot].view);
    const LayoutObserver* seen = s.seen ? &s.seen : nullptr;
    switch (s.kind) {
      case Step::Kind::kKernel:
        s.kernel->run(s.in, s.out);
        break;
      case Step::Kind::kToNHWC:
        nchw_to_nhwc(*s.in[0], *s.out[0], seen);
        break;
      case Step::Kind::kToPlain:
        nhwc_to_nchw(*s.in[0], *s.out[0], seen);
        break;
    }
    for (const auto& sc : s.streams_during) sc.observer->end();
    if (opt_.profile)
      s.ms +=
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    for (const auto& h : s.hooks) {
      const Tensor& stored = p.slots[h.stored_slot].view;
      call_hooks(h.value, h.logical_slot >= 0 ? p.slots[h.logical_slot].view : stored, stored);
    }
    for (const auto& sc : s.streams_after) feed_whole(*sc.observer, p.slots[sc.slot].view);
  }
  for (const auto& [name, id] : p.output_slots)
    if (id >= 0 && graph_.find_input(name)) result[name] = inputs.at(name).clone();
  if (raw_head_) {
    const auto t0 = std::chrono::steady_clock::now();
    result[raw_head_->decoded] = decode_raw_head(*raw_head_, result);
    last_host_decode_ms_ =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    host_decode_total_ms_ += last_host_decode_ms_;
  }
  return result;
}

std::map<std::string, std::string> Executor::stream_readers() const {
  EDGEQ_CHECK(plan_, "stream_readers() before planning");
  std::map<std::string, std::string> out;
  for (const Step& s : plan_->steps) {
    for (const auto& sc : s.streams_during) out[plan_->slots[sc.slot].value] = s.op;
    for (const auto& sc : s.streams_after) out[plan_->slots[sc.slot].value] = "";
  }
  for (const auto& sc : plan_->input_streams) out[plan_->slots[sc.slot].value] = "";
  return out;
}

std::vector<std::string> Executor::stored_values() {
  if (!plan_) prepare();
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  for (const Slot& s : plan_->slots)
    if (seen.insert(s.value).second) out.push_back(s.value);
  return out;
}

std::vector<std::string> Executor::notices() {
  if (!plan_) prepare();
  return plan_->notices;
}

const Graph& Executor::runtime_graph() {
  if (!plan_) prepare();
  return plan_->runtime;
}

std::vector<StepTime> Executor::profile() const {
  std::vector<StepTime> out;
  if (plan_) {
    const ShapeOf shape_of = [&](const std::string& v) {
      if (auto d = plan_->descs.find(v); d != plan_->descs.end()) return d->second.shape;
      return plan_->constants.at(v).shape();
    };
    for (const Step& s : plan_->steps) {
      StepTime t{s.what, s.op, s.ms};
      if (s.kind == Step::Kind::kKernel && s.node >= 0) {
        const Node& n = plan_->runtime.nodes.at(size_t(s.node));
        t.flops = node_flops(n, shape_of);
        t.int8 = n.op_type == "QConv";
      }
      out.push_back(t);
    }
  }
  if (raw_head_)
    out.push_back({"host decode of the raw head", "HostDecode", host_decode_total_ms_});
  return out;
}

void Executor::reset_profile() {
  if (plan_)
    for (Step& s : plan_->steps) s.ms = 0;
  host_decode_total_ms_ = 0;
}

bool Executor::needs_logical_view(const std::string& value) const {
  for (const char* key : {value.c_str(), "*"})
    if (auto it = hooks_.find(key); it != hooks_.end())
      for (const auto& h : it->second)
        if (h.view == HookView::kLogical) return true;
  return false;
}

void Executor::call_hooks(const std::string& value, const Tensor& logical, const Tensor& stored) {
  for (const char* key : {value.c_str(), "*"})
    if (auto it = hooks_.find(key); it != hooks_.end())
      for (auto& h : it->second) h.fn(value, h.view == HookView::kLogical ? logical : stored);
}

const ValueDesc& Executor::desc(const std::string& value) {
  if (!plan_) prepare();
  auto it = plan_->descs.find(value);
  EDGEQ_CHECK(it != plan_->descs.end(), "no value named '", value, "' in the model");
  return it->second;
}

std::vector<std::string> Executor::activations() {
  if (!plan_) prepare();
  return plan_->activation_order;
}

size_t Executor::arena_bytes() {
  if (!plan_) prepare();
  return plan_->arena_bytes;
}

}  // namespace edgeq

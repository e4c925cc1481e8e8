#include "runtime/executor.h"

#include <omp.h>

#include <chrono>
#include <cstdlib>
#include <unordered_map>
#include <unordered_set>

#include "ir/op_traits.h"
#include "runtime/constant_folding.h"
#include "runtime/fusion.h"
#include "runtime/layout.h"
#include "runtime/layout_choice.h"
#include "runtime/memory_plan.h"
#include "runtime/qdq_fold.h"

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

struct Step {
  enum class Kind { kKernel, kToNHWC, kToPlain } kind = Kind::kKernel;
  std::unique_ptr<Kernel> kernel;
  std::string what;  // node description for errors
  std::string op;
  int node = -1;  // index into the planned node list (kernel steps)
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
  struct StreamCall {
    StreamObserver* observer;
    int slot;  // the streamed value's stored slot
  };
  std::vector<StreamCall> streams_during;  // fed by this step's kernel as it reads them
  std::vector<StreamCall> streams_after;   // fed here after the step (no kernel could)
  LayoutObserver seen;                     // a conversion's, feeding its stream
};

namespace {

// What a reader that passes a stream on calls with each piece, from the thread that read it.
LayoutObserver pieces_to(StreamObserver* obs) {
  return [obs](const float* v, int64_t n) { obs->part(v, n, omp_get_thread_num()); };
}

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

struct Executor::Plan {
  std::unordered_map<std::string, ValueDesc> descs;  // every value, logical
  std::map<std::string, Tensor> constants;           // initializers and folded values
  std::vector<std::string> activation_order;
  std::vector<Slot> slots;
  std::vector<Step> steps;
  std::vector<std::pair<std::string, int>> input_slots;   // graph input -> slot
  std::vector<std::pair<std::string, int>> output_slots;  // graph output -> slot (-1: constant)
  std::vector<std::pair<std::string, int>> input_hooks;   // graph inputs are stored plain
  std::vector<Step::StreamCall> input_streams;
  Tensor arena;
  size_t arena_bytes = 0;
  int threads = 1;
};

Executor::Executor(Graph graph, ExecutorOptions opt) : graph_(std::move(graph)), opt_(opt) {}
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
  return omp_get_num_procs();
}

size_t Executor::weight_bytes() const {
  size_t b = 0;
  for (const auto& kv : graph_.initializers) b += kv.second.nbytes();
  return b;
}

void Executor::prepare() {
  auto plan = std::make_unique<Plan>();
  Plan& p = *plan;
  p.threads = threads();
  Graph g = graph_;
  g.sort_topologically();

  // Pass 1: types, shapes and constant folding over the original graph.
  ShapePass shapes = infer_and_fold(g);
  p.descs = std::move(shapes.descs);
  p.constants = std::move(shapes.constants);
  p.activation_order = std::move(shapes.activation_order);
  const std::vector<bool>& folded = shapes.folded;

  // Pass 2: fusion on the nodes that run.
  Graph rt;
  rt.opsets = g.opsets;
  for (size_t ni = 0; ni < g.nodes.size(); ++ni)
    if (!folded[ni]) rt.nodes.push_back(g.nodes[ni]);
  bool watch_all = hooks_.count("*") != 0;
  std::set<std::string> protect;
  for (const auto& o : g.outputs) protect.insert(o.name);
  for (const auto& kv : hooks_) protect.insert(kv.first);
  for (const auto& kv : streams_) protect.insert(kv.first);
  if (opt_.fold_qdq) {
    fold_qdq_pairs(rt, p.descs, protect);
    if (!watch_all) drop_redundant_fake_quant(rt, protect);
  }
  if (opt_.fuse && !watch_all) {
    if (opt_.fold_qdq) fuse_fake_quant(rt, protect);
    fuse_conv_silu(rt, protect);
    fuse_sigmoid_mul(rt, protect);
  }

  auto hooks_for = [&](const std::string& v) {
    if (hooks_.count(v)) return true;
    if (!watch_all) return false;
    const ValueDesc& d = p.descs[v];
    return d.dtype == DType::kFloat32 && !d.constant;
  };

  // Pass 3: layouts, kernels, conversion steps and hooks.
  std::unordered_map<std::string, int> plain_slot, nhwc_slot;
  auto new_slot = [&](const std::string& v, Layout l) {
    Slot s;
    s.value = v;
    s.desc = p.descs[v];
    s.layout = is_float_4d(s.desc) ? l : Layout::kPlain;
    p.slots.push_back(std::move(s));
    int id = static_cast<int>(p.slots.size()) - 1;
    (p.slots[id].layout == Layout::kNHWC ? nhwc_slot : plain_slot)[v] = id;
    return id;
  };
  auto stored_layout = [&](const std::string& v) {
    return nhwc_slot.count(v) && !plain_slot.count(v) ? Layout::kNHWC : Layout::kPlain;
  };
  // Streamed values waiting for a reader that can pass them on (producer -1: graph input).
  struct PendingStream {
    StreamObserver* observer;
    int slot, producer;
  };
  std::map<std::string, PendingStream> pending_streams;
  // The stream waiting on the value stored in `slot`, taken off the waiting list, if a reader of
  // that slot or of a view op's alias of it (the same bytes in the same order) can pass it on:
  // can(observer, the streamed value's own slot).
  auto take_stream = [&](int slot, const std::function<bool(StreamObserver*, int)>& can) {
    const int root = p.slots[slot].alias_of >= 0 ? p.slots[slot].alias_of : slot;
    auto st = pending_streams.find(p.slots[root].value);
    if (st == pending_streams.end() || st->second.slot != root || !can(st->second.observer, root))
      return false;
    pending_streams.erase(st);
    return true;
  };
  // Returns the slot of v in layout l, adding a conversion step when needed. The conversion
  // passes on a stream waiting on the source.
  auto slot_in = [&](const std::string& v, Layout l) -> int {
    auto& want = l == Layout::kNHWC ? nhwc_slot : plain_slot;
    auto it = want.find(v);
    if (it != want.end()) return it->second;
    auto& have = l == Layout::kNHWC ? plain_slot : nhwc_slot;
    int src = have.at(v);
    int dst = new_slot(v, l);
    Step s;
    s.kind = l == Layout::kNHWC ? Step::Kind::kToNHWC : Step::Kind::kToPlain;
    s.what = "layout conversion of '" + v + "'";
    s.op = "LayoutConversion";
    s.in_slots = {src};
    s.out_slots = {dst};
    take_stream(src, [&](StreamObserver* obs, int streamed) {
      s.streams_during.push_back({obs, streamed});
      s.seen = pieces_to(obs);
      return true;
    });
    p.steps.push_back(std::move(s));
    return dst;
  };

  for (const auto& in : g.inputs) {
    int id = new_slot(in.name, Layout::kPlain);
    p.slots[id].external = true;
    p.input_slots.push_back({in.name, id});
    if (hooks_for(in.name)) p.input_hooks.push_back({in.name, id});
    if (auto st = streams_.find(in.name); st != streams_.end()) {
      EDGEQ_CHECK(in.dtype == DType::kFloat32, "stream observer on '", in.name,
                  "': only float32 values can be streamed");
      pending_streams[in.name] = {st->second, id, -1};
    }
  }

  for (const Node& node : rt.nodes) {
    std::vector<ValueDesc> in_descs;
    for (const auto& name : node.inputs)
      in_descs.push_back(name.empty() ? ValueDesc{DType::kUndefined, {}, nullptr} : p.descs[name]);
    const std::string& op = node.op_type;
    auto input_is_nhwc = [&](size_t i) {
      return !node.inputs[i].empty() && !in_descs[i].constant &&
             stored_layout(node.inputs[i]) == Layout::kNHWC;
    };
    const Layout layout =
        opt_.channels_last
            ? choose_layout(node, in_descs, p.descs[node.outputs[0]].shape, input_is_nhwc)
            : Layout::kPlain;
    // A view op on a plain, internal, unwatched value becomes an alias of its input.
    if (layout == Layout::kPlain && op_traits(node).view && node.outputs.size() == 1 &&
        !in_descs[0].constant && !protect.count(node.outputs[0]) && !hooks_for(node.outputs[0]) &&
        !p.descs[node.outputs[0]].constant) {
      int src = slot_in(node.inputs[0], Layout::kPlain);
      if (!p.slots[src].external) {
        int id = new_slot(node.outputs[0], Layout::kPlain);
        p.slots[id].alias_of = p.slots[src].alias_of >= 0 ? p.slots[src].alias_of : src;
        continue;
      }
    }
    KernelInit init{node, in_descs, g.opset(node.domain), layout};
    Step s;
    s.kernel = create_kernel(init);
    s.what = node.describe();
    s.op = node.op_type;
    s.node = static_cast<int>(&node - rt.nodes.data());
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const std::string& v = node.inputs[i];
      if (v.empty() || in_descs[i].constant) {
        s.in_slots.push_back(-1);
        continue;
      }
      bool is_activation_input = layout == Layout::kNHWC && is_float_4d(in_descs[i]) &&
                                 !(op == "Conv" && i > 0) && !(op == "Split" && i > 0);
      s.in_slots.push_back(slot_in(v, is_activation_input ? Layout::kNHWC : Layout::kPlain));
    }
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      if (node.outputs[o].empty()) {
        s.out_slots.push_back(-1);
        continue;
      }
      const std::string& v = node.outputs[o];
      const ValueDesc& kd = s.kernel->outputs[o];
      p.descs[v].dtype = kd.dtype;
      EDGEQ_CHECK(kd.shape == p.descs[v].shape, node.describe(),
                  ": output shape changed between planning passes");
      s.out_slots.push_back(new_slot(v, layout));
    }
    // Streamed inputs read as stored by a kernel that can pass them on, directly or through a
    // view op's alias (the same bytes in the same order). A value the node reads twice is passed
    // on from its first use only: the stream is no longer pending.
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (s.in_slots[i] < 0) continue;
      take_stream(s.in_slots[i], [&](StreamObserver* obs, int streamed) {
        if (!s.kernel->observe_input(i, pieces_to(obs))) return false;
        s.streams_during.push_back({obs, streamed});
        return true;
      });
    }
    std::vector<std::string> produced = node.outputs;
    p.steps.push_back(std::move(s));
    for (size_t o = 0; o < produced.size(); ++o) {
      const std::string& v = produced[o];
      if (v.empty()) continue;
      if (auto st = streams_.find(v); st != streams_.end()) {
        EDGEQ_CHECK(p.descs[v].dtype == DType::kFloat32, "stream observer on '", v,
                    "': only float32 values can be streamed");
        pending_streams[v] = {st->second, p.steps.back().out_slots[o],
                              static_cast<int>(p.steps.size()) - 1};
      }
      if (!hooks_for(v)) continue;
      int stored = p.steps.back().out_slots[o];
      int logical = needs_logical_view(v) ? slot_in(v, Layout::kPlain) : -1;
      p.steps.back().hooks.push_back({v, logical, stored});
    }
  }

  // Graph outputs: always plain, in caller-owned tensors (a conversion may take a stream).
  for (const auto& o : g.outputs) {
    if (p.descs[o.name].constant) {
      p.output_slots.push_back({o.name, -1});
      continue;
    }
    int id = slot_in(o.name, Layout::kPlain);
    p.output_slots.push_back({o.name, id});
  }

  // Streams nothing took are fed whole, right after their value is computed.
  for (const auto& [v, st] : pending_streams)
    (st.producer >= 0 ? p.steps[st.producer].streams_after : p.input_streams)
        .push_back({st.observer, st.slot});
  pending_streams.clear();

  // Pointers for each step and liveness.
  int n_steps = static_cast<int>(p.steps.size());
  for (auto& sl : p.slots) {
    sl.first = n_steps;
    sl.last = -1;
  }
  for (auto& sl : p.slots)
    if (sl.external) sl.first = 0;
  for (int si = 0; si < n_steps; ++si) {
    Step& s = p.steps[si];
    for (int id : s.out_slots)
      if (id >= 0) p.slots[id].first = std::min(p.slots[id].first, si);
    for (int id : s.in_slots)
      if (id >= 0) p.slots[id].last = std::max(p.slots[id].last, si);
    for (const auto& h : s.hooks)
      for (int id : {h.logical_slot, h.stored_slot})
        if (id >= 0) p.slots[id].last = std::max(p.slots[id].last, si);
  }
  for (const auto& o : p.output_slots)
    if (o.second >= 0) p.slots[o.second].external = true;
  for (auto& sl : p.slots)
    if (sl.alias_of >= 0) {
      Slot& root = p.slots[sl.alias_of];
      root.last = std::max(root.last, sl.last);
    }
  std::vector<BufferLife> lives;
  std::vector<int> arena_ids;
  for (size_t i = 0; i < p.slots.size(); ++i) {
    Slot& sl = p.slots[i];
    if (sl.external || sl.alias_of >= 0) continue;
    sl.last = std::max(sl.last, sl.first);
    lives.push_back({shape_numel(sl.desc.shape) * dtype_size(sl.desc.dtype), sl.first, sl.last});
    arena_ids.push_back(static_cast<int>(i));
  }
  std::vector<size_t> offsets = plan_arena(lives, &p.arena_bytes);
  p.arena = Tensor(DType::kUInt8, {static_cast<int64_t>(p.arena_bytes)});
  for (size_t j = 0; j < arena_ids.size(); ++j) {
    Slot& sl = p.slots[arena_ids[j]];
    sl.offset = offsets[j];
    sl.view = Tensor::view(sl.desc.dtype, physical_shape(sl.desc.shape, sl.layout),
                           p.arena.data<uint8_t>() + sl.offset);
  }
  for (auto& sl : p.slots)
    if (sl.alias_of >= 0)
      sl.view = Tensor::view(sl.desc.dtype, sl.desc.shape, p.slots[sl.alias_of].view.raw());
  // Resolve each step's tensor pointers; external slots' views are refreshed per run.
  for (Step& s : p.steps) {
    for (int id : s.out_slots) s.out.push_back(id >= 0 ? &p.slots[id].view : nullptr);
    if (s.kind != Step::Kind::kKernel) {
      s.in.push_back(&p.slots[s.in_slots[0]].view);
      continue;
    }
    const Node& node = rt.nodes[s.node];
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      int id = s.in_slots[i];
      if (id >= 0)
        s.in.push_back(&p.slots[id].view);
      else if (node.inputs[i].empty())
        s.in.push_back(nullptr);
      else
        s.in.push_back(&p.constants.at(node.inputs[i]));
    }
  }
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

std::vector<StepTime> Executor::profile() const {
  std::vector<StepTime> out;
  if (plan_)
    for (const Step& s : plan_->steps) out.push_back({s.what, s.op, s.ms});
  return out;
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

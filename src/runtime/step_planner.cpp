#include "runtime/step_planner.h"

#include <omp.h>

#include "ir/op_traits.h"
#include "runtime/layout_choice.h"

namespace edgeq {
namespace {

// What a reader that passes a stream on calls with each piece, from the thread that read it.
LayoutObserver pieces_to(StreamObserver* obs) {
  return [obs](const float* v, int64_t n) { obs->part(v, n, omp_get_thread_num()); };
}

class StepPlanner {
 public:
  StepPlanner(Plan& p, const Graph& g, const ExecutorOptions& opt, const Watches& w)
      : p_(p), g_(g), opt_(opt), w_(w) {
    for (const auto& o : g.outputs) graph_outputs_.insert(o.name);
  }

  void run() {
    if (opt_.channels_last)
      plain_pointwise_ = plain_pointwise_outputs(p_.runtime.nodes, p_.descs, graph_outputs_);
    for (const auto& in : g_.inputs) plan_input(in);
    for (const Node& node : p_.runtime.nodes) plan_node(node);
    for (const auto& o : g_.outputs) plan_output(o.name);
    // Streams nothing took are fed whole, right after their value is computed.
    for (const auto& [v, st] : pending_streams_)
      (st.producer >= 0 ? p_.steps[st.producer].streams_after : p_.input_streams)
          .push_back({st.observer, st.slot});
  }

 private:
  // A streamed value waiting for a reader that can pass it on (producer -1: graph input).
  struct PendingStream {
    StreamObserver* observer;
    int slot, producer;
  };

  bool hooked(const std::string& v) const {
    if (w_.hooked(v)) return true;
    if (!w_.all) return false;
    const ValueDesc& d = p_.descs.at(v);
    return d.dtype == DType::kFloat32 && !d.constant;
  }

  int new_slot(const std::string& v, Layout l) {
    Slot s;
    s.value = v;
    s.desc = p_.descs[v];
    s.layout = is_activation_4d(s.desc) ? l : Layout::kPlain;
    p_.slots.push_back(std::move(s));
    int id = static_cast<int>(p_.slots.size()) - 1;
    (p_.slots[id].layout == Layout::kNHWC ? nhwc_slot_ : plain_slot_)[v] = id;
    return id;
  }

  Layout stored_layout(const std::string& v) const {
    return nhwc_slot_.count(v) && !plain_slot_.count(v) ? Layout::kNHWC : Layout::kPlain;
  }

  int root_of(int slot) const {
    return p_.slots[slot].alias_of >= 0 ? p_.slots[slot].alias_of : slot;
  }

  // Takes the stream waiting on the value stored in `slot` off the waiting list, if a reader of
  // that slot or of a view op's alias of it (the same bytes in the same order) can pass it on:
  // can(observer, the streamed value's own slot).
  bool take_stream(int slot, const std::function<bool(StreamObserver*, int)>& can) {
    const int root = root_of(slot);
    auto st = pending_streams_.find(p_.slots[root].value);
    if (st == pending_streams_.end() || st->second.slot != root || !can(st->second.observer, root))
      return false;
    pending_streams_.erase(st);
    return true;
  }

  // The slot of v in layout l, adding a conversion step when needed. The conversion passes on a
  // stream waiting on the source.
  int slot_in(const std::string& v, Layout l) {
    auto& want = l == Layout::kNHWC ? nhwc_slot_ : plain_slot_;
    auto it = want.find(v);
    if (it != want.end()) return it->second;
    auto& have = l == Layout::kNHWC ? plain_slot_ : nhwc_slot_;
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
    p_.steps.push_back(std::move(s));
    return dst;
  }

  void wait_for_reader(const std::string& v, int slot, int producer) {
    auto st = w_.streams.find(v);
    if (st == w_.streams.end()) return;
    EDGEQ_CHECK(p_.descs[v].dtype == DType::kFloat32, "stream observer on '", v,
                "': only float32 values can be streamed");
    pending_streams_[v] = {st->second, slot, producer};
  }

  void plan_input(const ValueInfo& in) {
    int id = new_slot(in.name, Layout::kPlain);
    p_.slots[id].external = true;
    p_.input_slots.push_back({in.name, id});
    if (hooked(in.name)) p_.input_hooks.push_back({in.name, id});
    wait_for_reader(in.name, id, -1);
  }

  // A view op on a plain, internal, unwatched value becomes an alias of its input: true when
  // planned so. Not over caller memory: graph inputs and outputs live outside the arena.
  bool plan_alias(const Node& node, const std::vector<ValueDesc>& in_descs, Layout layout) {
    const std::string& out = node.outputs.size() == 1 ? node.outputs[0] : std::string();
    if (layout != Layout::kPlain || !op_traits(node).view || out.empty() || in_descs.empty() ||
        in_descs[0].constant || w_.protect.count(out) || hooked(out) || p_.descs[out].constant)
      return false;
    const int src = slot_in(node.inputs[0], Layout::kPlain);
    const Slot& root = p_.slots[root_of(src)];
    if (root.external || graph_outputs_.count(root.value)) return false;
    int id = new_slot(out, Layout::kPlain);
    p_.slots[id].alias_of = root_of(src);
    return true;
  }

  void plan_node(const Node& node) {
    std::vector<ValueDesc> in_descs;
    for (const auto& name : node.inputs)
      in_descs.push_back(name.empty() ? ValueDesc{DType::kUndefined, {}, nullptr} : p_.descs[name]);
    auto input_is_nhwc = [&](size_t i) {
      return !node.inputs[i].empty() && !in_descs[i].constant &&
             stored_layout(node.inputs[i]) == Layout::kNHWC;
    };
    Layout layout =
        opt_.channels_last
            ? choose_layout(node, in_descs, p_.descs[node.outputs[0]].shape, input_is_nhwc)
            : Layout::kPlain;
    std::optional<Layout> out_layout;
    if (plain_pointwise_.count(node.outputs[0])) {  // reads as stored, writes plain
      layout = input_is_nhwc(0) ? Layout::kNHWC : Layout::kPlain;
      out_layout = Layout::kPlain;
    }
    if (plan_alias(node, in_descs, layout)) return;

    KernelInit init{node, in_descs, g_.opset(node.domain), layout, out_layout};
    Step s;
    s.kernel = create_kernel(init);
    s.what = node.describe();
    s.op = node.op_type;
    s.node = static_cast<int>(&node - p_.runtime.nodes.data());
    const bool data_only = op_traits(node).data == DataInputs::kWeighted || node.op_type == "Split";
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const std::string& v = node.inputs[i];
      if (v.empty() || in_descs[i].constant) {
        s.in_slots.push_back(-1);
        continue;
      }
      bool nhwc_input =
          layout == Layout::kNHWC && is_activation_4d(in_descs[i]) && !(data_only && i > 0);
      s.in_slots.push_back(slot_in(v, nhwc_input ? Layout::kNHWC : Layout::kPlain));
    }
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      if (node.outputs[o].empty()) {
        s.out_slots.push_back(-1);
        continue;
      }
      const std::string& v = node.outputs[o];
      const ValueDesc& kd = s.kernel->outputs[o];
      p_.descs[v].dtype = kd.dtype;
      EDGEQ_CHECK(kd.shape == p_.descs[v].shape, node.describe(),
                  ": output shape changed between planning passes");
      s.out_slots.push_back(new_slot(v, init.out_layout()));
    }
    // Streamed inputs read as stored by a kernel that can pass them on, directly or through a
    // view op's alias. A value the node reads twice is passed on from its first use only: the
    // stream is no longer pending.
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (s.in_slots[i] < 0) continue;
      take_stream(s.in_slots[i], [&](StreamObserver* obs, int streamed) {
        if (!s.kernel->observe_input(i, pieces_to(obs))) return false;
        s.streams_during.push_back({obs, streamed});
        return true;
      });
    }
    p_.steps.push_back(std::move(s));
    const int step = static_cast<int>(p_.steps.size()) - 1;
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      const std::string& v = node.outputs[o];
      if (v.empty()) continue;
      const int stored = p_.steps[step].out_slots[o];
      wait_for_reader(v, stored, step);
      if (!hooked(v)) continue;
      int logical = w_.wants_plain(v) ? slot_in(v, Layout::kPlain) : -1;
      // After the conversion to the plain layout, when one was added.
      p_.steps.back().hooks.push_back({v, logical, stored});
    }
  }

  // Graph outputs: always plain, in caller-owned tensors (a conversion may take a stream).
  void plan_output(const std::string& v) {
    if (p_.descs[v].constant) {
      p_.output_slots.push_back({v, -1});
      return;
    }
    p_.output_slots.push_back({v, slot_in(v, Layout::kPlain)});
  }

  Plan& p_;
  const Graph& g_;
  const ExecutorOptions& opt_;
  const Watches& w_;
  std::set<std::string> graph_outputs_;
  std::unordered_map<std::string, int> plain_slot_, nhwc_slot_;
  std::set<std::string> plain_pointwise_;  // pointwise Convs' outputs written plain
  std::map<std::string, PendingStream> pending_streams_;
};

}  // namespace

void plan_steps(Plan& p, const Graph& g, const ExecutorOptions& opt, const Watches& watches) {
  StepPlanner(p, g, opt, watches).run();
}

}  // namespace edgeq

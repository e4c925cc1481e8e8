#include "runtime/int8_lowering.h"

#include <cmath>
#include <map>
#include <optional>

#include "ir/op_traits.h"
#include "runtime/fake_quant.h"
#include "runtime/fusion.h"
#include "runtime/int8_pairs.h"

namespace edgeq {
namespace {

bool is_fake_quant(const Node& n) {
  return n.op_type == "FakeQuant" && n.domain == "edgeq";
}

// The code of `v` on the grid, as the Quantize kernel computes it.
int64_t code_of(float v, const FakeQuantParams& p) {
  float k = std::rint(v / p.scale);
  k = k > p.hi ? p.hi : k;
  k = k >= p.lo ? k : p.lo;
  return static_cast<int64_t>(k - p.lo);
}

// The value of each code (every code of the grid, 0..codes-1).
std::vector<float> grid_values(const FakeQuantParams& p) {
  std::vector<float> v;
  for (int64_t c = 0; c < p.codes(); ++c) v.push_back((static_cast<float>(c) + p.lo) * p.scale);
  return v;
}

// Integer weights of a Conv: the DequantizeLinear of an int8 initializer with zero points 0.
struct IntWeights {
  std::string codes;          // int8 initializer [O, I/group, kH, kW]
  std::vector<float> scales;  // per output channel
  std::string bias;           // int32 initializer, or "" when the Conv has none
};

class Lowering {
 public:
  Lowering(Graph& g, ValueDescs& descs, const Graph& source, const std::set<std::string>& protect,
           Int8Emulation emulate)
      : g_(g), descs_(descs), src_(source), protect_(protect), emulate_(emulate) {
    for (size_t i = 0; i < src_.nodes.size(); ++i)
      for (const std::string& o : src_.nodes[i].outputs) src_producer_[o] = static_cast<int>(i);
  }

  Int8Plan run() {
    find_grids();
    for (const auto& [v, p] : grid) {
      auto d = descs_.find(v);
      if (p.codes() <= 256 && !protect_.count(v) && d != descs_.end() &&
          d->second.dtype == DType::kFloat32 && !d->second.constant)
        coded_.insert(v);
    }
    EDGEQ_CHECK(!coded_.empty(),
                "int8 execution: the model has no 8-bit activations (a float or W8A16 model); the "
                "simulated execution runs it");
    std::vector<Node> nodes = std::move(g_.nodes);
    g_.nodes.clear();
    for (Node& n : nodes) lower(std::move(n));
    for (const std::string& v : coded_) descs_[v].dtype = DType::kUInt8;
    plan_.coded_values = coded_.size();
    for (const auto& [op, names] : float_ops_) {
      std::string line = op + " x" + std::to_string(names.size()) + " (e.g. '" + names[0] + "')";
      plan_.float_ops.push_back(line);
    }
    return plan_;
  }

  Grids grid;  // values known to lie on a fake-quant grid

 private:
  // Grids: FakeQuant outputs, kernels' output steps, and what value-moving ops carry along.
  void find_grids() {
    for (const Node& n : g_.nodes)
      if (auto out = output_grid(n, grid))
        for (const std::string& o : n.outputs)
          if (!o.empty()) grid[o] = *out;
  }

  bool coded(const std::string& v) const { return coded_.count(v) != 0; }

  // The float value of a coded one: a Dequantize step, made once, before its first float reader.
  std::string float_of(const std::string& v) {
    if (!coded(v)) return v;
    auto it = twin_.find(v);
    if (it != twin_.end()) return it->second;
    const std::string f = v + "#float";
    Node dq{v + "#dequantize", "Dequantize", "edgeq", {v}, {f}, {}};
    dq.plan.out = grid.at(v);
    g_.nodes.push_back(std::move(dq));
    descs_[f] = {DType::kFloat32, descs_.at(v).shape, nullptr};
    return twin_[v] = f;
  }

  // Runs the float node `n` (plain layout) on one-dimensional inputs.
  Tensor evaluate(const Node& n, const std::vector<Tensor>& inputs) const {
    std::vector<ValueDesc> in;
    for (const Tensor& t : inputs) in.push_back({t.dtype(), t.shape(), nullptr});
    KernelInit init{n, in, g_.opset(n.domain), Layout::kPlain};
    std::unique_ptr<Kernel> k = create_kernel(init);
    Tensor y(k->outputs.at(0).dtype, k->outputs[0].shape);
    std::vector<const Tensor*> ins;
    for (const Tensor& t : inputs) ins.push_back(&t);
    k->run(ins, {&y});
    return y;
  }

  // A QLut replacing the one-input elementwise node `n` whose input is coded: the float node
  // run on every code.
  Node lut_for(const Node& n) {
    std::vector<Tensor> inputs{
        Tensor::from_vector<float>({256}, padded(grid_values(grid.at(n.inputs[0]))))};
    Tensor y = evaluate(n, inputs);
    Node lut{n.name, "QLut", "edgeq", n.inputs, n.outputs, {}};
    const std::string& out = n.outputs[0];
    if (coded(out)) {
      const FakeQuantParams& p = grid.at(out);
      for (int64_t i = 0; i < y.numel(); ++i)
        lut.plan.lut_codes.push_back(static_cast<uint8_t>(code_of(y.data<float>()[i], p)));
    } else {
      lut.plan.lut_values = y.to_floats();
    }
    return lut;
  }

  // 256 entries (a grid of fewer codes repeats its last one: those codes never occur).
  static std::vector<float> padded(std::vector<float> v) {
    while (v.size() < 256) v.push_back(v.back());
    return v;
  }

  std::optional<IntWeights> int_weights(const Node& conv) const {
    auto dq_of = [&](const std::string& v) -> const Node* {
      auto p = src_producer_.find(v);
      if (p == src_producer_.end()) return nullptr;
      const Node& n = src_.nodes[p->second];
      bool ok = n.op_type == "DequantizeLinear" && n.has_input(1) &&
                src_.is_initializer(n.inputs[0]) && src_.is_initializer(n.inputs[1]) &&
                (!n.has_input(2) || src_.is_initializer(n.inputs[2]));
      return ok ? &n : nullptr;
    };
    auto zero_points_zero = [&](const Node& dq) {
      if (!dq.has_input(2)) return true;
      for (int64_t z : src_.initializers.at(dq.inputs[2]).to_ints())
        if (z != 0) return false;
      return true;
    };
    const Node* w = conv.has_input(1) ? dq_of(conv.inputs[1]) : nullptr;
    if (!w || src_.initializers.at(w->inputs[0]).dtype() != DType::kInt8 || !zero_points_zero(*w))
      return std::nullopt;
    IntWeights iw;
    iw.codes = w->inputs[0];
    const Tensor& codes = src_.initializers.at(iw.codes);
    iw.scales = src_.initializers.at(w->inputs[1]).to_floats();
    if (iw.scales.size() == 1) iw.scales.assign(codes.dim(0), iw.scales[0]);
    if (iw.scales.size() != static_cast<size_t>(codes.dim(0)) ||
        (iw.scales.size() > 1 && w->attr_int("axis", 1) != 0))
      return std::nullopt;
    if (conv.has_input(2)) {
      const Node* b = dq_of(conv.inputs[2]);
      if (!b || src_.initializers.at(b->inputs[0]).dtype() != DType::kInt32 ||
          !zero_points_zero(*b))
        return std::nullopt;
      iw.bias = b->inputs[0];
    }
    return iw;
  }

  void emit(Node n, bool integer) {
    plan_.integer_ops += integer;
    g_.nodes.push_back(std::move(n));
  }

  void lower(Node n) {
    for (std::string& in : n.inputs)
      if (auto a = alias_.find(in); a != alias_.end()) in = a->second;
    const std::string& op = n.op_type;
    const OpTraits& traits = op_traits(n);
    auto all_coded = [&](const std::vector<size_t>& idx) {
      bool any = false;
      for (size_t i : idx) {
        if (!n.has_input(i)) continue;
        if (!coded(n.inputs[i])) return false;
        any = true;
      }
      return any;
    };
    const std::vector<size_t> data = data_input_indices(n);
    const bool data_coded = all_coded(data);
    bool outputs_coded = true;
    for (const std::string& o : n.outputs) outputs_coded = outputs_coded && !o.empty() && coded(o);

    if (is_fake_quant(n) && data_coded && coded(n.outputs[0]) &&
        grid.at(n.inputs[0]) == grid.at(n.outputs[0])) {
      alias_[n.outputs[0]] = n.inputs[0];  // re-encodes to the same grid: nothing to do
      return;
    }
    if (is_fake_quant(n) && !coded(n.inputs[0]) && coded(n.outputs[0])) {
      Node q{n.name, "Quantize", "edgeq", n.inputs, n.outputs, {}};
      q.plan.out = grid.at(n.outputs[0]);
      return emit(std::move(q), true);
    }
    if (op == "Conv" && n.domain.empty() && data_coded) {
      if (auto iw = int_weights(n)) {
        Node q = n;
        q.op_type = "QConv";
        q.domain = "edgeq";
        q.inputs = {n.inputs[0], iw->codes};
        if (!iw->bias.empty()) q.inputs.push_back(iw->bias);
        q.plan.in_grid = grid.at(n.inputs[0]);
        q.plan.weight_scales = iw->scales;
        q.plan.codes_out = outputs_coded;
        ++plan_.qconvs;
        const Tensor& codes = src_.initializers.at(iw->codes);
        const int64_t group = n.attr_int("group", 1);
        // Under emulation a conv with a saturating pair runs its sums unarranged (kernels/qconv).
        const bool saturating = emulate_ == Int8Emulation::kAvx2 &&
                                count_weight_pairs(codes, PairOrder::kOnnxRuntime).can_overflow > 0;
        const Int8ConvPlan weights = saturating
                                         ? Int8ConvPlan{{}, int8_conv_split_channels(codes, group)}
                                         : plan_int8_conv(codes, group);
        if (!weights.channel_order.empty()) {
          ++plan_.ordered_qconvs;
          plan_.spread_qconvs += int64_t(weights.channel_order.size()) > codes.dim(1);
        }
        const size_t split = weights.split_channels.size();
        if (split > 0) {
          ++plan_.split_qconvs;
          plan_.split_channels += split;
          plan_.split_conv_channels += size_t(codes.dim(0));
        }
        if (emulate_ == Int8Emulation::kAvx2) {
          q.plan.emulate_avx2 = true;
          plan_.saturating_qconvs += saturating;
        }
        return emit(std::move(q), true);
      }
    }
    const bool same_shapes = [&] {
      for (const std::string& in : n.inputs)
        if (in.empty() || descs_.at(in).shape != descs_.at(n.outputs[0]).shape) return false;
      return n.outputs.size() == 1;
    }();
    if (traits.elementwise && data_coded && same_shapes && n.inputs.size() == 1 &&
        descs_.at(n.outputs[0]).dtype == DType::kFloat32)
      return emit(lut_for(n), true);
    if (traits.binary_arithmetic && data_coded && same_shapes && n.inputs.size() == 2) {
      Node q{n.name, "QBinary", "edgeq", n.inputs, n.outputs, {}};
      q.plan.binary_op = op;
      q.plan.in_grid = grid.at(n.inputs[0]);
      q.plan.in_grid_b = grid.at(n.inputs[1]);
      FakeQuantParams out = n.plan.out;
      if (outputs_coded) out = grid.at(n.outputs[0]);
      if (out.active()) q.plan.out = out;
      q.plan.codes_out = outputs_coded;
      return emit(std::move(q), true);
    }
    if (op == "Concat" && n.domain.empty() && data_coded && outputs_coded)
      return emit(concat_on_codes(std::move(n)), true);
    if (moves_values(n) && data_coded && outputs_coded) {
      n.plan.out = {};
      return emit(std::move(n), true);
    }
    run_in_float(std::move(n), data_coded || outputs_coded);
  }

  Node concat_on_codes(Node n) {
    const FakeQuantParams& out = grid.at(n.outputs[0]);
    std::vector<int64_t> tables;
    for (const std::string& in : n.inputs) {
      const FakeQuantParams& p = grid.at(in);
      for (float v : padded(grid_values(p))) tables.push_back(code_of(v, out));
    }
    n.plan.out = {};
    n.plan.requant = std::move(tables);
    return n;
  }

  void run_in_float(Node n, bool touches_codes) {
    for (std::string& in : n.inputs)
      if (!in.empty() && coded(in)) in = float_of(in);
    std::vector<std::pair<std::string, std::string>> quantize;  // float result -> coded value
    for (std::string& o : n.outputs) {
      if (o.empty() || !coded(o)) continue;
      const std::string f = o + "#float";
      descs_[f] = {DType::kFloat32, descs_.at(o).shape, nullptr};
      twin_[o] = f;  // later float readers use it directly
      quantize.push_back({f, o});
      o = f;
    }
    if (touches_codes && !is_fake_quant(n))
      float_ops_[n.op_type].push_back(n.name.empty() ? n.describe() : n.name);
    const std::string name = n.name;
    emit(std::move(n), false);
    for (const auto& [f, o] : quantize) {
      Node q{name + "#quantize", "Quantize", "edgeq", {f}, {o}, {}};
      q.plan.out = grid.at(o);
      emit(std::move(q), true);
    }
  }

  Graph& g_;
  ValueDescs& descs_;
  const Graph& src_;
  const std::set<std::string>& protect_;
  const Int8Emulation emulate_;
  std::map<std::string, int> src_producer_;
  std::set<std::string> coded_;
  std::map<std::string, std::string> twin_, alias_;
  std::map<std::string, std::vector<std::string>> float_ops_;
  Int8Plan plan_;
};

}  // namespace

Int8Plan lower_to_int8(Graph& g, ValueDescs& descs, const Graph& source,
                       const std::set<std::string>& protect, Int8Emulation emulate) {
  return Lowering(g, descs, source, protect, emulate).run();
}

}  // namespace edgeq

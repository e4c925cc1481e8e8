#include "quant/calibrator.h"

#include <omp.h>

#include <cmath>
#include <memory>
#include <optional>
#include <set>

#include "core/error.h"
#include "core/fast_math.h"

namespace edgeq {
namespace {

const std::set<std::string> kSameValues = {"Reshape",   "Flatten",  "Squeeze",
                                           "Unsqueeze", "Identity", "Transpose"};

}  // namespace

// t's statistics, fed in pieces while the executor's SiLU pass reads t, then Sigmoid(t) and
// SiLU(t) derived from t's sample and tails.
class Calibrator::TapStream : public StreamObserver {
 public:
  TapStream(Calibrator& cal, std::string value, SiluTap tap)
      : cal_(cal), value_(std::move(value)), tap_(std::move(tap)) {}
  void begin(const Tensor& t) override {
    EDGEQ_CHECK(t.dtype() == DType::kFloat32, "statistics of '", value_, "': value is ",
                dtype_name(t.dtype()), ", only float32 values are observed");
    x_ = t.data<float>();
    n_ = t.numel();
    batch_.emplace(cal_.stats_.values[value_], x_, n_, cal_.stats_.histogram_stride, kSiluArgMin,
                   omp_get_max_threads());
  }
  void part(const float* values, int64_t n, int thread) override {
    batch_->part(values, n, thread);
  }
  void end() override {
    BatchSample sample;
    BatchScan scan = batch_->finish(&sample);
    batch_.reset();
    cal_.derive_silu(tap_, x_, n_, scan, sample);
  }

 private:
  Calibrator& cal_;
  std::string value_;
  SiluTap tap_;
  const float* x_ = nullptr;
  int64_t n_ = 0;
  std::optional<HistogramBatch> batch_;
};

Calibrator::Calibrator(Graph graph, std::string model_sha256, std::string preprocessing,
                       CalibratorOptions opt)
    : executor_(std::move(graph), opt.executor) {
  stats_.model_sha256 = std::move(model_sha256);
  stats_.preprocessing = std::move(preprocessing);
  stats_.histogram_stride = opt.histogram_stride;

  std::set<std::string> floats, tap_outputs;
  for (const std::string& v : executor_.activations())
    if (executor_.desc(v).dtype == DType::kFloat32) floats.insert(v);
  if (opt.derive) {
    for (const Node& n : executor_.graph().nodes) {
      if (n.outputs.size() != 1 || !floats.count(n.outputs[0]) || n.inputs.empty()) continue;
      std::vector<std::string> from;
      if (kSameValues.count(n.op_type))
        from = {n.inputs[0]};
      else if (n.op_type == "Concat")
        from = n.inputs;
      else
        continue;
      bool all_float = true;
      for (const std::string& in : from) all_float = all_float && floats.count(in);
      if (all_float) sources_[n.outputs[0]] = std::move(from);
    }
    // SiLU taps on values that are read (not derived themselves).
    for (const Node& n : executor_.graph().nodes) {
      if (n.op_type != "Sigmoid" || !n.domain.empty() || n.inputs.size() != 1 ||
          n.outputs.size() != 1)
        continue;
      const std::string &t = n.inputs[0], &s = n.outputs[0];
      if (!floats.count(t) || !floats.count(s) || sources_.count(t) || taps_.count(t)) continue;
      taps_[t].sigmoid = s;
      tap_outputs.insert(s);
    }
    for (const Node& n : executor_.graph().nodes) {
      if (n.op_type != "Mul" || !n.domain.empty() || n.inputs.size() != 2 || n.outputs.size() != 1)
        continue;
      for (int k = 0; k < 2; ++k) {
        auto it = taps_.find(n.inputs[k]);
        if (it != taps_.end() && it->second.sigmoid == n.inputs[1 - k] && it->second.silu.empty() &&
            floats.count(n.outputs[0])) {
          it->second.silu = n.outputs[0];
          tap_outputs.insert(n.outputs[0]);
          break;
        }
      }
    }
  }
  for (const std::string& v : executor_.activations()) {
    if (!floats.count(v)) continue;
    if (sources_.count(v) || tap_outputs.count(v)) {
      derived_.push_back(v);
      continue;
    }
    observed_.push_back(v);
    if (auto tap = taps_.find(v); tap != taps_.end()) {
      // Streamed: the SiLU pass that reads t feeds its statistics (one read of memory, not two).
      auto stream = std::make_unique<TapStream>(*this, v, tap->second);
      executor_.add_stream_observer(v, stream.get());
      streams_.push_back(std::move(stream));
      continue;
    }
    // Statistics ignore element order: the stored view skips NHWC -> NCHW copies.
    executor_.add_hook(
        v, [this](const std::string& name, const Tensor& t) { stats_.observe(name, t); },
        HookView::kAsStored);
  }
}

Calibrator::~Calibrator() = default;

void Calibrator::add(const std::map<std::string, Tensor>& inputs) {
  executor_.run(inputs);
  stats_.images++;
}

namespace {

template <typename F>
std::vector<float> apply(const std::vector<float>& v, F f) {
  std::vector<float> out(v.size());
  const float* in = v.data();
  float* o = out.data();
  const int64_t n = static_cast<int64_t>(v.size());
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) o[i] = f(in[i]);
  return out;
}

}  // namespace

void Calibrator::derive_silu(const SiluTap& tap, const float* x, int64_t n, const BatchScan& scan,
                             const BatchSample& sample) {
  const int stride = stats_.histogram_stride;
  if (n <= 0) return;
  Histogram& hs = stats_.values[tap.sigmoid];
  Histogram* hy = tap.silu.empty() ? nullptr : &stats_.values[tap.silu];
  if (scan.finite != static_cast<uint64_t>(n) || sample.stride == 1) {
    // Not sampled (small, or every value binned), or NaN / Inf: compute every value.
    std::vector<float> s(n), y(n);
#pragma omp parallel for simd if (n >= (1 << 16))
    for (int64_t i = 0; i < n; ++i) {
      s[i] = sigmoid_fast(x[i]);
      y[i] = silu_fast(x[i]);
    }
    hs.add(s.data(), n, stride);
    if (hy) hy->add(y.data(), n, stride);
    return;
  }
  auto sigmoid = [](float v) { return sigmoid_fast(v); };
  auto silu = [](float v) { return silu_fast(v); };
  const uint64_t count = static_cast<uint64_t>(n);
  auto add_sigmoid = [&] {
    hs.add_sample(count, sigmoid_fast(scan.lo), sigmoid_fast(scan.hi), sample.stride,
                  apply(sample.bulk, sigmoid), apply(sample.tails, sigmoid));
  };
  if (!hy) return add_sigmoid();
  // SiLU falls until kSiluArgMin and rises after it: its minimum over the batch is at the value
  // nearest kSiluArgMin from either side, its maximum at one of the ends.
  float lo = INFINITY;
  if (scan.below != -INFINITY) lo = std::min(lo, silu_fast(scan.below));
  if (scan.above != INFINITY) lo = std::min(lo, silu_fast(scan.above));
  const float hi = std::max(silu_fast(scan.lo), silu_fast(scan.hi));
  // The two histograms are independent: one thread each.
#pragma omp parallel sections num_threads(2)
  {
#pragma omp section
    add_sigmoid();
#pragma omp section
    hy->add_sample(count, lo, hi, sample.stride, apply(sample.bulk, silu),
                   apply(sample.tails, silu));
  }
}

void Calibrator::fill_derived(Stats& s) const {
  for (const std::string& v : derived_) {  // execution order: sources come first
    auto src = sources_.find(v);
    if (src == sources_.end()) continue;  // Sigmoid / SiLU values, filled as their input streams
    Histogram h;
    for (const std::string& from : src->second) h.merge(s.values.at(from));
    s.values[v] = std::move(h);
  }
}

Stats Calibrator::stats() const {
  Stats s = stats_;
  if (s.images > 0) fill_derived(s);
  return s;
}

Stats Calibrator::take() {
  if (stats_.images > 0) fill_derived(stats_);
  return std::move(stats_);
}

}  // namespace edgeq

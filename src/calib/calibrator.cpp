#include "calib/calibrator.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <memory>
#include <optional>
#include <set>

#include "core/error.h"
#include "core/fast_math.h"
#include "core/simd.h"
#include "ir/op_traits.h"

namespace edgeq {

// One observed value's statistics, fed in pieces while the executor reads it (see
// StreamObserver). A sampled batch of finite values keeps what closing and binning it need, so
// both (and, for a SiLU input t, deriving Sigmoid(t) and SiLU(t)) wait for the end of the forward
// pass, where the calibrator does them for all values at once across threads; otherwise they
// happen in end().
class Calibrator::ValueStream : public StreamObserver {
 public:
  ValueStream(Calibrator& cal, std::string value, const SiluTap* tap)
      : cal_(cal), value_(std::move(value)), tap_(tap), hist_(cal.stats_.values[value_]) {}
  void begin(const Tensor& t) override {
    EDGEQ_CHECK(t.dtype() == DType::kFloat32, "statistics of '", value_, "': value is ",
                dtype_name(t.dtype()), ", only float32 values are observed");
    x_ = t.data<float>();
    n_ = t.numel();
    batch_.emplace(hist_, x_, n_, cal_.stats_.histogram_stride, tap_ ? kSiluArgMin : NAN,
                   omp_get_max_threads(), &buffers_);
  }
  void part(const float* values, int64_t n, int thread) override {
    batch_->part(values, n, thread);
  }
  void end() override {
    if (batch_->sampled() && batch_->all_finite()) {
      cal_.pending_.push_back(this);  // closed and binned after the pass
      return;
    }
    // Not sampled (small, or every value binned), or NaN / Inf: binned from the values, and
    // Sigmoid / SiLU computed from every one of them, now, while they exist.
    scan_ = batch_->close();
    batch_->bin();
    batch_.reset();
    if (tap_) cal_.derive_silu_whole(*tap_, x_, n_);
  }
  // The deferred part of a sampled, finite batch.
  void finish() {
    scan_ = batch_->close();
    batch_->bin(tap_ ? &sample_ : nullptr);
    batch_.reset();
    if (tap_) cal_.derive_silu_sampled(*tap_, n_, scan_, sample_);
  }

 private:
  Calibrator& cal_;
  std::string value_;
  const SiluTap* tap_;
  Histogram& hist_;  // map entries stay put
  const float* x_ = nullptr;
  int64_t n_ = 0;
  std::optional<HistogramBatch> batch_;
  BatchScan scan_;
  BatchBuffers buffers_;  // kept from image to image, with sample_: no allocations
  BatchSample sample_;
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
      if (op_traits(n).same_values)
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
    // Every histogram exists before the first run: deferred binning only looks them up.
    auto tap = taps_.find(v);
    if (tap != taps_.end())
      for (const std::string* out : {&tap->second.sigmoid, &tap->second.silu})
        if (!out->empty()) stats_.values[*out];
    streams_.push_back(
        std::make_unique<ValueStream>(*this, v, tap != taps_.end() ? &tap->second : nullptr));
    executor_.add_stream_observer(v, streams_.back().get());
  }
  threads_ = opt.executor.threads > 0 ? opt.executor.threads : omp_get_max_threads();
}

Calibrator::~Calibrator() = default;

void Calibrator::add(const std::map<std::string, Tensor>& inputs,
                     const std::function<void()>& alongside) {
  EDGEQ_CHECK(!taken_, "calibrator: add() after take()");
  pending_.clear();
  executor_.run(inputs);
  // The sampled batches, one value per thread at a time (each touches only its own histograms);
  // task -1, the caller's, is taken first.
  const int64_t n = static_cast<int64_t>(pending_.size());
  std::exception_ptr error;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_)
  for (int64_t i = alongside ? -1 : 0; i < n; ++i) {
    try {
      if (i < 0)
        alongside();
      else
        pending_[static_cast<size_t>(i)]->finish();
    } catch (...) {
#pragma omp critical(edgeq_calibrator_error)
      if (!error) error = std::current_exception();
    }
  }
  pending_.clear();
  if (error) std::rethrow_exception(error);
  stats_.images++;
}

namespace {

// Sigmoid and SiLU of x[0, n), as the executor computes them (silu_fast(x) is
// x * sigmoid_fast(x)), in AVX-512 / AVX2 / baseline clones (core/simd.h).
EDGEQ_ALWAYS_INLINE void sigmoid_and_silu_body(const float* x, float* s, float* y, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    s[i] = sigmoid_fast(x[i]);
    y[i] = x[i] * s[i];
  }
}
EDGEQ_SIMD_CLONES(, void, sigmoid_and_silu_span, sigmoid_and_silu_body,
                  (const float* x, float* s, float* y, int64_t n), (x, s, y, n))

void sigmoid_and_silu(const float* x, float* s, float* y, int64_t n) {
  simd_pick(sigmoid_and_silu_span_avx512, sigmoid_and_silu_span_avx2, sigmoid_and_silu_span_scalar)(
      x, s, y, n);
}

void sigmoid_and_silu(const std::vector<float>& v, std::vector<float>& s, std::vector<float>& y) {
  s.resize(v.size());
  y.resize(v.size());
  sigmoid_and_silu(v.data(), s.data(), y.data(), static_cast<int64_t>(v.size()));
}

}  // namespace

void Calibrator::derive_silu_whole(const SiluTap& tap, const float* x, int64_t n) {
  if (n <= 0) return;
  std::vector<float> s(n), y(n);
  constexpr int64_t kBlock = 1 << 14;
  const int64_t blocks = (n + kBlock - 1) / kBlock;
#pragma omp parallel for if (n >= (1 << 16))
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t i = b * kBlock;
    sigmoid_and_silu(x + i, s.data() + i, y.data() + i, std::min(kBlock, n - i));
  }
  const int stride = stats_.histogram_stride;
  stats_.values[tap.sigmoid].add(s.data(), n, stride);
  if (!tap.silu.empty()) stats_.values[tap.silu].add(y.data(), n, stride);
}

void Calibrator::derive_silu_sampled(const SiluTap& tap, int64_t n, const BatchScan& scan,
                                     const BatchSample& sample) {
  // Scratch kept per thread: this runs for every SiLU input of every image.
  thread_local std::vector<float> s_bulk, y_bulk, s_tails, y_tails;
  sigmoid_and_silu(sample.bulk, s_bulk, y_bulk);
  sigmoid_and_silu(sample.tails, s_tails, y_tails);
  const uint64_t count = static_cast<uint64_t>(n);
  stats_.values.at(tap.sigmoid)
      .add_sample(count, sigmoid_fast(scan.lo), sigmoid_fast(scan.hi), sample.stride, s_bulk,
                  s_tails);
  if (tap.silu.empty()) return;
  // SiLU falls until kSiluArgMin and rises after it: its minimum over the batch is at the value
  // nearest kSiluArgMin from either side, its maximum at one of the ends.
  float lo = INFINITY;
  if (scan.below != -INFINITY) lo = std::min(lo, silu_fast(scan.below));
  if (scan.above != INFINITY) lo = std::min(lo, silu_fast(scan.above));
  const float hi = std::max(silu_fast(scan.lo), silu_fast(scan.hi));
  stats_.values.at(tap.silu).add_sample(count, lo, hi, sample.stride, y_bulk, y_tails);
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
  taken_ = true;
  return std::move(stats_);
}

}  // namespace edgeq

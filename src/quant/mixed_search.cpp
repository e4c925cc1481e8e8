#include "quant/mixed_search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "core/interrupt.h"
#include "core/worker_threads.h"
#include "encode/qdq_export.h"
#include "quant/activation_encodings.h"
#include "quant/quantize_model.h"
#include "quant/value_blocks.h"
#include "runtime/executor.h"
#include "vision/yolo_layout.h"
#include "vision/yolo_model.h"

namespace edgeq {
namespace {

using Clock = std::chrono::steady_clock;

class Search {
 public:
  Search(const Graph& fp32, const Stats& stats, const QuantConfig& base,
         const std::vector<Tensor>& images, const MixedSearchOptions& opt)
      : fp32_(fp32), base_(base), images_(images), opt_(opt) {
    EDGEQ_CHECK(opt.budget_percent > 0 && opt.budget_percent <= 100, "mixed-precision budget ",
                opt.budget_percent, " % is outside (0, 100]");
    EDGEQ_CHECK(!images.empty(), "mixed-precision search: no validation images");
    yolo_image_input(fp32);  // throws when the model has not one image input
    plan_ = plan_for_stats(fp32, stats, base);
    // Weight encodings once, not per evaluation (their grid search took most of an evaluation's
    // time on yolo11n-pose at 320).
    weights_ = plan_weight_encodings(fp32, plan_, base);
    // Encodings at 8 and at 16 bit for every group, once: a candidate picks per group.
    QuantConfig all16 = base;
    for (const std::string& v : plan_.activations) all16.a16.insert(v);
    QuantConfig none16 = base;
    none16.a16.clear();
    enc8_ = activation_encodings(fp32, plan_, stats, none16);
    enc16_ = activation_encodings(fp32, plan_, stats, all16);
    for (const std::string& v : plan_.activations) encoded_ += !enc8_.at(v).is_float;
    max16_ = static_cast<size_t>(std::floor(encoded_ * opt.budget_percent / 100.0 + 1e-9));
    const size_t base16 = count16(base.a16);
    EDGEQ_CHECK(base16 <= max16_, "mixed-precision budget ", opt.budget_percent, " % allows ",
                max16_, " of ", encoded_, " values at 16 bit, but the base configuration (the ",
                "YOLO decode tail included) already keeps ", base16,
                ": the budget must be at least ",
                std::ceil(1000.0 * base16 / std::max<size_t>(encoded_, 1)) / 10, " %");
    // FP32 reference outputs.
    input_ = yolo_image_input(fp32).name;
    output_ = require_yolo_head_output(fp32);
    ref_ = run_images(fp32, images.size());
    layout_ = yolo_layout_for(fp32, ref_[0].shape());
  }

  MixedSearchResult run() {
    MixedSearchResult r;
    r.values = encoded_;
    std::set<std::string> current = base_.a16;
    planned_ = 1;
    ranking_images_ = images_.size();
    const DetectionLoss base = evaluate(current);
    unit_ = base;  // every group counts 1 at the start (eval/detection_loss.h)
    r.base_loss = score(base);
    r.base_metrics = base;
    log(r, "base", "(base configuration)", 0, r.base_loss, r.base_loss, base, true);
    double loss = r.base_loss;
    DetectionLoss metrics = base;
    const size_t base16 = count16(current);
    if (base16 >= max16_) {
      note("base configuration already keeps " + std::to_string(base16) + " of " +
           std::to_string(encoded_) + " values at 16 bit: nothing left to spend");
      return finish(r, current, loss, base);
    }

    // Each block's own rounding: its gain.
    std::vector<Candidate> blocks;
    for (auto& [name, values] : value_blocks(fp32_, plan_.activations)) {
      std::set<std::string> with = current;
      with.insert(values.begin(), values.end());
      const size_t cost = count16(with) - base16;
      if (cost > 0) blocks.push_back({name, values, cost, 0});
    }
    planned_ += blocks.size() + 2;
    // Ranking needs less precision than the result: at most kRankImages images.
    ranking_images_ = std::min(images_.size(), kRankImages);
    std::set<std::string> all16 = current;
    all16.insert(plan_.activations.begin(), plan_.activations.end());
    const DetectionLoss floor = evaluate(all16);
    floor_ = score(floor);
    log(r, "floor", "(every value at 16 bit)", count16(all16) - base16, floor_, floor_, floor,
        false);
    for (Candidate& b : blocks) rank(r, "block", b);
    sort_by_gain(blocks);

    // Greedy by gain per value: every block with a gain that still fits, then single values of
    // the best blocks that did not fit whole, ranked the same way.
    std::vector<const Candidate*> too_big;
    std::vector<Candidate> chosen;
    for (const Candidate& b : blocks) {
      if (b.gain <= 0) break;
      std::set<std::string> with = current;
      with.insert(b.values.begin(), b.values.end());
      if (count16(with) > max16_) {
        too_big.push_back(&b);
        continue;
      }
      current = with;
      chosen.push_back(b);
    }
    std::vector<Candidate> singles;  // blocks partition the values: no value twice
    const size_t used = count16(current);
    for (const Candidate* b : too_big)
      for (const std::string& v : b->values) {
        if (singles.size() >= kMaxValueTries) break;
        std::set<std::string> with = current;
        with.insert(v);
        const size_t cost = count16(with) - used;
        if (cost == 0 || count16(with) > max16_) continue;
        singles.push_back({v, {v}, cost, 0});
      }
    // Ranking the singles, then one step per chosen block and per single that may join.
    planned_ = done_ + singles.size() + chosen.size() + singles.size();
    for (Candidate& c : singles) rank(r, "value", c);
    sort_by_gain(singles);
    for (const Candidate& c : singles) {
      if (c.gain <= 0) break;  // sorted: no later one gains either
      std::set<std::string> with = current;
      with.insert(c.values[0]);
      if (count16(with) > max16_) continue;
      current = with;
      chosen.push_back(c);
    }

    // The chosen set, step by step on every image: what each promotion did (the log), and the
    // result's loss.
    ranking_images_ = images_.size();
    planned_ = done_ + chosen.size();
    std::set<std::string> step = base_.a16;
    for (const Candidate& c : chosen) {
      const size_t before16 = count16(step);
      step.insert(c.values.begin(), c.values.end());
      const DetectionLoss l = evaluate(step);
      log(r, "step", c.block, count16(step) - before16, loss, score(l), l, true);
      loss = score(l);
      metrics = l;
    }
    if (loss > r.base_loss)
      note("the chosen set did not lower the loss on these " + std::to_string(images_.size()) +
           " images (their own noise exceeds its gain; more validation images rank better)");
    return finish(r, current, loss, metrics);
  }

 private:
  struct Candidate {
    std::string block;
    std::vector<std::string> values;
    size_t cost = 0;
    double gain = 0;
  };

  // A candidate's gain: the loss its values' rounding causes alone, measured as the model with
  // every other value at 16 bit (the base's 16-bit values included) against the model with all
  // at 16 bit (floor_). Promoting one block of a W8A8 model would instead remove one of hundreds
  // of rounding errors that add like independent noise: a change the images' own noise drowns
  // (on yolo11n-pose most blocks promoted that way "raised" the loss), where alone the block's
  // error stands against the small error of 16-bit rounding.
  void rank(MixedSearchResult& r, const std::string& phase, Candidate& c) {
    std::set<std::string> groups;
    for (const std::string& v : c.values) groups.insert(plan_.group_of.at(v));
    std::set<std::string> others = base_.a16;
    for (const std::string& v : plan_.activations)
      if (!groups.count(plan_.group_of.at(v))) others.insert(v);
    const DetectionLoss l = evaluate(others);
    c.gain = score(l) - floor_;
    log(r, phase, c.block, c.cost, floor_, score(l), l, false);
  }

  static void sort_by_gain(std::vector<Candidate>& c) {
    std::stable_sort(c.begin(), c.end(), [](const Candidate& a, const Candidate& b) {
      return a.gain / a.cost > b.gain / b.cost;
    });
  }

  // The search's objective: every group relative to the base configuration's.
  double score(const DetectionLoss& l) const { return l.total(unit_); }

  // Values at 16 bit with `a16`: every member of a group with a member named.
  size_t count16(const std::set<std::string>& a16) const {
    std::set<std::string> groups;
    for (const std::string& v : a16)
      if (auto it = plan_.group_of.find(v); it != plan_.group_of.end()) groups.insert(it->second);
    size_t n = 0;
    for (const std::string& g : groups)
      for (const std::string& v : plan_.groups.at(g)) n += !enc16_.at(v).is_float;
    return n;
  }

  DetectionLoss evaluate(const std::set<std::string>& a16) {
    auto t0 = Clock::now();
    std::set<std::string> groups16;
    for (const std::string& v : a16)
      if (auto it = plan_.group_of.find(v); it != plan_.group_of.end()) groups16.insert(it->second);
    std::map<std::string, TensorEncoding> enc;
    for (const std::string& v : plan_.activations)
      enc[v] = groups16.count(plan_.group_of.at(v)) ? enc16_.at(v) : enc8_.at(v);
    QuantConfig c = base_;
    c.a16 = a16;
    QdqModel q = export_qdq(fp32_, plan_, enc, c, weights_);
    std::vector<Tensor> outs = run_images(q.graph, ranking_images_);
    DetectionLossAccumulator acc(layout_);
    for (size_t i = 0; i < outs.size(); ++i) acc.add(ref_[i], outs[i]);
    seconds_ += std::chrono::duration<double>(Clock::now() - t0).count();
    ++done_;
    return acc.result();
  }

  // The model's output on images 0..n-1: single-threaded executors, one per worker thread, each
  // planned on its thread and taking every workers-th image, so results never depend on how
  // many threads a convolution is split across (calibration does the same).
  std::vector<Tensor> run_images(const Graph& g, size_t n) const {
    const int hw =
        opt_.threads > 0 ? opt_.threads : static_cast<int>(std::thread::hardware_concurrency());
    const size_t workers =
        std::max<size_t>(1, std::min<size_t>(n, static_cast<size_t>(std::max(1, hw))));
    std::vector<Tensor> outs(n);
    run_workers(static_cast<int>(workers), [&](int w) {
      ExecutorOptions eo;
      eo.threads = 1;
      Executor ex(g, eo);
      for (size_t i = static_cast<size_t>(w); i < n; i += workers) {
        throw_if_interrupted();  // a front end's Ctrl-C / SIGTERM (core/interrupt.h)
        outs[i] = ex.run({{input_, images_[i]}}).at(output_);
      }
    });
    return outs;
  }

  void log(MixedSearchResult& r, const std::string& phase, const std::string& tried, size_t values,
           double before, double after, const DetectionLoss& m, bool kept) {
    r.log.push_back({phase, tried, values, before, after, kept, m});
    if (!opt_.progress) return;
    std::ostringstream os;
    os.precision(4);
    const double eta = done_ ? seconds_ / done_ * std::max<double>(0, planned_ - done_) : 0;
    os << "auto " << opt_.budget_percent << "%: [" << done_ << "/~" << planned_ << "] " << phase
       << " " << tried
       << (phase == "block" || phase == "value" ? " (" + std::to_string(values) + " at 8 bit alone)"
                                                : " (+" + std::to_string(values) + " values)")
       << ": loss " << after << " (box " << m.box_px << " px, kpt " << m.kpt_px << " px, score "
       << m.score << ", flipped " << m.flipped << ")" << (kept && phase != "base" ? " kept" : "")
       << ", ETA " << static_cast<int>(eta) << " s";
    opt_.progress(os.str());
  }

  void note(const std::string& line) {
    if (opt_.progress) opt_.progress("auto: " + line);
  }

  MixedSearchResult finish(MixedSearchResult& r, const std::set<std::string>& current, double loss,
                           const DetectionLoss& metrics) {
    for (const std::string& v : current)
      if (!base_.a16.count(v)) r.a16.insert(v);
    r.values16 = count16(current);
    r.loss = loss;
    r.metrics = metrics;
    return r;
  }

  const Graph& fp32_;
  QuantConfig base_;
  const std::vector<Tensor>& images_;
  MixedSearchOptions opt_;
  QuantPlan plan_;
  std::map<std::string, TensorEncoding> enc8_, enc16_, weights_;
  size_t encoded_ = 0, max16_ = 0;
  std::string input_, output_;
  std::vector<Tensor> ref_;
  YoloLayout layout_;
  DetectionLoss unit_;
  static constexpr size_t kRankImages = 16;
  size_t ranking_images_ = 0;  // images an evaluation runs
  static constexpr size_t kMaxValueTries = 24;
  double seconds_ = 0, floor_ = 0;
  size_t done_ = 0, planned_ = 0;
};

}  // namespace

MixedSearchResult search_mixed_precision(const Graph& fp32, const Stats& stats,
                                         const QuantConfig& base, const std::vector<Tensor>& images,
                                         const MixedSearchOptions& opt) {
  return Search(fp32, stats, base, images, opt).run();
}

}  // namespace edgeq

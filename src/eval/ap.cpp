#include "eval/ap.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "core/error.h"

namespace edgeq {
namespace {

// numpy.interp(x, xp, fp) for xp non-decreasing: the last j with xp[j] <= x, then linear
// interpolation towards j + 1; fp[0] left of xp[0], fp.back() at or right of xp.back().
double np_interp(double x, const std::vector<double>& xp, const std::vector<double>& fp) {
  if (x < xp.front()) return fp.front();
  if (x >= xp.back()) return fp.back();
  const size_t j = static_cast<size_t>(std::upper_bound(xp.begin(), xp.end(), x) - xp.begin()) - 1;
  const double dx = xp[j + 1] - xp[j];
  if (dx <= 0) return fp[j];
  return fp[j] + (fp[j + 1] - fp[j]) * (x - xp[j]) / dx;
}

}  // namespace

const std::vector<double>& ap_thresholds() {
  static const std::vector<double> t = [] {
    std::vector<double> v;
    for (int i = 0; i < 10; ++i) v.push_back(0.5 + 0.05 * i);
    return v;
  }();
  return t;
}

double compute_ap(const std::vector<double>& recall, const std::vector<double>& precision) {
  EDGEQ_CHECK(recall.size() == precision.size(), "compute_ap: ", recall.size(), " recall and ",
              precision.size(), " precision points");
  std::vector<double> mrec{0.0}, mpre{1.0};
  mrec.insert(mrec.end(), recall.begin(), recall.end());
  mpre.insert(mpre.end(), precision.begin(), precision.end());
  mrec.push_back(1.0);
  mpre.push_back(0.0);
  for (size_t i = mpre.size() - 1; i-- > 0;) mpre[i] = std::max(mpre[i], mpre[i + 1]);
  // np.trapz(np.interp(x, mrec, mpre), x) with x = linspace(0, 1, 101).
  double area = 0, prev = np_interp(0.0, mrec, mpre);
  for (int k = 1; k <= 100; ++k) {
    const double y = np_interp(k / 100.0, mrec, mpre);
    area += (prev + y) * 0.5 * 0.01;
    prev = y;
  }
  return area;
}

std::vector<std::vector<char>> match_predictions(const std::vector<std::vector<double>>& sim,
                                                 size_t np, const std::vector<double>& thresholds) {
  const size_t nl = sim.size();
  for (const auto& row : sim)
    EDGEQ_CHECK(row.size() == np, "match_predictions: a similarity row has ", row.size(),
                " entries for ", np, " predictions");
  std::vector<std::vector<char>> correct(np, std::vector<char>(thresholds.size(), 0));
  if (nl == 0 || np == 0) return correct;
  for (size_t t = 0; t < thresholds.size(); ++t) {
    // Each prediction's most similar label among those at or above the threshold.
    std::vector<int> best_label(np, -1);
    for (size_t p = 0; p < np; ++p) {
      double best = -1;
      for (size_t l = 0; l < nl; ++l)
        if (sim[l][p] >= thresholds[t] && sim[l][p] > best) {
          best = sim[l][p];
          best_label[p] = static_cast<int>(l);
        }
    }
    // Each label keeps the first prediction (in confidence order) that chose it.
    std::vector<char> taken(nl, 0);
    for (size_t p = 0; p < np; ++p) {
      const int l = best_label[p];
      if (l < 0 || taken[l]) continue;
      taken[l] = 1;
      correct[p][t] = 1;
    }
  }
  return correct;
}

void MapAccumulator::add(const std::vector<int>& label_cls, const std::vector<int>& pred_cls,
                         const std::vector<float>& pred_conf,
                         const std::vector<std::vector<char>>& correct) {
  EDGEQ_CHECK(pred_cls.size() == pred_conf.size() && pred_cls.size() == correct.size(),
              "MapAccumulator: prediction lists differ in length");
  label_cls_.insert(label_cls_.end(), label_cls.begin(), label_cls.end());
  for (size_t i = 0; i < pred_cls.size(); ++i)
    preds_.push_back({pred_conf[i], pred_cls[i], correct[i]});
}

MapResult MapAccumulator::result() const {
  MapResult r;
  r.labels = static_cast<int64_t>(label_cls_.size());
  r.predictions = static_cast<int64_t>(preds_.size());
  std::map<int, int64_t> labels_per_class;
  for (int c : label_cls_) ++labels_per_class[c];
  r.classes = static_cast<int>(labels_per_class.size());
  if (labels_per_class.empty()) return r;

  std::vector<size_t> order(preds_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return preds_[a].conf > preds_[b].conf; });
  const size_t nt = ap_thresholds().size();
  double sum50 = 0, sum_all = 0;
  for (const auto& [cls, n_labels] : labels_per_class) {
    std::vector<std::vector<double>> recall(nt), precision(nt);
    std::vector<double> tp(nt, 0), fp(nt, 0);
    bool any = false;
    for (size_t i : order) {
      const Pred& p = preds_[i];
      if (p.cls != cls) continue;
      any = true;
      for (size_t t = 0; t < nt; ++t) {
        const bool ok = t < p.correct.size() && p.correct[t];
        tp[t] += ok;
        fp[t] += !ok;
        recall[t].push_back(tp[t] / (static_cast<double>(n_labels) + 1e-16));
        precision[t].push_back(tp[t] / (tp[t] + fp[t]));
      }
    }
    if (!any) continue;  // AP 0 for a class with labels but no predictions
    for (size_t t = 0; t < nt; ++t) {
      const double ap = compute_ap(recall[t], precision[t]);
      if (t == 0) sum50 += ap;
      sum_all += ap;
    }
  }
  r.map50 = sum50 / r.classes;
  r.map50_95 = sum_all / (static_cast<double>(r.classes) * nt);
  return r;
}

}  // namespace edgeq

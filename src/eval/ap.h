// Average precision as Ultralytics computes it (ultralytics/utils/metrics.py):
// - per image, predictions are marked correct at each threshold of 0.50:0.05:0.95 by
//   match_predictions (similarity = box IoU, or OKS for pose, zero across classes);
// - over the dataset, predictions are sorted by confidence and, per class present in the labels,
//   AP = trapezoid integral of the precision envelope sampled at 101 recall points
//   (compute_ap, "interp"), with sentinels recall 0 -> precision 1 and recall 1 -> precision 0.
// Note: that last sentinel makes a perfect detector score 0.995, not 1, exactly as Ultralytics.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace edgeq {

// The ten thresholds 0.50, 0.55, ..., 0.95.
const std::vector<double>& ap_thresholds();

// AP of one precision/recall curve (points in confidence order), Ultralytics compute_ap.
double compute_ap(const std::vector<double>& recall, const std::vector<double>& precision);

// Ultralytics match_predictions for one image: sim[l][p] is the similarity of label l and
// prediction p (0 when classes differ); predictions are in descending confidence. For each
// threshold: pairs with sim >= threshold, each prediction keeps its most similar label, then
// each label keeps the first (most confident) prediction that chose it.
// Returns correct[p][t] for p < num_predictions (sim may have no rows when there are no labels).
std::vector<std::vector<char>> match_predictions(const std::vector<std::vector<double>>& sim,
                                                 size_t num_predictions,
                                                 const std::vector<double>& thresholds);

struct MapResult {
  double map50 = 0;
  double map50_95 = 0;
  int classes = 0;     // classes present in the labels (AP is averaged over these)
  int64_t labels = 0;  // labelled objects
  int64_t predictions = 0;
};

// Collects per-image results, then computes mAP over the dataset (ap_per_class).
class MapAccumulator {
 public:
  // One image: class of each label, and of each prediction with its confidence and its row of
  // correct flags (from match_predictions).
  void add(const std::vector<int>& label_cls, const std::vector<int>& pred_cls,
           const std::vector<float>& pred_conf, const std::vector<std::vector<char>>& correct);
  MapResult result() const;

 private:
  struct Pred {
    float conf;
    int cls;
    std::vector<char> correct;
  };
  std::vector<Pred> preds_;
  std::vector<int> label_cls_;
};

}  // namespace edgeq

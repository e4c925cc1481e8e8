// The study's row in the regression ledger (ledger/ledger_kinds.h, kind "study"): its counts, the
// worst detection consistency and mAP over its runs (the columns `ledger check` gates on: the
// lowest match_rate / pose_map50_95 / box_map50_95, the highest box_px_mean / kpt_px_mean), and
// each run's headline numbers under results.<model>.<arm>.<scheme> (the generic metrics table).
#pragma once
#include <nlohmann/json.hpp>

namespace edgeq {

nlohmann::json study_ledger_report(const nlohmann::json& data);

}  // namespace edgeq

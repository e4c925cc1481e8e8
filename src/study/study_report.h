// The study's page: ONE self-contained HTML file (no network: inline SVG, the data and the
// thumbnails embedded as JSON) from data/report/study.html, which draws every section from the
// embedded data.json when it loads. Numbers in tables carry data-run / data-path (or data-agg)
// attributes naming where in data.json they come from.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "study/study_thumbnails.h"

namespace edgeq {

// JSON text safe inside a <script> element ("</" written as "<\/", which JSON reads back the
// same).
std::string json_for_script(const nlohmann::json& j);

std::string study_report_html(const nlohmann::json& data,
                              const std::vector<StudyThumbnail>& thumbnails);

}  // namespace edgeq

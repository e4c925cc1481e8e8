// compare's output: a human-readable table and a JSON document.
#pragma once
#include <iosfwd>
#include <nlohmann/json.hpp>

#include "eval/compare.h"

namespace edgeq {

void print_compare_report(const CompareResult& rep, std::ostream& os);
nlohmann::json compare_report_json(const CompareResult& rep);

}  // namespace edgeq

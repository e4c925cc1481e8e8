#include "core/comma_list.h"

#include <set>
#include <sstream>

#include "core/error.h"

namespace edgeq {

std::vector<std::string> comma_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

void check_unique(const std::vector<std::string>& items, const std::string& what) {
  std::set<std::string> seen;
  for (const std::string& item : items)
    EDGEQ_CHECK(seen.insert(item).second, what, ": '", item, "' is given twice");
}

}  // namespace edgeq

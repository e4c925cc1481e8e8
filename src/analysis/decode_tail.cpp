#include "analysis/decode_tail.h"

#include "analysis/head_decode.h"

namespace edgeq {

std::set<std::string> decode_tail_values(const Graph& g) {
  std::set<std::string> out;
  for (const auto& [v, meaning] : pixel_meanings(g)) out.insert(v);
  if (auto box = find_box_decode(g)) {
    out.insert(box->concat);
    out.insert(box->centre);
    out.insert(box->size);
  }
  return out;
}

std::set<std::string> quantized_decode_tail(const Graph& g, const QuantPlan& plan) {
  std::set<std::string> out;
  for (const std::string& v : decode_tail_values(g))
    if (plan.is_quantized(v)) out.insert(v);
  return out;
}

}  // namespace edgeq

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
    out.insert(box->corners.begin(), box->corners.end());
  }
  return out;
}

std::set<std::string> mark_decode_tail(const Graph& g, const QuantPlan& plan, bool a16,
                                       QuantConfig& config) {
  config.decode_tail = decode_tail_values(g);
  std::set<std::string> quantized;
  for (const std::string& v : config.decode_tail)
    if (plan.is_quantized(v)) quantized.insert(v);
  if (a16) config.a16.insert(quantized.begin(), quantized.end());
  return quantized;
}

}  // namespace edgeq

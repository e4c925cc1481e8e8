// Text and JSON forms of a ModelSummary.
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "analysis/model_summary.h"
#include "core/text_format.h"

namespace edgeq {
namespace {

const char* kFlopsConvention = "2 x multiply-accumulates of Conv, ConvTranspose, MatMul and Gemm";

std::string with_commas(int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (v < 0 ? "-" : "") + out;
}

double share(int64_t part, int64_t total) {
  return total ? 100.0 * part / total : 0.0;
}

std::string value_line(const ValueInfo& v) {
  return printable(v.name) + "  " + dtype_name(v.dtype) + " " + shape_str(v.shape) + "  (" +
         with_commas(shape_numel(v.shape) * static_cast<int64_t>(dtype_size(v.dtype))) + " bytes)";
}

}  // namespace

std::string format_summary(const ModelSummary& s) {
  std::ostringstream os;
  for (const auto& v : s.inputs) os << "input   " << value_line(v) << "\n";
  for (const auto& v : s.outputs) os << "output  " << value_line(v) << "\n";

  std::vector<std::pair<std::string, int>> ops(s.op_histogram.begin(), s.op_histogram.end());
  std::stable_sort(ops.begin(), ops.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  os << "\n" << s.nodes << " nodes:";
  for (size_t i = 0; i < ops.size(); ++i)
    os << (i ? ", " : " ") << printable(ops[i].first) << " " << ops[i].second;
  os << "\n";
  if (s.qdq_nodes)
    os << "(QDQ model: " << s.qdq_nodes
       << " QuantizeLinear/DequantizeLinear nodes; the table describes its float view)\n";

  char line[256];
  std::snprintf(line, sizeof line, "\n%5s  %-10s %-18s %12s %9s %8s %6s\n", "layer", "module",
                "output shape", "params", "GFLOPs", "out MB", "nodes");
  os << line;
  for (const auto& l : s.layers) {
    std::string idx = l.index >= 0 ? std::to_string(l.index) : "-";
    std::snprintf(line, sizeof line, "%5s  %-10s %-18s %12s %9.3f %8.2f %6d\n", idx.c_str(),
                  l.kind.c_str(), shape_str(l.output_shape).c_str(), with_commas(l.params).c_str(),
                  l.flops / 1e9, l.output_bytes / 1e6, l.nodes);
    os << line;
  }
  os << "\ntotal: " << with_commas(s.params) << " parameters ("
     << format_number("%.2f", s.params / 1e6) << " M), " << format_number("%.2f", s.flops / 1e9)
     << " GFLOPs at this input size\n"
     << "  (FLOPs = " << kFlopsConvention << ", as Ultralytics' GFLOPs;\n"
     << "   elementwise ops counted apart: " << format_number("%.3f", s.elementwise_ops / 1e9)
     << " G)\n";
  for (const auto& p : s.parts) {
    std::snprintf(line, sizeof line, "  %-9s %-10s params %5.1f %%   FLOPs %5.1f %%\n",
                  p.name.c_str(), ("(" + p.range + ")").c_str(), share(p.params, s.params),
                  share(p.flops, s.flops));
    os << line;
  }
  os << "per frame: " << with_commas(s.input_bytes) << " bytes in, " << with_commas(s.output_bytes)
     << " bytes out\n";
  return os.str();
}

nlohmann::json summary_to_json(const ModelSummary& s) {
  using nlohmann::json;
  auto values = [](const std::vector<ValueInfo>& vs) {
    json a = json::array();
    for (const auto& v : vs)
      a.push_back({{"name", v.name},
                   {"dtype", dtype_name(v.dtype)},
                   {"shape", v.shape},
                   {"bytes", shape_numel(v.shape) * static_cast<int64_t>(dtype_size(v.dtype))}});
    return a;
  };
  json layers = json::array();
  for (const auto& l : s.layers)
    layers.push_back({{"index", l.index},
                      {"kind", l.kind},
                      {"output", l.output},
                      {"output_shape", l.output_shape},
                      {"output_bytes", l.output_bytes},
                      {"nodes", l.nodes},
                      {"params", l.params},
                      {"flops", l.flops},
                      {"elementwise_ops", l.elementwise_ops}});
  json parts = json::array();
  for (const auto& p : s.parts)
    parts.push_back({{"name", p.name},
                     {"modules", p.range},
                     {"params", p.params},
                     {"flops", p.flops},
                     {"params_share", share(p.params, s.params) / 100.0},
                     {"flops_share", share(p.flops, s.flops) / 100.0}});
  return {{"inputs", values(s.inputs)},
          {"outputs", values(s.outputs)},
          {"nodes", s.nodes},
          {"qdq_nodes", s.qdq_nodes},
          {"op_histogram", s.op_histogram},
          {"layers", layers},
          {"parts", parts},
          {"totals",
           {{"params", s.params},
            {"flops", s.flops},
            {"gflops", s.flops / 1e9},
            {"elementwise_ops", s.elementwise_ops},
            {"flops_convention", kFlopsConvention}}},
          {"bytes_per_frame", {{"input", s.input_bytes}, {"output", s.output_bytes}}}};
}

}  // namespace edgeq

#include "quant/value_blocks.h"

#include <sstream>

namespace edgeq {
namespace {

std::vector<std::string> path_parts(const std::string& name) {
  std::vector<std::string> parts;
  std::stringstream ss(name);
  std::string p;
  while (std::getline(ss, p, '/'))
    if (!p.empty()) parts.push_back(p);
  return parts;
}

}  // namespace

std::string block_of(const Graph& g, const std::string& value) {
  const int p = g.producer_of(value);
  if (p < 0) return value;
  std::vector<std::string> parts = path_parts(g.nodes[p].name);
  if (parts.size() < 2 || parts[0].rfind("model.", 0) != 0) return value;
  // The node's own name is the last part: a node directly in the layer belongs to the layer.
  if (parts.size() == 2) return "/" + parts[0];
  return "/" + parts[0] + "/" + parts[1];
}

std::map<std::string, std::vector<std::string>> value_blocks(
    const Graph& g, const std::vector<std::string>& values) {
  std::map<std::string, std::vector<std::string>> blocks;
  for (const std::string& v : values) blocks[block_of(g, v)].push_back(v);
  return blocks;
}

}  // namespace edgeq

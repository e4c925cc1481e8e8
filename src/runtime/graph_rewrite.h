// Small helpers for the executor's graph rewrites (fusion, QDQ folding, int8 lowering).
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/graph.h"

namespace edgeq {

// Value name -> indices of the nodes reading it (a node reading a value twice is listed twice).
using Readers = std::unordered_map<std::string, std::vector<int>>;
Readers readers_of(const Graph& g);

// Removes the nodes marked in `drop` (indexed like g.nodes), keeping the others' order.
void drop_nodes(Graph& g, const std::vector<bool>& drop);

// Makes every node input reading `from` read `to` instead.
void rename_input(Graph& g, const std::string& from, const std::string& to);

}  // namespace edgeq

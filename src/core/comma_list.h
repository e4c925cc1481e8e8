// Comma-separated option values ("a,b,c"), split in one place for every subcommand, the study
// config and the ledger gate.
#pragma once
#include <string>
#include <vector>

namespace edgeq {

// The items of `s` split at commas; empty items ("a,,b", a trailing comma) are dropped.
std::vector<std::string> comma_list(const std::string& s);

// Refuses an item given twice ("schemes: 'w8a8' is given twice"): a list option names each thing
// once (a repeated scheme would run twice, a repeated limit be checked twice).
void check_unique(const std::vector<std::string>& items, const std::string& what);

}  // namespace edgeq

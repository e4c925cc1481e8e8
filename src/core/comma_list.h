// Comma-separated option values ("a,b,c"), split in one place for every subcommand, the study
// config and the ledger gate.
#pragma once
#include <string>
#include <vector>

namespace edgeq {

// The items of `s` split at commas; empty items ("a,,b", a trailing comma) are dropped.
std::vector<std::string> comma_list(const std::string& s);

}  // namespace edgeq

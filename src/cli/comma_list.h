// Comma-separated option values ("a,b,c"), split in one place for every subcommand.
#pragma once
#include <string>
#include <vector>

namespace edgeq::cli {

// The items of `s` split at commas; empty items ("a,,b", a trailing comma) are dropped.
std::vector<std::string> comma_list(const std::string& s);

}  // namespace edgeq::cli

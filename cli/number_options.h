// Number options on the command line, each bound to its range (core/option_range.h): the text is
// parsed strictly (no wrap-around of -1 into an unsigned, no octal "010", no "0.5x") and checked
// when the command line is parsed, before any work; a refusal names the flag and the range.
#pragma once
#include <CLI/CLI.hpp>
#include <map>
#include <string>
#include <vector>

#include "edgeq/inert_options.h"
#include "edgeq/option_range.h"

namespace edgeq::cli {

// A CLI11 transform: refuses text outside `r` with one line, and rewrites an integer as plain
// decimal digits (what CLI11's conversion then reads as the same number).
CLI::Validator in_range(const OptionRange& r);

// cmd->add_option(flag, var, help) checked against `r`.
template <typename T>
CLI::Option* add_number(CLI::App* cmd, const std::string& flag, T& var, const OptionRange& r,
                        const std::string& help) {
  return cmd->add_option(flag, var, help)->transform(in_range(r));
}

// Refuses a flag given where it does nothing: the first inert option (core/option_range.h) whose
// flag (`flags`: the option's library name -> its flag) `cmd` was given, e.g. "--percentile does
// nothing without range percentile", whatever its value (the library refuses only values other
// than the default, not knowing what was given).
void refuse_given(const CLI::App& cmd, const std::vector<InertOption>& inert,
                  const std::map<std::string, std::string>& flags);
// The same question for the library's refuse_inert_given: an option's flag when `cmd` was given
// it, else "".
GivenOption given_flags(const CLI::App& cmd, std::map<std::string, std::string> flags);

}  // namespace edgeq::cli

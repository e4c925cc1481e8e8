// Choice options (edgeq/choices.h) on the command line, each bound to its enum: the text is
// checked by edgeq::parse<E> (any case) when the command line is parsed, before any work; a
// refusal is one line naming the flag and every accepted value:
// "--scheme: 'w4a8' is not one of w8a8, w8a16".
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "edgeq/choices.h"
#include "edgeq/error.h"

namespace edgeq::cli {

// A CLI11 check: "" for a name of E, else the refusal (CLI11 puts the flag in front).
template <class E>
CLI::Validator choice_of() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          parse<E>(text);
          return "";
        } catch (const Error&) {
          return "'" + text + "' is not one of " + choices_text<E>();
        }
      },
      "");
}

// cmd->add_option(flag, var, help) for an enum: `var` gets the value the text names.
template <class E>
CLI::Option* add_choice(CLI::App* cmd, const std::string& flag, E& var, const std::string& help) {
  return cmd
      ->add_option_function<std::string>(
          flag, [&var](const std::string& text) { var = parse<E>(text); }, help)
      ->check(choice_of<E>());
}

// The help's default: the value's name.
template <class E>
std::string default_name(E value) {
  return std::string(name(value));
}

}  // namespace edgeq::cli

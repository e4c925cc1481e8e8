#include "cli/number_options.h"

#include <cstdio>

namespace edgeq::cli {

CLI::Validator in_range(const OptionRange& r) {
  return CLI::Validator(
      [r](std::string& text) -> std::string {
        try {
          const long double v = detail::parse_in_range(text, r);
          if (r.integer) {
            char buf[32];
            if (v < 0)
              std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
            else
              std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v));
            text = buf;
          }
          return "";
        } catch (const Error& e) {
          return e.what();
        }
      },
      r.text());
}

void refuse_given(const CLI::App& cmd, const std::vector<InertOption>& inert,
                  const std::map<std::string, std::string>& flags) {
  for (const InertOption& o : inert) {
    const auto it = flags.find(o.name);
    if (it != flags.end() && cmd.count(it->second) > 0)
      fail(it->second, " does nothing without ", o.needs);
  }
}

}  // namespace edgeq::cli

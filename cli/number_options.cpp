#include "number_options.h"

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
  const GivenOption given = given_flags(cmd, flags);
  for (const InertOption& o : inert) {
    const std::string flag = given(o.name);
    if (!flag.empty()) fail(flag, " does nothing without ", o.needs);
  }
}

GivenOption given_flags(const CLI::App& cmd, std::map<std::string, std::string> flags) {
  return [&cmd, flags = std::move(flags)](const std::string& option) {
    const auto it = flags.find(option);
    return it != flags.end() && cmd.count(it->second) > 0 ? it->second : std::string();
  };
}

}  // namespace edgeq::cli

#include "study/study_report.h"

#include "core/error.h"
#include "core/json_text.h"

namespace edgeq {
namespace {

// data/report/study.html, embedded at build time (CMakeLists.txt).
const char kTemplate[] =
#include "study_report_template.inc"
    ;

void replace_once(std::string& s, const std::string& what, const std::string& with) {
  const size_t at = s.find(what);
  EDGEQ_CHECK(at != std::string::npos, "report template lacks ", what);
  s.replace(at, what.size(), with);
}

}  // namespace

std::string json_for_script(const nlohmann::json& j) {
  // Names that are not UTF-8 keep their bytes as \udcXX escapes (core/json_text.h).
  const std::string text = json_text(j);
  // Inside a script element "</" ends it and "<!--" changes how the parser reads on, and U+2028 /
  // U+2029 end a line in older JavaScript: every <, >, & and those two as \u escapes (these
  // characters only occur inside JSON strings, where the escapes mean the same).
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<')
      out += "\\u003c";
    else if (c == '>')
      out += "\\u003e";
    else if (c == '&')
      out += "\\u0026";
    else if (c == '\xE2' && i + 2 < text.size() && text[i + 1] == '\x80' &&
             (text[i + 2] == '\xA8' || text[i + 2] == '\xA9')) {
      out += text[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::string study_report_html(const nlohmann::json& data,
                              const std::vector<StudyThumbnail>& thumbnails) {
  nlohmann::json thumbs = nlohmann::json::array();
  for (const StudyThumbnail& t : thumbnails)
    thumbs.push_back({{"name", t.name},
                      {"width", t.width},
                      {"height", t.height},
                      {"jpeg_base64", t.jpeg_base64}});
  std::string html = kTemplate;
  replace_once(html, "__EDGEQ_STUDY_DATA__", json_for_script(data));
  replace_once(html, "__EDGEQ_STUDY_THUMBNAILS__", json_for_script(thumbs));
  return html;
}

}  // namespace edgeq

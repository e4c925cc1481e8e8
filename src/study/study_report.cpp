#include "study/study_report.h"

#include "core/error.h"

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
  const std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') out += '\\';
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

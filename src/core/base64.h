// Base64 (RFC 4648, standard alphabet, '=' padding), for binary data embedded in text (images in
// HTML reports).
#pragma once
#include <string>

namespace edgeq {

std::string base64_encode(const std::string& bytes);

}  // namespace edgeq

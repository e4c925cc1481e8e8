#include "core/npy.h"

#include <cstring>

#include "core/error.h"
#include "core/file_io.h"

namespace edgeq {
namespace {

std::string descr_of(DType t) {
  switch (t) {
    case DType::kFloat32:
      return "<f4";
    case DType::kFloat64:
      return "<f8";
    case DType::kUInt8:
      return "|u1";
    case DType::kInt8:
      return "|i1";
    case DType::kUInt16:
      return "<u2";
    case DType::kInt16:
      return "<i2";
    case DType::kInt32:
      return "<i4";
    case DType::kInt64:
      return "<i8";
    case DType::kBool:
      return "|b1";
    default:
      fail("cannot store ", dtype_name(t), " in .npy");
  }
}

DType dtype_of_descr(const std::string& d, const std::string& what) {
  for (DType t : {DType::kFloat32, DType::kFloat64, DType::kUInt8, DType::kInt8, DType::kUInt16,
                  DType::kInt16, DType::kInt32, DType::kInt64, DType::kBool})
    if (descr_of(t) == d) return t;
  fail(what, ": unsupported .npy dtype '", d, "' (use little-endian float32)");
}

// Value of `key` in the header dict, e.g. 'descr': '<f4'.
std::string header_field(const std::string& h, const std::string& key, const std::string& what) {
  size_t k = h.find("'" + key + "'");
  EDGEQ_CHECK(k != std::string::npos, what, ": .npy header has no '", key, "'");
  size_t colon = h.find(':', k);
  size_t start = colon == std::string::npos ? colon : h.find_first_not_of(' ', colon + 1);
  EDGEQ_CHECK(start != std::string::npos, what, ": .npy header has no value for '", key, "'");
  if (h[start] == '(') return h.substr(start + 1, h.find(')', start) - start - 1);
  if (h[start] == '\'') return h.substr(start + 1, h.find('\'', start + 1) - start - 1);
  size_t end = h.find_first_of(",}", start);
  return h.substr(start, end - start);
}

}  // namespace

Tensor parse_npy(const std::string& bytes, const std::string& what) {
  EDGEQ_CHECK(bytes.size() >= 10 && bytes.compare(0, 6, "\x93NUMPY") == 0, what,
              " is not a .npy file");
  uint8_t major = static_cast<uint8_t>(bytes[6]);
  size_t header_len, header_start;
  if (major == 1) {
    header_len = static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
    header_start = 10;
  } else {
    EDGEQ_CHECK(bytes.size() >= 12, what, ": truncated .npy header");
    uint32_t len;
    std::memcpy(&len, bytes.data() + 8, 4);
    header_len = len;
    header_start = 12;
  }
  EDGEQ_CHECK(bytes.size() >= header_start + header_len, what, ": truncated .npy header");
  std::string h = bytes.substr(header_start, header_len);
  DType dt = dtype_of_descr(header_field(h, "descr", what), what);
  EDGEQ_CHECK(header_field(h, "fortran_order", what) == "False", what,
              ": Fortran-ordered .npy is not supported");
  Shape shape;
  std::string dims = header_field(h, "shape", what);
  size_t pos = 0;
  while (pos < dims.size()) {
    size_t next = dims.find(',', pos);
    std::string tok = dims.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
    tok.erase(0, tok.find_first_not_of(' '));
    tok.erase(tok.find_last_not_of(' ') + 1);
    if (!tok.empty()) {
      EDGEQ_CHECK(tok.size() <= 18 && tok.find_first_not_of("0123456789") == std::string::npos,
                  what, ": .npy shape entry '", tok, "' is not a dimension");
      shape.push_back(std::stoll(tok));
    }
    if (next == std::string::npos) break;
    pos = next + 1;
  }
  // The data must be there before anything is allocated (a header may claim any shape).
  const size_t data_start = header_start + header_len, have = bytes.size() - data_start;
  uint64_t need = 0;
  try {
    need = static_cast<uint64_t>(shape_numel(shape));
  } catch (const Error&) {
    fail(what, ": .npy shape ", shape_str(shape), " is too large");
  }
  EDGEQ_CHECK(!__builtin_mul_overflow(need, dtype_size(dt), &need), what, ": .npy shape ",
              shape_str(shape), " is too large");
  EDGEQ_CHECK(have >= need, what, ": .npy data is truncated (", have, " of ", need, " bytes)");
  Tensor t(dt, shape);
  if (t.nbytes()) std::memcpy(t.raw(), bytes.data() + data_start, t.nbytes());
  return t;
}

Tensor load_npy(const std::string& path) {
  return parse_npy(read_file_of_format(path, kMaxDataBytes, 6,
                                       [&](const std::string& head) {
                                         EDGEQ_CHECK(head == "\x93NUMPY", path,
                                                     " is not a .npy file");
                                       }),
                   path);
}

std::string serialize_npy(const Tensor& t) {
  std::string shape = "(";
  for (size_t i = 0; i < t.shape().size(); ++i) shape += std::to_string(t.shape()[i]) + ", ";
  if (t.shape().size() > 1)
    shape.erase(shape.size() - 2);
  else if (t.shape().size() == 1)
    shape.erase(shape.size() - 1);
  shape += ")";
  std::string h =
      "{'descr': '" + descr_of(t.dtype()) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + h.size() + 1;
  h.append((64 - total % 64) % 64, ' ');
  h += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(h.size() & 0xff);
  out += static_cast<char>((h.size() >> 8) & 0xff);
  out += h;
  out.append(static_cast<const char*>(t.raw()), t.nbytes());
  return out;
}

void save_npy(const Tensor& t, const std::string& path) {
  write_file_atomic(path, serialize_npy(t));
}

}  // namespace edgeq

// Element types edgeq tensors can hold; values follow ONNX TensorProto.DataType.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace edgeq {

enum class DType : int {
  kUndefined = 0,
  kFloat32 = 1,
  kUInt8 = 2,
  kInt8 = 3,
  kUInt16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kBool = 9,
  kFloat64 = 11,
};

size_t dtype_size(DType t);
std::string dtype_name(DType t);
// Maps an ONNX TensorProto data type number; throws for types edgeq does not handle.
DType dtype_from_onnx(int onnx_type);

template <typename T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<float>() {
  return DType::kFloat32;
}
template <>
constexpr DType dtype_of<double>() {
  return DType::kFloat64;
}
template <>
constexpr DType dtype_of<uint8_t>() {
  return DType::kUInt8;
}
template <>
constexpr DType dtype_of<int8_t>() {
  return DType::kInt8;
}
template <>
constexpr DType dtype_of<uint16_t>() {
  return DType::kUInt16;
}
template <>
constexpr DType dtype_of<int16_t>() {
  return DType::kInt16;
}
template <>
constexpr DType dtype_of<int32_t>() {
  return DType::kInt32;
}
template <>
constexpr DType dtype_of<int64_t>() {
  return DType::kInt64;
}
template <>
constexpr DType dtype_of<bool>() {
  return DType::kBool;
}

// Calls f(T{}) with T the C++ type of `t` (float, double, uint8_t, ..., int64_t, bool); returns
// false, calling nothing, for kUndefined or any other value.
template <typename F>
bool visit_dtype(DType t, F&& f) {
  switch (t) {
    case DType::kFloat32:
      f(float{});
      return true;
    case DType::kFloat64:
      f(double{});
      return true;
    case DType::kUInt8:
      f(uint8_t{});
      return true;
    case DType::kInt8:
      f(int8_t{});
      return true;
    case DType::kUInt16:
      f(uint16_t{});
      return true;
    case DType::kInt16:
      f(int16_t{});
      return true;
    case DType::kInt32:
      f(int32_t{});
      return true;
    case DType::kInt64:
      f(int64_t{});
      return true;
    case DType::kBool:
      f(bool{});
      return true;
    default:
      return false;
  }
}

}  // namespace edgeq

#include "core/dtype.h"

#include "core/error.h"

namespace edgeq {

size_t dtype_size(DType t) {
  switch (t) {
    case DType::kFloat32:
      return 4;
    case DType::kUInt8:
      return 1;
    case DType::kInt8:
      return 1;
    case DType::kUInt16:
      return 2;
    case DType::kInt16:
      return 2;
    case DType::kInt32:
      return 4;
    case DType::kInt64:
      return 8;
    case DType::kBool:
      return 1;
    case DType::kFloat64:
      return 8;
    default:
      return 0;
  }
}

std::string dtype_name(DType t) {
  switch (t) {
    case DType::kFloat32:
      return "float32";
    case DType::kUInt8:
      return "uint8";
    case DType::kInt8:
      return "int8";
    case DType::kUInt16:
      return "uint16";
    case DType::kInt16:
      return "int16";
    case DType::kInt32:
      return "int32";
    case DType::kInt64:
      return "int64";
    case DType::kBool:
      return "bool";
    case DType::kFloat64:
      return "float64";
    case DType::kUndefined:
      return "undefined";
    default:
      return "unsupported type " + std::to_string(static_cast<int>(t));
  }
}

DType dtype_from_onnx(int onnx_type) {
  DType t = static_cast<DType>(onnx_type);
  if (dtype_size(t) == 0) fail("unsupported ONNX tensor data type ", onnx_type);
  return t;
}

}  // namespace edgeq

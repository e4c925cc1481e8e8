// NumPy .npy files (format 1.0/2.0, little-endian, C order) <-> Tensor.
#pragma once
#include <string>

#include "core/tensor.h"

namespace edgeq {

Tensor load_npy(const std::string& path);
Tensor parse_npy(const std::string& bytes, const std::string& what);
void save_npy(const Tensor& t, const std::string& path);  // atomic
std::string serialize_npy(const Tensor& t);

}  // namespace edgeq

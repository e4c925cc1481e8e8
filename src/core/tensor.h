// Tensor: a typed, shaped, 64-byte aligned buffer (owned, or a view into someone else's memory).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace edgeq {

using Shape = std::vector<int64_t>;

int64_t shape_numel(const Shape& s);
std::string shape_str(const Shape& s);

class Tensor {
 public:
  Tensor() = default;
  // Allocates zero-filled storage.
  Tensor(DType dtype, Shape shape);
  // Allocates storage left unfilled, for a caller that writes every element.
  static Tensor uninitialized(DType dtype, Shape shape);
  // A non-owning view; the caller keeps `data` alive.
  static Tensor view(DType dtype, Shape shape, void* data);

  template <typename T>
  static Tensor from_vector(Shape shape, const std::vector<T>& values);
  template <typename T>
  static Tensor scalar(T v) {
    return from_vector<T>({}, {v});
  }

  // True for a default-constructed Tensor (no type, no storage).
  bool empty() const { return dtype_ == DType::kUndefined; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t dim(int i) const { return shape_.at(i < 0 ? shape_.size() + i : i); }
  int rank() const { return static_cast<int>(shape_.size()); }
  int64_t numel() const { return shape_numel(shape_); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype_); }

  void* raw() { return data_; }
  const void* raw() const { return data_; }
  template <typename T>
  T* data() {
    return static_cast<T*>(data_);
  }
  template <typename T>
  const T* data() const {
    return static_cast<const T*>(data_);
  }

  // Same bytes, another shape (numel must match). Shares storage.
  Tensor reshaped(Shape shape) const;
  // Deep copy into owned storage.
  Tensor clone() const;
  // Values converted to float / int64 (for small constant tensors and tests).
  std::vector<float> to_floats() const;
  std::vector<int64_t> to_ints() const;

 private:
  DType dtype_ = DType::kUndefined;
  Shape shape_;
  std::shared_ptr<void> storage_;
  void* data_ = nullptr;
};

template <typename T>
Tensor Tensor::from_vector(Shape shape, const std::vector<T>& values) {
  Tensor t(dtype_of<T>(), std::move(shape));
  std::copy(values.begin(), values.begin() + t.numel(), t.data<T>());
  return t;
}

}  // namespace edgeq

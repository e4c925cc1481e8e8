#include "core/tensor.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>
#include <type_traits>

#include "core/error.h"

namespace edgeq {

int64_t shape_numel(const Shape& s) {
  // Zero anywhere makes it empty; otherwise the product must fit (a model or .npy header may
  // claim any dims, and a signed overflow is undefined behaviour). A symbolic -1 counts as -1.
  for (int64_t d : s)
    if (d == 0) return 0;
  int64_t n = 1;
  for (int64_t d : s)
    EDGEQ_CHECK(!__builtin_mul_overflow(n, d, &n), "shape ", shape_str(s),
                " has too many elements");
  return n;
}

std::string shape_str(const Shape& s) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? "," : "") << s[i];
  os << "]";
  return os.str();
}

Tensor::Tensor(DType dtype, Shape shape) : Tensor(uninitialized(dtype, std::move(shape))) {
  std::memset(data_, 0, nbytes());
}

Tensor Tensor::uninitialized(DType dtype, Shape shape) {
  for (int64_t d : shape) EDGEQ_CHECK(d >= 0, "negative dimension in shape ", shape_str(shape));
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  size_t alloc = ((t.nbytes() + 63) / 64) * 64;
  if (alloc == 0) alloc = 64;
  void* p = std::aligned_alloc(64, alloc);
  if (!p) fail("out of memory allocating ", alloc, " bytes");
  t.storage_ = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
  t.data_ = p;
  return t;
}

Tensor Tensor::view(DType dtype, Shape shape, void* data) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.data_ = data;
  return t;
}

Tensor Tensor::reshaped(Shape shape) const {
  EDGEQ_CHECK(shape_numel(shape) == numel(), "cannot reshape ", shape_str(shape_), " to ",
              shape_str(shape));
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

Tensor Tensor::clone() const {
  Tensor t(dtype_, shape_);
  if (nbytes()) std::memcpy(t.data_, data_, nbytes());
  return t;
}

template <typename Out>
static std::vector<Out> convert_all(const Tensor& t) {
  std::vector<Out> out(t.numel());
  int64_t n = t.numel();
  auto from = [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < n; ++i) {
      const T v = t.data<T>()[i];
      if constexpr (std::is_floating_point_v<T> && !std::is_same_v<T, Out>) {
        // NaN, or a value beyond the target type, has no converted value (undefined behaviour).
        const bool fits =
            std::is_floating_point_v<Out>
                ? !(std::isfinite(v) && std::fabs(v) > std::numeric_limits<Out>::max())
                : std::isfinite(v) && std::fabs(v) < 0x1p63;
        EDGEQ_CHECK(fits, "value ", v, " of a ", dtype_name(t.dtype()),
                    " tensor cannot be read as ",
                    std::is_floating_point_v<Out> ? "float32" : "a 64-bit integer");
      }
      out[i] = static_cast<Out>(v);
    }
  };
  if (!visit_dtype(t.dtype(), from)) fail("cannot convert tensor of type ", dtype_name(t.dtype()));
  return out;
}

std::vector<float> Tensor::to_floats() const {
  return convert_all<float>(*this);
}
std::vector<int64_t> Tensor::to_ints() const {
  return convert_all<int64_t>(*this);
}

}  // namespace edgeq

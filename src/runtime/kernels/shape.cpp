// Shape and value-construction operators: Shape, Constant, ConstantOfShape, Range, Cast,
// Identity. Most produce values known at plan time; they still run like any kernel.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "runtime/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/registry.h"

namespace edgeq {
namespace {

// A kernel whose output is a tensor fixed at plan time.
class ConstKernel : public Kernel {
 public:
  explicit ConstKernel(Tensor value) : value_(std::move(value)) {
    outputs.push_back({value_.dtype(), value_.shape(), nullptr});
  }
  void run(const std::vector<const Tensor*>&, const std::vector<Tensor*>& out) override {
    if (value_.nbytes()) std::memcpy(out[0]->raw(), value_.raw(), value_.nbytes());
  }

 private:
  Tensor value_;
};

std::unique_ptr<Kernel> make_shape(const KernelInit& init) {
  const Shape& s = init.in(0).shape;
  const int64_t rank = static_cast<int64_t>(s.size());
  int64_t start = 0, end = rank;
  if (init.opset >= 15) {
    start = init.node.attr_int("start", 0);
    end = init.node.attr_int("end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, 0, rank);
  }
  std::vector<int64_t> dims;
  for (int64_t i = start; i < end; ++i) dims.push_back(s[i]);
  return std::make_unique<ConstKernel>(
      Tensor::from_vector<int64_t>({static_cast<int64_t>(dims.size())}, dims));
}

std::unique_ptr<Kernel> make_constant(const KernelInit& init) {
  const Node& n = init.node;
  auto attr = [&](const char* k) -> const Attribute* {
    auto it = n.attrs.find(k);
    return it == n.attrs.end() ? nullptr : &it->second;
  };
  if (const Attribute* a = attr("value")) return std::make_unique<ConstKernel>(a->t.clone());
  if (const Attribute* a = attr("value_float"))
    return std::make_unique<ConstKernel>(Tensor::scalar<float>(a->f));
  if (const Attribute* a = attr("value_int"))
    return std::make_unique<ConstKernel>(Tensor::scalar<int64_t>(a->i));
  if (const Attribute* a = attr("value_floats"))
    return std::make_unique<ConstKernel>(
        Tensor::from_vector<float>({static_cast<int64_t>(a->floats.size())}, a->floats));
  if (const Attribute* a = attr("value_ints"))
    return std::make_unique<ConstKernel>(
        Tensor::from_vector<int64_t>({static_cast<int64_t>(a->ints.size())}, a->ints));
  fail(n.describe(), ": Constant needs one of value, value_float(s), value_int(s)");
}

// Fills a tensor of `dtype` and `shape` with `v` converted to that type.
Tensor filled(DType dtype, const Shape& shape, double v) {
  Tensor t(dtype, shape);
  const int64_t n = t.numel();
  auto fill = [&](auto tag) {
    using T = decltype(tag);
    std::fill(t.data<T>(), t.data<T>() + n, static_cast<T>(v));
  };
  if (!visit_dtype(dtype, fill)) fail("cannot fill a tensor of type ", dtype_name(dtype));
  return t;
}

std::unique_ptr<Kernel> make_constant_of_shape(const KernelInit& init) {
  const Shape shape = init.constant_ints(0);
  for (int64_t d : shape) EDGEQ_CHECK(d >= 0, init.node.describe(), ": negative dimension ", d);
  DType dtype = DType::kFloat32;
  double v = 0;
  auto it = init.node.attrs.find("value");
  if (it != init.node.attrs.end()) {
    const Tensor& t = it->second.t;
    EDGEQ_CHECK(t.numel() == 1, init.node.describe(), ": value must hold one element");
    dtype = t.dtype();
    v = dtype == DType::kInt64 ? static_cast<double>(t.to_ints()[0]) : t.to_floats()[0];
    if (dtype == DType::kFloat64) v = t.data<double>()[0];
  }
  return std::make_unique<ConstKernel>(filled(dtype, shape, v));
}

template <typename T>
Tensor range_tensor(T start, T limit, T delta, const Node& node) {
  EDGEQ_CHECK(delta != T(0), node.describe(), ": delta is 0");
  const double count = std::ceil((static_cast<double>(limit) - static_cast<double>(start)) /
                                 static_cast<double>(delta));
  const int64_t n = std::max<int64_t>(0, static_cast<int64_t>(count));
  Tensor t(dtype_of<T>(), {n});
  for (int64_t i = 0; i < n; ++i)
    t.data<T>()[i] = static_cast<T>(start + static_cast<T>(i) * delta);
  return t;
}

std::unique_ptr<Kernel> make_range(const KernelInit& init) {
  const Tensor& s = init.constant(0);
  const Tensor& l = init.constant(1);
  const Tensor& d = init.constant(2);
  switch (s.dtype()) {
    case DType::kFloat32:
      return std::make_unique<ConstKernel>(
          range_tensor<float>(s.to_floats()[0], l.to_floats()[0], d.to_floats()[0], init.node));
    case DType::kInt64:
      return std::make_unique<ConstKernel>(
          range_tensor<int64_t>(s.to_ints()[0], l.to_ints()[0], d.to_ints()[0], init.node));
    case DType::kInt32:
      return std::make_unique<ConstKernel>(range_tensor<int32_t>(
          static_cast<int32_t>(s.to_ints()[0]), static_cast<int32_t>(l.to_ints()[0]),
          static_cast<int32_t>(d.to_ints()[0]), init.node));
    default:
      fail(init.node.describe(), ": Range of type ", dtype_name(s.dtype()), " not supported");
  }
}

// ---- Cast --------------------------------------------------------------------------------

template <typename To, typename From>
void convert(const From* src, To* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<To, bool>)
      dst[i] = src[i] != From(0);
    else
      dst[i] = static_cast<To>(src[i]);
  }
}

template <typename To>
void convert_from(const Tensor& x, To* dst) {
  const int64_t n = x.numel();
  auto from = [&](auto tag) {
    using T = decltype(tag);
    convert<To, T>(x.data<T>(), dst, n);
  };
  if (!visit_dtype(x.dtype(), from)) fail("Cast: unsupported source type ", dtype_name(x.dtype()));
}

class CastKernel : public Kernel {
 public:
  explicit CastKernel(const KernelInit& init) {
    const ValueDesc& x = init.in(0);
    EDGEQ_CHECK(init.node.has_attr("to"), init.node.describe(), ": missing attribute 'to'");
    DType to;
    try {
      to = dtype_from_onnx(static_cast<int>(init.node.attr_int("to", 0)));
    } catch (const Error& e) {
      fail(init.node.describe(), ": ", e.what());
    }
    outputs.push_back({to, x.shape, nullptr});
  }
  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    const Tensor& x = *in[0];
    Tensor& y = *out[0];
    if (x.dtype() == y.dtype()) {
      if (x.raw() != y.raw() && x.nbytes()) std::memcpy(y.raw(), x.raw(), x.nbytes());
      return;
    }
    auto to = [&](auto tag) {
      using T = decltype(tag);
      convert_from<T>(x, y.data<T>());
    };
    if (!visit_dtype(y.dtype(), to)) fail("Cast: unsupported target type ", dtype_name(y.dtype()));
  }
};

class IdentityKernel : public Kernel {
 public:
  explicit IdentityKernel(const KernelInit& init) {
    const ValueDesc& x = init.in(0);
    outputs.push_back({x.dtype, x.shape, nullptr});
  }
  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    if (out[0]->raw() != in[0]->raw() && in[0]->nbytes())
      std::memcpy(out[0]->raw(), in[0]->raw(), in[0]->nbytes());
  }
};

}  // namespace

void register_shape_kernels() {
  register_kernel("", "Shape", make_shape);
  register_kernel("", "Constant", make_constant);
  register_kernel("", "ConstantOfShape", make_constant_of_shape);
  register_kernel("", "Range", make_range);
  register_kernel("", "Cast", [](const KernelInit& i) { return std::make_unique<CastKernel>(i); });
  register_kernel("", "Identity",
                  [](const KernelInit& i) { return std::make_unique<IdentityKernel>(i); });
}

}  // namespace edgeq

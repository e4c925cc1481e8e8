#include "reference_ops.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>

namespace edgeq::ref {
namespace {

using Index = std::vector<int64_t>;

// ---- element access and index math ---------------------------------------------------------

void put(Tensor& t, int64_t i, double v) {
  switch (t.dtype()) {
    case DType::kFloat32:
      t.data<float>()[i] = static_cast<float>(v);
      break;
    case DType::kFloat64:
      t.data<double>()[i] = v;
      break;
    case DType::kInt64:
      t.data<int64_t>()[i] = static_cast<int64_t>(v);
      break;
    case DType::kInt32:
      t.data<int32_t>()[i] = static_cast<int32_t>(v);
      break;
    case DType::kInt16:
      t.data<int16_t>()[i] = static_cast<int16_t>(v);
      break;
    case DType::kUInt16:
      t.data<uint16_t>()[i] = static_cast<uint16_t>(v);
      break;
    case DType::kInt8:
      t.data<int8_t>()[i] = static_cast<int8_t>(v);
      break;
    case DType::kUInt8:
      t.data<uint8_t>()[i] = static_cast<uint8_t>(v);
      break;
    case DType::kBool:
      t.data<bool>()[i] = v != 0.0;
      break;
    default:
      throw std::runtime_error("ref: cannot write type " + dtype_name(t.dtype()));
  }
}

Index unravel(int64_t flat, const Shape& s) {
  Index idx(s.size(), 0);
  for (int d = static_cast<int>(s.size()) - 1; d >= 0; --d) {
    idx[d] = flat % s[d];
    flat /= s[d];
  }
  return idx;
}

int64_t ravel(const Index& idx, const Shape& s) {
  int64_t flat = 0;
  for (size_t d = 0; d < s.size(); ++d) flat = flat * s[d] + idx[d];
  return flat;
}

std::vector<int64_t> ints(const Tensor& t) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < t.numel(); ++i)  // int64 read directly: INT64_MAX does not survive double
    v.push_back(t.dtype() == DType::kInt64 ? t.data<int64_t>()[i]
                                           : static_cast<int64_t>(value_at(t, i)));
  return v;
}

bool present(const std::vector<Tensor>& in, size_t i) {
  return i < in.size() && in[i].dtype() != DType::kUndefined;
}

int64_t fix_axis(int64_t a, int64_t rank) {
  return a < 0 ? a + rank : a;
}

// Fills out[i] = f(output index) for every element.
Tensor generate(DType dt, const Shape& shape, const std::function<double(const Index&)>& f) {
  Tensor out(dt, shape);
  for (int64_t i = 0; i < out.numel(); ++i) put(out, i, f(unravel(i, shape)));
  return out;
}

// Input element for an output index under NumPy broadcasting (right-aligned).
double broadcast_read(const Tensor& t, const Index& out_idx) {
  const Shape& s = t.shape();
  const size_t lead = out_idx.size() - s.size();
  Index idx(s.size());
  for (size_t d = 0; d < s.size(); ++d) idx[d] = s[d] == 1 ? 0 : out_idx[d + lead];
  return value_at(t, ravel(idx, s));
}

Shape broadcast(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) throw std::runtime_error("ref: shapes do not broadcast");
    out[out.size() - 1 - i] = std::max(da, db);
  }
  return out;
}

// ---- elementwise -------------------------------------------------------------------------

Tensor unary(const std::string& op, const Tensor& x) {
  return generate(x.dtype(), x.shape(), [&](const Index& i) {
    const double v = value_at(x, ravel(i, x.shape()));
    if (op == "Sigmoid") return 1.0 / (1.0 + std::exp(-v));
    if (op == "Relu") return v > 0 ? v : 0.0;
    if (op == "Tanh") return std::tanh(v);
    if (op == "Exp") return std::exp(v);
    if (op == "Sqrt") return std::sqrt(v);
    if (op == "Neg") return -v;
    if (op == "Abs") return std::fabs(v);
    throw std::runtime_error("ref: unknown unary " + op);
  });
}

// Clip, HardSigmoid, HardSwish, LeakyRelu, from their definitions in the ONNX operator docs.
Tensor param_unary(const Node& n, const std::vector<Tensor>& in, int64_t opset) {
  const std::string& op = n.op_type;
  const double inf = std::numeric_limits<double>::infinity();
  auto input_or = [&](size_t i, double d) {
    return i < in.size() && in[i].dtype() != DType::kUndefined && in[i].numel() > 0
               ? value_at(in[i], 0)
               : d;
  };
  const double lo = opset < 11 ? n.attr_float("min", -INFINITY) : input_or(1, -inf);
  const double hi = opset < 11 ? n.attr_float("max", INFINITY) : input_or(2, inf);
  const double alpha = n.attr_float("alpha", op == "HardSigmoid" ? 0.2f : 0.01f);
  const double beta = n.attr_float("beta", 0.5f);
  const Tensor& x = in[0];
  return generate(x.dtype(), x.shape(), [&](const Index& i) {
    const double v = value_at(x, ravel(i, x.shape()));
    if (op == "Clip") return std::min(std::max(v, lo), hi);
    if (op == "HardSigmoid") return std::max(0.0, std::min(1.0, alpha * v + beta));
    if (op == "HardSwish") return v * std::max(0.0, std::min(1.0, v / 6 + 0.5));
    if (op == "LeakyRelu") return v >= 0 ? v : alpha * v;
    throw std::runtime_error("ref: unknown op " + op);
  });
}

// ReduceMean / ReduceMax / ReduceSum by summing every input element into its output position.
Tensor reduce(const Node& n, const std::vector<Tensor>& in, int64_t opset) {
  const Tensor& x = in[0];
  const int64_t rank = x.rank();
  std::vector<int64_t> axes = n.attr_ints("axes");
  const bool axes_input = opset >= 18 || (n.op_type == "ReduceSum" && opset >= 13);
  if (axes_input)
    axes = in.size() > 1 && in[1].numel() > 0 ? in[1].to_ints() : std::vector<int64_t>{};
  std::vector<bool> red(rank, axes.empty() && !n.attr_int("noop_with_empty_axes", 0));
  for (int64_t a : axes) red[a < 0 ? a + rank : a] = true;
  const bool keep = n.attr_int("keepdims", 1) != 0;
  Shape out;
  for (int64_t a = 0; a < rank; ++a)
    if (!red[a])
      out.push_back(x.dim(a));
    else if (keep)
      out.push_back(1);
  Shape kept;  // output shape with keepdims, to index by
  for (int64_t a = 0; a < rank; ++a) kept.push_back(red[a] ? 1 : x.dim(a));
  const int64_t n_out = shape_numel(kept);
  std::vector<double> acc(n_out, n.op_type == "ReduceMax" ? -1e300 : 0.0);
  std::vector<int64_t> count(n_out, 0);
  for (int64_t flat = 0; flat < x.numel(); ++flat) {
    Index i = unravel(flat, x.shape());
    for (int64_t a = 0; a < rank; ++a)
      if (red[a]) i[a] = 0;
    const int64_t o = ravel(i, kept);
    const double v = value_at(x, flat);
    acc[o] = n.op_type == "ReduceMax" ? std::max(acc[o], v) : acc[o] + v;
    ++count[o];
  }
  Tensor y(x.dtype(), out);
  for (int64_t o = 0; o < n_out; ++o)
    y.data<float>()[o] = static_cast<float>(n.op_type == "ReduceMean" ? acc[o] / count[o] : acc[o]);
  return y;
}

Tensor binary(const std::string& op, const Tensor& a, const Tensor& b) {
  const bool integer = a.dtype() == DType::kInt64 || a.dtype() == DType::kInt32;
  return generate(a.dtype(), broadcast(a.shape(), b.shape()), [&](const Index& i) {
    const double x = broadcast_read(a, i), y = broadcast_read(b, i);
    if (op == "Add") return x + y;
    if (op == "Sub") return x - y;
    if (op == "Mul") return x * y;
    if (op == "Div")
      return integer ? static_cast<double>(static_cast<int64_t>(x) / static_cast<int64_t>(y))
                     : x / y;
    if (op == "Pow") return std::pow(x, y);
    throw std::runtime_error("ref: unknown binary " + op);
  });
}

// ---- data movement -----------------------------------------------------------------------

Tensor concat(const Node& n, const std::vector<Tensor>& in) {
  const int64_t rank = in[0].rank();
  const int64_t axis = fix_axis(n.attr_int("axis", 0), rank);
  Shape out = in[0].shape();
  out[axis] = 0;
  for (const Tensor& t : in) out[axis] += t.dim(axis);
  return generate(in[0].dtype(), out, [&](const Index& i) {
    Index j = i;
    for (const Tensor& t : in) {
      if (j[axis] < t.dim(axis)) return value_at(t, ravel(j, t.shape()));
      j[axis] -= t.dim(axis);
    }
    throw std::runtime_error("ref: concat index out of range");
  });
}

std::vector<Tensor> split(const Node& n, const std::vector<Tensor>& in, int64_t opset) {
  const Tensor& x = in[0];
  const int64_t axis = fix_axis(n.attr_int("axis", 0), x.rank());
  const int64_t dim = x.dim(axis);
  const int64_t count = static_cast<int64_t>(n.outputs.size());
  std::vector<int64_t> sizes;
  if (opset < 13 && n.has_attr("split")) {
    sizes = n.attr_ints("split");
  } else if (opset >= 13 && present(in, 1)) {
    sizes = ints(in[1]);
  } else if (opset >= 18 && n.has_attr("num_outputs")) {
    const int64_t chunk = (dim + count - 1) / count;
    int64_t left = dim;
    for (int64_t k = 0; k < count; ++k) {
      sizes.push_back(std::min(chunk, left));
      left -= sizes.back();
    }
  } else {
    for (int64_t k = 0; k < count; ++k) sizes.push_back(dim / count);
  }
  std::vector<Tensor> outs;
  int64_t start = 0;
  for (int64_t s : sizes) {
    Shape os = x.shape();
    os[axis] = s;
    outs.push_back(generate(x.dtype(), os, [&](const Index& i) {
      Index j = i;
      j[axis] += start;
      return value_at(x, ravel(j, x.shape()));
    }));
    start += s;
  }
  return outs;
}

// The input indices one Slice axis visits, found by walking from start towards end.
std::vector<int64_t> slice_indices(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  // Positions outside [-1, dim] never hold an element; pulling them in keeps the walk short.
  start = std::min<int64_t>(std::max<int64_t>(start, -1), dim);
  end = std::min<int64_t>(std::max<int64_t>(end, -1), dim);
  std::vector<int64_t> v;
  for (int64_t i = start; step > 0 ? i < end : i > end; i += step)
    if (i >= 0 && i < dim) v.push_back(i);
  return v;
}

Tensor slice(const Node& n, const std::vector<Tensor>& in, int64_t opset) {
  const Tensor& x = in[0];
  std::vector<int64_t> starts, ends, axes, steps;
  if (opset < 10) {
    starts = n.attr_ints("starts");
    ends = n.attr_ints("ends");
    axes = n.attr_ints("axes");
  } else {
    starts = ints(in[1]);
    ends = ints(in[2]);
    if (present(in, 3)) axes = ints(in[3]);
    if (present(in, 4)) steps = ints(in[4]);
  }
  std::vector<std::vector<int64_t>> picks(x.rank());
  for (int64_t d = 0; d < x.rank(); ++d)
    for (int64_t i = 0; i < x.dim(d); ++i) picks[d].push_back(i);
  for (size_t k = 0; k < starts.size(); ++k) {
    const int64_t a = axes.empty() ? static_cast<int64_t>(k) : fix_axis(axes[k], x.rank());
    picks[a] = slice_indices(x.dim(a), starts[k], ends[k], steps.empty() ? 1 : steps[k]);
  }
  Shape out;
  for (const auto& p : picks) out.push_back(static_cast<int64_t>(p.size()));
  return generate(x.dtype(), out, [&](const Index& i) {
    Index j(i.size());
    for (size_t d = 0; d < i.size(); ++d) j[d] = picks[d][i[d]];
    return value_at(x, ravel(j, x.shape()));
  });
}

Tensor with_shape(const Tensor& x, const Shape& s) {
  if (shape_numel(s) != x.numel()) throw std::runtime_error("ref: element count changes");
  return generate(x.dtype(), s, [&](const Index& i) { return value_at(x, ravel(i, s)); });
}

Tensor reshape(const Node& n, const std::vector<Tensor>& in) {
  const Tensor& x = in[0];
  std::vector<int64_t> target = ints(in[1]);
  const bool allowzero = n.attr_int("allowzero", 0) != 0;
  int64_t known = 1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == 0 && !allowzero) target[i] = x.dim(static_cast<int>(i));
    if (target[i] != -1) known *= target[i];
  }
  for (int64_t& d : target)
    if (d == -1) d = x.numel() / known;
  return with_shape(x, target);
}

Tensor transpose(const Node& n, const Tensor& x) {
  std::vector<int64_t> perm = n.attr_ints("perm");
  if (perm.empty())
    for (int64_t d = x.rank() - 1; d >= 0; --d) perm.push_back(d);
  Shape out;
  for (int64_t p : perm) out.push_back(x.dim(static_cast<int>(p)));
  return generate(x.dtype(), out, [&](const Index& i) {
    Index j(i.size());
    for (size_t d = 0; d < perm.size(); ++d) j[perm[d]] = i[d];
    return value_at(x, ravel(j, x.shape()));
  });
}

Tensor gather(const Node& n, const Tensor& x, const Tensor& idx) {
  const int64_t axis = fix_axis(n.attr_int("axis", 0), x.rank());
  const int64_t q = idx.rank();
  Shape out(x.shape().begin(), x.shape().begin() + axis);
  for (int64_t d : idx.shape()) out.push_back(d);
  for (int64_t d = axis + 1; d < x.rank(); ++d) out.push_back(x.dim(static_cast<int>(d)));
  return generate(x.dtype(), out, [&](const Index& i) {
    Index ii(i.begin() + axis, i.begin() + axis + q);
    int64_t k = static_cast<int64_t>(value_at(idx, ravel(ii, idx.shape())));
    if (k < 0) k += x.dim(static_cast<int>(axis));
    Index j(i.begin(), i.begin() + axis);
    j.push_back(k);
    j.insert(j.end(), i.begin() + axis + q, i.end());
    return value_at(x, ravel(j, x.shape()));
  });
}

std::vector<int64_t> axes_of(const Node& n, const std::vector<Tensor>& in, int64_t opset) {
  if (opset >= 13) return present(in, 1) ? ints(in[1]) : std::vector<int64_t>{};
  return n.attr_ints("axes");
}

Tensor unsqueeze(const Node& n, const std::vector<Tensor>& in, int64_t opset) {
  const Tensor& x = in[0];
  std::vector<int64_t> axes = axes_of(n, in, opset);
  const int64_t rank = x.rank() + static_cast<int64_t>(axes.size());
  for (int64_t& a : axes) a = fix_axis(a, rank);
  Shape out;
  int k = 0;
  for (int64_t d = 0; d < rank; ++d)
    out.push_back(std::count(axes.begin(), axes.end(), d) ? 1 : x.dim(k++));
  return with_shape(x, out);
}

Tensor squeeze(const Node& n, const std::vector<Tensor>& in, int64_t opset) {
  const Tensor& x = in[0];
  std::vector<int64_t> axes = axes_of(n, in, opset);
  for (int64_t& a : axes) a = fix_axis(a, x.rank());
  Shape out;
  for (int64_t d = 0; d < x.rank(); ++d) {
    const bool listed = std::count(axes.begin(), axes.end(), d) != 0;
    if (axes.empty() ? x.dim(static_cast<int>(d)) != 1 : !listed)
      out.push_back(x.dim(static_cast<int>(d)));
  }
  return with_shape(x, out);
}

Tensor flatten(const Node& n, const Tensor& x) {
  const int64_t axis = fix_axis(n.attr_int("axis", 1), x.rank());
  int64_t rows = 1;
  for (int64_t d = 0; d < axis; ++d) rows *= x.dim(static_cast<int>(d));
  return with_shape(x, {rows, x.numel() / rows});
}

Tensor expand(const Tensor& x, const Tensor& shape) {
  return generate(x.dtype(), broadcast(x.shape(), ints(shape)),
                  [&](const Index& i) { return broadcast_read(x, i); });
}

Tensor tile(const Tensor& x, const Tensor& reps) {
  const std::vector<int64_t> r = ints(reps);
  Shape out = x.shape();
  for (size_t d = 0; d < out.size(); ++d) out[d] *= r[d];
  return generate(x.dtype(), out, [&](const Index& i) {
    Index j(i.size());
    for (size_t d = 0; d < i.size(); ++d) j[d] = i[d] % x.dim(static_cast<int>(d));
    return value_at(x, ravel(j, x.shape()));
  });
}

// ---- shape and constants -----------------------------------------------------------------

Tensor shape_op(const Node& n, const Tensor& x, int64_t opset) {
  const int64_t rank = x.rank();
  int64_t start = opset >= 15 ? n.attr_int("start", 0) : 0;
  int64_t end = opset >= 15 ? n.attr_int("end", rank) : rank;
  start = std::clamp<int64_t>(fix_axis(start, rank), 0, rank);
  end = std::clamp<int64_t>(fix_axis(end, rank), 0, rank);
  std::vector<int64_t> dims;
  for (int64_t d = start; d < end; ++d) dims.push_back(x.dim(static_cast<int>(d)));
  return Tensor::from_vector<int64_t>({static_cast<int64_t>(dims.size())}, dims);
}

Tensor constant(const Node& n) {
  if (n.has_attr("value")) return n.attrs.at("value").t.clone();
  if (n.has_attr("value_float")) return Tensor::scalar<float>(n.attr_float("value_float", 0));
  if (n.has_attr("value_int")) return Tensor::scalar<int64_t>(n.attr_int("value_int", 0));
  if (n.has_attr("value_floats")) {
    auto v = n.attr_floats("value_floats");
    return Tensor::from_vector<float>({static_cast<int64_t>(v.size())}, v);
  }
  auto v = n.attr_ints("value_ints");
  return Tensor::from_vector<int64_t>({static_cast<int64_t>(v.size())}, v);
}

Tensor cast(const Node& n, const Tensor& x) {
  const DType to = static_cast<DType>(n.attr_int("to", 1));
  return generate(to, x.shape(), [&](const Index& i) {
    const double v = value_at(x, ravel(i, x.shape()));
    return to == DType::kBool
               ? (v != 0 ? 1.0 : 0.0)
               : (to == DType::kFloat32 || to == DType::kFloat64 ? v : std::trunc(v));
  });
}

Tensor constant_of_shape(const Node& n, const Tensor& shape) {
  DType dt = DType::kFloat32;
  double v = 0;
  if (n.has_attr("value")) {
    dt = n.attrs.at("value").t.dtype();
    v = value_at(n.attrs.at("value").t, 0);
  }
  return generate(dt, ints(shape), [&](const Index&) { return v; });
}

Tensor range(const Tensor& start, const Tensor& limit, const Tensor& delta) {
  const double s = value_at(start, 0), l = value_at(limit, 0), d = value_at(delta, 0);
  std::vector<double> v;
  for (double x = s; d > 0 ? x < l : x > l; x += d) v.push_back(x);
  return generate(start.dtype(), {static_cast<int64_t>(v.size())},
                  [&](const Index& i) { return v[i[0]]; });
}

// ---- pooling and convolution -------------------------------------------------------------

// Output length and begin pad of one spatial axis under the ONNX pooling/conv rules.
struct AxisGeom {
  int64_t out, pad_begin, pad_end;
};

AxisGeom axis_geom(int64_t in, int64_t k, int64_t s, int64_t d, int64_t p0, int64_t p1,
                   const std::string& auto_pad, bool ceil_mode) {
  const int64_t eff = d * (k - 1) + 1;
  if (auto_pad == "VALID") {
    return {static_cast<int64_t>(std::ceil(static_cast<double>(in - eff + 1) / s)), 0, 0};
  }
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    const int64_t out = static_cast<int64_t>(std::ceil(static_cast<double>(in) / s));
    const int64_t total = std::max<int64_t>(0, (out - 1) * s + eff - in);
    const int64_t small = total / 2, big = total - small;
    return auto_pad == "SAME_UPPER" ? AxisGeom{out, small, big} : AxisGeom{out, big, small};
  }
  const double q = static_cast<double>(in + p0 + p1 - eff) / s;
  int64_t out = static_cast<int64_t>(ceil_mode ? std::ceil(q) : std::floor(q)) + 1;
  if (ceil_mode && (out - 1) * s >= in + p0) out -= 1;
  return {out, p0, p1};
}

struct SpatialAttrs {
  std::vector<int64_t> k, s, d, p;
  std::string auto_pad;
  bool ceil_mode;
};

SpatialAttrs spatial_attrs(const Node& n, size_t sp, const std::vector<int64_t>& kernel) {
  SpatialAttrs a;
  a.k = kernel;
  a.s = n.attr_ints("strides", std::vector<int64_t>(sp, 1));
  a.d = n.attr_ints("dilations", std::vector<int64_t>(sp, 1));
  a.p = n.attr_ints("pads", std::vector<int64_t>(2 * sp, 0));
  a.auto_pad = n.attr_string("auto_pad", "NOTSET");
  a.ceil_mode = n.attr_int("ceil_mode", 0) != 0;
  return a;
}

Tensor pool(const Node& n, const Tensor& x) {
  const bool is_max = n.op_type == "MaxPool";
  const bool include_pad = n.attr_int("count_include_pad", 0) != 0;
  const size_t sp = x.rank() - 2;
  const SpatialAttrs a = spatial_attrs(n, sp, n.attr_ints("kernel_shape"));
  std::vector<AxisGeom> g;
  Shape out = {x.dim(0), x.dim(1)};
  for (size_t i = 0; i < sp; ++i) {
    g.push_back(axis_geom(x.dim(static_cast<int>(2 + i)), a.k[i], a.s[i], a.d[i], a.p[i],
                          a.p[i + sp], a.auto_pad, a.ceil_mode));
    out.push_back(g.back().out);
  }
  return generate(x.dtype(), out, [&](const Index& o) {
    double acc = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
    int64_t valid = 0, padded = 0;
    const int64_t taps = shape_numel(Shape(a.k.begin(), a.k.end()));
    for (int64_t t = 0; t < taps; ++t) {
      const Index tap = unravel(t, Shape(a.k.begin(), a.k.end()));
      Index j = {o[0], o[1]};
      bool inside = true, in_padded = true;
      for (size_t i = 0; i < sp; ++i) {
        const int64_t pos = o[2 + i] * a.s[i] - g[i].pad_begin + tap[i] * a.d[i];
        const int64_t len = x.dim(static_cast<int>(2 + i));
        inside = inside && pos >= 0 && pos < len;
        in_padded = in_padded && pos >= -g[i].pad_begin && pos < len + g[i].pad_end;
        j.push_back(pos);
      }
      if (in_padded) ++padded;
      if (!inside) continue;
      const double v = value_at(x, ravel(j, x.shape()));
      acc = is_max ? std::max(acc, v) : acc + v;
      ++valid;
    }
    if (is_max) return acc;
    return acc / static_cast<double>(include_pad ? padded : valid);
  });
}

Tensor global_pool(const Node& n, const Tensor& x) {
  const bool is_max = n.op_type == "GlobalMaxPool";
  Shape out(x.rank(), 1);
  out[0] = x.dim(0);
  out[1] = x.dim(1);
  const int64_t area = x.numel() / (x.dim(0) * x.dim(1));
  return generate(x.dtype(), out, [&](const Index& o) {
    double acc = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
    for (int64_t k = 0; k < area; ++k) {
      const double v = value_at(x, (o[0] * x.dim(1) + o[1]) * area + k);
      acc = is_max ? std::max(acc, v) : acc + v;
    }
    return is_max ? acc : acc / static_cast<double>(area);
  });
}

Tensor conv(const Node& n, const std::vector<Tensor>& in) {
  const Tensor& x = in[0];
  const Tensor& w = in[1];
  const bool has_bias = present(in, 2);
  const int64_t group = n.attr_int("group", 1);
  const size_t sp = x.rank() - 2;
  std::vector<int64_t> kernel(w.shape().begin() + 2, w.shape().end());
  const SpatialAttrs a = spatial_attrs(n, sp, kernel);
  std::vector<AxisGeom> g;
  Shape out = {x.dim(0), w.dim(0)};
  for (size_t i = 0; i < sp; ++i) {
    g.push_back(axis_geom(x.dim(static_cast<int>(2 + i)), a.k[i], a.s[i], a.d[i], a.p[i],
                          a.p[i + sp], a.auto_pad, false));
    out.push_back(g.back().out);
  }
  const int64_t cin_per_group = w.dim(1);
  const int64_t cout_per_group = w.dim(0) / group;
  const Shape kshape(kernel.begin(), kernel.end());
  return generate(x.dtype(), out, [&](const Index& o) {
    const int64_t oc = o[1];
    const int64_t grp = oc / cout_per_group;
    double acc = has_bias ? value_at(in[2], oc) : 0.0;
    for (int64_t ic = 0; ic < cin_per_group; ++ic) {
      for (int64_t t = 0; t < shape_numel(kshape); ++t) {
        const Index tap = unravel(t, kshape);
        Index xi = {o[0], grp * cin_per_group + ic};
        bool inside = true;
        for (size_t i = 0; i < sp; ++i) {
          const int64_t pos = o[2 + i] * a.s[i] - g[i].pad_begin + tap[i] * a.d[i];
          inside = inside && pos >= 0 && pos < x.dim(static_cast<int>(2 + i));
          xi.push_back(pos);
        }
        if (!inside) continue;
        Index wi = {oc, ic};
        wi.insert(wi.end(), tap.begin(), tap.end());
        acc += value_at(x, ravel(xi, x.shape())) * value_at(w, ravel(wi, w.shape()));
      }
    }
    return acc;
  });
}

// ---- resize ------------------------------------------------------------------------------

// As ONNX's reference: `resized` is the requested size, or in_len * scale when scales are given
// (not rounded down).
float source_coord(const std::string& mode, float x, float scale, int64_t in_len, double resized) {
  if (mode == "asymmetric") return x / scale;
  if (mode == "half_pixel") return (x + 0.5f) / scale - 0.5f;
  if (mode == "pytorch_half_pixel") return resized > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
  if (mode == "tf_half_pixel_for_nn") return (x + 0.5f) / scale;
  if (mode == "align_corners")
    return resized == 1 ? 0.0f : static_cast<float>(x * (in_len - 1) / (resized - 1));
  throw std::runtime_error("ref: coordinate mode " + mode);
}

int64_t nearest(const std::string& mode, float c, int64_t in_len) {
  double r;
  const double fl = std::floor(c), frac = c - fl;
  if (mode == "floor")
    r = fl;
  else if (mode == "ceil")
    r = std::ceil(c);
  else if (mode == "round_prefer_ceil")
    r = frac >= 0.5 ? fl + 1 : fl;
  else
    r = frac > 0.5 ? fl + 1 : fl;  // round_prefer_floor
  return std::clamp<int64_t>(static_cast<int64_t>(r), 0, in_len - 1);
}

Tensor resize(const Node& n, const std::vector<Tensor>& in, int64_t opset) {
  const Tensor& x = in[0];
  const bool legacy = n.op_type == "Upsample" || opset < 11;
  std::string mode = n.attr_string("mode", "nearest");
  if (mode == "bilinear") mode = "linear";
  const std::string coord =
      legacy ? "asymmetric" : n.attr_string("coordinate_transformation_mode", "half_pixel");
  const std::string nmode = legacy ? "floor" : n.attr_string("nearest_mode", "round_prefer_floor");
  const int64_t rank = x.rank();
  std::vector<float> scales(rank, 1.0f);
  Shape out = x.shape();
  const bool sizes_given = !legacy && present(in, 3) && in[3].numel() > 0;
  if (legacy) {
    for (int64_t d = 0; d < rank; ++d) {
      scales[d] = static_cast<float>(value_at(in[1], d));
      out[d] = static_cast<int64_t>(std::floor(x.dim(static_cast<int>(d)) * scales[d]));
    }
  } else if (present(in, 3) && in[3].numel() > 0) {
    for (int64_t d = 0; d < rank; ++d) {
      out[d] = static_cast<int64_t>(value_at(in[3], d));
      scales[d] = static_cast<float>(out[d]) / static_cast<float>(x.dim(static_cast<int>(d)));
    }
  } else {
    for (int64_t d = 0; d < rank; ++d) {
      scales[d] = static_cast<float>(value_at(in[2], d));
      out[d] = static_cast<int64_t>(std::floor(x.dim(static_cast<int>(d)) * scales[d]));
    }
  }
  std::vector<double> resized(rank);
  for (int64_t d = 0; d < rank; ++d)
    resized[d] = sizes_given ? static_cast<double>(out[d])
                             : static_cast<double>(x.dim(static_cast<int>(d))) * scales[d];
  if (mode == "nearest") {
    return generate(x.dtype(), out, [&](const Index& o) {
      Index j(rank);
      for (int64_t d = 0; d < rank; ++d) {
        const float c = source_coord(coord, static_cast<float>(o[d]), scales[d],
                                     x.dim(static_cast<int>(d)), resized[d]);
        j[d] = nearest(nmode, c, x.dim(static_cast<int>(d)));
      }
      return value_at(x, ravel(j, x.shape()));
    });
  }
  // Bilinear on the last two axes: a weighted sum of the four neighbours.
  return generate(x.dtype(), out, [&](const Index& o) {
    int64_t lo[2], hi[2];
    double w[2];
    for (int k = 0; k < 2; ++k) {
      const int64_t d = rank - 2 + k;
      const int64_t len = x.dim(static_cast<int>(d));
      float c = source_coord(coord, static_cast<float>(o[d]), scales[d], len, resized[d]);
      if (c < 0) c = 0;
      if (c > len - 1) c = static_cast<float>(len - 1);
      lo[k] = static_cast<int64_t>(std::floor(c));
      hi[k] = std::min<int64_t>(lo[k] + 1, len - 1);
      w[k] = c - lo[k];
    }
    double acc = 0;
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 2; ++b) {
        Index j = o;
        j[rank - 2] = a ? hi[0] : lo[0];
        j[rank - 1] = b ? hi[1] : lo[1];
        const double wt = (a ? w[0] : 1 - w[0]) * (b ? w[1] : 1 - w[1]);
        acc += wt * value_at(x, ravel(j, x.shape()));
      }
    return acc;
  });
}

// ---- matmul, gemm, softmax ---------------------------------------------------------------

Tensor matmul(const Tensor& a, const Tensor& b) {
  Shape as = a.shape(), bs = b.shape();
  const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  if (a_vec) as.insert(as.begin(), 1);
  if (b_vec) bs.push_back(1);
  const Tensor A = with_shape(a, as), B = with_shape(b, bs);
  const int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  const Shape batch = broadcast(Shape(as.begin(), as.end() - 2), Shape(bs.begin(), bs.end() - 2));
  Shape full = batch;
  full.push_back(M);
  full.push_back(N);
  Tensor y = generate(a.dtype(), full, [&](const Index& o) {
    double acc = 0;
    for (int64_t k = 0; k < K; ++k) {
      Index ia = o, ib = o;
      ia[ia.size() - 1] = k;
      ib[ib.size() - 2] = k;
      // Right-aligned broadcast read of the batch dims.
      Index ja(as.size()), jb(bs.size());
      for (size_t d = 0; d < as.size(); ++d) {
        const int64_t v = ia[d + ia.size() - as.size()];
        ja[d] = (d + 2 < as.size() && as[d] == 1) ? 0 : v;
      }
      for (size_t d = 0; d < bs.size(); ++d) {
        const int64_t v = ib[d + ib.size() - bs.size()];
        jb[d] = (d + 2 < bs.size() && bs[d] == 1) ? 0 : v;
      }
      acc += value_at(A, ravel(ja, as)) * value_at(B, ravel(jb, bs));
    }
    return acc;
  });
  Shape final_shape = batch;
  if (!a_vec) final_shape.push_back(M);
  if (!b_vec) final_shape.push_back(N);
  return with_shape(y, final_shape);
}

Tensor gemm(const Node& n, const std::vector<Tensor>& in) {
  const Tensor &a = in[0], &b = in[1];
  const bool ta = n.attr_int("transA", 0) != 0, tb = n.attr_int("transB", 0) != 0;
  const double alpha = n.attr_float("alpha", 1.0f), beta = n.attr_float("beta", 1.0f);
  const int64_t M = ta ? a.dim(1) : a.dim(0), K = ta ? a.dim(0) : a.dim(1);
  const int64_t N = tb ? b.dim(0) : b.dim(1);
  return generate(a.dtype(), {M, N}, [&](const Index& o) {
    double acc = 0;
    for (int64_t k = 0; k < K; ++k) {
      const double av = ta ? value_at(a, k * M + o[0]) : value_at(a, o[0] * K + k);
      const double bv = tb ? value_at(b, o[1] * K + k) : value_at(b, k * N + o[1]);
      acc += av * bv;
    }
    double c = present(in, 2) ? broadcast_read(in[2], o) : 0.0;
    return alpha * acc + beta * c;
  });
}

Tensor softmax(const Node& n, const Tensor& x, int64_t opset) {
  const bool log = n.op_type == "LogSoftmax";
  const int64_t rank = x.rank();
  // Elements normalized together share every index outside the [a0, a1) axis range.
  int64_t a0, a1;
  if (opset >= 13) {
    a0 = fix_axis(n.attr_int("axis", -1), rank);
    a1 = a0 + 1;
  } else {
    a0 = fix_axis(n.attr_int("axis", 1), rank);
    a1 = rank;
  }
  const Shape group(x.shape().begin() + a0, x.shape().begin() + a1);
  return generate(x.dtype(), x.shape(), [&](const Index& o) {
    double m = -std::numeric_limits<double>::infinity();
    std::vector<double> vals;
    for (int64_t g = 0; g < shape_numel(group); ++g) {
      const Index gi = unravel(g, group);
      Index j = o;
      for (int64_t d = a0; d < a1; ++d) j[d] = gi[d - a0];
      vals.push_back(value_at(x, ravel(j, x.shape())));
      m = std::max(m, vals.back());
    }
    double sum = 0;
    for (double v : vals) sum += std::exp(v - m);
    const double v = value_at(x, ravel(o, x.shape()));
    return log ? v - m - std::log(sum) : std::exp(v - m) / sum;
  });
}

}  // namespace

double value_at(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kFloat32:
      return t.data<float>()[i];
    case DType::kFloat64:
      return t.data<double>()[i];
    case DType::kInt64:
      return static_cast<double>(t.data<int64_t>()[i]);
    case DType::kInt32:
      return t.data<int32_t>()[i];
    case DType::kInt16:
      return t.data<int16_t>()[i];
    case DType::kUInt16:
      return t.data<uint16_t>()[i];
    case DType::kInt8:
      return t.data<int8_t>()[i];
    case DType::kUInt8:
      return t.data<uint8_t>()[i];
    case DType::kBool:
      return t.data<bool>()[i] ? 1.0 : 0.0;
    default:
      throw std::runtime_error("ref: cannot read type " + dtype_name(t.dtype()));
  }
}

Tensor to_nhwc(const Tensor& x) {
  const Shape s = x.shape();
  return generate(x.dtype(), {s[0], s[2], s[3], s[1]}, [&](const Index& i) {
    return value_at(x, ravel({i[0], i[3], i[1], i[2]}, s));
  });
}

Tensor to_nchw(const Tensor& x) {
  const Shape s = x.shape();
  return generate(x.dtype(), {s[0], s[3], s[1], s[2]}, [&](const Index& i) {
    return value_at(x, ravel({i[0], i[2], i[3], i[1]}, s));
  });
}

std::vector<Tensor> run(const Node& n, const std::vector<Tensor>& in, int64_t opset) {
  const std::string& op = n.op_type;
  if (op == "Sigmoid" || op == "Relu" || op == "Tanh" || op == "Exp" || op == "Sqrt" ||
      op == "Neg" || op == "Abs")
    return {unary(op, in[0])};
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Pow")
    return {binary(op, in[0], in[1])};
  if (op == "Clip" || op == "HardSigmoid" || op == "HardSwish" || op == "LeakyRelu")
    return {param_unary(n, in, opset)};
  if (op == "ReduceMean" || op == "ReduceMax" || op == "ReduceSum") return {reduce(n, in, opset)};
  if (op == "Concat") return {concat(n, in)};
  if (op == "Split") return split(n, in, opset);
  if (op == "Slice") return {slice(n, in, opset)};
  if (op == "Reshape") return {reshape(n, in)};
  if (op == "Transpose") return {transpose(n, in[0])};
  if (op == "Gather") return {gather(n, in[0], in[1])};
  if (op == "Unsqueeze") return {unsqueeze(n, in, opset)};
  if (op == "Squeeze") return {squeeze(n, in, opset)};
  if (op == "Flatten") return {flatten(n, in[0])};
  if (op == "Expand") return {expand(in[0], in[1])};
  if (op == "Tile") return {tile(in[0], in[1])};
  if (op == "Shape") return {shape_op(n, in[0], opset)};
  if (op == "Constant") return {constant(n)};
  if (op == "Cast") return {cast(n, in[0])};
  if (op == "Identity") return {in[0].clone()};
  if (op == "ConstantOfShape") return {constant_of_shape(n, in[0])};
  if (op == "Range") return {range(in[0], in[1], in[2])};
  if (op == "MaxPool" || op == "AveragePool") return {pool(n, in[0])};
  if (op == "GlobalMaxPool" || op == "GlobalAveragePool") return {global_pool(n, in[0])};
  if (op == "Conv") return {conv(n, in)};
  if (op == "Resize" || op == "Upsample") return {resize(n, in, opset)};
  if (op == "MatMul") return {matmul(in[0], in[1])};
  if (op == "Gemm") return {gemm(n, in)};
  if (op == "Softmax" || op == "LogSoftmax") return {softmax(n, in[0], opset)};
  throw std::runtime_error("ref: no reference for " + op);
}

}  // namespace edgeq::ref

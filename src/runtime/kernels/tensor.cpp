// Data movement operators: Slice, Reshape, Transpose, Gather, Unsqueeze, Squeeze, Flatten,
// Expand, Tile (Concat and Split: concat_split.cpp). All are type-agnostic (they move bytes).
#include <algorithm>
#include <cstring>
#include <limits>

#include "runtime/fake_quant.h"
#include "runtime/int8_lowering.h"
#include "runtime/kernel.h"
#include "runtime/kernels/byte_lut.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/registry.h"
#include "runtime/layout.h"

namespace edgeq {
namespace {

// Axes from attribute `axes` (before `input_opset`) or from constant input 1 (from it on).
// Returns false when neither is given.
bool read_axes(const KernelInit& init, int64_t input_opset, std::vector<int64_t>& axes) {
  if (init.opset >= input_opset) {
    if (!init.has_input(1)) return false;
    axes = init.constant_ints(1);
    return true;
  }
  if (!init.node.has_attr("axes")) return false;
  axes = init.node.attr_ints("axes");
  return true;
}

// ---- Strided views: Slice, Transpose, Expand ------------------------------------------

// Output = a strided view of input 0: output element (i_0, ..., i_n) reads input element
// offset_ + sum_d i_d * strides_[d]. Subclasses set strides_, offset_ and the output.
class StridedViewKernel : public Kernel {
 public:
  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    Tensor& y = *out[0];
    if (y.numel() == 0) return;
    copy_strided(y.raw(), in[0]->raw(), dtype_size(y.dtype()), y.shape(), strides_, offset_);
  }

 protected:
  std::vector<int64_t> strides_;
  int64_t offset_ = 0;
};

// ---- Slice -------------------------------------------------------------------------------

class SliceKernel : public StridedViewKernel {
 public:
  explicit SliceKernel(const KernelInit& init) {
    const ValueDesc& x = init.in(0);
    const Node& node = init.node;
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    std::vector<int64_t> starts, ends, axes, steps;
    if (init.opset < 10) {
      starts = node.attr_ints("starts");
      ends = node.attr_ints("ends");
      axes = node.attr_ints("axes");
    } else {
      starts = init.constant_ints(1);
      ends = init.constant_ints(2);
      if (init.has_input(3)) axes = init.constant_ints(3);
      if (init.has_input(4)) steps = init.constant_ints(4);
    }
    EDGEQ_CHECK(starts.size() == ends.size(), node.describe(),
                ": starts and ends differ in length");
    if (axes.empty())
      for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
    if (steps.empty()) steps.assign(starts.size(), 1);
    EDGEQ_CHECK(axes.size() == starts.size() && steps.size() == starts.size(), node.describe(),
                ": starts/ends/axes/steps lengths differ");

    Shape out = x.shape;
    const std::vector<int64_t> in_strides = contiguous_strides(x.shape);
    strides_ = in_strides;
    offset_ = 0;
    std::vector<bool> seen(rank, false);
    for (size_t i = 0; i < axes.size(); ++i) {
      const int64_t a = normalize_axis(axes[i], rank, node);
      EDGEQ_CHECK(!seen[a], node.describe(), ": axis ", a, " repeated");
      seen[a] = true;
      const int64_t dim = x.shape[a], step = steps[i];
      EDGEQ_CHECK(step != 0, node.describe(), ": step 0 on axis ", a);
      int64_t s = starts[i], e = ends[i];
      if (s < 0) s += dim;
      if (e < 0) e += dim;
      int64_t count;
      if (dim == 0) {
        count = 0;
      } else if (step > 0) {
        s = std::clamp<int64_t>(s, 0, dim);
        e = std::clamp<int64_t>(e, 0, dim);
        count = e > s ? (e - s + step - 1) / step : 0;
      } else {
        s = std::clamp<int64_t>(s, 0, dim - 1);
        e = std::clamp<int64_t>(e, -1, dim - 1);
        count = s > e ? (s - e + (-step) - 1) / (-step) : 0;
      }
      out[a] = count;
      if (count > 0) offset_ += s * in_strides[a];
      strides_[a] = in_strides[a] * step;
    }
    outputs.push_back({x.dtype, out, nullptr});
  }
};

// ---- Reshape-like ops: same bytes, new shape ------------------------------------------------

class CopyKernel : public Kernel {
 public:
  CopyKernel(DType dtype, Shape shape) { outputs.push_back({dtype, std::move(shape), nullptr}); }
  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    if (out[0]->raw() != in[0]->raw() && in[0]->nbytes())
      std::memcpy(out[0]->raw(), in[0]->raw(), in[0]->nbytes());
  }
};

std::unique_ptr<Kernel> make_reshape(const KernelInit& init) {
  const ValueDesc& x = init.in(0);
  const Node& node = init.node;
  std::vector<int64_t> target = init.opset < 5 ? node.attr_ints("shape") : init.constant_ints(1);
  const bool allowzero = node.attr_int("allowzero", 0) != 0;
  Shape out(target.size());
  int64_t infer = -1, known = 1;
  for (size_t i = 0; i < target.size(); ++i) {
    int64_t d = target[i];
    if (d == 0 && !allowzero) {
      EDGEQ_CHECK(i < x.shape.size(), node.describe(), ": shape entry 0 at index ", i,
                  " beyond input rank ", x.shape.size());
      d = x.shape[i];
    }
    if (d == -1) {
      EDGEQ_CHECK(infer < 0, node.describe(), ": more than one -1 in shape");
      infer = static_cast<int64_t>(i);
      continue;
    }
    EDGEQ_CHECK(d >= 0 && !__builtin_mul_overflow(known, d, &known), node.describe(),
                ": invalid shape entry ", d);
    out[i] = d;
  }
  const int64_t n = shape_numel(x.shape);
  if (infer >= 0) {
    EDGEQ_CHECK(known > 0 && n % known == 0, node.describe(), ": cannot reshape ",
                shape_str(x.shape), " to ", shape_str(target));
    out[infer] = n / known;
  }
  EDGEQ_CHECK(shape_numel(out) == n, node.describe(), ": cannot reshape ", shape_str(x.shape),
              " to ", shape_str(out));
  return std::make_unique<CopyKernel>(x.dtype, out);
}

std::unique_ptr<Kernel> make_unsqueeze(const KernelInit& init) {
  const ValueDesc& x = init.in(0);
  std::vector<int64_t> axes;
  EDGEQ_CHECK(read_axes(init, 13, axes), init.node.describe(), ": missing axes");
  const int64_t rank = static_cast<int64_t>(x.shape.size() + axes.size());
  std::vector<bool> is_new(rank, false);
  for (int64_t a : axes) {
    const int64_t n = normalize_axis(a, rank, init.node);
    EDGEQ_CHECK(!is_new[n], init.node.describe(), ": axis ", a, " repeated");
    is_new[n] = true;
  }
  Shape out;
  size_t k = 0;
  for (int64_t i = 0; i < rank; ++i) out.push_back(is_new[i] ? 1 : x.shape[k++]);
  return std::make_unique<CopyKernel>(x.dtype, out);
}

std::unique_ptr<Kernel> make_squeeze(const KernelInit& init) {
  const ValueDesc& x = init.in(0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> axes;
  std::vector<bool> drop(rank, false);
  if (read_axes(init, 13, axes)) {
    for (int64_t a : axes) {
      const int64_t n = normalize_axis(a, rank, init.node);
      EDGEQ_CHECK(x.shape[n] == 1, init.node.describe(), ": cannot squeeze axis ", a, " of size ",
                  x.shape[n]);
      drop[n] = true;
    }
  } else {
    for (int64_t i = 0; i < rank; ++i) drop[i] = x.shape[i] == 1;
  }
  Shape out;
  for (int64_t i = 0; i < rank; ++i)
    if (!drop[i]) out.push_back(x.shape[i]);
  return std::make_unique<CopyKernel>(x.dtype, out);
}

std::unique_ptr<Kernel> make_flatten(const KernelInit& init) {
  const ValueDesc& x = init.in(0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = init.node.attr_int("axis", 1);
  if (axis < 0) axis += rank;
  EDGEQ_CHECK(axis >= 0 && axis <= rank, init.node.describe(), ": axis ", axis,
              " out of range for rank ", rank);
  return std::make_unique<CopyKernel>(
      x.dtype, Shape{product(x.shape, 0, axis), product(x.shape, axis, rank)});
}

// ---- Transpose ---------------------------------------------------------------------------

class TransposeKernel : public StridedViewKernel {
 public:
  explicit TransposeKernel(const KernelInit& init) {
    const ValueDesc& x = init.in(0);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    std::vector<int64_t> perm = init.node.attr_ints("perm");
    if (perm.empty())
      for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
    EDGEQ_CHECK(static_cast<int64_t>(perm.size()) == rank, init.node.describe(), ": perm has ",
                perm.size(), " entries for rank ", rank);
    const std::vector<int64_t> in_strides = contiguous_strides(x.shape);
    std::vector<bool> used(rank, false);
    Shape out;
    for (int64_t& p : perm) {
      p = normalize_axis(p, rank, init.node);
      EDGEQ_CHECK(!used[p], init.node.describe(), ": perm repeats axis ", p);
      used[p] = true;
      out.push_back(x.shape[p]);
      strides_.push_back(in_strides[p]);
    }
    outputs.push_back({x.dtype, out, nullptr});
    // perm = [0 .. p), [q .. rank), [p .. q): batches of [rows, cols] matrices transposed in tiles
    // (the attention's last two axes); other perms copy strided rows.
    int64_t p = 0;
    while (p < rank && perm[p] == p) ++p;
    const size_t es = dtype_size(x.dtype);
    if (p + 1 < rank && (es == 4 || es == 1)) {
      const int64_t q = perm[p];
      std::vector<int64_t> swapped(perm.begin(), perm.begin() + p);
      for (int64_t i = q; i < rank; ++i) swapped.push_back(i);
      for (int64_t i = p; i < q; ++i) swapped.push_back(i);
      if (perm == swapped) {
        matrices_ = true;
        batch_ = product(x.shape, 0, p);
        rows_ = product(x.shape, p, q);
        cols_ = product(x.shape, q, rank);
      }
    }
  }

  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    if (matrices_)
      transpose_matrices(*in[0], *out[0], batch_, rows_, cols_);
    else
      StridedViewKernel::run(in, out);
  }

 private:
  bool matrices_ = false;
  int64_t batch_ = 1, rows_ = 1, cols_ = 1;
};

// ---- Gather ------------------------------------------------------------------------------

class GatherKernel : public Kernel {
 public:
  explicit GatherKernel(const KernelInit& init) : node_(init.node.describe()) {
    const ValueDesc& x = init.in(0);
    const ValueDesc& idx = init.in(1);
    EDGEQ_CHECK(idx.dtype == DType::kInt64 || idx.dtype == DType::kInt32, node_,
                ": indices must be int32 or int64, got ", dtype_name(idx.dtype));
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    axis_ = normalize_axis(init.node.attr_int("axis", 0), rank, init.node);
    outer_ = product(x.shape, 0, axis_);
    dim_ = x.shape[axis_];
    inner_ = product(x.shape, axis_ + 1, rank);
    Shape out(x.shape.begin(), x.shape.begin() + axis_);
    out.insert(out.end(), idx.shape.begin(), idx.shape.end());
    out.insert(out.end(), x.shape.begin() + axis_ + 1, x.shape.end());
    outputs.push_back({x.dtype, out, nullptr});
  }
  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    const std::vector<int64_t> idx = in[1]->to_ints();
    const int64_t n = static_cast<int64_t>(idx.size());
    std::vector<int64_t> pos(n);
    for (int64_t j = 0; j < n; ++j) {
      int64_t k = idx[j] < 0 ? idx[j] + dim_ : idx[j];
      EDGEQ_CHECK(k >= 0 && k < dim_, node_, ": index ", idx[j], " out of range for axis size ",
                  dim_);
      pos[j] = k;
    }
    const size_t row = inner_ * dtype_size(in[0]->dtype());
    const char* src = bytes_of(*in[0]);
    char* dst = bytes_of(*out[0]);
    for (int64_t o = 0; o < outer_; ++o)
      for (int64_t j = 0; j < n; ++j)
        std::memcpy(dst + (o * n + j) * row, src + (o * dim_ + pos[j]) * row, row);
  }

 private:
  std::string node_;
  int64_t axis_ = 0, outer_ = 1, dim_ = 1, inner_ = 1;
};

// ---- Expand / Tile -----------------------------------------------------------------------

class ExpandKernel : public StridedViewKernel {
 public:
  explicit ExpandKernel(const KernelInit& init) {
    const ValueDesc& x = init.in(0);
    const Shape target = init.constant_ints(1);
    const Shape out = broadcast_shapes(x.shape, target, init.node);
    const std::vector<int64_t> in_strides = contiguous_strides(x.shape);
    const size_t lead = out.size() - x.shape.size();
    strides_.assign(out.size(), 0);
    for (size_t i = lead; i < out.size(); ++i)
      strides_[i] = x.shape[i - lead] == 1 ? 0 : in_strides[i - lead];
    outputs.push_back({x.dtype, out, nullptr});
  }
};

class TileKernel : public Kernel {
 public:
  explicit TileKernel(const KernelInit& init) {
    const ValueDesc& x = init.in(0);
    const std::vector<int64_t> reps = init.constant_ints(1);
    EDGEQ_CHECK(reps.size() == x.shape.size(), init.node.describe(), ": repeats has ", reps.size(),
                " entries for rank ", x.shape.size());
    Shape out = x.shape;
    for (size_t i = 0; i < reps.size(); ++i) {
      EDGEQ_CHECK(reps[i] >= 0, init.node.describe(), ": negative repeat ", reps[i]);
      out[i] *= reps[i];
    }
    in_shape_ = x.shape;
    outputs.push_back({x.dtype, out, nullptr});
  }
  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    Tensor& y = *out[0];
    const int64_t n = y.numel();
    if (n == 0) return;
    const size_t es = dtype_size(y.dtype());
    const Shape& os = y.shape();
    const int rank = static_cast<int>(os.size());
    const std::vector<int64_t> ostr = contiguous_strides(os), istr = contiguous_strides(in_shape_);
    const char* src = bytes_of(*in[0]);
    char* dst = bytes_of(y);
    for (int64_t i = 0; i < n; ++i) {
      int64_t rem = i, off = 0;
      for (int d = 0; d < rank; ++d) {
        const int64_t k = rem / ostr[d];
        rem -= k * ostr[d];
        off += (k % in_shape_[d]) * istr[d];
      }
      std::memcpy(dst + i * es, src + off * es, es);
    }
  }

 private:
  Shape in_shape_;
};

template <typename K>
void reg(const char* op) {
  register_kernel("", op, [](const KernelInit& i) { return std::make_unique<K>(i); });
}

}  // namespace

void register_tensor_kernels() {
  reg<SliceKernel>("Slice");
  reg<TransposeKernel>("Transpose");
  reg<GatherKernel>("Gather");
  reg<ExpandKernel>("Expand");
  reg<TileKernel>("Tile");
  register_kernel("", "Reshape", make_reshape);
  register_kernel("", "Unsqueeze", make_unsqueeze);
  register_kernel("", "Squeeze", make_squeeze);
  register_kernel("", "Flatten", make_flatten);
}

}  // namespace edgeq

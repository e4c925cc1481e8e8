// MatMul (N-D with NumPy batch broadcasting and 1-D operands) and Gemm (alpha, beta, transA,
// transB, broadcast C), float32, on one cache-blocked row kernel.
#include <algorithm>
#include <cstring>
#include <oneapi/dnnl/dnnl.hpp>
#include <vector>

#include "runtime/dnnl_context.h"
#include "runtime/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/registry.h"

namespace edgeq {
namespace {

constexpr int64_t kBlockN = 512;
constexpr int64_t kBlockK = 128;

// c[0..n) += alpha * sum_k a(k) * b[k, 0..n), where a(k) = a[k * a_step] and b is row-major
// [k, ldb]. One output row; the j loop vectorizes.
inline void row_times_matrix(const float* a, int64_t a_step, const float* b, int64_t ldb, float* c,
                             int64_t n, int64_t k, float alpha) {
  for (int64_t j0 = 0; j0 < n; j0 += kBlockN) {
    const int64_t j1 = std::min(n, j0 + kBlockN);
    for (int64_t k0 = 0; k0 < k; k0 += kBlockK) {
      const int64_t k1 = std::min(k, k0 + kBlockK);
      for (int64_t kk = k0; kk < k1; ++kk) {
        const float av = alpha * a[kk * a_step];
        const float* br = b + kk * ldb;
#pragma omp simd
        for (int64_t j = j0; j < j1; ++j) c[j] += av * br[j];
      }
    }
  }
}

// Batch broadcasting strides: element offset of each operand for every output batch index.
void batch_offsets(const Shape& a_batch, const Shape& b_batch, const Shape& out_batch,
                   int64_t a_mat, int64_t b_mat, std::vector<int64_t>& ao,
                   std::vector<int64_t>& bo) {
  const size_t r = out_batch.size();
  const int64_t n = shape_numel(out_batch);
  auto padded = [&](const Shape& s) {
    Shape p(r - s.size(), 1);
    p.insert(p.end(), s.begin(), s.end());
    return p;
  };
  const Shape pa = padded(a_batch), pb = padded(b_batch);
  const std::vector<int64_t> sa = contiguous_strides(pa), sb = contiguous_strides(pb),
                             so = contiguous_strides(out_batch);
  ao.assign(n, 0);
  bo.assign(n, 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t rem = i, oa = 0, ob = 0;
    for (size_t d = 0; d < r; ++d) {
      const int64_t k = rem / so[d];
      rem -= k * so[d];
      if (pa[d] != 1) oa += k * sa[d];
      if (pb[d] != 1) ob += k * sb[d];
    }
    ao[i] = oa * a_mat;
    bo[i] = ob * b_mat;
  }
}

class MatMulKernel : public Kernel {
 public:
  explicit MatMulKernel(const KernelInit& init) {
    const Node& node = init.node;
    const ValueDesc& a = init.in(0);
    const ValueDesc& b = init.in(1);
    EDGEQ_CHECK(a.dtype == DType::kFloat32 && b.dtype == DType::kFloat32, node.describe(),
                ": only float32 MatMul is supported");
    EDGEQ_CHECK(!a.shape.empty() && !b.shape.empty(), node.describe(), ": scalar operands");
    Shape as = a.shape, bs = b.shape;
    const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
    if (a_vec) as.insert(as.begin(), 1);
    if (b_vec) bs.push_back(1);
    m_ = as[as.size() - 2];
    k_ = as.back();
    n_ = bs.back();
    EDGEQ_CHECK(bs[bs.size() - 2] == k_, node.describe(),
                ": inner dimensions differ: ", shape_str(a.shape), " x ", shape_str(b.shape));
    const Shape ab(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2);
    const Shape batch = broadcast_shapes(ab, bb, node);
    batch_offsets(ab, bb, batch, m_ * k_, k_ * n_, a_off_, b_off_);
    Shape out = batch;
    if (!a_vec) out.push_back(m_);
    if (!b_vec) out.push_back(n_);
    outputs.push_back({DType::kFloat32, out, nullptr});
    // oneDNN takes the common cases: equal batch shapes, or a shared 2-D right operand.
    batches_ = shape_numel(batch);
    use_dnnl_ = ab == batch && (bb == batch || bb.empty());
    b_shared_ = bb.empty() && !batch.empty();
  }

  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    if (use_dnnl_) {
      run_dnnl(*in[0], *in[1], *out[0]);
      return;
    }
    const float* a = in[0]->data<float>();
    const float* b = in[1]->data<float>();
    float* y = out[0]->data<float>();
    const int64_t batches = static_cast<int64_t>(a_off_.size());
    const int64_t rows = batches * m_;
    std::memset(y, 0, sizeof(float) * rows * n_);
#pragma omp parallel for if (rows * n_ * k_ > kParallelNumel)
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t bi = r / m_, i = r % m_;
      row_times_matrix(a + a_off_[bi] + i * k_, 1, b + b_off_[bi], n_, y + r * n_, n_, k_, 1.0f);
    }
  }

 private:
  // oneDNN's GEMM splits its sums by the thread count on AVX2 (the attention MatMuls of
  // yolo11n-pose differ between 1 and 3 threads), so the product runs in fixed pieces: one batch
  // and up to kRowsPerCall rows each, every piece on one thread (oneDNN runs single-threaded inside
  // a parallel region). The pieces, and so the sums, are the same at any thread count.
  static constexpr int64_t kRowsPerCall = 32;

  // A row-major [1, rows, cols] float matrix.
  static dnnl::memory::desc piece_md(int64_t rows, int64_t cols) {
    return dnnl::memory::desc({1, rows, cols}, dnnl::memory::data_type::f32,
                              dnnl::memory::format_tag::abc);
  }

  // The pieces run the same primitive on several threads at once: each brings its own
  // scratchpad. (oneDNN's library-managed scratchpad belongs to the primitive unless oneDNN is
  // built for concurrent execution; its AVX-512 brgemm matmul keeps its sums there, so two
  // threads sharing it raced: the attention MatMuls of yolo11n-pose changed from run to run.)
  struct Piece {
    dnnl::matmul prim;
    dnnl::memory::desc scratchpad;
  };
  Piece piece_primitive(int64_t rows) const {
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::matmul::primitive_desc pd(
        dnnl::matmul::desc(piece_md(rows, k_), piece_md(k_, n_), piece_md(rows, n_)), attr,
        dnnl_engine());
    return {dnnl::matmul(pd), pd.scratchpad_desc()};
  }

  void run_dnnl(const Tensor& a, const Tensor& b, Tensor& y) {
    using dnnl::memory;
    const int64_t full = std::min(m_, kRowsPerCall), tail = m_ % full;
    if (!full_.prim) {
      full_ = piece_primitive(full);
      if (tail) tail_ = piece_primitive(tail);
    }
    const int64_t per_batch = (m_ + full - 1) / full, pieces = batches_ * per_batch;
    const float* ap = a.data<float>();
    const float* bp = b.data<float>();
    float* yp = y.data<float>();
#pragma omp parallel for schedule(static) if (pieces > 1)
    for (int64_t piece = 0; piece < pieces; ++piece) {
      const int64_t bi = piece / per_batch, r0 = (piece % per_batch) * full;
      const int64_t rows = std::min(full, m_ - r0);
      const Piece& prim = rows == full ? full_ : tail_;
      thread_local std::vector<uint8_t> scratch;
      if (scratch.size() < prim.scratchpad.get_size()) scratch.resize(prim.scratchpad.get_size());
      memory sm(prim.scratchpad, dnnl_engine(), scratch.data());
      memory am(piece_md(rows, k_), dnnl_engine(), const_cast<float*>(ap + (bi * m_ + r0) * k_));
      memory bm(piece_md(k_, n_), dnnl_engine(),
                const_cast<float*>(bp + (b_shared_ ? 0 : bi * k_ * n_)));
      memory ym(piece_md(rows, n_), dnnl_engine(), yp + (bi * m_ + r0) * n_);
      prim.prim.execute(dnnl_thread_stream(), {{DNNL_ARG_SRC, am},
                                               {DNNL_ARG_WEIGHTS, bm},
                                               {DNNL_ARG_DST, ym},
                                               {DNNL_ARG_SCRATCHPAD, sm}});
      dnnl_thread_stream().wait();
    }
  }

  int64_t m_ = 0, k_ = 0, n_ = 0, batches_ = 1;
  bool use_dnnl_ = false, b_shared_ = false;
  std::vector<int64_t> a_off_, b_off_;
  Piece full_, tail_;  // pieces of min(M, kRowsPerCall) rows, and the rest
};

class GemmKernel : public Kernel {
 public:
  explicit GemmKernel(const KernelInit& init) {
    const Node& node = init.node;
    const ValueDesc& a = init.in(0);
    const ValueDesc& b = init.in(1);
    EDGEQ_CHECK(a.dtype == DType::kFloat32 && b.dtype == DType::kFloat32, node.describe(),
                ": only float32 Gemm is supported");
    EDGEQ_CHECK(a.shape.size() == 2 && b.shape.size() == 2, node.describe(),
                ": A and B must be 2-D, got ", shape_str(a.shape), " and ", shape_str(b.shape));
    trans_a_ = node.attr_int("transA", 0) != 0;
    trans_b_ = node.attr_int("transB", 0) != 0;
    alpha_ = node.attr_float("alpha", 1.0f);
    beta_ = node.attr_float("beta", 1.0f);
    m_ = trans_a_ ? a.shape[1] : a.shape[0];
    k_ = trans_a_ ? a.shape[0] : a.shape[1];
    n_ = trans_b_ ? b.shape[0] : b.shape[1];
    const int64_t kb = trans_b_ ? b.shape[1] : b.shape[0];
    EDGEQ_CHECK(kb == k_, node.describe(), ": inner dimensions differ: A ", shape_str(a.shape),
                " B ", shape_str(b.shape));
    if (init.has_input(2)) {
      c_shape_ = init.in(2).shape;
      EDGEQ_CHECK(c_shape_.size() <= 2, node.describe(), ": C must have rank <= 2");
      const Shape bc = broadcast_shapes(c_shape_, Shape{m_, n_}, node);
      EDGEQ_CHECK(bc == (Shape{m_, n_}), node.describe(), ": C ", shape_str(c_shape_),
                  " does not broadcast to ", shape_str(Shape{m_, n_}));
      has_c_ = true;
    }
    if (trans_b_ && init.inputs[1].constant) b_packed_ = transpose(*init.inputs[1].constant);
    outputs.push_back({DType::kFloat32, Shape{m_, n_}, nullptr});
  }

  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    const float* a = in[0]->data<float>();
    float* y = out[0]->data<float>();
    // B as row-major [K, N].
    Tensor packed;
    const float* b = in[1]->data<float>();
    if (trans_b_) {
      if (b_packed_.raw() == nullptr) packed = transpose(*in[1]);
      b = (b_packed_.raw() == nullptr) ? packed.data<float>() : b_packed_.data<float>();
    }
    fill_c(has_c_ ? in[2] : nullptr, y);
    const int64_t a_row = trans_a_ ? 1 : k_, a_step = trans_a_ ? m_ : 1;
#pragma omp parallel for if (m_ * n_ * k_ > kParallelNumel)
    for (int64_t i = 0; i < m_; ++i)
      row_times_matrix(a + i * a_row, a_step, b, n_, y + i * n_, n_, k_, alpha_);
  }

 private:
  static Tensor transpose(const Tensor& t) {
    const int64_t r = t.dim(0), c = t.dim(1);
    Tensor o(DType::kFloat32, {c, r});
    const float* s = t.data<float>();
    float* d = o.data<float>();
    for (int64_t i = 0; i < r; ++i)
      for (int64_t j = 0; j < c; ++j) d[j * r + i] = s[i * c + j];
    return o;
  }

  // y = beta * broadcast(C), or 0 without C.
  void fill_c(const Tensor* c, float* y) const {
    if (!c || beta_ == 0.0f) {
      std::memset(y, 0, sizeof(float) * m_ * n_);
      return;
    }
    const Shape& s = c_shape_;
    const int64_t cm = s.size() == 2 ? s[0] : 1;
    const int64_t cn = s.empty() ? 1 : s.back();
    const float* cv = c->data<float>();
    for (int64_t i = 0; i < m_; ++i)
      for (int64_t j = 0; j < n_; ++j)
        y[i * n_ + j] = beta_ * cv[(cm == 1 ? 0 : i) * cn + (cn == 1 ? 0 : j)];
  }

  bool trans_a_ = false, trans_b_ = false, has_c_ = false;
  float alpha_ = 1.0f, beta_ = 1.0f;
  int64_t m_ = 0, k_ = 0, n_ = 0;
  Shape c_shape_;
  Tensor b_packed_;
};

}  // namespace

void register_matmul_kernels() {
  register_kernel("", "MatMul",
                  [](const KernelInit& i) { return std::make_unique<MatMulKernel>(i); });
  register_kernel("", "Gemm", [](const KernelInit& i) { return std::make_unique<GemmKernel>(i); });
}

}  // namespace edgeq

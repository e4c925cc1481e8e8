// Concat and Split: type-agnostic (they move bytes), and they also run on NHWC activations: the
// axis is logical, the tensors they get are physical.
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

// memcpy of one input's row into the output's (Concat) or back (Split): a short row whose size is a
// multiple of 16 bytes (an NHWC pixel's 16 to 256 channels of codes) in 16-byte moves the compiler
// inlines, which a call to memcpy with a size known only at run time costs several times over.
inline void copy_row(char* d, const char* s, int64_t n) {
  if (n % 16 != 0 || n > 256) return static_cast<void>(std::memcpy(d, s, size_t(n)));
  for (int64_t k = 0; k < n; k += 16) std::memcpy(d + k, s + k, 16);
}

// ---- Concat ------------------------------------------------------------------------------

class ConcatKernel : public Kernel {
 public:
  explicit ConcatKernel(const KernelInit& init) : layout_(init.layout) {
    const ValueDesc& first = init.in(0);
    rank_ = static_cast<int64_t>(first.shape.size());
    EDGEQ_CHECK(init.node.has_attr("axis"), init.node.describe(), ": missing attribute 'axis'");
    axis_ = normalize_axis(init.node.attr_int("axis", 0), rank_, init.node);
    Shape out = first.shape;
    out[axis_] = 0;
    for (size_t i = 0; i < init.inputs.size(); ++i) {
      const ValueDesc& d = init.in(i);
      EDGEQ_CHECK(d.dtype == first.dtype && static_cast<int64_t>(d.shape.size()) == rank_,
                  init.node.describe(), ": input ", i, " type/rank differs from input 0");
      for (int64_t k = 0; k < rank_; ++k)
        EDGEQ_CHECK(k == axis_ || d.shape[k] == first.shape[k], init.node.describe(), ": input ", i,
                    " shape ", shape_str(d.shape), " does not match ", shape_str(first.shape),
                    " off axis ", axis_);
      out[axis_] += d.shape[axis_];
    }
    outputs.push_back({first.dtype, out, nullptr});
    float_ = first.dtype == DType::kFloat32;
    observers_.resize(init.inputs.size());
    fq_ = (init.node).plan.out;
    EDGEQ_CHECK(!fq_.active() || float_, init.node.describe(),
                ": a fake-quant step needs a float output");
    applies_fake_quant = true;
    // Codes (--exec int8): one table per input mapping its codes to the output's; inputs already
    // on the output's grid are copied.
    const std::vector<int64_t>& tables = init.node.plan.requant;
    if (!tables.empty()) {
      EDGEQ_CHECK(first.dtype == DType::kUInt8 && tables.size() == 256 * init.inputs.size(),
                  init.node.describe(), ": re-encoding tables need uint8 codes, 256 per input");
      requant_.resize(init.inputs.size());
      for (size_t i = 0; i < init.inputs.size(); ++i) {
        bool identity = true;
        std::vector<uint8_t> t(256);
        for (int c = 0; c < 256; ++c) {
          t[c] = static_cast<uint8_t>(tables[i * 256 + c]);
          identity = identity && t[c] == c;
        }
        if (!identity) requant_[i] = std::move(t);
      }
    }
  }

  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    Tensor& y = *out[0];
    const int64_t pa = physical_axis(axis_, rank_, layout_);
    const size_t es = dtype_size(y.dtype());
    const int64_t outer = product(y.shape(), 0, pa);
    const int64_t out_row = product(y.shape(), pa, y.shape().size()) * es;
    // Byte width of each input's row; rows are assembled one output row at a time so the
    // output is written in order (NHWC channel concat has many short rows).
    std::vector<int64_t> rows;
    std::vector<const char*> srcs;
    for (const Tensor* x : in) {
      rows.push_back(product(x->shape(), pa, x->shape().size()) * es);
      srcs.push_back(bytes_of(*x));
    }
    char* dst = bytes_of(y);
    const size_t n_in = in.size();
    // Blocks of rows; with observers, each input's part of a block is handed over right after
    // it is copied, while in cache (an input's rows of a block are contiguous in it); with a
    // fake-quant step, the block is quantized then too.
    // With re-encoding tables, an input's rows of a block are re-encoded in one pass into a
    // per-thread buffer first (long runs for the vector lookup), then copied like the others.
    // Plain copies are blocked too: one row per block cost a heap allocation per NHWC pixel.
    const bool requant = !requant_.empty();
    const int64_t block = std::max<int64_t>(1, kBlockBytes / std::max<int64_t>(out_row, 1));
    const int64_t blocks = (outer + block - 1) / block;
    if (blocks < kFewBlocks && !requant) return copy_wide_rows(outer, out_row, rows, srcs, dst);
#pragma omp parallel for if (outer * out_row > (es == 1 ? kParallelBytes : kParallelNumel * 4))
    for (int64_t bk = 0; bk < blocks; ++bk) {
      const int64_t o0 = bk * block, o1 = std::min(outer, o0 + block);
      thread_local std::vector<char> recoded;
      std::vector<const char*> from(srcs);  // where input i's row o0 starts
      for (size_t i = 0; i < n_in; ++i) from[i] += o0 * rows[i];
      if (requant) {
        recoded.resize((o1 - o0) * out_row);
        char* r = recoded.data();
        for (size_t i = 0; i < n_in; ++i) {
          if (requant_[i].empty()) continue;
          byte_lut(reinterpret_cast<const uint8_t*>(from[i]), reinterpret_cast<uint8_t*>(r),
                   (o1 - o0) * rows[i], requant_[i].data());
          from[i] = r;
          r += (o1 - o0) * rows[i];
        }
      }
      for (int64_t o = o0; o < o1; ++o) {
        char* d = dst + o * out_row;
        for (size_t i = 0; i < n_in; ++i) {
          copy_row(d, from[i] + (o - o0) * rows[i], rows[i]);
          d += rows[i];
        }
      }
      if (fq_.active()) {
        float* f = reinterpret_cast<float*>(dst + o0 * out_row);
        fake_quant_span(f, f, (o1 - o0) * out_row / static_cast<int64_t>(sizeof(float)), fq_);
      }
      if (observed_)
        for (size_t i = 0; i < n_in; ++i)
          if (observers_[i])
            observers_[i](reinterpret_cast<const float*>(srcs[i] + o0 * rows[i]),
                          (o1 - o0) * rows[i] / static_cast<int64_t>(sizeof(float)));
    }
  }

  // Few long rows (a plain channel concat of one image: one row per input): each input's row in
  // pieces of kBlockBytes, the pieces shared among the threads; each piece's fake-quant step and
  // observer run right after it is copied.
  void copy_wide_rows(int64_t outer, int64_t out_row, const std::vector<int64_t>& rows,
                      const std::vector<const char*>& srcs, char* dst) {
    struct Piece {
      const char* from;
      char* to;
      int64_t bytes;
      size_t input;
    };
    std::vector<Piece> pieces;
    for (int64_t o = 0; o < outer; ++o) {
      char* d = dst + o * out_row;
      for (size_t i = 0; i < srcs.size(); ++i) {
        const char* from = srcs[i] + o * rows[i];
        for (int64_t b = 0; b < rows[i]; b += kBlockBytes)
          pieces.push_back({from + b, d + b, std::min(kBlockBytes, rows[i] - b), i});
        d += rows[i];
      }
    }
    const int64_t n = static_cast<int64_t>(pieces.size());
#pragma omp parallel for if (outer * out_row > kParallelNumel * 4)
    for (int64_t k = 0; k < n; ++k) {
      const Piece& p = pieces[k];
      std::memcpy(p.to, p.from, p.bytes);
      const int64_t values = p.bytes / static_cast<int64_t>(sizeof(float));
      if (fq_.active()) {
        float* f = reinterpret_cast<float*>(p.to);
        fake_quant_span(f, f, values, fq_);
      }
      if (observed_ && observers_[p.input])
        observers_[p.input](reinterpret_cast<const float*>(p.from), values);
    }
  }

  bool observe_input(size_t input, InputObserver fn) override {
    if (input >= observers_.size() || !float_) return false;
    observers_[input] = std::move(fn);
    observed_ = true;
    return true;
  }

 private:
  static constexpr int64_t kBlockBytes = 32 * 1024;
  static constexpr int64_t kFewBlocks = 8;  // fewer blocks of rows than this: copy_wide_rows
  Layout layout_;
  int64_t rank_ = 0, axis_ = 0;
  bool float_ = false, observed_ = false;
  FakeQuantParams fq_;                         // on the output
  std::vector<std::vector<uint8_t>> requant_;  // per input, empty when copied as is
  std::vector<InputObserver> observers_;       // per input
};

// ---- Split -------------------------------------------------------------------------------

class SplitKernel : public Kernel {
 public:
  explicit SplitKernel(const KernelInit& init) : layout_(init.layout) {
    const ValueDesc& x = init.in(0);
    const Node& node = init.node;
    rank_ = static_cast<int64_t>(x.shape.size());
    axis_ = normalize_axis(node.attr_int("axis", 0), rank_, node);
    const int64_t dim = x.shape[axis_];
    const int64_t n = static_cast<int64_t>(node.outputs.size());
    std::vector<int64_t> sizes;
    if (init.opset < 13 && node.has_attr("split")) {
      sizes = node.attr_ints("split");
    } else if (init.opset >= 13 && init.has_input(1)) {
      sizes = init.constant_ints(1);
    } else if (init.opset >= 18 && node.has_attr("num_outputs")) {
      const int64_t k = node.attr_int("num_outputs", n);
      EDGEQ_CHECK(k == n && k > 0, node.describe(), ": num_outputs ", k, " but ", n, " outputs");
      const int64_t chunk = (dim + k - 1) / k;
      for (int64_t i = 0; i < k; ++i)
        sizes.push_back(std::max<int64_t>(0, std::min(chunk, dim - i * chunk)));
    } else {
      EDGEQ_CHECK(n > 0 && dim % n == 0, node.describe(), ": axis size ", dim,
                  " cannot be split evenly into ", n, " outputs");
      sizes.assign(n, dim / n);
    }
    EDGEQ_CHECK(static_cast<int64_t>(sizes.size()) == n, node.describe(), ": ", sizes.size(),
                " split sizes for ", n, " outputs");
    int64_t total = 0;
    for (int64_t s : sizes) {
      EDGEQ_CHECK(s >= 0, node.describe(), ": negative split size ", s);
      total += s;
    }
    EDGEQ_CHECK(total == dim, node.describe(), ": split sizes sum to ", total, " but axis ", axis_,
                " has ", dim);
    for (int64_t s : sizes) {
      Shape o = x.shape;
      o[axis_] = s;
      outputs.push_back({x.dtype, o, nullptr});
    }
  }

  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    const Tensor& x = *in[0];
    const int64_t pa = physical_axis(axis_, rank_, layout_);
    const size_t es = dtype_size(x.dtype());
    const int64_t outer = product(x.shape(), 0, pa);
    const int64_t in_row = product(x.shape(), pa, x.shape().size()) * es;
    // Byte width of each output's row (omitted outputs are skipped but keep their columns).
    std::vector<int64_t> rows;
    for (const ValueDesc& d : outputs) {
      const Shape ys = physical_shape(d.shape, layout_);
      rows.push_back(product(ys, pa, ys.size()) * es);
    }
    const char* src = bytes_of(x);
    const size_t n_out = out.size();
#pragma omp parallel for if (outer * in_row > (es == 1 ? kParallelBytes : kParallelNumel * 4))
    for (int64_t o = 0; o < outer; ++o) {
      const char* s = src + o * in_row;
      for (size_t i = 0; i < n_out; ++i) {
        if (out[i] && rows[i]) copy_row(bytes_of(*out[i]) + o * rows[i], s, rows[i]);
        s += rows[i];
      }
    }
  }

 private:
  Layout layout_;
  int64_t rank_ = 0, axis_ = 0;
};

}  // namespace

void register_concat_split_kernels() {
  register_kernel("", "Concat",
                  [](const KernelInit& i) { return std::make_unique<ConcatKernel>(i); });
  register_kernel("", "Split",
                  [](const KernelInit& i) { return std::make_unique<SplitKernel>(i); });
}

}  // namespace edgeq

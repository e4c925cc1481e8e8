// QConv (domain "edgeq", made by runtime/int8_lowering.h): a QDQ model's Conv on 8-bit codes.
// oneDNN's u8 x s8 -> s32 convolution, the input's zero point subtracted inside it, the int32
// bias added to the accumulator, then one scale per output channel:
//   codes out: (acc + bias) * (s_x * s_w[c] / s_y), rounded half to even, + the output's zero
//              point, saturated to 0..255;
//   float out: (acc + bias) * s_x * s_w[c], then the output's fake-quant step if it has one
//              (a 16-bit value, say).
// Inputs: x (uint8 codes), w (int8 codes, [O, I/group, kH, kW], zero point 0), optional bias
// (int32, scale s_x * s_w[c]). Attributes: Conv's own; its plan (ir/node_plan.h): in_grid (x's
// grid), weight_scales (one per output channel), out and codes_out.
//
// Where the CPU adds products in saturating int16 pairs (runtime/int8_pairs.h) and two weights of
// a channel could overflow, each weight of that channel is split in two halves within [-64, 64]
// that no pair can overflow: two oneDNN convolutions sum into int32, and the halves' sums are
// added and requantized here with the arithmetic of the fused path. The accumulator is then the
// exact integer sum on every CPU. An ungrouped conv splits only the channels that need it (on
// yolo11n-pose about 5% of the split convolutions' work): the first convolution runs every channel
// (whole weights, first halves where split), the second only the split channels' second halves.
// A grouped conv, or one where most channels split, runs both halves of every channel, except a
// depthwise conv in NHWC: its exact sums come from edgeq's own kernel (depthwise_int8.h) in one
// pass, requantized with the same arithmetic. Before any of that, an ungrouped conv in NHWC whose
// pairing is known takes plan_int8_conv's order of its input channels where it has one (no pair
// can overflow in it, or each channel sits beside an empty one): its weights in that order, its
// input rearranged in each run (kernels/pad_codes.h), no split.
//
// Under emulation of avx2 (plan.emulate_avx2) the accumulator is instead what ONNX Runtime's int8
// kernels compute on x86 without VNNI: the exact sums, then, for each pair of products MLAS adds
// into one int16 (runtime/int8_pairs.h, PairOrder::kOnnxRuntime) whose two weights could overflow
// it, the amount saturation takes off, found per output pixel from the raw input codes (a padded
// tap reads the zero point's code, as MLAS's im2col writes it).

#include <algorithm>
#include <cmath>
#include <memory>

#include "core/simd.h"
#include "runtime/int8_lowering.h"
#include "runtime/int8_pairs.h"
#include "runtime/kernels/conv_common.h"
#include "runtime/kernels/depthwise_int8.h"
#include "runtime/kernels/pad_codes.h"
#include "runtime/kernels/registry.h"
#include "runtime/pair_saturation.h"

namespace edgeq {
namespace {

// The split path's requantization of one run of sums a + b, with the fused path's arithmetic:
// v = (float(a + b) + bias) * scale (bias and scale per value where `per_value`, else one for the
// run), then 8-bit codes (the zero point added, rounded half to even, saturated) or floats (the
// output's fake-quant step when it has one). Clones per instruction set (core/simd.h).
struct RequantRun {
  FakeQuantParams fake_quant;
  float zero_point = 0;
};

template <bool per_value>
EDGEQ_ALWAYS_INLINE float requant_value(const int32_t* a, const int32_t* b, const float* bias,
                                        const float* scale, int64_t j) {
  const int64_t c = per_value ? j : 0;
  return (static_cast<float>(a[j] + b[j]) + bias[c]) * scale[c];
}

template <bool per_value>
EDGEQ_ALWAYS_INLINE void requant_codes_body(const int32_t* a, const int32_t* b, const float* bias,
                                            const float* scale, int64_t n, RequantRun rq,
                                            uint8_t* y) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) {
    float k = std::rint(requant_value<per_value>(a, b, bias, scale, j) + rq.zero_point);
    k = k > 255.f ? 255.f : k;
    k = k >= 0.f ? k : 0.f;
    y[j] = static_cast<uint8_t>(static_cast<int32_t>(k));
  }
}
EDGEQ_SIMD_CLONES(template <bool per_value>, void, requant_codes, requant_codes_body<per_value>,
                  (const int32_t* a, const int32_t* b, const float* bias, const float* scale,
                   int64_t n, RequantRun rq, uint8_t* y),
                  (a, b, bias, scale, n, rq, y))

template <bool per_value>
EDGEQ_ALWAYS_INLINE void requant_values_body(const int32_t* a, const int32_t* b, const float* bias,
                                             const float* scale, int64_t n, RequantRun rq,
                                             float* y) {
  const FakeQuantParams& p = rq.fake_quant;
  if (!p.active()) {
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) y[j] = requant_value<per_value>(a, b, bias, scale, j);
    return;
  }
#pragma omp simd
  for (int64_t j = 0; j < n; ++j)
    y[j] = fake_quant(requant_value<per_value>(a, b, bias, scale, j), p.scale, p.lo, p.hi);
}
EDGEQ_SIMD_CLONES(template <bool per_value>, void, requant_values, requant_values_body<per_value>,
                  (const int32_t* a, const int32_t* b, const float* bias, const float* scale,
                   int64_t n, RequantRun rq, float* y),
                  (a, b, bias, scale, n, rq, y))

// The clone of requant_codes / requant_values for simd_level(): one bias and scale a run
// (`per_value` false) or one a value.
using RequantCodes = void (*)(const int32_t*, const int32_t*, const float*, const float*, int64_t,
                              RequantRun, uint8_t*);
using RequantValues = void (*)(const int32_t*, const int32_t*, const float*, const float*, int64_t,
                               RequantRun, float*);
RequantCodes requant_codes_for(bool per_value) {
  return per_value ? simd_pick(requant_codes_avx512<true>, requant_codes_avx2<true>,
                               requant_codes_scalar<true>)
                   : simd_pick(requant_codes_avx512<false>, requant_codes_avx2<false>,
                               requant_codes_scalar<false>);
}
RequantValues requant_values_for(bool per_value) {
  return per_value ? simd_pick(requant_values_avx512<true>, requant_values_avx2<true>,
                               requant_values_scalar<true>)
                   : simd_pick(requant_values_avx512<false>, requant_values_avx2<false>,
                               requant_values_scalar<false>);
}

int8_t keep_weight(int8_t w) {
  return w;
}

class QConv final : public Kernel {
 public:
  explicit QConv(const KernelInit& init) {
    DnnlConvSpec s = spec(init);
    if (init.node.plan.emulate_avx2) saturating_ = saturating_pairs(s.weight_data, s.geom.group);
    const std::vector<int64_t> rows = saturating_.empty()
                                          ? arrange_channels(s)
                                          : int8_conv_split_channels(s.weight_data, s.geom.group);
    const int64_t c_out = s.geom.dst_dims[1];
    const bool split = !rows.empty();
    if (split || !saturating_.empty()) {  // int32 sums requantized here: keep what oneDNN would do
      requant_.bias.assign(c_out, 0.f);
      if (!s.bias.empty()) requant_.bias = s.bias.to_floats();
      requant_.scales = s.output_scales;
      requant_.fake_quant = s.fake_quant;
    }
    const bool some_rows = split && saturating_.empty() && s.geom.group == 1 &&
                           2 * static_cast<int64_t>(rows.size()) <= c_out;
    if (split && saturating_.empty() && layout_ == Layout::kNHWC && is_depthwise_conv(s.geom)) {
      depthwise_ = std::make_unique<DepthwiseInt8Sums>(s.geom, s.weight_data);
      no_sums_.assign(size_t(c_out), 0);
    } else if (some_rows) {  // the fused convolution for all, its split channels' values replaced
      split_rows_ = rows;
      for (int64_t r : rows) {
        split_bias_.push_back(requant_.bias[size_t(r)]);
        split_scales_.push_back(requant_.scales[size_t(r)]);
      }
      first_.resize(size_t(shape_numel(geom_.output_shape()) / c_out) * 2 * rows.size());
      second_ = std::make_unique<DnnlConv>(halves_of_rows(s, rows));
    } else if (split || !saturating_.empty()) {  // int32 sums of every channel
      sums_ = true;
      first_.resize(size_t(shape_numel(geom_.output_shape())));
      second_sums_.assign(first_.size(), 0);
      if (split) second_ = std::make_unique<DnnlConv>(half(s, split_second));
      s = half(s, split ? split_first : keep_weight);
    }
    if (!depthwise_) conv_ = std::make_unique<DnnlConv>(std::move(s));
    outputs.push_back(
        {codes_out_ ? DType::kUInt8 : DType::kFloat32, geom_.output_shape(), nullptr});
    applies_fake_quant = true;
  }

  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    const void* x = in[0]->raw();
    if (arrangement_ || pad_input_) x = prepared_input(static_cast<const uint8_t*>(x));
    if (depthwise_) return run_depthwise(static_cast<const uint8_t*>(x), out[0]->raw());
    if (!sums_) {
      conv_->run(x, out[0]->raw(), src_zero_point_, dst_zero_point_);
      if (split_rows_.empty()) return;
      second_->run(x, first_.data(), src_zero_point_, 0);
      return requantize_split_rows(out[0]->raw());
    }
    conv_->run(x, first_.data(), src_zero_point_, 0);
    if (second_) second_->run(x, second_sums_.data(), src_zero_point_, 0);
    if (!saturating_.empty()) saturate(static_cast<const uint8_t*>(x));
    requantize(out[0]->raw());
  }

 private:
  // first_ += what saturating each pair in saturating_ takes off its exact sum, per output pixel.
  void saturate(const uint8_t* x) {
    apply_pair_saturation(geom_, layout_, x, input_zero_point_, saturating_, first_.data());
  }

  // `s` with int32 out and nothing fused (what the fused convolution would apply is in requant_),
  // each weight replaced by `part` of it (a half of the split, int8_pairs.h, or itself).
  static DnnlConvSpec half(const DnnlConvSpec& s, int8_t (*part)(int8_t)) {
    std::vector<std::pair<int64_t, int8_t (*)(int8_t)>> parts;
    for (int64_t r = 0; r < s.weight_data.dim(0); ++r) parts.push_back({r, part});
    return int32_conv(s, parts);
  }

  // One int32 convolution of both halves of the channels `rows`: output channels [first halves
  // of rows..., second halves of rows...].
  static DnnlConvSpec halves_of_rows(const DnnlConvSpec& s, const std::vector<int64_t>& rows) {
    std::vector<std::pair<int64_t, int8_t (*)(int8_t)>> parts;
    for (int64_t r : rows) parts.push_back({r, split_first});
    for (int64_t r : rows) parts.push_back({r, split_second});
    return int32_conv(s, parts);
  }

  // `s` with int32 out and nothing fused, output channel k computing `parts[k]`: a channel of `s`
  // with each weight replaced by a part of it.
  static DnnlConvSpec int32_conv(const DnnlConvSpec& s,
                                 const std::vector<std::pair<int64_t, int8_t (*)(int8_t)>>& parts) {
    DnnlConvSpec h;
    h.geom = s.geom;
    h.layout = s.layout;
    h.src = s.src;
    h.weights = s.weights;
    h.dst = dnnl::memory::data_type::s32;
    h.src_zero_point = s.src_zero_point;
    const Tensor& w = s.weight_data;
    const int64_t per_row = w.numel() / w.dim(0);
    Shape shape = w.shape();
    shape[0] = h.geom.dst_dims[1] = static_cast<int64_t>(parts.size());
    h.weight_data = Tensor(DType::kInt8, shape);
    int8_t* out = h.weight_data.data<int8_t>();
    for (size_t k = 0; k < parts.size(); ++k) {
      const auto [row, part] = parts[k];
      const int8_t* from = w.data<int8_t>() + row * per_row;
      for (int64_t i = 0; i < per_row; ++i) out[int64_t(k) * per_row + i] = part(from[i]);
    }
    return h;
  }

  // The split channels' values in `out` (the fused convolution's output, in the kernel's layout)
  // replaced by their halves' sums (first_: [N, pixels, 2 x rows] in NHWC, [N, 2 x rows, plane]
  // plain; first halves, then second) requantized with the arithmetic of the fused path. NHWC:
  // a pixel's split channels in one run (their biases and scales gathered in split_bias_ and
  // split_scales_), then written to their channels; plain: one channel's plane a run.
  void requantize_split_rows(void* out) const {
    const ConvGeometry& g = geom_;
    const int64_t c_out = g.dst_dims[1], hw = g.dst_dims[2] * g.dst_dims[3];
    const int64_t n_rows = static_cast<int64_t>(split_rows_.size());
    const RequantRun rq{requant_.fake_quant, float(dst_zero_point_)};
    if (layout_ == Layout::kNHWC) {
      const RequantCodes codes = requant_codes_for(true);
      const RequantValues values = requant_values_for(true);
      const int64_t pixels = g.dst_dims[0] * hw;
#pragma omp parallel
      {
        // A pixel's split channels, requantized in a run before they go to their channels.
        std::vector<uint8_t> pixel_codes(codes_out_ ? static_cast<size_t>(n_rows) : 0);
        std::vector<float> pixel_values(codes_out_ ? 0 : static_cast<size_t>(n_rows));
#pragma omp for schedule(static)
        for (int64_t p = 0; p < pixels; ++p) {
          const int32_t* a = first_.data() + p * 2 * n_rows;
          if (codes_out_) {
            codes(a, a + n_rows, split_bias_.data(), split_scales_.data(), n_rows, rq,
                  pixel_codes.data());
            uint8_t* y = static_cast<uint8_t*>(out) + p * c_out;
            for (int64_t k = 0; k < n_rows; ++k) y[split_rows_[size_t(k)]] = pixel_codes[size_t(k)];
          } else {
            values(a, a + n_rows, split_bias_.data(), split_scales_.data(), n_rows, rq,
                   pixel_values.data());
            float* y = static_cast<float*>(out) + p * c_out;
            for (int64_t k = 0; k < n_rows; ++k)
              y[split_rows_[size_t(k)]] = pixel_values[size_t(k)];
          }
        }
      }
      return;
    }
    const RequantCodes codes = requant_codes_for(false);
    const RequantValues values = requant_values_for(false);
    const int64_t runs = g.dst_dims[0] * n_rows;
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < runs; ++r) {
      const int64_t k = r % n_rows, c = split_rows_[size_t(k)], image = r / n_rows;
      const int32_t* a = first_.data() + (image * 2 * n_rows + k) * hw;
      const int32_t* b = a + n_rows * hw;
      const int64_t at = (image * c_out + c) * hw;
      const float* bias = requant_.bias.data() + c;
      const float* scale = requant_.scales.data() + c;
      if (codes_out_)
        codes(a, b, bias, scale, hw, rq, static_cast<uint8_t*>(out) + at);
      else
        values(a, b, bias, scale, hw, rq, static_cast<float*>(out) + at);
    }
  }

  // out = requantized (first half's sums + second half's, or the one set of sums), in the
  // kernel's layout, with the arithmetic of the fused path (requant_codes / requant_values).
  void requantize(void* out) const {
    const ConvGeometry& g = geom_;
    const int64_t c_out = g.dst_dims[1], hw = g.dst_dims[2] * g.dst_dims[3];
    // Runs of values: a pixel's channels (NHWC) or one channel's plane (plain).
    const bool nhwc = layout_ == Layout::kNHWC;
    const int64_t runs = g.dst_dims[0] * (nhwc ? hw : c_out), run = nhwc ? c_out : hw;
    RequantRun rq{requant_.fake_quant, float(dst_zero_point_)};
    const RequantCodes codes = requant_codes_for(nhwc);
    const RequantValues values = requant_values_for(nhwc);
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < runs; ++r) {
      const int64_t c = nhwc ? 0 : r % c_out, at = r * run;
      const float* bias = requant_.bias.data() + c;
      const float* scale = requant_.scales.data() + c;
      if (codes_out_)
        codes(first_.data() + at, second_sums_.data() + at, bias, scale, run, rq,
              static_cast<uint8_t*>(out) + at);
      else
        values(first_.data() + at, second_sums_.data() + at, bias, scale, run, rq,
               static_cast<float*>(out) + at);
    }
  }

  // In NHWC, the weights in `s` in the channel order of plan_int8_conv (int8_pairs.h), if it has
  // one, and each run's input rearranged to match (prepared_input). Returns the output channels
  // that still split.
  std::vector<int64_t> arrange_channels(DnnlConvSpec& s) {
    if (layout_ != Layout::kNHWC) return int8_conv_split_channels(s.weight_data, s.geom.group);
    Int8ConvPlan plan = plan_int8_conv(s.weight_data, s.geom.group);
    if (plan.channel_order.empty()) return plan.split_channels;
    arrangement_ = std::make_unique<ChannelArrangement>(plan.channel_order, s.weight_data.dim(1));
    s.weight_data = weights_in_channel_order(s.weight_data, plan.channel_order);
    s.geom.src_dims[1] = arrangement_->slots();
    return plan.split_channels;
  }

  // The input codes as the convolution reads them: the padding written out in the zero point's
  // code (pad_input_) and the channels arranged (arrangement_), in a buffer of the calling
  // thread's shared by its QConvs (one runs at a time on it).
  const uint8_t* prepared_input(const uint8_t* x) const {
    static thread_local std::vector<uint8_t> buffer;
    const ConvGeometry p = pad_input_ ? padded_input_geometry(geom_) : geom_;
    const int64_t channels = arrangement_ ? arrangement_->slots() : p.src_dims[1];
    buffer.resize(size_t(p.src_dims[0] * channels * p.src_dims[2] * p.src_dims[3]));
    const uint8_t code = static_cast<uint8_t>(input_zero_point_);
    if (arrangement_)
      arrange_codes(x, geom_, *arrangement_, pad_input_, code, buffer.data());
    else
      pad_codes(x, geom_, layout_, code, buffer.data());
    return buffer.data();
  }

  // Whether float holds every value the fused path adds for each channel exactly, with or
  // without the zero point folded into the bias: the sums of products with any codes 0..255,
  // and the bias with the fold (so |bias| + 255 x sum |w| below 2^24).
  static bool sums_exact_in_float(const Tensor& w, const std::vector<int64_t>& bias) {
    const int64_t c_out = w.dim(0), per_out = w.numel() / c_out;
    for (int64_t c = 0; c < c_out; ++c) {
      int64_t magnitude = 0;
      for (int64_t k = 0; k < per_out; ++k)
        magnitude += std::abs(w.data<int8_t>()[c * per_out + k]);
      if (255 * magnitude + std::llabs(bias[size_t(c)]) >= (int64_t{1} << 24)) return false;
    }
    return true;
  }

  // out = the depthwise sums requantized (requant_codes / requant_values), a row of output pixels
  // at a time on each thread.
  void run_depthwise(const uint8_t* x, void* out) const {
    const ConvGeometry& g = geom_;
    const int64_t c = g.dst_dims[1], rows = g.dst_dims[0] * g.dst_dims[2], width = g.dst_dims[3];
    const RequantRun rq{requant_.fake_quant, float(dst_zero_point_)};
    const RequantCodes codes = requant_codes_for(true);
    const RequantValues values = requant_values_for(true);
    const float* bias = requant_.bias.data();
    const float* scale = requant_.scales.data();
#pragma omp parallel
    {
      std::vector<int32_t> sums(size_t(depthwise_->row_values()));
#pragma omp for schedule(static)
      for (int64_t r = 0; r < rows; ++r) {
        depthwise_->row(x, src_zero_point_, r / g.dst_dims[2], r % g.dst_dims[2], sums.data());
        for (int64_t p = 0; p < width; ++p) {
          const int64_t at = (r * width + p) * c;
          if (codes_out_)
            codes(sums.data() + p * c, no_sums_.data(), bias, scale, c, rq,
                  static_cast<uint8_t*>(out) + at);
          else
            values(sums.data() + p * c, no_sums_.data(), bias, scale, c, rq,
                   static_cast<float*>(out) + at);
        }
      }
    }
  }

  // The requantization the fused path asks of oneDNN, kept for the split path.
  struct Requant {
    std::vector<float> bias, scales;  // per output channel: (acc + bias) * scale
    FakeQuantParams fake_quant;       // float out: the output's step
  };

  DnnlConvSpec spec(const KernelInit& init) {
    const Node& n = init.node;
    const ValueDesc& x = init.in(0);
    const Tensor& w = init.constant(1);
    EDGEQ_CHECK(x.dtype == DType::kUInt8 && w.dtype() == DType::kInt8, n.describe(),
                ": needs uint8 input codes and int8 weights");
    const FakeQuantParams in = n.plan.in_grid;
    const FakeQuantParams out = n.plan.out;
    const std::vector<float>& w_scales = n.plan.weight_scales;
    EDGEQ_CHECK(in.active() && in.codes() <= 256 && w_scales.size() == size_t(w.dim(0)),
                n.describe(), ": needs its input's 8-bit grid and one weight scale per channel");
    codes_out_ = n.plan.codes_out;
    EDGEQ_CHECK(!codes_out_ || (out.active() && out.codes() <= 256), n.describe(),
                ": codes out need an 8-bit output grid");
    DnnlConvSpec s;
    s.geom = geom_ = conv_geometry(n, x.shape, w.shape());
    s.layout = layout_ = init.layout;
    s.src = dnnl::memory::data_type::u8;
    s.weights = dnnl::memory::data_type::s8;
    s.dst = codes_out_ ? dnnl::memory::data_type::u8 : dnnl::memory::data_type::f32;
    s.weight_data = w;
    src_zero_point_ = input_zero_point_ = static_cast<int32_t>(-in.lo);
    const int64_t c_out = w.dim(0), per_out = w.numel() / c_out;
    std::vector<int64_t> bias(c_out, 0);
    if (init.has_input(2)) {
      const Tensor& b = init.constant(2);
      EDGEQ_CHECK(b.dtype() == DType::kInt32 && b.numel() == c_out, n.describe(),
                  ": bias must be int32 with one value per output channel");
      for (int64_t c = 0; c < c_out; ++c) bias[c] = b.data<int32_t>()[c];
    }
    // Without padding every tap reads a real code, so sum((x - zp) * w) = sum(x * w) - zp * sum(w)
    // exactly: the zero point folds into the bias and oneDNN runs its faster kernels without
    // zero-point compensation. With padding, padded taps must read zp, not code 0: an ungrouped
    // conv runs on a copy of its input with the padding written out in zp codes (pad_codes.h),
    // where float holds every sum and bias exactly either way (oneDNN adds them in float), so
    // its outputs stay those of the compensating kernel bit for bit.
    const bool padded = conv_pads(s.geom);
    pad_input_ = padded && src_zero_point_ != 0 && s.geom.group == 1 && !n.plan.emulate_avx2 &&
                 sums_exact_in_float(w, bias);
    if (pad_input_) s.geom = padded_input_geometry(s.geom);
    const bool fold_zero_point = src_zero_point_ != 0 && (!padded || pad_input_);
    if (fold_zero_point)
      for (int64_t c = 0; c < c_out; ++c) {
        int64_t sum = 0;
        for (int64_t k = 0; k < per_out; ++k) sum += w.data<int8_t>()[c * per_out + k];
        bias[c] -= int64_t{src_zero_point_} * sum;
      }
    if (init.has_input(2) || fold_zero_point) {
      s.bias = Tensor(DType::kFloat32, {c_out});
      for (int64_t c = 0; c < c_out; ++c) s.bias.data<float>()[c] = static_cast<float>(bias[c]);
    }
    if (fold_zero_point) src_zero_point_ = 0;
    for (float ws : w_scales) {
      const double to_value = double(in.scale) * ws;
      s.output_scales.push_back(static_cast<float>(codes_out_ ? to_value / out.scale : to_value));
    }
    if (!codes_out_) s.fake_quant = out;
    s.src_zero_point = src_zero_point_ != 0;
    if (codes_out_) {
      dst_zero_point_ = static_cast<int32_t>(-out.lo);
      s.dst_zero_point = dst_zero_point_ != 0;
    }
    return s;
  }

  ConvGeometry geom_;
  Layout layout_ = Layout::kPlain;
  bool codes_out_ = false;
  bool pad_input_ = false;  // runs on a copy of the input with the padding written out
  std::unique_ptr<ChannelArrangement> arrangement_;  // runs on a copy, its channels rearranged
  int32_t src_zero_point_ = 0, dst_zero_point_ = 0;
  int32_t input_zero_point_ = 0;    // the input's zero point code, even where folded into the bias
  std::unique_ptr<DnnlConv> conv_;  // all of the weights, or their first halves
  // int32 sums requantized here (split weights, or an emulation): the second halves'
  // convolution when split, and the int32 sums (second_sums_ stays 0 without a split).
  bool sums_ = false;
  std::unique_ptr<DnnlConv> second_;
  Requant requant_;
  std::vector<int32_t> first_, second_sums_;
  // Where only some channels of an ungrouped conv split: those channels; second_ is then one
  // convolution of both their halves, into first_.
  std::vector<int64_t> split_rows_;
  std::vector<float> split_bias_, split_scales_;  // requant_'s bias and scale of each split row
  std::vector<SaturatingPair> saturating_;        // --emulate avx2
  // A split depthwise conv in NHWC: its exact sums, and zeros for the requantization's second
  // set of sums (one per channel).
  std::unique_ptr<DepthwiseInt8Sums> depthwise_;
  std::vector<int32_t> no_sums_;
};

}  // namespace

void register_qconv_kernels() {
  register_kernel("edgeq", "QConv", [](const KernelInit& i) { return std::make_unique<QConv>(i); });
}

}  // namespace edgeq

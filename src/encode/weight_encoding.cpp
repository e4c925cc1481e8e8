#include "encode/weight_encoding.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "encode/exact_encoding.h"

namespace edgeq {
namespace {

// Splits a shape around `axis` into outer * channels * inner.
struct AxisSplit {
  int64_t outer = 1, channels = 1, inner = 1;
};

AxisSplit split_at(const Shape& s, int64_t axis) {
  AxisSplit a;
  if (axis < 0) {
    a.inner = shape_numel(s);
    return a;
  }
  for (int64_t i = 0; i < axis; ++i) a.outer *= s[i];
  a.channels = s[axis];
  for (size_t i = axis + 1; i < s.size(); ++i) a.inner *= s[i];
  return a;
}

template <typename T>
void quantize_into(const float* x, T* q, const TensorEncoding& enc, const AxisSplit& a) {
  for (int64_t o = 0; o < a.outer; ++o)
    for (int64_t c = 0; c < a.channels; ++c) {
      const Encoding& e = enc.at(c);
      int64_t base = (o * a.channels + c) * a.inner;
      for (int64_t i = 0; i < a.inner; ++i) q[base + i] = static_cast<T>(e.quantize(x[base + i]));
    }
}

template <typename T>
void dequantize_into(const T* q, float* x, const TensorEncoding& enc, const AxisSplit& a) {
  for (int64_t o = 0; o < a.outer; ++o)
    for (int64_t c = 0; c < a.channels; ++c) {
      const Encoding& e = enc.at(c);
      int64_t base = (o * a.channels + c) * a.inner;
      for (int64_t i = 0; i < a.inner; ++i) x[base + i] = e.dequantize(q[base + i]);
    }
}

AxisSplit checked_split(const Tensor& t, const TensorEncoding& enc) {
  EDGEQ_CHECK(!enc.channels.empty(), "tensor encoding has no channels");
  if (!enc.per_channel()) return split_at(t.shape(), -1);
  EDGEQ_CHECK(enc.axis < t.rank(), "encoding axis ", enc.axis, " is outside a tensor of shape ",
              shape_str(t.shape()));
  AxisSplit a = split_at(t.shape(), enc.axis);
  EDGEQ_CHECK(static_cast<int64_t>(enc.channels.size()) == a.channels, "encoding has ",
              enc.channels.size(), " channels but the tensor has ", a.channels, " along axis ",
              enc.axis);
  return a;
}

}  // namespace

TensorEncoding weight_encoding(const Tensor& w, bool per_channel, int64_t axis, int bitwidth,
                               const std::string& what) {
  EDGEQ_CHECK(w.dtype() == DType::kFloat32, what, ": weight is ", dtype_name(w.dtype()),
              ", expected float32");
  if (per_channel && w.rank() == 0) per_channel = false;
  if (per_channel)
    EDGEQ_CHECK(axis >= 0 && axis < w.rank(), what, ": channel axis ", axis, " is outside shape ",
                shape_str(w.shape()));
  AxisSplit a = split_at(w.shape(), per_channel ? axis : -1);
  const float* x = w.data<float>();
  double tensor_absmax = 0;
  for (int64_t i = 0; i < w.numel(); ++i) {
    if (!std::isfinite(x[i])) fail(what, ": weight holds ", x[i], " at flat index ", i);
    tensor_absmax = std::max(tensor_absmax, static_cast<double>(std::fabs(x[i])));
  }
  const Encoding per_tensor = encoding_from_range(-tensor_absmax, tensor_absmax, bitwidth, true);
  TensorEncoding enc;
  enc.axis = per_channel ? axis : -1;
  for (int64_t c = 0; c < a.channels; ++c) {
    std::vector<float> values = channel_values(w, enc.axis, c);
    double absmax = 0;
    for (float v : values) absmax = std::max(absmax, static_cast<double>(std::fabs(v)));
    Encoding e = encoding_from_range(-absmax, absmax, bitwidth, true);
    // Values on a grid of their own keep it when max-abs would move them: the tensor's max-abs
    // grid (weights quantized per tensor before export), else the channel's exact grid (e.g. the
    // DFL conv's integers 0..15).
    if (!round_trips(e, values.data(), values.size())) {
      if (round_trips(per_tensor, values.data(), values.size()))
        e = per_tensor;
      else if (auto exact = exact_encoding(values.data(), values.size(), bitwidth, true))
        e = *exact;
    }
    enc.channels.push_back(e);
  }
  return enc;
}

std::vector<float> channel_values(const Tensor& t, int64_t axis, int64_t c) {
  EDGEQ_CHECK(t.dtype() == DType::kFloat32, "channel_values: tensor is ", dtype_name(t.dtype()));
  EDGEQ_CHECK(axis < t.rank(), "channel axis ", axis, " is outside shape ", shape_str(t.shape()));
  AxisSplit a = split_at(t.shape(), axis);
  EDGEQ_CHECK(c >= 0 && c < a.channels, "channel ", c, " is outside 0..", a.channels - 1);
  const float* x = t.data<float>();
  std::vector<float> out;
  out.reserve(static_cast<size_t>(a.outer * a.inner));
  for (int64_t o = 0; o < a.outer; ++o) {
    const float* row = x + (o * a.channels + c) * a.inner;
    out.insert(out.end(), row, row + a.inner);
  }
  return out;
}

TensorEncoding bias_encoding(const Encoding& input, const TensorEncoding& weight,
                             int64_t channels) {
  TensorEncoding enc;
  enc.axis = weight.per_channel() ? 0 : -1;
  int64_t n = weight.per_channel() ? channels : 1;
  EDGEQ_CHECK(!weight.per_channel() || static_cast<int64_t>(weight.channels.size()) == channels,
              "bias has ", channels, " channels but the weight encoding has ",
              weight.channels.size());
  for (int64_t c = 0; c < n; ++c) {
    Encoding e;
    e.bitwidth = 32;
    e.symmetric = true;
    e.is_signed = true;
    e.scale = input.scale * weight.at(c).scale;
    if (!(e.scale > 0)) e.scale = 1.0f;  // both scales tiny: nothing meaningful to keep
    e.offset = -(int64_t{1} << 31);
    e.min = static_cast<float>(static_cast<double>(e.offset) * e.scale);
    e.max = static_cast<float>(static_cast<double>((int64_t{1} << 31) - 1) * e.scale);
    enc.channels.push_back(e);
  }
  return enc;
}

Tensor quantize_tensor(const Tensor& x, const TensorEncoding& enc) {
  EDGEQ_CHECK(x.dtype() == DType::kFloat32, "quantize_tensor: input is ", dtype_name(x.dtype()));
  AxisSplit a = checked_split(x, enc);
  Tensor q(enc.channels[0].dtype(), x.shape());
  const float* src = x.data<float>();
  switch (q.dtype()) {
    case DType::kUInt8:
      quantize_into(src, q.data<uint8_t>(), enc, a);
      break;
    case DType::kInt8:
      quantize_into(src, q.data<int8_t>(), enc, a);
      break;
    case DType::kUInt16:
      quantize_into(src, q.data<uint16_t>(), enc, a);
      break;
    case DType::kInt16:
      quantize_into(src, q.data<int16_t>(), enc, a);
      break;
    case DType::kInt32:
      quantize_into(src, q.data<int32_t>(), enc, a);
      break;
    default:
      fail("quantize_tensor: unsupported storage type ", dtype_name(q.dtype()));
  }
  return q;
}

Tensor dequantize_tensor(const Tensor& q, const TensorEncoding& enc) {
  AxisSplit a = checked_split(q, enc);
  Tensor x(DType::kFloat32, q.shape());
  float* dst = x.data<float>();
  switch (q.dtype()) {
    case DType::kUInt8:
      dequantize_into(q.data<uint8_t>(), dst, enc, a);
      break;
    case DType::kInt8:
      dequantize_into(q.data<int8_t>(), dst, enc, a);
      break;
    case DType::kUInt16:
      dequantize_into(q.data<uint16_t>(), dst, enc, a);
      break;
    case DType::kInt16:
      dequantize_into(q.data<int16_t>(), dst, enc, a);
      break;
    case DType::kInt32:
      dequantize_into(q.data<int32_t>(), dst, enc, a);
      break;
    default:
      fail("dequantize_tensor: unsupported storage type ", dtype_name(q.dtype()));
  }
  return x;
}

}  // namespace edgeq

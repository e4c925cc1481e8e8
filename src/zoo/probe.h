// Probe activations: a plain float forward pass of a zoo model on small calibration images,
// computed while the model is built. Each synthetic conv is normalized on it, channel by
// channel, the way BatchNorm folding normalizes a trained conv (data-dependent init, LSUV).
// Tensors are NCHW float32; N is the number of calibration images.
#pragma once
#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace edgeq::zoo::probe {

// n RGB scenes in [0, 1] with natural-image statistics (a dead-leaves model), letterboxed with
// gray 114/255 bars top and bottom like a landscape photo; deterministic from seed.
Tensor synthetic_scenes(uint64_t seed, int64_t n, int64_t size);
// The calibration batch: `scenes` synthetic scenes, then one blank frame of letterbox gray
// (114/255) at index `scenes`, on which a sane detector finds nothing.
Tensor calibration_batch(uint64_t seed, int64_t scenes, int64_t size);

// Conv without bias: x [N,Cin,H,W], w [Cout,Cin/g,k,k], zero padding k/2.
Tensor conv2d(const Tensor& x, const Tensor& w, int64_t stride, int64_t groups);
// y[:, c] = x[:, c] * scale[c] + shift[c], in place.
void affine_channels(Tensor& x, const std::vector<double>& scale, const std::vector<double>& shift);
Tensor silu(const Tensor& x);
Tensor add(const Tensor& a, const Tensor& b);
Tensor concat_channels(const std::vector<const Tensor*>& xs);
Tensor slice_channels(const Tensor& x, int64_t begin, int64_t count);
// MaxPool k x k, stride 1, padding k/2 (padding never wins, as in ONNX).
Tensor maxpool(const Tensor& x, int64_t k);
// Nearest-neighbour 2x upsampling.
Tensor upsample2x(const Tensor& x);
// YOLO11 Attention core on the qkv conv output [N, heads*(2*kd+hd), H, W]: returns
// v @ softmax(q^T k * scale)^T as [N, heads*hd, H, W] (first) and v as [N, heads*hd, H, W].
std::pair<Tensor, Tensor> attention(const Tensor& qkv, int64_t heads, int64_t key_dim,
                                    int64_t head_dim, float scale);

// Per-channel mean and variance over batch and positions.
void channel_stats(const Tensor& x, std::vector<double>* mean, std::vector<double>* var);

}  // namespace edgeq::zoo::probe

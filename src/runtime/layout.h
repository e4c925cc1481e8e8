// Conversions between the plain NCHW layout and NHWC for 4-D tensors of floats or 8-bit codes.
#pragma once
#include <functional>

#include "core/tensor.h"

namespace edgeq {

// Given to a conversion, gets every source element once, in contiguous pieces right after they
// are read (from the converting threads, in parallel).
using LayoutObserver = std::function<void(const float* values, int64_t n)>;

// src physical [N,C,H,W] -> dst physical [N,H,W,C]; dst preallocated.
void nchw_to_nhwc(const Tensor& src, Tensor& dst, const LayoutObserver* seen = nullptr);
// src physical [N,H,W,C] -> dst physical [N,C,H,W]; dst preallocated.
void nhwc_to_nchw(const Tensor& src, Tensor& dst, const LayoutObserver* seen = nullptr);

// Each of `batch` row-major [rows, cols] matrices of 32-bit or 8-bit elements in src transposed
// into dst (any ranks, as many elements): what both conversions above do, and a Transpose that
// swaps two neighbouring groups of axes (an attention's last two).
void transpose_matrices(const Tensor& src, Tensor& dst, int64_t batch, int64_t rows, int64_t cols);

}  // namespace edgeq

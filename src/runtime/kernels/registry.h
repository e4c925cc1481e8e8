// One registration function per operator family (one file each in this folder).
#pragma once

namespace edgeq {

void register_builtin_kernels();

void register_conv_kernels();
void register_elementwise_kernels();
void register_concat_split_kernels();
void register_tensor_kernels();  // Slice, Reshape, Transpose, Gather, Expand, Tile, ...
void register_shape_kernels();   // Shape, Constant, Cast, Identity, Unsqueeze, Squeeze, ...
void register_pool_kernels();    // MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool
void register_resize_kernels();
void register_matmul_kernels();  // MatMul, Gemm
void register_softmax_kernels();
void register_quant_kernels();        // QuantizeLinear, DequantizeLinear
void register_param_unary_kernels();  // Clip, HardSigmoid, HardSwish, LeakyRelu
void register_reduce_kernels();       // ReduceMean, ReduceMax, ReduceSum
void register_code_kernels();         // --exec int8: Quantize, Dequantize, QLut
void register_qconv_kernels();        // --exec int8: QConv

}  // namespace edgeq

#include "runtime/kernels/registry.h"

namespace edgeq {

void register_builtin_kernels() {
  register_conv_kernels();
  register_elementwise_kernels();
  register_concat_split_kernels();
  register_tensor_kernels();
  register_shape_kernels();
  register_pool_kernels();
  register_resize_kernels();
  register_matmul_kernels();
  register_softmax_kernels();
  register_param_unary_kernels();
  register_reduce_kernels();
  register_quant_kernels();
  register_code_kernels();
  register_qconv_kernels();
}

}  // namespace edgeq

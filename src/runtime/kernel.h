// Kernel: one operator instance, created at plan time when its input shapes are known.
//
// Adding an operator: write kernels/<family>.cpp with a class deriving from Kernel, register its
// factory in that file's register_<family>_kernels(), and add one line to kernels/registry.cpp.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/error.h"
#include "core/tensor.h"
#include "ir/graph.h"

namespace edgeq {

// What the planner knows about a value: type, shape, and its data when it is a constant
// (an initializer or the result of folding constant subgraphs).
struct ValueDesc {
  DType dtype = DType::kFloat32;
  Shape shape;
  const Tensor* constant = nullptr;
};
using ValueDescs = std::unordered_map<std::string, ValueDesc>;

// Physical layout of 4-D activations. kNHWC stores a logical [N,C,H,W] tensor as [N,H,W,C].
// Contract: ValueDesc shapes (KernelInit::inputs, Kernel::outputs) are always LOGICAL (ONNX)
// shapes; the Tensors handed to run() have the PHYSICAL shape (physical_shape()). The executor
// passes kNHWC only to ops it knows handle it: Conv, MaxPool, AveragePool, Resize, Concat and
// Split (any axis, given in logical numbering), and elementwise ops whose inputs all have the
// same shape or a single element. Non 4-D inputs are never NHWC. Outputs have the inputs'
// layout, except where KernelInit::output_layout says otherwise (a pointwise Conv reading NHWC
// and writing plain: kernels/pointwise_conv.h).
enum class Layout { kPlain, kNHWC };

// [N,C,H,W] -> [N,H,W,C] for kNHWC and rank 4; otherwise unchanged.
Shape physical_shape(const Shape& logical, Layout layout);
// Logical axis (already normalized) -> physical axis for a rank-4 tensor in `layout`.
int64_t physical_axis(int64_t logical_axis, int64_t rank, Layout layout);

struct KernelInit {
  const Node& node;
  std::vector<ValueDesc> inputs;   // same order as node.inputs ("" inputs get dtype kUndefined)
  int64_t opset = 17;              // opset of the node's domain
  Layout layout = Layout::kPlain;  // layout of 4-D activation inputs/outputs (see above)
  std::optional<Layout> output_layout = std::nullopt;  // of the outputs, when not `layout`

  Layout out_layout() const { return output_layout.value_or(layout); }

  const ValueDesc& in(size_t i) const {
    EDGEQ_CHECK(i < inputs.size() && inputs[i].dtype != DType::kUndefined, node.describe(),
                ": missing input ", i);
    return inputs[i];
  }
  bool has_input(size_t i) const {
    return i < inputs.size() && inputs[i].dtype != DType::kUndefined;
  }
  // Data of constant input i; throws naming the node when it is not known at plan time.
  const Tensor& constant(size_t i) const;
  // Its values as integers (shapes, axes, sizes); throws naming the node and input when one has
  // no 64-bit integer value (a float input holding NaN, say).
  std::vector<int64_t> constant_ints(size_t i) const;
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  // Computes outputs from inputs. Output tensors are preallocated with the shapes and dtypes
  // in `outputs`; input pointers for omitted optional inputs are nullptr.
  virtual void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) = 0;
  // Asks the kernel to pass every element of its float input `input`, as stored, to `fn` exactly
  // once per run, in pieces while they are in cache (fn(piece, count); from the threads that
  // compute, so fn must be thread-safe). False when the kernel cannot (the default).
  using InputObserver = std::function<void(const float*, int64_t)>;
  virtual bool observe_input(size_t input, InputObserver fn) { return false; }

  // Filled by the constructor: dtype and shape of each output.
  std::vector<ValueDesc> outputs;
  // Set by the constructor of a kernel that applies the node's fake-quant attributes
  // (runtime/fake_quant.h); create_kernel refuses a node carrying them otherwise.
  bool applies_fake_quant = false;
};

using KernelFactory = std::function<std::unique_ptr<Kernel>(const KernelInit&)>;

// Registry keyed by (domain, op_type); domain "" is ONNX's default domain.
void register_kernel(const std::string& domain, const std::string& op_type, KernelFactory f);
const KernelFactory* find_kernel(const std::string& domain, const std::string& op_type);
std::vector<std::string> registered_ops();
// Builds the kernel for a node or throws "unsupported op" naming node and op.
std::unique_ptr<Kernel> create_kernel(const KernelInit& init);

// Helpers shared by kernels.
int64_t normalize_axis(int64_t axis, int64_t rank, const Node& node);
// NumPy-style broadcast of two shapes; throws naming the node when incompatible.
Shape broadcast_shapes(const Shape& a, const Shape& b, const Node& node);

}  // namespace edgeq

#include "runtime/kernel.h"

#include <map>
#include <mutex>

#include "runtime/fake_quant.h"
#include "runtime/kernels/registry.h"

namespace edgeq {
namespace {

std::map<std::pair<std::string, std::string>, KernelFactory>& table() {
  static std::map<std::pair<std::string, std::string>, KernelFactory> t;
  return t;
}

void ensure_builtins() {
  static std::once_flag once;
  std::call_once(once, [] { register_builtin_kernels(); });
}

}  // namespace

const Tensor& KernelInit::constant(size_t i) const {
  const ValueDesc& d = in(i);
  if (!d.constant)
    fail(node.describe(), ": input ", i, " ('", node.inputs[i],
         "') must be a constant known before running");
  return *d.constant;
}

std::vector<int64_t> KernelInit::constant_ints(size_t i) const {
  const Tensor& t = constant(i);
  try {
    return t.to_ints();
  } catch (const Error& e) {
    fail(node.describe(), ": input ", i, " ('", node.inputs[i], "'): ", e.what());
  }
}

void register_kernel(const std::string& domain, const std::string& op_type, KernelFactory f) {
  table()[{domain, op_type}] = std::move(f);
}

const KernelFactory* find_kernel(const std::string& domain, const std::string& op_type) {
  ensure_builtins();
  auto it = table().find({domain, op_type});
  return it == table().end() ? nullptr : &it->second;
}

std::vector<std::string> registered_ops() {
  ensure_builtins();
  std::vector<std::string> ops;
  for (const auto& kv : table())
    ops.push_back((kv.first.first.empty() ? "" : kv.first.first + ".") + kv.first.second);
  return ops;
}

std::unique_ptr<Kernel> create_kernel(const KernelInit& init) {
  const KernelFactory* f = find_kernel(init.node.domain, init.node.op_type);
  if (!f) fail("unsupported op: ", init.node.describe(), " has no kernel in edgeq");
  std::unique_ptr<Kernel> k = (*f)(init);
  const bool fq = init.node.plan.out.active() || init.node.plan.inner.active();
  EDGEQ_CHECK(!fq || k->applies_fake_quant, init.node.describe(),
              ": internal error: a fake-quant step was fused into a kernel that cannot apply it");
  return k;
}

Shape physical_shape(const Shape& logical, Layout layout) {
  if (layout != Layout::kNHWC || logical.size() != 4) return logical;
  return {logical[0], logical[2], logical[3], logical[1]};
}

int64_t physical_axis(int64_t logical_axis, int64_t rank, Layout layout) {
  if (layout != Layout::kNHWC || rank != 4) return logical_axis;
  static const int64_t map[4] = {0, 3, 1, 2};
  return map[logical_axis];
}

int64_t normalize_axis(int64_t axis, int64_t rank, const Node& node) {
  int64_t a = axis < 0 ? axis + rank : axis;
  EDGEQ_CHECK(a >= 0 && a < rank, node.describe(), ": axis ", axis, " out of range for rank ",
              rank);
  return a;
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const Node& node) {
  size_t r = std::max(a.size(), b.size());
  Shape out(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    EDGEQ_CHECK(da == db || da == 1 || db == 1, node.describe(), ": shapes ", shape_str(a), " and ",
                shape_str(b), " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

}  // namespace edgeq

#include "edgeq/model.h"

#include "analysis/model_summary.h"
#include "api/api_impl.h"
#include "core/dtype.h"
#include "core/file_io.h"
#include "core/sha256.h"
#include "ir/onnx_io.h"

namespace edgeq {
namespace {

std::vector<ValueDescription> describe(const std::vector<ValueInfo>& values) {
  std::vector<ValueDescription> out;
  for (const ValueInfo& v : values) out.push_back({v.name, dtype_name(v.dtype), v.shape});
  return out;
}

}  // namespace

Model Model::load(const std::string& path) {
  return from_bytes(read_onnx_file(path), path);
}

Model Model::from_bytes(std::string bytes, const std::string& name) {
  auto impl = std::make_shared<Impl>();
  impl->graph = parse_onnx(bytes, name);
  impl->sha256 = sha256_hex(bytes);
  impl->bytes = std::move(bytes);
  impl->name = name;
  return Model(std::move(impl));
}

const std::string& Model::name() const {
  return impl_->name;
}
const std::string& Model::sha256() const {
  return impl_->sha256;
}
const std::string& Model::bytes() const {
  return impl_->bytes;
}
std::vector<ValueDescription> Model::inputs() const {
  return describe(impl_->graph.inputs);
}
std::vector<ValueDescription> Model::outputs() const {
  return describe(impl_->graph.outputs);
}
std::string Model::summary() const {
  return format_summary(summarize_model(impl_->graph));
}

}  // namespace edgeq

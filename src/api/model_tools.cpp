// Model tools (edgeq/model_tools.h): cut (ir/cut.h), patch (analysis/qdq_patch.h), the zoo
// (zoo/yolo11.h) and the summary as JSON (analysis/model_summary.h), over public Models.
#include "edgeq/model_tools.h"

#include "analysis/model_summary.h"
#include "analysis/qdq_patch.h"
#include "api/api_impl.h"
#include "core/file_io.h"
#include "core/json_text.h"
#include "ir/cut.h"
#include "ir/onnx_io.h"
#include "zoo/yolo11.h"

namespace edgeq {

void save_model(const Model& model, const std::string& path) {
  write_file_atomic(path, model.bytes());
}

size_t node_count(const Model& model) {
  return impl_of(model).graph.nodes.size();
}

std::string shape_text(const std::vector<int64_t>& shape) {
  return shape_str(shape);
}

std::string model_summary_json(const Model& model) {
  nlohmann::json j = summary_to_json(summarize_model(impl_of(model).graph));
  j["model"] = model.name();
  return json_text(j, 2);
}

Model cut_model(const Model& model, const CutOptions& options) {
  CutSpec spec;
  spec.arm = options.arm;
  spec.taps = options.taps;
  spec.taps_given = options.taps_given;
  const Graph arm = cut_model(impl_of(model).graph, spec);
  return Model::from_bytes(serialize_onnx(arm),
                           model.name() + " (arm " + std::string(name(spec.arm)) + ")");
}

PatchedModel patch_activations(const Model& qdq_model, const PatchOptions& options) {
  PatchRequest req;
  req.values = options.values;
  req.lo = options.lo;
  req.hi = options.hi;
  if (options.bits) req.bits = options.bits;
  PatchResult res = patch_qdq(impl_of(qdq_model).graph, req);
  return {Model::from_bytes(serialize_onnx(res.graph), qdq_model.name() + " (patched)"),
          res.encoding.describe(), std::move(res.patched), std::move(res.pulled_in)};
}

ZooModel zoo_model(const std::string& name, int64_t imgsz) {
  const Graph g = build_yolo11(name, imgsz);
  int64_t params = 0;
  for (const auto& kv : g.initializers)
    if (kv.first.rfind("model.", 0) == 0) params += kv.second.numel();
  return {Model::from_bytes(serialize_onnx(g), name), params};
}

}  // namespace edgeq

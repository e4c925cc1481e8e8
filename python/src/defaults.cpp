// The defaults of the Python functions' keyword options, read from the default-constructed C++
// options (include/edgeq/), so they live in one place: edgeq/__init__.py marks each such option
// with the sentinel DEFAULT and fills in these values at import (help() shows them).
#include <cstdio>
#include <string>

#include "bindings.h"

namespace edgeq::python {
namespace {

// A float option as its decimal form (0.001f is 0.0010000000474974513 as a double).
double decimal(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.7g", static_cast<double>(v));
  return std::stod(buf);
}

py::dict calibrate_defaults() {
  const CalibrateOptions o;
  py::dict d;
  d["n"] = o.n;
  d["seed"] = o.seed;
  d["threads"] = o.threads;
  d["workers"] = o.workers;
  d["histogram_stride"] = o.histogram_stride;
  return d;
}

py::dict quantize_defaults() {
  const QuantizeOptions o;
  py::dict d;
  d["scheme"] = std::string(name(o.scheme));
  d["range"] = std::string(name(o.range));
  d["placement"] = std::string(name(o.placement));
  d["qdq16"] = std::string(name(o.qdq16));
  d["per_tensor_weights"] = o.per_tensor_weights;
  d["symmetric_activations"] = o.symmetric_activations;
  d["saturation_safe"] = o.saturation_safe;
  d["reduce_range"] = o.reduce_range;
  d["quantize_io"] = std::string(name(o.quantize_io));
  d["cle"] = o.repair.cle;
  d["bias_correction"] = o.repair.bias_correction;
  d["repair_n"] = o.repair.n;
  d["seed"] = o.repair.seed;
  d["repair_memory_mib"] = o.repair.memory_mib;
  d["auto"] = o.search.percent;
  d["auto_n"] = o.search.n;
  d["threads"] = o.threads;
  return d;
}

py::dict compare_defaults() {
  const CompareOptions o;
  py::dict d;
  d["n"] = o.n;
  d["conf"] = decimal(o.conf);
  d["iou"] = decimal(o.iou);
  d["map_conf"] = decimal(o.map_conf);
  d["exec"] = std::string(name(o.exec.mode));
  d["emulate"] = std::string(name(o.exec.emulate));
  d["threads"] = o.exec.threads;
  return d;
}

py::dict doctor_defaults() {
  const DoctorOptions o;
  py::dict d;
  d["target"] = o.target;
  d["max_images"] = o.max_images;
  d["sensitivity"] = o.sensitivity;
  d["top_percent"] = o.top_percent;
  d["max_info"] = o.max_info;
  d["all"] = o.all;
  return d;
}

py::dict bench_defaults() {
  const BenchOptions o;
  py::dict d;
  d["runs"] = o.runs;
  d["warmup"] = o.warmup;
  d["workers"] = o.workers;
  d["exec"] = std::string(name(o.exec.mode));
  d["emulate"] = std::string(name(o.exec.emulate));
  d["threads"] = o.exec.threads;
  d["profile"] = o.profile;
  return d;
}

py::dict session_defaults(const SessionOptions& o) {
  py::dict d;
  d["exec"] = std::string(name(o.exec.mode));
  d["emulate"] = std::string(name(o.exec.emulate));
  d["threads"] = o.exec.threads;
  d["conf"] = decimal(o.conf);
  d["iou"] = decimal(o.iou);
  d["max_det"] = o.max_det;
  return d;
}

py::dict detect_defaults() {
  const DetectOptions o;
  py::dict d;
  d["pipeline"] = o.pipeline;
  d["pipeline_mode"] = std::string(name(o.pipeline_mode));
  d["queue"] = o.queue;
  d["drop_late"] = o.drop_late;
  for (const auto& [key, value] : session_defaults(o.session)) d[key] = value;
  return d;
}

}  // namespace

void bind_defaults(py::module_& m) {
  m.def(
      "_defaults",
      [] {
        py::dict d;
        d["calibrate"] = calibrate_defaults();
        d["quantize"] = quantize_defaults();
        d["compare"] = compare_defaults();
        d["doctor"] = doctor_defaults();
        d["bench"] = bench_defaults();
        d["detect"] = detect_defaults();
        d["session"] = session_defaults(SessionOptions());
        return d;
      },
      "The C++ options' defaults by function and keyword (what edgeq/__init__.py fills in).");
}

}  // namespace edgeq::python

#include "bindings.h"

namespace edgeq::python {
namespace {

template <class T>
T option(const std::string& key, const py::handle& v, const char* expected) {
  try {
    return v.cast<T>();
  } catch (const py::cast_error&) {
    throw Error("quantize: option '" + key + "' expects " + expected + ", got " + type_name(v));
  }
}

// An integer option in [lo, hi] (a bool is no integer here); the message names the option and the
// accepted range: `range` ("a positive integer", "an integer from 0 to 2**64-1").
template <class T>
T integer_option(const std::string& key, const py::handle& v, T lo, const char* range) {
  if (py::isinstance<py::bool_>(v) || !PyIndex_Check(v.ptr()))  // int, numpy integers
    throw Error("quantize: option '" + key + "' must be " + range + ", got " + type_name(v));
  try {
    const T x = v.cast<T>();
    if (x >= lo) return x;
  } catch (const py::cast_error&) {  // outside T: negative, or too large
  }
  throw Error("quantize: option '" + key + "' must be " + range + ", got " +
              py::str(v).cast<std::string>());
}

// A choice (edgeq/choices.h): a str naming one of E's values, in any case.
template <class E>
E choice_option(const std::string& key, const py::handle& v) {
  return parse<E>(option<std::string>(key, v, "a str"));
}

size_t count_option(const std::string& key, const py::handle& v) {
  return integer_option<size_t>(key, v, 1, "a positive integer (1 or more)");
}

std::vector<std::string> names(const std::string& key, const py::handle& v) {
  if (v.is_none()) return {};
  if (py::isinstance<py::str>(v)) return {v.cast<std::string>()};
  return option<std::vector<std::string>>(key, v, "a list of value names");
}

QuantizeOptions options_from(const py::dict& kw) {
  QuantizeOptions o;
  for (const auto& item : kw) {
    const std::string k = item.first.cast<std::string>();
    const py::handle v = item.second;
    if (k == "scheme")
      o.scheme = choice_option<Scheme>(k, v);
    else if (k == "range")
      o.range = choice_option<RangeMethod>(k, v);
    else if (k == "percentile")
      o.percentile = option<double>(k, v, "a number");
    else if (k == "a16")
      o.a16 = names(k, v);
    else if (k == "mixed")
      o.mixed = names(k, v);
    else if (k == "exclude")
      o.exclude = names(k, v);
    else if (k == "overrides")
      o.overrides_file = v.is_none() ? "" : path_string(v);
    else if (k == "placement")
      o.placement = choice_option<Placement>(k, v);
    else if (k == "qdq16")
      o.qdq16 = choice_option<Qdq16>(k, v);
    else if (k == "per_tensor_weights")
      o.per_tensor_weights = option<bool>(k, v, "a bool");
    else if (k == "symmetric_activations")
      o.symmetric_activations = option<bool>(k, v, "a bool");
    else if (k == "saturation_safe")
      o.saturation_safe = option<bool>(k, v, "a bool");
    else if (k == "reduce_range")
      o.reduce_range = option<bool>(k, v, "a bool");
    else if (k == "quantize_io")
      o.quantize_io = choice_option<QuantizeIo>(k, v);
    else if (k == "gptq")
      o.repair.gptq = v.is_none()                            ? RepairOptions::Gptq::kSchemeDefault
                      : option<bool>(k, v, "None or a bool") ? RepairOptions::Gptq::kOn
                                                             : RepairOptions::Gptq::kOff;
    else if (k == "cle")
      o.repair.cle = option<bool>(k, v, "a bool");
    else if (k == "bias_correction")
      o.repair.bias_correction = option<bool>(k, v, "a bool");
    else if (k == "repair_n")
      o.repair.n = count_option(k, v);
    else if (k == "seed")
      o.repair.seed = integer_option<uint64_t>(k, v, 0, "an integer from 0 to 2**64-1");
    else if (k == "repair_memory_mib")
      o.repair.memory_mib = count_option(k, v);
    else if (k == "auto")
      o.search.percent = option<double>(k, v, "a percent");
    else if (k == "auto_n")
      o.search.n = count_option(k, v);
    else if (k == "threads")
      o.threads = option<int>(k, v, "an int");
    else
      throw Error("quantize: unknown option '" + k + "'");
  }
  return o;
}

// The summary as the program records it (edgeq/report_json.h): one key set.
py::object summary_dict(const QuantizedModel& q) {
  return py::module_::import("json").attr("loads")(quantize_summary_json(q));
}

py::dict repair_dict(const RepairReport& r) {
  py::dict d;
  d["ran"] = r.ran;
  d["equalization"] = r.equalization;
  py::list pairs;
  for (const auto& p : r.equalized)
    pairs.append(py::dict(py::arg("first") = p.first, py::arg("second") = p.second,
                          py::arg("spread_before") = p.spread_before,
                          py::arg("spread_after") = p.spread_after));
  d["equalized"] = pairs;
  d["images"] = r.images;
  d["passes"] = r.passes;
  d["gptq"] = r.gptq;
  d["bias_correction"] = r.bias_correction;
  d["convs"] = r.convs;
  d["rows"] = r.rows;
  d["rows_exact"] = r.rows_exact;
  d["codes_changed"] = r.codes_changed;
  d["max_bias_shift"] = r.max_bias_shift;
  return d;
}

py::dict error_dict(const DetectionError& e) {
  return py::dict(py::arg("loss") = e.loss, py::arg("box_px") = e.box_px,
                  py::arg("kpt_px") = e.kpt_px, py::arg("score") = e.score,
                  py::arg("flipped") = e.flipped);
}

py::dict search_dict(const AutoSearchReport& s) {
  py::dict d;
  d["ran"] = s.ran;
  d["percent"] = s.percent;
  d["images"] = s.images;
  d["chosen"] = py::cast(s.chosen);
  d["values16"] = s.values16;
  d["values"] = s.values;
  d["base_loss"] = s.base_loss;
  d["loss"] = s.loss;
  d["base"] = error_dict(s.base);
  d["result"] = error_dict(s.result);
  d["log"] = py::module_::import("json").attr("loads")(s.log_json.empty() ? "null" : s.log_json);
  return d;
}

QuantizedModel quantize_py(const Model& model, const CalibrationStats& stats,
                           const py::object& images, py::object progress, const py::dict& kw) {
  QuantizeOptions o = options_from(kw);
  if (!images.is_none()) o.images = std::make_shared<ImageSource>(image_source(images));
  validate(o);
  LongCall call(std::move(progress));
  return call.run([&](const ProgressCallback& cb) {
    o.progress = cb;
    return quantize(model, stats, o);
  });
}

}  // namespace

void bind_quantize(py::module_& m) {
  py::class_<QuantizedModel>(m, "QuantizedModel",
                             R"doc(A quantized (QDQ ONNX) model and what was done.

Made by edgeq.quantize(). summary, repair and search are dicts (summary: the keys the program's
ledger records); warnings a list of str.)doc")
      .def(
          "save",
          [](const QuantizedModel& q, const py::object& path, const py::object& encodings,
             const std::string& version) {
            const std::string p = path_string(path);
            const std::string e = encodings.is_none() ? "" : path_string(encodings);
            py::gil_scoped_release release;
            q.save(p);
            if (!e.empty()) q.save_encodings(e, version);
          },
          py::arg("path"), py::arg("encodings") = py::none(),
          py::arg("encodings_version") = "1.0.0",
          "Writes the QDQ model (and, with encodings=, the AIMET encodings JSON) atomically, the "
          "same bytes `edgeq quantize --out --encodings` writes.")
      .def(
          "to_bytes", [](const QuantizedModel& q) { return py::bytes(q.bytes()); },
          "The serialized QDQ ONNX model.")
      .def("encodings_json", &QuantizedModel::encodings_json, py::arg("version") = "1.0.0",
           "The AIMET encodings, as JSON text.")
      .def_property_readonly(
          "model",
          [](const QuantizedModel& q) { return Model::from_bytes(q.bytes(), "quantized model"); },
          "The QDQ model as an edgeq.Model (for Session, compare, ...).")
      .def_property_readonly("summary", [](const QuantizedModel& q) { return summary_dict(q); })
      .def_property_readonly("repair",
                             [](const QuantizedModel& q) { return repair_dict(q.repair()); })
      .def_property_readonly("search",
                             [](const QuantizedModel& q) { return search_dict(q.search()); })
      .def_property_readonly("warnings", &QuantizedModel::warnings);

  m.def("_quantize", &quantize_py, py::arg("model"), py::arg("stats"), py::arg("images"),
        py::arg("progress"), py::arg("options"));
}

}  // namespace edgeq::python

#include "bindings.h"

namespace edgeq::python {
namespace {

// The report as `edgeq calibrate --json` writes it (edgeq/report_json.h): one key set.
py::object report_dict(const Calibration& c, const CalibrateOptions& o, const Model& model) {
  return py::module_::import("json").attr("loads")(calibration_json(c, o, model.name()));
}

py::object calibrate_py(const Model& model, const py::object& images, size_t n, uint64_t seed,
                        int shard_index, int shard_count, int threads, int workers,
                        int histogram_stride, py::object progress) {
  const ImageSource source = image_source(images);
  CalibrateOptions o;
  o.n = n;
  o.seed = seed;
  o.shard_index = shard_index;
  o.shard_count = shard_count;
  o.threads = threads;
  o.workers = workers;
  o.histogram_stride = histogram_stride;
  LongCall call(std::move(progress));
  Calibration c = call.run([&](const ProgressCallback& cb) {
    o.progress = cb;
    return calibrate(model, source, o);
  });
  py::object stats = py::cast(c.stats);
  stats.attr("report") = report_dict(c, o, model);
  return stats;
}

}  // namespace

void bind_calibrate(py::module_& m) {
  py::class_<CalibrationStats>(m, "Stats", py::dynamic_attr(),
                               R"doc(Calibration statistics of one model (immutable).

Made by edgeq.calibrate() (then .report holds what the calibration did), Stats.load() or
Stats.merge().)doc")
      .def_static(
          "load",
          [](const py::object& path) {
            const std::string p = path_string(path);
            py::gil_scoped_release release;
            return CalibrationStats::load(p);
          },
          py::arg("path"), "Reads statistics written by save() or `edgeq calibrate`.")
      .def_static(
          "merge",
          [](const std::vector<CalibrationStats>& shards) {
            py::gil_scoped_release release;
            return CalibrationStats::merge(shards);
          },
          py::arg("shards"),
          "Merges the statistics of calibration shards (byte-identical to one pass).")
      .def(
          "save",
          [](const CalibrationStats& s, const py::object& path) {
            const std::string p = path_string(path);
            py::gil_scoped_release release;
            s.save(p);
          },
          py::arg("path"), "Writes the statistics (atomically) as `edgeq calibrate --out` does.")
      .def_property_readonly("model_sha256", &CalibrationStats::model_sha256)
      .def_property_readonly("preprocessing", &CalibrationStats::preprocessing)
      .def_property_readonly("images", &CalibrationStats::images, "Images the statistics saw.")
      .def_property_readonly("values", &CalibrationStats::values, "Values with statistics.")
      .def("__repr__", [](const CalibrationStats& s) {
        return "<edgeq.Stats " + std::to_string(s.values()) + " values, " +
               std::to_string(s.images()) + " images>";
      });

  m.def("_calibrate", &calibrate_py, py::arg("model"), py::arg("images"), py::arg("n"),
        py::arg("seed"), py::arg("shard_index"), py::arg("shard_count"), py::arg("threads"),
        py::arg("workers"), py::arg("histogram_stride"), py::arg("progress"));
}

}  // namespace edgeq::python

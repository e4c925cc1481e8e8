// edgeq.Ledger for Python.
#include "bindings.h"

namespace edgeq::python {
namespace {

py::dict run_dict(const LedgerRunInfo& r) {
  py::dict metrics;
  for (const auto& [name, value] : r.metrics) metrics[py::str(name)] = value;
  py::dict d;
  d["id"] = r.id, d["time"] = r.time, d["kind"] = r.kind, d["command_line"] = r.command_line;
  d["tag"] = r.tag, d["model_sha256"] = r.model_sha256, d["output_sha256"] = r.output_sha256;
  d["options"] = py::module_::import("json").attr("loads")(r.options_json);
  d["metrics"] = metrics;
  return d;
}

}  // namespace

void bind_ledger(py::module_& m) {
  py::class_<LedgerCheck::Row>(m, "LedgerCheckRow", "One metric the gate compared.")
      .def_readonly("kind", &LedgerCheck::Row::kind)
      .def_readonly("metric", &LedgerCheck::Row::metric)
      .def_readonly("direction", &LedgerCheck::Row::direction, "'drop' or 'rise'")
      .def_readonly("baseline", &LedgerCheck::Row::baseline)
      .def_readonly("candidate", &LedgerCheck::Row::candidate, "None: the metric went missing")
      .def_readonly("limit", &LedgerCheck::Row::limit)
      .def_readonly("regressed", &LedgerCheck::Row::regressed);
  py::class_<LedgerCheck>(m, "LedgerCheck", "The regression gate's verdict (Ledger.check()).")
      .def_readonly("rows", &LedgerCheck::rows)
      .def_readonly("not_recorded", &LedgerCheck::not_recorded)
      .def_readonly("regressions", &LedgerCheck::regressions)
      .def_readonly("text", &LedgerCheck::text, "the table `edgeq ledger check` prints");
  py::class_<Ledger>(m, "Ledger", R"doc(The regression ledger (SQLite), as `--ledger` writes it.

Ledger(path, write=False): write creates the file when missing. record(kind, report, ...) adds a
finished run (report: a dict or JSON text, e.g. BenchReport.to_dict()); runs() lists them (dicts),
run(id) gives one with its metrics; check(baseline, candidate, max_drop=..., max_rise=...) is the
gate of `edgeq ledger check` (tags or "@N").)doc")
      .def(py::init([](const py::object& path, bool write) {
             return std::make_unique<Ledger>(path_string(path), write);
           }),
           py::arg("path"), py::arg("write") = false)
      .def(
          "record",
          [](Ledger& l, const std::string& kind, const py::object& report, const std::string& tag,
             const py::object& model_file, const py::object& output_file,
             const py::object& options) {
            auto dumps = py::module_::import("json").attr("dumps");
            LedgerRecordOptions o;
            o.tag = tag;
            o.command_line = "python";
            if (!model_file.is_none()) o.model_file = path_string(model_file);
            if (!output_file.is_none()) o.output_file = path_string(output_file);
            if (!options.is_none()) o.options_json = dumps(options).cast<std::string>();
            const std::string text = py::isinstance<py::str>(report)
                                         ? report.cast<std::string>()
                                         : dumps(report).cast<std::string>();
            py::gil_scoped_release release;
            return l.record(kind, text, o);
          },
          py::arg("kind"), py::arg("report"), py::arg("tag") = "",
          py::arg("model_file") = py::none(), py::arg("output_file") = py::none(),
          py::arg("options") = py::none(), "Records a finished run; returns its id.")
      .def("runs",
           [](Ledger& l) {
             py::list out;
             for (const LedgerRunInfo& r : l.runs()) out.append(run_dict(r));
             return out;
           })
      .def(
          "run", [](Ledger& l, int64_t id) { return run_dict(l.run(id)); }, py::arg("id"))
      .def("tags", &Ledger::tags)
      .def(
          "check",
          [](Ledger& l, const std::string& baseline, const std::string& candidate,
             const py::object& max_drop, const py::object& max_rise) {
            LedgerCheckOptions o;  // the library's default limits unless given
            if (!max_drop.is_none()) o.max_drop = max_drop.cast<std::string>();
            if (!max_rise.is_none()) o.max_rise = max_rise.cast<std::string>();
            return l.check(baseline, candidate, o);
          },
          py::arg("baseline"), py::arg("candidate"), py::arg("max_drop") = py::none(),
          py::arg("max_rise") = py::none())
      .def_property_readonly("path", [](const Ledger& l) { return path_object(l.path()); });
}

}  // namespace edgeq::python

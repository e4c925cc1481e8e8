// edgeq.Ledger for Python.
#include "bindings.h"

namespace edgeq::python {
namespace {

// Every string as text_object decodes it: a tag or command line the program stored as bytes that
// are not UTF-8 reads back (and goes back to record() / check()) unchanged.
py::dict run_dict(const LedgerRunInfo& r) {
  py::dict metrics;
  for (const auto& [name, value] : r.metrics) metrics[text_object(name)] = value;
  py::dict d;
  d["id"] = r.id, d["time"] = text_object(r.time), d["kind"] = text_object(r.kind);
  d["command_line"] = text_object(r.command_line), d["tag"] = text_object(r.tag);
  d["model_sha256"] = text_object(r.model_sha256);
  d["output_sha256"] = text_object(r.output_sha256);
  d["options"] = py::module_::import("json").attr("loads")(text_object(r.options_json));
  d["metrics"] = metrics;
  return d;
}

py::list text_list(const std::vector<std::string>& v) {
  py::list out;
  for (const std::string& s : v) out.append(text_object(s));
  return out;
}

}  // namespace

void bind_ledger(py::module_& m) {
  using Row = LedgerCheck::Row;
  py::class_<Row>(m, "LedgerCheckRow", "One metric the gate compared.")
      .def_property_readonly("kind", [](const Row& r) { return text_object(r.kind); })
      .def_property_readonly("metric", [](const Row& r) { return text_object(r.metric); })
      .def_property_readonly(
          "direction", [](const Row& r) { return text_object(r.direction); }, "'drop' or 'rise'")
      .def_readonly("baseline", &LedgerCheck::Row::baseline)
      .def_readonly("candidate", &LedgerCheck::Row::candidate, "None: the metric went missing")
      .def_property_readonly("limit", [](const Row& r) { return text_object(r.limit); })
      .def_readonly("regressed", &LedgerCheck::Row::regressed);
  py::class_<LedgerCheck>(m, "LedgerCheck", "The regression gate's verdict (Ledger.check()).")
      .def_readonly("rows", &LedgerCheck::rows)
      .def_property_readonly("not_recorded",
                             [](const LedgerCheck& c) { return text_list(c.not_recorded); })
      .def_readonly("regressions", &LedgerCheck::regressions)
      .def_property_readonly(
          "text", [](const LedgerCheck& c) { return text_object(c.text); },
          "the table `edgeq ledger check` prints");
  py::class_<Ledger>(m, "Ledger", R"doc(The regression ledger (SQLite), as `--ledger` writes it.

Ledger(path, write=False): write creates the file when missing. record(kind, report, ...) adds a
finished run (report: a dict or JSON text, e.g. BenchReport.to_dict()); runs() lists them (dicts),
run(id) gives one with its metrics; check(baseline, candidate, max_drop=..., max_rise=...) is the
gate of `edgeq ledger check` (tags or "@N"); list_text(), show_text(run) and diff_text(a, b) print
what `edgeq ledger list / show / diff` print.)doc")
      .def(py::init([](const py::object& path, bool write) {
             return std::make_unique<Ledger>(path_string(path), write);
           }),
           py::arg("path"), py::arg("write") = false)
      .def(
          "record",
          [](Ledger& l, const std::string& kind, const py::object& report, const py::object& tag,
             const py::object& model_file, const py::object& output_file,
             const py::object& options) {
            auto dumps = py::module_::import("json").attr("dumps");
            LedgerRecordOptions o;
            o.tag = text_string(tag, "tag");
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
      .def("tags", [](Ledger& l) { return text_list(l.tags()); })
      .def(
          "check",
          [](Ledger& l, const py::object& baseline, const py::object& candidate,
             const py::object& max_drop, const py::object& max_rise) {
            LedgerCheckOptions o;  // the library's default limits unless given
            if (!max_drop.is_none()) o.max_drop = max_drop.cast<std::string>();
            if (!max_rise.is_none()) o.max_rise = max_rise.cast<std::string>();
            return l.check(text_string(baseline, "baseline"), text_string(candidate, "candidate"),
                           o);
          },
          py::arg("baseline"), py::arg("candidate"), py::arg("max_drop") = py::none(),
          py::arg("max_rise") = py::none())
      .def(
          "list_text",
          [](Ledger& l, const py::object& tag, const std::string& kind) {
            return text_object(l.list_text(text_string(tag, "tag"), kind));
          },
          py::arg("tag") = "", py::arg("kind") = "",
          "The table `edgeq ledger list` prints (tag, kind: only those runs).")
      .def(
          "show_text",
          [](Ledger& l, const py::object& run) {
            return text_object(l.show_text(text_string(run, "run")));
          },
          py::arg("run") = "",
          "What `edgeq ledger show` prints: run \"@N\", a tag's latest runs, or the last run.")
      .def(
          "diff_text",
          [](Ledger& l, const py::object& a, const py::object& b) {
            return text_object(l.diff_text(text_string(a, "a"), text_string(b, "b")));
          },
          py::arg("a"), py::arg("b"), "What `edgeq ledger diff` prints (two \"@N\" or two tags).")
      .def_property_readonly("path", [](const Ledger& l) { return path_object(l.path()); });
}

}  // namespace edgeq::python

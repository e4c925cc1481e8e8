// edgeq.bench() and edgeq.study() for Python.
#include "bindings.h"

namespace edgeq::python {
namespace {

BenchReport bench_py(const Model& model, int runs, int warmup, int workers, const std::string& exec,
                     const std::string& emulate, int threads, bool profile) {
  BenchOptions o;
  o.runs = runs, o.warmup = warmup, o.workers = workers;
  o.exec = exec_options(exec, emulate, threads), o.profile = profile;
  LongCall call{py::none()};  // Ctrl-C: KeyboardInterrupt before the next run
  return call.run([&](const ProgressCallback&) { return bench(model, o); });
}

// `config_json`: the study's JSON form (edgeq/study.h), which Python builds from its keywords.
StudyResult study_py(const std::string& config_json, py::object progress) {
  StudyConfig c = study_config_from_json(config_json);
  LongCall call(std::move(progress));
  return call.run([&](const ProgressCallback& cb) {
    c.progress = cb;
    return study(c);
  });
}

StudyWorkResult study_worker_py(const std::string& config_json, int index, int count,
                                double lease_s, py::object progress) {
  StudyConfig c = study_config_from_json(config_json);
  LongCall call(std::move(progress));
  return call.run([&](const ProgressCallback& cb) {
    c.progress = cb;
    return study_worker(c, {index, count, lease_s});
  });
}

std::string study_plan_py(const std::string& config_json) {
  const StudyConfig c = study_config_from_json(config_json);
  py::gil_scoped_release release;
  return study_plan(c);
}

py::object json_loads(const std::string& text) {
  return py::module_::import("json").attr("loads")(text);
}

}  // namespace

void bind_bench(py::module_& m) {
  using R = BenchReport;
  py::class_<R>(m, "BenchReport", R"doc(Latency and memory of a model (edgeq.bench()).

One worker: min_ms, median_ms, p95_ms, samples_ms, plan_ms, arena_bytes, weight_bytes,
input_bytes_per_frame, output_bytes_per_frame, quantized_io, and for a raw-head model
host_decode_median_ms and graph_median_ms (0 otherwise); peak (the CPU's, measured once per
process: fp32_instruction, fp32_gflops, int8_instruction, int8_gops), the run's multiply-add work
fp32_gflop and int8_gop, achieved_gops and peak_fraction (the work's time at the peak over the
median); with profile (timed runs only), ops (op, steps, ms_per_run; largest first) and steps
(all, slowest first; gops and peak_fraction for steps with multiply-adds, else 0). Several workers:
throughput_ms_per_run (wall time per run). Always peak_rss_bytes, threads (per worker),
notices. to_dict() is what `edgeq bench --json` writes (with profile, also under "profile").)doc")
      .def_readonly("model", &R::model)
      .def_readonly("workers", &R::workers)
      .def_readonly("threads", &R::threads)
      .def_property_readonly("exec", [](const R& r) { return std::string(name(r.exec)); })
      .def_property_readonly("emulate", [](const R& r) { return std::string(name(r.emulate)); })
      .def_readonly("simd", &R::simd)
      .def_readonly("runs", &R::runs)
      .def_readonly("warmup", &R::warmup)
      .def_readonly("min_ms", &R::min_ms)
      .def_readonly("median_ms", &R::median_ms)
      .def_readonly("p95_ms", &R::p95_ms)
      .def_readonly("plan_ms", &R::plan_ms)
      .def_readonly("samples_ms", &R::samples_ms)
      .def_readonly("host_decode_median_ms", &R::host_decode_median_ms)
      .def_readonly("graph_median_ms", &R::graph_median_ms)
      .def_readonly("throughput_ms_per_run", &R::throughput_ms_per_run)
      .def_readonly("peak_rss_bytes", &R::peak_rss_bytes)
      .def_readonly("arena_bytes", &R::arena_bytes)
      .def_readonly("weight_bytes", &R::weight_bytes)
      .def_readonly("input_bytes_per_frame", &R::input_bytes_per_frame)
      .def_readonly("output_bytes_per_frame", &R::output_bytes_per_frame)
      .def_readonly("quantized_io", &R::quantized_io)
      .def_property_readonly("peak",
                             [](const R& r) {
                               return py::dict(
                                   py::arg("fp32_instruction") = r.peak.fp32_instruction,
                                   py::arg("fp32_gflops") = r.peak.fp32_gflops,
                                   py::arg("int8_instruction") = r.peak.int8_instruction,
                                   py::arg("int8_gops") = r.peak.int8_gops);
                             })
      .def_readonly("fp32_gflop", &R::fp32_gflop)
      .def_readonly("int8_gop", &R::int8_gop)
      .def_readonly("achieved_gops", &R::achieved_gops)
      .def_readonly("peak_fraction", &R::peak_fraction)
      .def_property_readonly(
          "ops",
          [](const R& r) {
            py::list out;
            for (const auto& t : r.ops)
              out.append(py::dict(py::arg("op") = t.op, py::arg("steps") = t.steps,
                                  py::arg("ms_per_run") = t.ms_per_run));
            return out;
          })
      .def_property_readonly(
          "steps",
          [](const R& r) {
            py::list out;
            for (const auto& s : r.steps)
              out.append(py::dict(py::arg("step") = s.step, py::arg("ms_per_run") = s.ms_per_run,
                                  py::arg("gops") = s.gops,
                                  py::arg("peak_fraction") = s.peak_fraction));
            return out;
          })
      .def_readonly("notices", &R::notices)
      .def(
          "to_dict", [](const R& r) { return json_loads(r.json); },
          "The numbers as `edgeq bench --json` writes them.")
      .def("__repr__", [](const R& r) {
        return "<edgeq.BenchReport " + r.model + " median " + std::to_string(r.median_ms) + " ms>";
      });
  m.def("_bench", &bench_py, py::arg("model"), py::arg("runs"), py::arg("warmup"),
        py::arg("workers"), py::arg("exec"), py::arg("emulate"), py::arg("threads"),
        py::arg("profile"));

  py::class_<StudyResult>(m, "StudyResult", R"doc(What edgeq.study() wrote.

out (the folder with data.json, index.html and cache/), runs, steps, cached, seconds; data() is
data.json as a dict, ledger() the numbers the regression ledger records.)doc")
      .def_property_readonly("out", [](const StudyResult& r) { return path_object(r.out); })
      .def_readonly("runs", &StudyResult::runs)
      .def_readonly("steps", &StudyResult::steps)
      .def_readonly("cached", &StudyResult::cached)
      .def_readonly("seconds", &StudyResult::seconds)
      .def(
          "data", [](const StudyResult& r) { return json_loads(r.data_json); },
          "data.json as a dict.")
      .def(
          "ledger", [](const StudyResult& r) { return json_loads(r.ledger_json); },
          "The study's numbers as the regression ledger records them.")
      .def("__repr__", [](const StudyResult& r) {
        return "<edgeq.StudyResult " + std::to_string(r.runs) + " runs, " +
               std::to_string(r.steps) + " steps (" + std::to_string(r.cached) + " cached)>";
      });
  m.def("_study", &study_py, py::arg("config_json"), py::arg("progress"));
  py::class_<StudyWorkResult>(m, "StudyWorkResult", R"doc(What one study worker did.

computed (steps it computed), deferred (latency steps left to the collecting study()), passes,
seconds.)doc")
      .def_readonly("computed", &StudyWorkResult::computed)
      .def_readonly("deferred", &StudyWorkResult::deferred)
      .def_readonly("passes", &StudyWorkResult::passes)
      .def_readonly("seconds", &StudyWorkResult::seconds)
      .def("__repr__", [](const StudyWorkResult& r) {
        return "<edgeq.StudyWorkResult " + std::to_string(r.computed) + " computed, " +
               std::to_string(r.deferred) + " latency steps deferred>";
      });
  m.def("_study_worker", &study_worker_py, py::arg("config_json"), py::arg("index"),
        py::arg("count"), py::arg("lease_s"), py::arg("progress"));
  m.def("_study_plan", &study_plan_py, py::arg("config_json"));
}

}  // namespace edgeq::python

#include <cstring>

#include "bindings.h"

namespace edgeq::python {
namespace {

// A float32 array that owns `values` (no copy).
py::array_t<float> owning_array(std::vector<float> values, const std::vector<int64_t>& shape) {
  auto* owned = new std::vector<float>(std::move(values));
  py::capsule free_when_done(owned, [](void* p) { delete static_cast<std::vector<float>*>(p); });
  std::vector<py::ssize_t> dims(shape.begin(), shape.end());
  return py::array_t<float>(dims, owned->data(), free_when_done);
}

// (name, xyxy (N,4), conf (N,), cls (N,), keypoints xy (N,K,2) or None, keypoints conf (N,K) or
// None), as edgeq.Results is built from.
py::tuple result_tuple(const std::string& name, const std::vector<Session::Detection>& dets,
                       int keypoints) {
  const py::ssize_t n = static_cast<py::ssize_t>(dets.size());
  py::array_t<float> xyxy({n, py::ssize_t{4}});
  py::array_t<float> conf({n});
  py::array_t<int64_t> cls({n});
  auto b = xyxy.mutable_unchecked<2>();
  auto c = conf.mutable_unchecked<1>();
  auto k = cls.mutable_unchecked<1>();
  const py::ssize_t nk = keypoints;
  py::array_t<float> kxy({n, nk, py::ssize_t{2}});
  py::array_t<float> kconf({n, nk});
  auto kx = kxy.mutable_unchecked<3>();
  auto kc = kconf.mutable_unchecked<2>();
  for (py::ssize_t i = 0; i < n; ++i) {
    const auto& d = dets[static_cast<size_t>(i)];
    b(i, 0) = d.x1, b(i, 1) = d.y1, b(i, 2) = d.x2, b(i, 3) = d.y2;
    c(i) = d.score;
    k(i) = d.cls;
    for (py::ssize_t j = 0; j < nk; ++j) {
      const bool has = static_cast<size_t>(j) < d.keypoints.size();
      kx(i, j, 0) = has ? d.keypoints[static_cast<size_t>(j)].x : 0.f;
      kx(i, j, 1) = has ? d.keypoints[static_cast<size_t>(j)].y : 0.f;
      kc(i, j) = has ? d.keypoints[static_cast<size_t>(j)].conf : 0.f;
    }
  }
  const py::object shown = path_object(name);
  if (keypoints == 0) return py::make_tuple(shown, xyxy, conf, cls, py::none(), py::none());
  return py::make_tuple(shown, xyxy, conf, cls, kxy, kconf);
}

struct PySession {
  PySession(const Model& m, const SessionOptions& o) : session(m, o) {}
  Session session;
  int keypoints = -1;  // known at the first predict (a model that is no detector can still run)
};

py::tuple predict_one(PySession& s, const py::object& image, size_t index) {
  if (s.keypoints < 0) s.keypoints = s.session.keypoints();
  std::vector<Session::Detection> dets;
  std::string name;
  if (is_path(image)) {
    name = path_string(image);
    py::gil_scoped_release release;
    dets = s.session.predict(name);
  } else {
    ImageFrame f = frame_from_array(image, "image " + std::to_string(index));
    name = f.name;
    py::gil_scoped_release release;
    dets = s.session.predict(f);
  }
  return result_tuple(name, dets, s.keypoints);
}

py::dict run_py(PySession& s, const py::dict& inputs) {
  std::vector<TensorData> in;
  for (const auto& item : inputs) {
    TensorData t;
    t.name = py::str(item.first).cast<std::string>();
    if (!py::isinstance<py::array>(item.second))
      throw Error("input '" + t.name + "': expected a numpy array");
    const py::array a = py::reinterpret_borrow<py::array>(item.second);
    if (!a.dtype().is(py::dtype::of<float>()))
      throw Error("input '" + t.name + "': expected dtype float32, got " +
                  py::str(a.dtype()).cast<std::string>());
    if (!(a.flags() & py::array::c_style))
      throw Error("input '" + t.name +
                  "': the array is not C-contiguous (numpy.ascontiguousarray makes it so)");
    for (py::ssize_t i = 0; i < a.ndim(); ++i) t.shape.push_back(a.shape(i));
    t.values.resize(static_cast<size_t>(a.size()));
    std::memcpy(t.values.data(), a.data(), t.values.size() * sizeof(float));
    in.push_back(std::move(t));
  }
  std::vector<TensorData> out;
  {
    py::gil_scoped_release release;
    out = s.session.run(in);
  }
  py::dict d;
  for (TensorData& t : out) d[py::str(t.name)] = owning_array(std::move(t.values), t.shape);
  return d;
}

}  // namespace

ExecOptions exec_options(const std::string& exec, const std::string& emulate, int threads) {
  ExecOptions o;
  o.mode = parse<ExecMode>(exec);
  o.emulate = parse<Int8Emulation>(emulate);
  o.threads = threads;
  validate(o);
  return o;
}

void bind_session(py::module_& m) {
  py::class_<PySession>(m, "_Session")
      .def(py::init([](const Model& model, const std::string& exec, const std::string& emulate,
                       int threads, float conf, float iou, int max_det) {
             SessionOptions o;
             o.exec = exec_options(exec, emulate, threads);
             o.conf = conf, o.iou = iou, o.max_det = max_det;
             py::gil_scoped_release release;
             return std::make_unique<PySession>(model, o);
           }),
           py::arg("model"), py::arg("exec"), py::arg("emulate"), py::arg("threads"),
           py::arg("conf"), py::arg("iou"), py::arg("max_det"))
      .def("predict_one", &predict_one, py::arg("image"), py::arg("index"))
      .def("run", &run_py, py::arg("inputs"))
      .def("notices", [](PySession& s) { return s.session.notices(); });
  m.def("_image_names", &image_names, py::arg("path"));
}

}  // namespace edgeq::python

#include "bindings.h"

namespace edgeq::python {
namespace {

py::dict value_dict(const ValueDescription& v) {
  py::dict d;
  d["name"] = v.name;
  d["dtype"] = v.dtype;
  d["shape"] = py::tuple(py::cast(v.shape));
  return d;
}

py::list value_list(const std::vector<ValueDescription>& vs) {
  py::list l;
  for (const auto& v : vs) l.append(value_dict(v));
  return l;
}

// The bytes of a bytes-like object (bytes, bytearray, memoryview, mmap: anything with the buffer
// protocol, as Python's own binary APIs take), or throws edgeq::Error.
std::string buffer_bytes(const py::object& source) {
  Py_buffer view;
  if (PyObject_GetBuffer(source.ptr(), &view, PyBUF_SIMPLE) != 0) {
    PyErr_Clear();
    throw Error("Model: the " + type_name(source) +
                " is not one contiguous block of bytes (bytes(...) copies it into one)");
  }
  std::string bytes(static_cast<const char*>(view.buf), static_cast<size_t>(view.len));
  PyBuffer_Release(&view);
  return bytes;
}

Model model_from(const py::object& source, const std::optional<std::string>& name) {
  if (py::isinstance<Model>(source)) return source.cast<Model>();
  if (is_path(source)) {
    const std::string path = path_string(source);
    py::gil_scoped_release release;
    return Model::load(path);
  }
  std::string bytes;
  if (PyObject_CheckBuffer(source.ptr()))
    bytes = buffer_bytes(source);
  else if (py::hasattr(source, "SerializeToString"))  // an onnx.ModelProto
    bytes = source.attr("SerializeToString")().cast<std::string>();
  else
    throw Error(
        "Model: expected a path, bytes (or another bytes-like object) or an "
        "onnx.ModelProto, got " +
        type_name(source));
  const std::string n = name.value_or("model");
  py::gil_scoped_release release;
  return Model::from_bytes(std::move(bytes), n);
}

}  // namespace

void bind_model(py::module_& m) {
  py::class_<Model>(m, "Model", R"doc(An ONNX model, loaded and checked (immutable).

Model(source, name=None): source is a path (str or os.PathLike), the model's bytes (bytes,
bytearray, memoryview: any bytes-like object), or an onnx.ModelProto (anything with
SerializeToString()). Raises edgeq.Error for a missing, truncated or malformed model, naming the
file.)doc")
      .def(py::init(&model_from), py::arg("source"), py::arg("name") = py::none())
      .def_property_readonly("name", &Model::name, "The path, or the name given with the bytes.")
      .def_property_readonly("sha256", &Model::sha256, "SHA-256 of the model's bytes (hex).")
      .def_property_readonly(
          "inputs", [](const Model& mo) { return value_list(mo.inputs()); },
          "Graph inputs: a list of {'name', 'dtype', 'shape'} (-1 for a free dimension).")
      .def_property_readonly(
          "outputs", [](const Model& mo) { return value_list(mo.outputs()); },
          "Graph outputs, as inputs lists them.")
      .def("summary", &Model::summary, "A few lines on the model, as `edgeq inspect` starts.")
      .def(
          "to_bytes", [](const Model& mo) { return py::bytes(mo.bytes()); },
          "The serialized ONNX model.")
      .def("__repr__", [](const Model& mo) {
        return "<edgeq.Model " + mo.name() + " sha256=" + mo.sha256().substr(0, 12) + ">";
      });
}

}  // namespace edgeq::python

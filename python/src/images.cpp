#include <cstring>

#include "bindings.h"
#include "edgeq/files.h"

namespace edgeq::python {

bool is_path(const py::handle& obj) {
  return py::isinstance<py::str>(obj) || py::hasattr(obj, "__fspath__");
}

std::string type_name(const py::handle& obj) {
  return py::str(py::type::of(obj).attr("__name__")).cast<std::string>();
}

std::string path_string(const py::handle& obj) {
  std::string p = py::module_::import("os").attr("fsencode")(obj).cast<std::string>();
  check_path_name(p, "path");
  return p;
}

py::object path_object(const std::string& path) {
  return py::module_::import("os").attr("fsdecode")(py::bytes(path));
}

py::str text_object(const std::string& s) {
  PyObject* o =
      PyUnicode_DecodeUTF8(s.data(), static_cast<py::ssize_t>(s.size()), "surrogateescape");
  if (!o) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

std::string text_string(const py::handle& obj, const std::string& what) {
  if (py::isinstance<py::bytes>(obj)) return obj.cast<std::string>();
  if (!py::isinstance<py::str>(obj)) throw Error(what + ": expected a str, got " + type_name(obj));
  PyObject* b = PyUnicode_AsEncodedString(obj.ptr(), "utf-8", "surrogateescape");
  if (!b) throw py::error_already_set();
  return py::reinterpret_steal<py::bytes>(b).cast<std::string>();
}

ImageFrame frame_from_array(const py::handle& obj, const std::string& what) {
  if (!py::isinstance<py::array>(obj))
    throw Error(what + ": expected a path or a numpy array HxWx3 uint8 (BGR), got " +
                type_name(obj));
  const py::array a = py::reinterpret_borrow<py::array>(obj);
  if (!a.dtype().is(py::dtype::of<uint8_t>()))
    throw Error(what + ": expected dtype uint8 (BGR pixels), got " +
                py::str(a.dtype()).cast<std::string>());
  if (a.ndim() != 3 || a.shape(2) != 3) {
    std::string shape;
    for (py::ssize_t i = 0; i < a.ndim(); ++i) shape += (i ? "x" : "") + std::to_string(a.shape(i));
    throw Error(what + ": expected shape HxWx3 (BGR), got " + (shape.empty() ? "a scalar" : shape));
  }
  if (!(a.flags() & py::array::c_style))
    throw Error(what + ": the array is not C-contiguous (numpy.ascontiguousarray makes it so)");
  ImageFrame f;
  f.height = static_cast<int>(a.shape(0));
  f.width = static_cast<int>(a.shape(1));
  f.bgr.resize(static_cast<size_t>(a.nbytes()));
  std::memcpy(f.bgr.data(), a.data(), f.bgr.size());
  f.name = what;
  return f;
}

ImageSource image_source(const py::handle& images) {
  if (is_path(images)) return ImageSource::from_path(path_string(images));
  if (py::isinstance<py::array>(images) || !py::isinstance<py::sequence>(images))
    throw Error(
        "images: expected a path (folder, list file, video or image) or a list of paths "
        "and HxWx3 uint8 arrays");
  std::vector<std::string> paths;
  std::vector<ImageFrame> frames;
  size_t i = 0;
  for (const py::handle item : images) {
    if (is_path(item))
      paths.push_back(path_string(item));
    else
      frames.push_back(frame_from_array(item, "images[" + std::to_string(i) + "]"));
    ++i;
  }
  if (i == 0) throw Error("images: the list is empty");
  if (!paths.empty() && !frames.empty())
    throw Error("images: a list of paths or a list of arrays, not both");
  return paths.empty() ? ImageSource::from_frames(std::move(frames))
                       : ImageSource::from_files(paths);
}

py::list image_names(const py::object& path) {
  const ImageSource source = ImageSource::from_path(path_string(path));
  py::list names;
  for (size_t i = 0; i < source.size(); ++i) names.append(path_object(source.name(i)));
  return names;
}

}  // namespace edgeq::python

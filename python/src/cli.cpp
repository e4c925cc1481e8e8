#include "edgeq/cli.h"

#include "bindings.h"

namespace edgeq::python {

void bind_cli(py::module_& m) {
  m.def(
      "_cli_main",
      [](const std::vector<std::string>& argv) {
        std::vector<std::string> args = argv;
        std::vector<char*> ptrs;
        for (std::string& a : args) ptrs.push_back(a.data());
        ptrs.push_back(nullptr);
        py::gil_scoped_release release;
        return cli::run_command_line(static_cast<int>(args.size()), ptrs.data());
      },
      py::arg("argv"),
      "Runs the edgeq command line (argv[0] is the program name); the exit status.");
}

}  // namespace edgeq::python

"""Builds the edgeq Python package with the project's CMake build (the module links the whole
C++ library; there is one build, not a second one here). The CMake build folder is
$EDGEQ_BUILD_DIR, else build/ (configured here when it is not yet)."""
import os
import pathlib
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent
SETUPTOOLS_DIR = ROOT / "build" / "setuptools"  # setuptools' own files, out of the source tree
SETUPTOOLS_DIR.mkdir(parents=True, exist_ok=True)
VERSION = re.search(r"project\(edgeq VERSION ([0-9.]+)",
                    (ROOT / "CMakeLists.txt").read_text()).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = pathlib.Path(os.environ.get("EDGEQ_BUILD_DIR", ROOT / "build"))
        if not (build / "CMakeCache.txt").exists():
            subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build),
                                   "-DCMAKE_BUILD_TYPE=Release",
                                   f"-DPython_EXECUTABLE={sys.executable}"])
        subprocess.check_call(["cmake", "--build", str(build), "--target", "edgeq_python",
                               f"-j{os.cpu_count() or 1}"])
        built = sorted((build / "python" / "edgeq").glob("_edgeq*.so"))
        if not built:
            raise RuntimeError(f"{build}: the CMake build made no edgeq module "
                               "(Debian: pybind11-dev python3-dev)")
        dest = pathlib.Path(self.get_ext_fullpath(ext.name))
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built[0], dest)


setup(
    version=VERSION,
    packages=["edgeq"],
    package_dir={"": "python"},
    package_data={"edgeq": ["__init__.pyi", "py.typed"]},
    ext_modules=[Extension("edgeq._edgeq", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": str(SETUPTOOLS_DIR)},
             "egg_info": {"egg_base": str(SETUPTOOLS_DIR)}},
)

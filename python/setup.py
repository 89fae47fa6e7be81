"""Builds the tokvec module with the project's CMake (setuptools drives it; no download, no build isolation
needed):

    /usr/bin/python3 -m venv --system-site-packages .venv
    .venv/bin/pip install --no-build-isolation --no-index ./python

The C++ build goes to python/build/cmake (Release, tests off), or to TOKVEC_BUILD_DIR when set: an existing
build directory of the project (e.g. `build`, which `make test` made; relative to the repository root), so
that only the module is compiled.
"""
import os
import pathlib
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        reuse = os.environ.get("TOKVEC_BUILD_DIR")
        # A relative TOKVEC_BUILD_DIR is taken from the repository root (pip runs this file inside python/).
        build_dir = (ROOT / reuse).resolve() if reuse else HERE / "build" / "cmake"
        configure = ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DTOKVEC_PYTHON=ON"]
        if not reuse:
            configure += ["-DCMAKE_BUILD_TYPE=Release", "-DTOKVEC_BUILD_TESTS=OFF",
                          f"-DPython_EXECUTABLE={sys.executable}"]
        subprocess.check_call(configure)
        jobs = os.environ.get("JOBS") or str(os.cpu_count() or 1)
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "_tokvec", "-j", jobs])
        built = sorted((build_dir / "python" / "tokvec").glob("_tokvec*.so"))
        if not built:
            raise RuntimeError(f"the CMake build in {build_dir} made no _tokvec module")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


setup(ext_modules=[Extension("tokvec._tokvec", sources=[])], cmdclass={"build_ext": CMakeBuild})

"""Packaging hook: builds the C extension (linkrouter/_speedups.c) and puts liblinkrouter.so into the built
package, so `pip install ./bindings/python` after `make` gives a package that works on its own.

The extension is compiled against linkrouter.h: $LINKROUTER_INCLUDE, else the source tree's Include/, else the
copy an sdist carries in include/. It is not linked against the library (it finds the functions in the copy the
ctypes layer loaded, see _speedups.c), so it builds without one. A failed build leaves the ctypes path and a
warning, unless LINKROUTER_REQUIRE_EXTENSION=1 (`make test-python` sets it), which makes it an error.

The library comes from $LINKROUTER_LIBRARY when set, else the source tree's build/lib/liblinkrouter.so (made by
`make` or `make lib` at the repository root). Without either, the package is built without it and finds the
library at run time ($LINKROUTER_LIBRARY or the build folder), as a checkout does. The copy goes into the build
directory only, never into the source folder. Everything else is in pyproject.toml.
"""
import os
import shutil
import sys

from setuptools import Extension, setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "liblinkrouter.so"
HEADER = "linkrouter.h"


def library_to_bundle():
    env = os.environ.get("LINKROUTER_LIBRARY")
    if env:
        path = os.path.join(env, NAME) if os.path.isdir(env) else env
        if not os.path.isfile(path):
            sys.exit("setup.py: LINKROUTER_LIBRARY=%s is not a file" % env)
        return path
    for path in (os.path.join(HERE, "..", "..", "build", "lib", NAME), os.path.join(HERE, "linkrouter", NAME)):
        if os.path.isfile(path):
            return os.path.normpath(path)
    return None


class BuildPyWithLibrary(build_py):
    def run(self):
        super().run()
        src = library_to_bundle()
        dest_dir = os.path.join(self.build_lib, "linkrouter")
        if src is None:
            self.announce("linkrouter: no %s found to bundle (run `make` first); the package will look for "
                          "$LINKROUTER_LIBRARY or the build folder at run time" % NAME, level=3)
            return
        os.makedirs(dest_dir, exist_ok=True)
        dest = os.path.join(dest_dir, NAME)
        if os.path.abspath(src) != os.path.abspath(dest):
            shutil.copyfile(src, dest)
            os.chmod(dest, 0o755)
        self.announce("linkrouter: bundled %s" % src, level=3)


REQUIRE_EXTENSION = os.environ.get("LINKROUTER_REQUIRE_EXTENSION", "") not in ("", "0")


def include_dir():
    for d in (os.environ.get("LINKROUTER_INCLUDE"), os.path.join(HERE, "..", "..", "Include"), os.path.join(HERE, "include")):
        if d and os.path.isfile(os.path.join(d, HEADER)):
            return os.path.normpath(d)
    return None


class SdistWithHeader(sdist):
    """An sdist carries the header in include/, for a build away from the source tree."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        src = include_dir()
        if src is None:
            sys.exit("setup.py: %s not found for the sdist: set LINKROUTER_INCLUDE" % HEADER)
        os.makedirs(os.path.join(base_dir, "include"), exist_ok=True)
        shutil.copyfile(os.path.join(src, HEADER), os.path.join(base_dir, "include", HEADER))


def extensions():
    include = include_dir()
    if include is None:
        if REQUIRE_EXTENSION:
            sys.exit("setup.py: %s not found: set LINKROUTER_INCLUDE" % HEADER)
        print("linkrouter: %s not found (set LINKROUTER_INCLUDE): building the ctypes path only" % HEADER)
        return []
    return [Extension(
        "linkrouter._speedups",
        sources=["linkrouter/_speedups.c"],
        include_dirs=[include],
        libraries=["dl"],  # dlopen, dlsym (in libc itself from glibc 2.34; libdl remains as a stub)
        optional=not REQUIRE_EXTENSION,  # a failed build leaves the ctypes path, with a warning
    )]


setup(cmdclass={"build_py": BuildPyWithLibrary, "sdist": SdistWithHeader}, ext_modules=extensions())

"""Packaging hook: puts liblinkrouter.so into the built package, so `pip install ./bindings/python` after `make`
gives a package that works on its own.

The library comes from $LINKROUTER_LIBRARY when set, else the source tree's build/lib/liblinkrouter.so (made by
`make` or `make lib` at the repository root). Without either, the package is built without it and finds the
library at run time ($LINKROUTER_LIBRARY or the build folder), as a checkout does. The copy goes into the build
directory only, never into the source folder. Everything else is in pyproject.toml.
"""
import os
import shutil
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "liblinkrouter.so"


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


class BinaryDistribution(Distribution):
    """The wheel holds a native library: tag it for this platform, not as pure Python."""

    def has_ext_modules(self):
        return True


cmdclass = {"build_py": BuildPyWithLibrary}

try:  # a py3-none-<platform> tag: the .so is called through ctypes, so any CPython 3 on this platform works
    try:
        from setuptools.command.bdist_wheel import bdist_wheel as _bdist_wheel
    except ImportError:
        from wheel.bdist_wheel import bdist_wheel as _bdist_wheel

    class BdistWheel(_bdist_wheel):
        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self):
            _, _, plat = super().get_tag()
            return "py3", "none", plat

    cmdclass["bdist_wheel"] = BdistWheel
except ImportError:
    pass

setup(cmdclass=cmdclass, distclass=BinaryDistribution)

"""Loading: $LINKROUTER_LIBRARY, then the package folder, then the build folder; one ImportError listing every
attempt when all fail; a library of another major/minor version is refused. Each case runs in a fresh Python
with a copy of the package in a temporary tree, so the real package folder and build folder are out of reach."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import linkrouter

PACKAGE = os.path.dirname(os.path.abspath(linkrouter.__file__))
REAL_LIBRARY = linkrouter.library_path
PROBE = "import linkrouter; print(linkrouter.library_path); print(linkrouter.Router().__class__.__name__)"


@pytest.fixture
def tree(tmp_path):
    """tmp/repo/bindings/python/linkrouter: a copy of the package without any library; its build folder would
    be tmp/repo/build/lib (../../../build/lib from the package folder), which does not exist yet."""
    dest = tmp_path / "repo" / "bindings" / "python" / "linkrouter"
    shutil.copytree(PACKAGE, dest, ignore=shutil.ignore_patterns("liblinkrouter.so*", "__pycache__"))
    return tmp_path


def run(tree, env_library=None, code=PROBE):
    env = {k: v for k, v in os.environ.items() if k != "LINKROUTER_LIBRARY"}
    env["PYTHONPATH"] = str(tree / "repo" / "bindings" / "python")
    if env_library is not None:
        env["LINKROUTER_LIBRARY"] = str(env_library)
    return subprocess.run([sys.executable, "-c", code], cwd=str(tree), env=env, capture_output=True, text=True,
                          timeout=120)


def package_dir(tree):
    return tree / "repo" / "bindings" / "python" / "linkrouter"


def build_lib(tree):
    return tree / "repo" / "build" / "lib"


def import_error(p):
    """The message of the ImportError the child died of: its traceback ends with "ImportError: " and the message,
    which may span lines, then a newline."""
    assert p.returncode == 1, p.stderr[-3000:]  # the ImportError (a crash would be a negative status: its signal)
    assert p.stderr.count("Traceback") == 1, p.stderr[-3000:]
    _, found, message = p.stderr.rpartition("\nImportError: ")
    assert found and message.endswith("\n"), p.stderr[-3000:]
    return message[:-1]


def attempts(tree, first):
    """The message when no library loads: the variable's attempt `first`, then the two folders, which hold none."""
    return ("linkrouter: could not load liblinkrouter.so; tried, in order:\n  $LINKROUTER_LIBRARY: %s\n"
            "  package folder: %s: no such file\n  build folder: %s: no such file"
            % (first, package_dir(tree) / "liblinkrouter.so", build_lib(tree) / "liblinkrouter.so"))


def test_all_attempts_fail_with_one_import_error(tree):
    p = run(tree, "/nonexistent")
    assert import_error(p) == attempts(tree, "/nonexistent: no such file")


def test_unset_variable_is_listed(tree):
    p = run(tree)
    assert import_error(p) == attempts(tree, "not set")


def test_a_file_that_is_not_a_library(tree):
    bogus = tree / "bogus.so"
    bogus.write_text("not an ELF file")
    p = run(tree, bogus)
    # glibc's dlopen: a 15-byte file is too short to hold an ELF header
    assert import_error(p) == attempts(tree, "%s: %s: file too short" % (bogus, bogus))


def test_build_folder_fallback(tree):
    build_lib(tree).mkdir(parents=True)
    os.symlink(REAL_LIBRARY, build_lib(tree) / "liblinkrouter.so")
    p = run(tree, "/nonexistent")
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == [str(build_lib(tree) / "liblinkrouter.so"), "Router"]


def test_package_folder_copy(tree):
    build_lib(tree).mkdir(parents=True)
    os.symlink(REAL_LIBRARY, build_lib(tree) / "liblinkrouter.so")
    os.symlink(REAL_LIBRARY, package_dir(tree) / "liblinkrouter.so")
    p = run(tree)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split()[0] == str(package_dir(tree) / "liblinkrouter.so")


def test_variable_wins_and_may_name_a_directory(tree):
    os.symlink(REAL_LIBRARY, package_dir(tree) / "liblinkrouter.so")
    other = tree / "elsewhere"
    other.mkdir()
    os.symlink(REAL_LIBRARY, other / "liblinkrouter.so")
    p = run(tree, other / "liblinkrouter.so")
    assert p.returncode == 0, p.stderr
    assert p.stdout.split()[0] == str(other / "liblinkrouter.so")
    p = run(tree, other)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split()[0] == str(other / "liblinkrouter.so")
    p = run(tree, "elsewhere/liblinkrouter.so")  # relative to the working directory (tree), not dlopen's paths
    assert p.returncode == 0, p.stderr
    assert p.stdout.split()[0] == str(other / "liblinkrouter.so")


def fake_library(tmp_path, name, source):
    # `make test` builds C anyway: a missing compiler fails these tests, it does not skip them.
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    assert cc is not None, "no C compiler (cc, gcc or clang) on PATH to build a fake library"
    src = tmp_path / (name + ".c")
    src.write_text(textwrap.dedent(source))
    out = tmp_path / (name + ".so")
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(out), str(src)], check=True)
    return out


def test_version_mismatch_is_refused(tree):
    fake = fake_library(tree, "v2", "int lr_version_number(void) { return 20000; }\n")
    os.symlink(REAL_LIBRARY, package_dir(tree) / "liblinkrouter.so")  # a good one next: still refused
    p = run(tree, fake)
    assert import_error(p) == ("linkrouter: %s ($LINKROUTER_LIBRARY) is version 2.0.0, but this binding needs 0.1.x "
                               "(major and minor must match)" % fake)


def test_same_minor_other_patch_is_accepted(tree):
    fake = fake_library(tree, "v0_1_9", "int lr_version_number(void) { return 109; }\n")
    p = run(tree, fake)
    # version accepted, then the fake lacks the rest of the ABI: that is reported, the library once, the function by
    # name
    assert import_error(p) == ("linkrouter: %s ($LINKROUTER_LIBRARY, version 0.1.9) lacks a function: lr_errstr"
                               % fake)


def test_not_a_linkrouter_library_is_skipped(tree):
    fake = fake_library(tree, "other", "int something_else(void) { return 1; }\n")
    os.symlink(REAL_LIBRARY, package_dir(tree) / "liblinkrouter.so")
    p = run(tree, fake)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split()[0] == str(package_dir(tree) / "liblinkrouter.so")
    (package_dir(tree) / "liblinkrouter.so").unlink()
    p = run(tree, fake)
    assert import_error(p) == attempts(tree, "%s: not a LinkRouter library (no lr_version_number)" % fake)


def test_loaded_library_reports_its_version():
    assert linkrouter.library_version() == "0.1.0"
    assert linkrouter.__version__ == "0.1.0"
    assert os.path.isfile(linkrouter.library_path)

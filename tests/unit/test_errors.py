"""The exception classes: made by the Rust extension, re-exported by `ssdlab.errors`, with the
standard bases callers catch, their attributes, and pickling (Ray sends them across processes)."""

from __future__ import annotations

import pickle

import pytest

from ssdlab import _core, errors, trace


def test_the_classes_are_the_extensions_with_the_standard_bases():
    expected = {
        "ConfigError": ValueError,
        "TraceFormatError": ValueError,
        "SsdlabIOError": OSError,
        "DeviceFullError": Exception,
        "InternalError": Exception,
    }
    for name, standard in expected.items():
        cls = getattr(errors, name)
        assert cls is getattr(_core, name), name
        assert issubclass(cls, errors.SsdlabError) and issubclass(cls, standard), name
        assert cls.__module__ == "ssdlab.errors" and cls.__doc__, name
    assert errors.SsdlabError is _core.SsdlabError


@pytest.mark.parametrize("name", [n for n in errors.__all__ if n != "ConfigDeprecationWarning"])
def test_raised_from_python_with_attributes_and_pickled(name):
    cls = getattr(errors, name)
    err = cls("it broke", path="a.toml", line=3, problems=[("device.x", "unknown key")])
    assert (str(err), err.message, err.path, err.line) == ("it broke", "it broke", "a.toml", 3)
    assert err.problems == [("device.x", "unknown key")] and err.args == ("it broke",)
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is cls
    assert (back.message, back.path, back.line, back.problems) == (err.message, "a.toml", 3, err.problems)
    bare = cls("no details")
    assert (bare.path, bare.line, bare.problems) == (None, None, [])


def test_a_core_io_error_arrives_as_an_os_error_naming_the_file(tmp_path):
    missing = tmp_path / "missing.csv"
    with pytest.raises(errors.SsdlabIOError) as info:
        trace.stats(missing)
    assert isinstance(info.value, OSError) and info.value.path == str(missing)
    assert str(missing) in str(info.value)

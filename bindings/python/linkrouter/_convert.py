"""Python values as the C ABI takes them: NUL-terminated UTF-8 text, URLs as bytes. Shared by the router's
modules; InvalidURLError (LR_EINVAL) for text that cannot cross."""
from __future__ import annotations

from typing import Any

from ._errors import InvalidURLError

#: What a text argument (a URL, a pattern, a name...) may be: named by every TypeError about one.
ACCEPTED = "str or bytes-like (bytes, bytearray, memoryview)"


def text(s: Any, what: str) -> bytes:
    """A str argument as NUL-terminated UTF-8 for the C ABI; InvalidURLError (LR_EINVAL) when it cannot be."""
    if type(s) is not str:
        if isinstance(s, str):
            s = str(s)
        elif isinstance(s, (bytes, bytearray, memoryview)):
            s = bytes(s)
            if b"\0" in s:
                raise InvalidURLError("%s contains a NUL character" % what)
            return s
        else:
            raise TypeError("%s must be %s, not %s" % (what, ACCEPTED, type(s).__name__))
    try:
        b = s.encode("utf-8")
    except UnicodeEncodeError as e:
        raise InvalidURLError("%s is not valid UTF-8 text: %s" % (what, e)) from None
    if b"\0" in b:
        raise InvalidURLError("%s contains a NUL character" % what)
    return b


def url_bytes(url: Any) -> bytes:
    """The URL's UTF-8 bytes (NUL characters allowed: the packed call takes a length)."""
    if isinstance(url, str):
        try:
            return str(url).encode("utf-8")
        except UnicodeEncodeError as e:
            raise InvalidURLError("url is not valid UTF-8 text: %s" % e) from None
    if isinstance(url, (bytes, bytearray, memoryview)):
        return bytes(url)
    raise TypeError("url must be %s, not %s" % (ACCEPTED, type(url).__name__))


def c_url(b: bytes) -> bytes:
    if b"\0" in b:
        raise InvalidURLError("url contains a NUL character")
    return b

"""ios's errors as Python exceptions: every failed call of the library raises an `Error` with the
library's message (the one the iosc and iosrun command lines print, naming the file, node and
op). Its subclass says what kind of error it is, as the C++ `ios::StatusCode` does."""


class Error(Exception):
    """Any error ios reports."""

    code = "internal"


class InvalidInput(Error, ValueError):
    """The model, plan, arrays or options given are wrong (the CLIs' exit status 2)."""

    code = "invalid_input"


class Unsupported(Error):
    """Valid input that ios does not handle, e.g. an op without an ios kernel."""

    code = "unsupported"


class IoError(Error, OSError):
    """A file could not be read or written."""

    code = "io_error"


class InternalError(Error):
    """A bug in ios."""

    code = "internal"

"""Output files written atomically: a reader sees the old file or the whole new one, never a
part, and a failed write leaves no temporary behind."""
import os
import tempfile


def write_atomically(path, data):
    """Writes `data` (bytes, or str as UTF-8) to `path` through a temporary in its folder."""
    if isinstance(data, str):
        data = data.encode()
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=directory)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # mkstemp creates 0600; give the file normal permissions
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise

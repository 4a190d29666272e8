"""Reading the sidecar's private files by the same rule as its writer (sidecar/src/files/private-file.ts):
a file counts only if it is a regular file of this user that nobody else can read or write.

The diagnostics report lives in Jupyter's runtime directory, which this package does not choose:
where others can write there, a symbolic link or a file of theirs at the report's name must not
be shown as the sidecar's "cause and fix". What is checked is the opened file (O_NOFOLLOW, then
fstat), so it cannot be swapped between the check and the read."""

import os
import stat

MAX_PRIVATE_FILE_BYTES = 1024 * 1024


def read_private_text(path):
    """The file's text if it is a private file of this user, else None (never raises for it)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if (
            not stat.S_ISREG(info.st_mode)
            or info.st_mode & 0o077
            or (hasattr(os, "getuid") and info.st_uid != os.getuid())
            or info.st_size > MAX_PRIVATE_FILE_BYTES
        ):
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(MAX_PRIVATE_FILE_BYTES + 1)
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    finally:
        os.close(fd)

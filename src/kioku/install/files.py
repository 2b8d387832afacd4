"""The installer's file handling: the manifest, settings.json read with a size cap, diffs, atomic
writes that keep a file's mode, private files, and the lock on the Claude folder."""

from __future__ import annotations

import contextlib
import difflib
import fcntl
import json
import os
from pathlib import Path
from typing import Any, Iterator

from kioku.infra.errors import KiokuError
from kioku.install import settings
from kioku.install.layout import Target


def refuse_unwritable_settings(target: Target, what: str) -> None:
    """SettingsError, before anything is changed, when settings.json cannot be replaced."""
    dest, _note = settings.write_destination(target.settings)
    folder = dest.parent if dest.parent.exists() else target.claude_dir.parent
    if (dest.exists() and not os.access(dest, os.W_OK)) or (folder.exists() and not os.access(folder, os.W_OK)):
        raise settings.SettingsError(f"refusing to {what}: {dest} cannot be written; nothing was changed")


KEPT_MARKER = ".kioku-kept"  # left by an uninstall in a skill folder whose edited files it kept


# --------------------------------------------------------------------------- helpers

def load_manifest(target: Target) -> dict[str, Any]:
    try:
        data = json.loads(target.manifest.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise KiokuError(f"cannot read {target.manifest}: {exc}") from None
    return data if isinstance(data, dict) else {}


MAX_SETTINGS_BYTES = 16 * 1024 * 1024


def read_capped(path: Path) -> bytes | None:
    """The bytes of settings.json (a link is followed to a regular file), None when there is
    none; a FIFO, a folder or a huge file is refused in one line instead of hanging or tracing."""
    from kioku.infra.fsutil import NotRegularFile, read_regular

    real = path.resolve() if path.is_symlink() else path
    try:
        data = read_regular(real, MAX_SETTINGS_BYTES)
    except FileNotFoundError:
        return None
    except (NotRegularFile, IsADirectoryError):
        raise settings.SettingsError(f"refusing to use {path}: it is not a regular file; nothing was written") from None
    if len(data) > MAX_SETTINGS_BYTES:
        raise settings.SettingsError(f"refusing to use {path}: it is larger than {MAX_SETTINGS_BYTES:,} bytes; "
                                     "nothing was written")
    return data


def print_diff(before: bytes | None, after: bytes | None, name: str) -> None:
    a = (before or b"").decode("utf-8", "replace").splitlines(keepends=True)
    b = (after or b"").decode("utf-8", "replace").splitlines(keepends=True)
    for line in difflib.unified_diff(a, b, f"{name} (before)", f"{name} (after)"):
        print("    " + line.rstrip("\n"))


def write_preserving_mode(path: Path, data: bytes) -> None:
    """Atomic replace that keeps the file's mode (0600 for a new file) and its folder's mode."""
    from kioku.infra import fsutil
    from kioku.install.settings import write_destination

    path, note = write_destination(path)  # a symlinked settings.json stays a link
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o600
    path.parent.mkdir(parents=True, exist_ok=True)
    fsutil.replace_file_bytes(path, data, mode)
    if note:
        print(f"  {note}")


def write_private(path: Path, data: bytes, mode: int) -> None:
    from kioku.infra import fsutil

    fsutil.ensure_private_dir(path.parent)
    fsutil.atomic_write_bytes(path, data, mode)


@contextlib.contextmanager
def locked(folder: Path, create: bool) -> Iterator[None]:
    """flock on the Claude folder itself, so no lock file is left behind."""
    if not folder.exists():
        if not create:
            yield
            return
        folder.mkdir(parents=True, mode=0o700)
    fd = os.open(folder, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise KiokuError(f"another Kioku install is running on {folder}") from None
        yield
    finally:
        os.close(fd)

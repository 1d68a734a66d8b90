"""Reading untrusted files: confined to a tree, size-capped, decoded and parsed defensively.

A :class:`ConfinedFiles` only opens regular files whose real path (symbolic links
resolved) lies inside its root, and reads at most a cap of bytes (after gzip
decompression, so a compressed bomb stops at the cap). Text must be UTF-8 when
``strict_utf8`` (predictions); otherwise invalid bytes are read as latin-1. Any
problem raises :class:`genotex.evaluation.statuses.ItemError` with a status and a
message that starts with the file path.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Dict, List, Optional, Tuple

from genotex.evaluation.statuses import EMPTY, MALFORMED, MISSING, ItemError
from utils.errors import InputFileError
from utils.io import GZIP_MAGIC, PathLike, check_complete, decode_text, open_binary
from utils.io.readers import unique_keys

MIB = 1024 * 1024
BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Limits:
    """Size limits applied to untrusted files.

    Attributes
    ----------
    max_json_bytes : int
        Largest JSON file read (after gzip decompression).
    max_table_bytes : int
        Largest CSV table read, whatever the reference size.
    table_size_ratio : float
        A predicted table may also exceed ``max_table_bytes`` up to this many
        times the size of its reference table.
    max_header_bytes : int
        Largest first line read when only a CSV header is needed.
    """

    max_json_bytes: int = 64 * MIB
    max_table_bytes: int = 64 * MIB
    table_size_ratio: float = 8.0
    max_header_bytes: int = 16 * MIB

    def table_cap(self, reference_bytes: Optional[int] = None) -> int:
        """Byte cap for a predicted table whose reference has ``reference_bytes``."""
        if reference_bytes is None:
            return self.max_table_bytes
        return max(self.max_table_bytes, int(self.table_size_ratio * reference_bytes))


def size_text(n_bytes: int) -> str:
    """``n_bytes`` in MiB with one decimal."""
    return f"{n_bytes / MIB:.1f} MiB"


def decode_content(data: bytes, path: Path, strict: bool) -> str:
    """Decode bytes as UTF-8 (a leading BOM is dropped).

    ``strict`` rejects invalid UTF-8 with :class:`ItemError` (malformed);
    otherwise undecodable bytes become latin-1 characters.
    """
    if data.startswith(BOM):
        data = data[3:]
    if not strict:
        return decode_text(data)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ItemError(path, MALFORMED, f"not valid UTF-8 text (byte 0x{data[exc.start]:02x} "
                        f"at offset {exc.start})", line=line) from exc


def parse_json_bytes(data: bytes, path: Path, strict: bool = True) -> Any:
    """Parse JSON bytes; NaN/Infinity literals become floats, duplicate keys fail.

    Raises
    ------
    ItemError
        ``empty`` for blank content, ``malformed`` for anything unparsable.
    """
    if b"\x00" in data:
        raise ItemError(path, MALFORMED, "binary content (NUL bytes), expected JSON text")
    text = decode_content(data, path, strict)
    if not text.strip():
        raise ItemError(path, EMPTY, "empty file, expected JSON")
    try:
        return json.loads(text, object_pairs_hook=unique_keys)
    except json.JSONDecodeError as exc:
        raise ItemError(path, MALFORMED, f"invalid JSON ({exc.msg})", line=exc.lineno) from exc
    except (ValueError, RecursionError) as exc:
        raise ItemError(path, MALFORMED, f"invalid JSON ({exc})") from exc


class ConfinedFiles:
    """Opens files of one tree only, with byte caps.

    Parameters
    ----------
    root : path-like
        The tree; files whose real path lies outside it are refused.
    role : str
        ``"prediction"`` or ``"reference"`` (used in messages).
    strict_utf8 : bool
        Reject invalid UTF-8 instead of decoding it as latin-1.
    limits : Limits
        Byte caps.
    """

    def __init__(self, root: PathLike, role: str, strict_utf8: bool, limits: Limits) -> None:
        self.root = Path(root).expanduser().absolute()
        self.real_root = Path(os.path.realpath(self.root))
        self.role = role
        self.strict_utf8 = strict_utf8
        self.limits = limits
        self._real_dirs: Dict[str, str] = {}

    def real_path(self, path: PathLike) -> str:
        """``os.path.realpath`` of a file, resolving each folder once."""
        parent, name = os.path.split(os.fspath(path))
        real_parent = self._real_dirs.get(parent)
        if real_parent is None:
            real_parent = self._real_dirs[parent] = os.path.realpath(parent)
        candidate = os.path.join(real_parent, name)
        return os.path.realpath(candidate) if os.path.islink(candidate) else candidate

    def check(self, path: PathLike) -> Tuple[str, os.stat_result]:
        """Validate that ``path`` is a regular file inside the tree.

        Returns
        -------
        (str, os.stat_result)
            The resolved path (open this one) and its status.

        Raises
        ------
        ItemError
            ``missing`` when it (or a folder on the way) does not exist,
            ``malformed`` when it resolves outside the tree, is not a regular
            file, or cannot be accessed.
        """
        path = Path(path)
        if "\x00" in str(path):
            raise ItemError(path, MALFORMED, "path contains a NUL character")
        real = self.real_path(path)
        root = str(self.real_root)
        if real != root and not real.startswith(root.rstrip(os.sep) + os.sep):
            raise ItemError(path, MALFORMED, f"resolves to {real}, outside the {self.role} "
                            f"tree {self.root}: refused")
        try:
            info = os.stat(real)
        except FileNotFoundError:
            what = "file not found" if not os.path.islink(path) else "dangling symbolic link"
            raise ItemError(path, MISSING, what) from None
        except OSError as exc:
            raise ItemError(path, MALFORMED, f"cannot access ({exc.strerror})") from None
        if stat.S_ISDIR(info.st_mode):
            raise ItemError(path, MALFORMED, "is a folder, expected a file")
        if not stat.S_ISREG(info.st_mode):
            raise ItemError(path, MALFORMED, "not a regular file")
        return real, info

    def read_bytes(self, path: PathLike, cap: int) -> bytes:
        """Read at most ``cap`` bytes (decompressed) of a checked file.

        Raises
        ------
        ItemError
            See :meth:`check`; ``malformed`` when larger than ``cap`` or when a
            gzip stream is damaged.
        """
        path = Path(path)
        real, info = self.check(path)
        try:
            with open(real, "rb") as handle:
                compressed = handle.read(2) == GZIP_MAGIC
            if not compressed and info.st_size > cap:
                raise ItemError(path, MALFORMED, f"file too large ({size_text(info.st_size)}; "
                                f"limit {size_text(cap)})")
            with open_binary(real) as handle:
                if compressed:
                    data = _read_capped(handle, cap)
                else:
                    data = handle.read(min(cap, info.st_size) + 1)
        except InputFileError as exc:
            if isinstance(exc, ItemError):
                raise
            raise ItemError(path, MALFORMED, exc.problem) from None
        except OSError as exc:
            raise ItemError(path, MALFORMED, f"cannot read ({exc.strerror or exc})") from None
        if len(data) > cap:
            raise ItemError(path, MALFORMED, f"decompressed content larger than {size_text(cap)}")
        return data

    def read_json(self, path: PathLike) -> Any:
        """Read and parse a JSON file under the JSON size cap."""
        path = Path(path)
        return parse_json_bytes(self.read_bytes(path, self.limits.max_json_bytes), path,
                                self.strict_utf8)

    def read_first_line(self, path: PathLike) -> str:
        """The first line of a text file (capped, decoded, line end removed).

        A gzip file is inflated to its end (output discarded) so that a stream
        cut short is refused here too, up to the largest table the evaluator
        reads at all (``table_size_ratio`` x ``max_table_bytes``).

        Raises
        ------
        ItemError
            ``empty`` for a blank first line; ``malformed`` for a damaged gzip
            stream; see also :meth:`check`.
        """
        path = Path(path)
        real, _ = self.check(path)
        cap = self.limits.max_header_bytes
        largest = int(self.limits.table_size_ratio * self.limits.max_table_bytes)
        try:
            with open_binary(real, max(largest, cap + 1)) as handle:
                line = handle.readline(cap + 1)
                check_complete(handle)
        except InputFileError as exc:
            raise ItemError(path, MALFORMED, exc.problem) from None
        except OSError as exc:
            raise ItemError(path, MALFORMED, f"cannot read ({exc.strerror or exc})") from None
        check_header_length(len(line.rstrip(b"\r\n")), path, cap)
        if b"\x00" in line:
            raise ItemError(path, MALFORMED, "binary content (NUL bytes), expected CSV text")
        line = line.rstrip(b"\r\n")
        if not line.strip():
            raise ItemError(path, EMPTY, "empty CSV file (no header row)", line=1)
        return decode_content(line, path, self.strict_utf8)


def check_header_length(length: int, path: Path, cap: int) -> None:
    """Refuse a CSV header line longer than ``cap`` bytes (the same message for every task).

    Raises
    ------
    ItemError
        ``malformed``, line 1.
    """
    if length > cap:
        raise ItemError(path, MALFORMED, f"header line longer than {size_text(cap)}", line=1)


def _read_capped(handle: IO[bytes], cap: int, chunk: int = 16 * MIB) -> bytes:
    """Read until EOF or until more than ``cap`` bytes were read."""
    parts: List[bytes] = []
    total = 0
    while total <= cap:
        part = handle.read(min(chunk, cap + 1 - total))
        if not part:
            break
        parts.append(part)
        total += len(part)
    return b"".join(parts)

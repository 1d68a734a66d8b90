"""SHA-256 manifest of the input tree: generate it, validate a tree against it (SPEC 8.5).

The manifest is a text file in ``sha256sum`` format (``<64 hex>  <path>``, one file a
line, paths relative to the input root with ``/`` separators, sorted), so
``cd input && sha256sum -c ../metadata/input_manifest.sha256`` works too.

CLI::

    python download/manifest.py --generate            # write the manifest of input/
    python download/manifest.py --validate            # report missing / changed / extra
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence

if __package__ in (None, ""):  # run as a script (python download/x.py): use this checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from utils.arguments import positive_int
from utils.errors import InputFileError, command_error
from utils.io import PathLike, atomic_write_text, file_sha256, read_text
from utils.logs import add_verbosity_argument, configure_logging
from utils.logs import progress as progress_bar
from utils.paths import add_path_arguments, exits_when_root_is_missing, paths_from_args
from utils.runtime import in_utf8_mode

logger = logging.getLogger(__name__)

MANIFEST_NAME = "input_manifest.sha256"
_LINE = re.compile(r"([0-9a-fA-F]{64}) [ *](.+)")  # always fullmatch


@dataclass
class ManifestDiff:
    """Differences between a tree and its manifest.

    Attributes
    ----------
    missing : list of str
        In the manifest, not in the tree.
    changed : list of str
        In both, with a different checksum.
    extra : list of str
        In the tree, not in the manifest (a stray or partial file, for instance).
    checked : int
        Files compared.
    """

    missing: List[str] = field(default_factory=list)
    changed: List[str] = field(default_factory=list)
    extra: List[str] = field(default_factory=list)
    checked: int = 0

    @property
    def ok(self) -> bool:
        """True when the tree matches the manifest exactly."""
        return not (self.missing or self.changed or self.extra)

    def summary(self, limit: int = 20) -> str:
        """Readable report, listing at most ``limit`` paths per kind."""
        lines = [f"{self.checked} files checked: {len(self.missing)} missing, "
                 f"{len(self.changed)} changed, {len(self.extra)} extra"
                 + (" - OK" if self.ok else "")]
        for label, paths in (("missing", self.missing), ("changed", self.changed),
                             ("extra", self.extra)):
            for path in paths[:limit]:
                lines.append(f"  {label}: {path}")
            if len(paths) > limit:
                lines.append(f"  ... and {len(paths) - limit} more {label}")
        return "\n".join(lines)


def list_files(root: PathLike, exclude: Iterable[PathLike] = ()) -> List[str]:
    """Every regular file below ``root`` as sorted POSIX paths relative to it."""
    base = Path(root)
    skip = {Path(p).resolve() for p in exclude}
    found = []
    for folder, _dirs, names in os.walk(base):
        for name in names:
            path = Path(folder) / name
            if path.is_file() and path.resolve() not in skip:
                found.append(path.relative_to(base).as_posix())
    return sorted(found)


def hash_files(root: PathLike, relative_paths: Sequence[str], jobs: int = 2,
               progress: bool = True) -> Dict[str, str]:
    """``{relative path: sha256}`` computed with ``jobs`` threads (hashlib frees the GIL)."""
    base = Path(root)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        digests = list(progress_bar(pool.map(lambda rel: file_sha256(base / rel),
                                             relative_paths),
                                    total=len(relative_paths), desc="sha256", unit="file",
                                    enabled=progress))
    return dict(zip(relative_paths, digests))


def format_manifest(entries: Dict[str, str]) -> str:
    """Manifest text, sorted by path."""
    return "".join(f"{entries[path]}  {path}\n" for path in sorted(entries))


def read_manifest(path: PathLike) -> Dict[str, str]:
    """Parse a manifest; a malformed line raises :class:`InputFileError` with its number."""
    entries: Dict[str, str] = {}
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        match = _LINE.fullmatch(line)
        if match is None:
            raise InputFileError(path, "expected '<sha256>  <path>'", line=number)
        entries[match.group(2)] = match.group(1).lower()
    return entries


def generate_manifest(root: PathLike, manifest_path: PathLike, jobs: int = 2,
                      progress: bool = True) -> Dict[str, str]:
    """Hash every file below ``root`` and write the manifest atomically."""
    files = list_files(root, exclude=[manifest_path])
    entries = hash_files(root, files, jobs=jobs, progress=progress)
    atomic_write_text(manifest_path, format_manifest(entries))
    return entries


def validate_manifest(root: PathLike, manifest_path: PathLike, jobs: int = 2,
                      progress: bool = True) -> ManifestDiff:
    """Compare the tree below ``root`` with a manifest."""
    expected = read_manifest(manifest_path)
    present = set(list_files(root, exclude=[manifest_path]))
    diff = ManifestDiff(missing=sorted(set(expected) - present),
                        extra=sorted(present - set(expected)))
    common = sorted(present & set(expected))
    actual = hash_files(root, common, jobs=jobs, progress=progress)
    diff.changed = [path for path in common if actual[path] != expected[path]]
    diff.checked = len(common)
    return diff


def build_parser() -> argparse.ArgumentParser:
    """Argument parser of the manifest CLI."""
    parser = argparse.ArgumentParser(
        description="Generate or validate the SHA-256 manifest of the input tree "
                    "(missing, changed and extra files).")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--generate", action="store_true",
                      help="hash every file below the input root and write the manifest")
    mode.add_argument("--validate", action="store_true",
                      help="compare the input tree with the manifest; exit 1 on any "
                           "missing, changed or extra file")
    add_path_arguments(parser, ("root", "input", "metadata"))
    parser.add_argument("--manifest", metavar="PATH", default=None,
                        help=f"manifest file (default: <metadata>/{MANIFEST_NAME})")
    parser.add_argument("--jobs", type=positive_int, default=2,
                        help="threads hashing files in parallel (default: 2)")
    parser.add_argument("--no-progress", action="store_true", help="hide progress bars")
    add_verbosity_argument(parser)
    return parser


def manifest_path_from_args(args: argparse.Namespace) -> Path:
    """The manifest file chosen by ``--manifest`` or the default under metadata/."""
    if getattr(args, "manifest", None):
        return Path(args.manifest).expanduser().resolve()
    return paths_from_args(args).metadata / MANIFEST_NAME


@in_utf8_mode
@exits_when_root_is_missing
def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the manifest CLI; return the exit code."""
    args = build_parser().parse_args(argv)
    configure_logging(args.verbose)
    root = paths_from_args(args).input
    manifest = manifest_path_from_args(args)
    if not root.is_dir():
        print(command_error(f"input root not found: {root}"), file=sys.stderr)
        return 2
    if args.generate:
        entries = generate_manifest(root, manifest, jobs=args.jobs,
                                    progress=not args.no_progress)
        print(f"wrote {manifest}: {len(entries)} files below {root}")
        return 0
    if not manifest.is_file():
        print(command_error(f"manifest not found: {manifest} (create it with --generate)"),
              file=sys.stderr)
        return 2
    try:
        diff = validate_manifest(root, manifest, jobs=args.jobs, progress=not args.no_progress)
    except InputFileError as exc:  # a malformed manifest line, named with its number
        print(command_error(exc), file=sys.stderr)
        return 2
    print(f"{root} vs {manifest}:\n{diff.summary()}")
    return 0 if diff.ok else 1


if __name__ == "__main__":
    sys.exit(main())

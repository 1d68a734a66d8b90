"""File input and output for every part of the project, one module per concern.

==================  ==========================================================================
module              what
==================  ==========================================================================
``readers``         guarded readers: regular files only, size caps, text format checked
                    (:mod:`utils.input_safety`), gzip or plain alike, UTF-8 with a latin-1
                    fallback; :func:`read_text`, :func:`read_json`, :func:`open_binary`,
                    :func:`read_raw_bytes`, the small committed tables; the one check of
                    a whole gzip file (:func:`gzip_content_digest`)
``gzip_stream``     the gzip engine: ISA-L inflating ahead in a thread, members, size cap,
                    a stream cut short refused (:class:`CheckedGzip`)
``tables``          streaming of line-oriented tables (GEO series matrices, SOFT, TSV)
                    into pandas, every row's width checked on the way (:func:`open_lines`)
``rows``            the row checks: field counts per line (NumPy), quoted CSV rows, the
                    errors that name the file and line
``numeric_table``   the one fast parser of labelled numeric CSV bodies (linked, gene and
                    clinical tables)
``atomic``          atomic writes (temporary file, fsync, rename; stale temporary files
                    cleared) and :func:`atomic_to_csv`, the seam every table is written
                    through; an unwritable target or folder raises
                    :class:`~utils.errors.OutputFileError` (:func:`make_folder`)
``locks``           :func:`locked`: inter-process locks kept outside the data trees
``http``            HTTP for every client: one retry policy, the retryable statuses,
                    ``Retry-After``, transfer errors (imported by module: ``utils.io.http``)
``types``           :data:`PathLike`
==================  ==========================================================================

What it may import: the standard library, NumPy, pandas, ``filelock``, ``isal``, and
from the project only :mod:`utils.errors`, :mod:`utils.input_safety` and
:mod:`utils.paths` (the lock folder). Nothing above ``utils`` (``tools``,
``download``, ``genotex``) and no other part of ``utils``: every other module reads
and writes through this package.

The names below are importable from ``utils.io`` directly; the table modules
(``tables``, ``rows``, ``numeric_table``) are imported by module, so importing
``utils.io`` stays light.
"""

from utils.io.atomic import (TEMP_NAME, TEMP_SUFFIX, atomic_to_csv, atomic_write,
                             atomic_write_bytes, atomic_write_json, atomic_write_text,
                             dumps_json, make_folder, prepare_target,
                             remove_stale_temp_files)
from utils.io.gzip_stream import (BLOCKS_AHEAD, GZIP_FIRST_INPUT_BYTES, GZIP_MAGIC,
                                  GZIP_MAX_INPUT_BYTES, GZIP_OUTPUT_PER_INPUT, INFLATE_ERRORS,
                                  BlockReader, CheckedGzip, inflate_bytes, inflate_module,
                                  several_cpus)
from utils.io.locks import lock_file, locked
from utils.io.readers import (FALLBACK_ERRORS, TableSource, check_complete, content_of,
                              data_lines, decode_text, file_sha256, file_signature,
                              gzip_content_digest,
                              is_gzip, open_binary, open_raw, open_text, open_text_bytes,
                              read_json,
                              read_raw_bytes, read_table, read_text)
from utils.io.types import PathLike

__all__ = [
    "BLOCKS_AHEAD", "FALLBACK_ERRORS", "GZIP_FIRST_INPUT_BYTES", "GZIP_MAGIC",
    "GZIP_MAX_INPUT_BYTES", "GZIP_OUTPUT_PER_INPUT", "INFLATE_ERRORS", "TEMP_NAME",
    "TEMP_SUFFIX", "BlockReader", "CheckedGzip", "PathLike", "TableSource", "atomic_to_csv",
    "atomic_write", "atomic_write_bytes", "atomic_write_json", "atomic_write_text",
    "check_complete", "content_of", "data_lines", "decode_text", "dumps_json",
    "file_sha256", "file_signature", "gzip_content_digest", "inflate_bytes",
    "inflate_module", "is_gzip", "lock_file", "locked", "make_folder", "prepare_target",
    "open_binary", "open_raw", "open_text", "open_text_bytes", "read_json",
    "read_raw_bytes", "read_table", "read_text", "remove_stale_temp_files", "several_cpus",
]

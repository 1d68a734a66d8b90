"""GEO series matrix readers (SPEC 4.1), one module per concern.

==================  ==================================================================
module              what
==================  ==================================================================
``header``          :func:`read_series_header`: ``!Series_*`` / ``!Sample_*`` lines,
                    parsed and checked (:class:`SeriesMatrixHeader`)
``characteristics`` :func:`get_background_and_clinical_data`, :func:`get_sample_rows`,
                    :func:`get_unique_values_by_row` (Appendix A)
``expression``      :func:`get_genetic_data`: the expression table, streamed into pandas
``counts``          :func:`read_gene_count_table`: NCBI-generated RNA-seq count tables
``numeric``         the one-pass numeric parse both tables share
``cohort_files``    :func:`find_geo_files`, :func:`geo_get_relevant_filepaths`: the
                    files of a cohort folder, multi-platform series included
==================  ==================================================================

Every file may be gzip-compressed or plain, and is opened and decompressed once
per call; text is decoded as UTF-8 with a latin-1 fallback per undecodable byte
(:mod:`utils.io`). The names below stay importable from ``tools.preprocess.geo``.

May import: ``utils`` (``utils.io`` for every read) and the rest of
``tools.preprocess``.
"""

from tools.preprocess.geo.characteristics import (get_background_and_clinical_data,
                                                  get_sample_rows, get_unique_values_by_row)
from tools.preprocess.geo.cohort_files import (GeoCohortFiles, SeriesMatrixFile,
                                               find_geo_files, geo_get_relevant_filepaths)
from tools.preprocess.geo.counts import read_gene_count_table
from tools.preprocess.geo.expression import get_genetic_data
from tools.preprocess.geo.header import (BACKGROUND_PREFIXES, CLINICAL_PREFIXES, SAMPLE_ID_KEY,
                                         TABLE_BEGIN, TABLE_END, HeaderLine, SeriesMatrixHeader,
                                         platform_sort_key, read_series_header, unquote)
from tools.preprocess.geo.numeric import MISSING_VALUE_TEXTS

__all__ = [
    "BACKGROUND_PREFIXES", "CLINICAL_PREFIXES", "MISSING_VALUE_TEXTS", "SAMPLE_ID_KEY",
    "TABLE_BEGIN", "TABLE_END", "GeoCohortFiles", "HeaderLine", "SeriesMatrixFile",
    "SeriesMatrixHeader", "find_geo_files", "geo_get_relevant_filepaths",
    "get_background_and_clinical_data", "get_genetic_data", "get_sample_rows",
    "get_unique_values_by_row", "platform_sort_key", "read_gene_count_table",
    "read_series_header", "unquote",
]

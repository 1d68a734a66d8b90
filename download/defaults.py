"""Defaults of the metadata builders, in one light module (``--help`` shows them).

:mod:`download.opentargets` and :mod:`download.pairs` use them; the command lines read
them here without importing those modules' numeric dependencies.
"""

from download.tables import packaged_table

#: The trait -> Open Targets disease table shipped with the package.
TRAIT_DISEASES = packaged_table("trait_diseases.tsv")
#: Smallest overall association score of a related gene.
MIN_SCORE = 0.2
#: The paper's Jaccard threshold of a trait-condition pair (docs/download.md).
PAPER_THRESHOLD = 0.1

"""Names the original star-imports leaked into notebooks (SPEC Appendix A).

The original ``tools.preprocess`` and ``tools.statistics`` had no ``__all__``,
so ``from tools.preprocess import *`` also gave every module and typing name
those files imported, and about six hundred existing notebooks use some of them
(``pd.concat``, ``gzip.open``, ``re.search``, ...) without importing them. Both
packages re-export the names below through their ``__all__``; nothing else of
this module is meant to be used.
"""

# ruff: noqa: F401 - every import below is re-exported through __all__
import gzip
import io
import json
import os
import re
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import numpy as np
import pandas as pd

#: Every leaked name existing notebooks rely on, modules first.
NOTEBOOK_NAMES = ["pd", "np", "gzip", "io", "json", "os", "re",
                  "Callable", "Optional", "List", "Tuple", "Dict", "Union", "Any"]

__all__ = list(NOTEBOOK_NAMES)

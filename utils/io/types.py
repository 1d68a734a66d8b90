"""The path type every function of :mod:`utils.io` accepts."""

from __future__ import annotations

import os
from typing import Union

#: A path given as text or as a path object.
PathLike = Union[str, os.PathLike]

"""Named random streams: one independent, reproducible generator per purpose."""

from __future__ import annotations

import hashlib

import numpy as np


def stream(seed: int, *names: object) -> np.random.Generator:
    """A random generator determined by the seed and a path of names.

    The names are hashed with SHA-256 (stable across runs and platforms,
    unlike ``hash``), so each purpose (a gene profile, a trait, a cohort) gets
    its own stream and adding a cohort to a plan never changes another one.
    """
    digest = hashlib.sha256("\x1f".join(str(n) for n in names).encode("utf-8")).digest()
    words = [int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4)]
    return np.random.default_rng(np.random.SeedSequence([seed, *words]))

"""The project's PEP 517 build backend: setuptools', building outside the checkout.

setuptools writes its build folder (``build/``) and ``genotex.egg-info`` into the source
tree, so ``pip install .`` would leave both in the checkout. Each hook here is the hook
of :mod:`setuptools.build_meta`, run with those two folders placed in a temporary
directory by a configuration file that setuptools reads from ``DIST_EXTRA_CONFIG``
(the ``[build] build_base`` and ``[egg_info] egg_base`` options). A build, editable or
not, leaves the checkout as it was; ``tests/project/test_packaging.py`` checks it.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from typing import Any, Dict, Iterator, List, Optional

from setuptools import build_meta as _setuptools

ConfigSettings = Optional[Dict[str, Any]]


@contextlib.contextmanager
def _outside_the_checkout() -> Iterator[None]:
    """Point setuptools' build and egg-info folders into a temporary directory."""
    with tempfile.TemporaryDirectory(prefix="genotex-build-") as scratch:
        config = os.path.join(scratch, "build.cfg")
        with open(config, "w", encoding="utf-8") as handle:
            handle.write(f"[build]\nbuild_base = {os.path.join(scratch, 'build')}\n"
                         f"[egg_info]\negg_base = {scratch}\n")
        previous = os.environ.get("DIST_EXTRA_CONFIG")
        os.environ["DIST_EXTRA_CONFIG"] = config
        try:
            yield
        finally:
            if previous is None:
                os.environ.pop("DIST_EXTRA_CONFIG", None)
            else:
                os.environ["DIST_EXTRA_CONFIG"] = previous


def get_requires_for_build_wheel(config_settings: ConfigSettings = None) -> List[str]:
    with _outside_the_checkout():
        return _setuptools.get_requires_for_build_wheel(config_settings)


def get_requires_for_build_sdist(config_settings: ConfigSettings = None) -> List[str]:
    with _outside_the_checkout():
        return _setuptools.get_requires_for_build_sdist(config_settings)


def get_requires_for_build_editable(config_settings: ConfigSettings = None) -> List[str]:
    with _outside_the_checkout():
        return _setuptools.get_requires_for_build_editable(config_settings)


def prepare_metadata_for_build_wheel(metadata_directory: str,
                                     config_settings: ConfigSettings = None) -> str:
    with _outside_the_checkout():
        return _setuptools.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def prepare_metadata_for_build_editable(metadata_directory: str,
                                        config_settings: ConfigSettings = None) -> str:
    with _outside_the_checkout():
        return _setuptools.prepare_metadata_for_build_editable(metadata_directory,
                                                               config_settings)


def build_wheel(wheel_directory: str, config_settings: ConfigSettings = None,
                metadata_directory: Optional[str] = None) -> str:
    with _outside_the_checkout():
        return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory: str, config_settings: ConfigSettings = None) -> str:
    with _outside_the_checkout():
        return _setuptools.build_sdist(sdist_directory, config_settings)


def build_editable(wheel_directory: str, config_settings: ConfigSettings = None,
                   metadata_directory: Optional[str] = None) -> str:
    with _outside_the_checkout():
        return _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)

#!/usr/bin/env python
"""Compare two ``regress`` trees: same problems, same gene lists, same bytes?

A speed change must not change results. Run the problem set with the code
before and after the change into two folders, then::

    python benchmarks/compare_regress.py BEFORE/regress AFTER/regress

prints how many result files exist in both, how many have the same selected
genes in the same order, how many are byte-identical, and the first few that
differ. Exit status 1 when a gene list differs or a file exists on one side only.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Dict, List


def gene_lists(root: Path) -> Dict[str, List[str]]:
    """Relative path -> the ``significant_genes.Variable`` list of each result file."""
    lists = {}
    for path in sorted(root.rglob("*.json")):
        document = json.loads(path.read_text())
        lists[str(path.relative_to(root))] = list(document["significant_genes"]["Variable"])
    return lists


def compare(before: Path, after: Path) -> int:
    """Print the comparison; 0 when every gene list is the same, else 1."""
    old, new = gene_lists(before), gene_lists(after)
    common = sorted(set(old) & set(new))
    only = sorted(set(old) ^ set(new))
    differing = [name for name in common if old[name] != new[name]]
    identical = sum((before / name).read_bytes() == (after / name).read_bytes()
                    for name in common)
    print(f"{len(common)} results in both ({len(only)} on one side only); "
          f"gene lists identical: {len(common) - len(differing)}; "
          f"files byte-identical: {identical}")
    for name in differing[:5]:
        print(f"  {name}: {len(old[name])} genes before, {len(new[name])} after")
    for name in only[:5]:
        print(f"  only in {'before' if name in old else 'after'}: {name}")
    return int(bool(differing or only))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path, help="regress tree written by the old code")
    parser.add_argument("after", type=Path, help="regress tree written by the new code")
    args = parser.parse_args()
    sys.exit(compare(args.before, args.after))


if __name__ == "__main__":
    main()

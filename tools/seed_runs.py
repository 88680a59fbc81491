"""What the randomized differential tools share around their seeds: the command line (``--first``,
``--programs``, ``--verbose``) and the closing tables of problems with the seeds that show them."""
from __future__ import annotations

import argparse
from typing import Dict, List


def seed_parser(doc: str, programs: int, what: str = "program") -> argparse.ArgumentParser:
    """The parser of a differential over seeds ``--first`` to ``--first + --programs - 1``, each a ``what``
    (its description: the first paragraph of the tool's docstring ``doc``); a tool adds its own options."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--first", type=int, default=0, help=f"first {what} seed")
    ap.add_argument("--programs", type=int, default=programs, help=f"how many {what}s")
    ap.add_argument("--verbose", action="store_true", help=f"print every {what}")
    return ap


def seed_arguments(doc: str, argv, programs: int, what: str = "program") -> argparse.Namespace:
    """``seed_parser``'s arguments parsed from ``argv``."""
    return seed_parser(doc, programs, what).parse_args(argv)


def print_seed_table(title: str, signatures: Dict[str, List[int]]) -> None:
    """``title``, then each problem of ``signatures`` (problem -> the seeds that showed it, once per showing),
    the most frequent first: how often, the problem, its first 8 distinct seeds."""
    print(f"\n{title}")
    for sig, seeds in sorted(signatures.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(seeds):4d}  {sig}   {sorted(set(seeds))[:8]}")

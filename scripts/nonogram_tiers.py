"""Which tiers drawn nonogram pictures fall in, per size and smoothing: the table behind
the README's advice on small grids.

    python scripts/nonogram_tiers.py                       # 5x5 to 15x15, 20,000 a cell
    python scripts/nonogram_tiers.py --sizes 5x5,8x8 --pictures 5000 --density 0.6

Every picture is drawn as one attempt of ``generate`` draws it (seeds 0, 1, ...; the
given density and symmetry), and counted under the tier of its puzzle, or under "none"
when it is no picture (smoothing left a line empty or too few cells filled), its clues
do not have one solution, or, rarely, its puzzle is extreme: random pictures almost never
need nested probing, and the generator searches for those instead (README, Nonograms). Prints a
Markdown table, one row a size and smoothing, the shares in percent of the pictures.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from nanpure.generator.nonogram.generate import Spec, SpecError, make_candidate

TIERS = ("easy", "medium", "hard")


def tier_counts(spec: Spec, pictures: int) -> Counter[str]:
    """How many of ``pictures`` single-attempt draws of ``spec`` gave each tier ("none":
    no unique puzzle)."""
    one = Spec(width=spec.width, height=spec.height, min_tier="easy", max_tier="hard",
               symmetry=spec.symmetry, density=spec.density, smoothing=spec.smoothing,
               attempts=1)
    counts: Counter[str] = Counter()
    for seed in range(pictures):
        made = make_candidate(one, seed)
        counts[made.tier if made is not None else "none"] += 1
    return counts


def _size(text: str) -> tuple[int, int]:
    width, _, height = text.lower().partition("x")
    try:
        return int(width), int(height)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WxH, got {text!r}") from None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="5x5,6x6,7x7,8x8,10x10,15x15",
                        type=lambda s: [_size(t) for t in s.split(",")],
                        help="comma-separated WxH sizes (default: 5x5 to 15x15)")
    parser.add_argument("--smoothing", default="0,1,2",
                        type=lambda s: [int(t) for t in s.split(",")],
                        help="comma-separated smoothing passes (default: 0,1,2)")
    parser.add_argument("--density", type=float, default=Spec.density,
                        help=f"chance a cell starts filled (default: {Spec.density})")
    parser.add_argument("--symmetry", default="none", help="picture symmetry (default: none)")
    parser.add_argument("--pictures", type=int, default=20_000,
                        help="pictures drawn per size and smoothing (default: 20000)")
    args = parser.parse_args()
    print(f"density {args.density}, symmetry {args.symmetry}, {args.pictures} pictures a row")
    print("| size | smoothing | none | easy | medium | hard | CPU s |")
    print("|---|---|---|---|---|---|---|")
    for width, height in args.sizes:
        for smoothing in args.smoothing:
            spec = Spec(width=width, height=height, symmetry=args.symmetry,
                        density=args.density, smoothing=smoothing)
            try:
                started = time.process_time()
                counts = tier_counts(spec, args.pictures)
            except SpecError as e:
                parser.error(str(e))
            shares = " | ".join(f"{100 * counts[k] / args.pictures:.2f}"
                                for k in ("none", *TIERS))
            print(f"| {width}x{height} | {smoothing} | {shares} | "
                  f"{time.process_time() - started:.1f} |", flush=True)


if __name__ == "__main__":
    main()

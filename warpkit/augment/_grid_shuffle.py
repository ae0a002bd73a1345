"""albumentations' RandomGridShuffle as a map: the image cut into a grid of tiles whose rows
and columns have shuffled sizes, the tiles of each size permuted among themselves. The warp
reads each output tile from the tile that moves there (a :class:`~warpkit.engine.stages.Tiles`
stage in the pipeline's one resampling), masks move the same way, keypoints with their tiles.

Conventions: the recorded ``tiles`` are ``[x1, y1, x2, y2]`` in whole pixels of the step's
input (x2, y2 excluded), row by row; ``mapping[k]`` is the tile whose place tile k's pixels
take, as albumentations' ``mapping``.

Example:
    >>> import numpy as np
    >>> t = RandomGridShuffle(grid=(1, 2), p=1)
    >>> params = t.draw(np.random.default_rng(0), (10, 4))
    >>> params["tiles"], params["mapping"]
    ([[0, 0, 5, 4], [5, 0, 10, 4]], [1, 0])
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ..engine.stages import Tiles
from ._nonlinear import FieldTransform, almost_equal_sizes

__all__ = ["RandomGridShuffle"]


def _order(rng: Any, n: int) -> list[int]:
    """A uniform random order of n items: the stable order of n uniform numbers."""
    return np.argsort(rng.random(n), kind="stable").tolist() if n > 1 else list(range(n))


class RandomGridShuffle(FieldTransform):
    """albumentations' RandomGridShuffle: the image cut into ``grid`` = (rows, columns) tiles,
    the rows' heights and the columns' widths (``n // parts`` or one more, as albumentations
    splits them) in a random order, then the tiles of each shape permuted among themselves
    (tiles of equal shape trade places; recorded: ``tiles``, ``mapping``).

    The warp reads each output tile from the tile that moves there, clamped to that tile, so
    the result is albumentations' exactly where the shuffle is the only geometry of the step
    chain; after or before other geometry in the same resampling, interpolation never reads
    across a seam (albumentations', resampling the shuffled image, mixes the pixels on both
    sides of one). Masks move the same way, and keypoints with their tiles (a keypoint in tile
    k moves by tile ``mapping[k]``'s corner minus tile k's). albumentations cuts boxes into the
    pieces the shuffle separates; warpkit refuses boxes in a pipeline with this step.

    Example:
        >>> from warpkit.augment import Compose
        >>> out = Compose([RandomGridShuffle((2, 2), p=1)])(image=np.zeros((8, 8, 3), np.uint8),
        ...                                                 seed=0)           # doctest: +SKIP
    """

    def __init__(self, grid: Any = (3, 3), p: float = 0.5) -> None:
        super().__init__(p)
        try:
            rows, cols = grid
        except (TypeError, ValueError):
            rows = cols = None
        if not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= 1
                   for v in (rows, cols)):
            raise ValueError(f"grid must be (rows, columns), two whole numbers >= 1, got {grid!r}")
        self.grid = (int(rows), int(cols))

    def draw(self, rng, size):
        W, H = int(size[0]), int(size[1])
        rows, cols = self.grid
        if rows > H or cols > W:
            raise ValueError(f"RandomGridShuffle's grid of {rows} x {cols} tiles (rows, columns) "
                             f"needs an image of at least that many pixels, got {H} x {W}")
        hs, ws = almost_equal_sizes(H, rows), almost_equal_sizes(W, cols)
        hs = [hs[k] for k in _order(rng, rows)]
        ws = [ws[k] for k in _order(rng, cols)]
        ys, xs = np.cumsum([0] + hs).tolist(), np.cumsum([0] + ws).tolist()
        tiles = [[xs[j], ys[i], xs[j + 1], ys[i + 1]] for i in range(rows) for j in range(cols)]
        groups: dict[tuple[int, int], list[int]] = {}
        for k, (x1, y1, x2, y2) in enumerate(tiles):
            groups.setdefault((x2 - x1, y2 - y1), []).append(k)
        mapping = list(range(len(tiles)))
        for members in groups.values():  # each shape's tiles trade places among themselves
            for old, k in zip(members, _order(rng, len(members))):
                mapping[old] = members[k]
        return {"tiles": tiles, "mapping": mapping}

    def field(self, params, size):
        tiles, mapping = params["tiles"], params["mapping"]
        rows = []
        for k, new in enumerate(mapping):  # output tile `new` reads tile k
            sx1, sy1, sx2, sy2 = tiles[k]
            x1, y1, x2, y2 = tiles[new]
            dx, dy = sx1 - x1, sy1 - y1
            # pixel centres at integers: a tile's pixels span [x1 - 0.5, x2 - 0.5)
            rows.append([x1 - 0.5, y1 - 0.5, x2 - 0.5, y2 - 0.5, 1, 0, dx, 0, 1, dy,
                         sx1, sy1, sx2 - 1, sy2 - 1])
        return Tiles(np.array(rows, np.float64))

    def config(self):
        return {"grid": list(self.grid)}

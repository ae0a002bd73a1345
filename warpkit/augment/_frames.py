"""Each step's frame in one pass: ``Compose(edges="each_step")``.

A pipeline multiplies its steps' maps and reads the source once, so where one step leaves its
input (a crop, then a turn that brings the crop's outside into view; a turn, then another) it
reads the source on, and a constant border is added at the end, after every colour step.
albumentations and torchvision apply the steps one after the other: what a step cut away is
gone for the steps after it (they see the border there), and the border a step adds goes
through the colour steps after it, not those before it.

With ``edges="each_step"`` the pass keeps one resampling and gives the steps' result: for each
step that can read outside its input and fill there (the warps and the pads, with a constant
border; not the resizes, which repeat their edge as ``cv2.resize`` does), the output pixels
whose place in that step's input lies outside it take the fill, in the step's place among the
colour operations (``kernels_cl/colour.h``'s ``WK_COL_FRAME``: the weight of the taps inside
the frame, as OpenCV's bilinear border blends it). Where a colour step or a resize may come
before the first such step, the image is read with its edge repeated and the source's own
frame is one of those operations (:func:`repeats_edge`). Masks take their fill_mask where a
pixel's nearest place is outside, keypoints there become invisible, and boxes move one step at
a time, clipped to each step's output, as albumentations moves them.

Conventions: a frame's place ``q`` comes from the output pixel's centre through the inverse of
the product of the maps from that step to the output; pixel centres are at integers, an image of
``W`` pixels spans ``[-0.5, W - 0.5)``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..engine.core import COL_DATA, COL_FRAME, COLOUR_WORDS as WORDS
from ._colour import IdentityStep
from ._targets import in_output

__all__ = ["Frames", "check_each_step_edges", "edges_needed", "fills_outside", "frame_plan",
           "repeats_edge"]


def fills_outside(t: Any) -> bool:
    """Whether a step's map can read outside its input and fill there with the border (the
    warps, the pads, the crops that pad): not a colour step, not a resize (cv2.resize repeats
    its input's edge; CropAndPad pads before it resizes), not a flip or a turn by quarters
    (:attr:`~warpkit.augment._base.Transform.keeps_frame`)."""
    if isinstance(t, IdentityStep) or t.keeps_frame:
        return False
    return not getattr(t, "resizes", False) or getattr(t, "pads_first", False)


class Frames(NamedTuple):
    """A call's frames: per sample, the image's frame operations by the position of their step
    among the sample's applied steps ((2, COLOUR_WORDS) rows: WK_COL_FRAME and its fill), the
    frames after the source's that cut its output (each one's map output -> its image and its
    size: what masks and keypoints lose, :meth:`gone`, :meth:`visible`), each sample's
    steps that move pixels, (map, output size) in order, through which boxes move one step at
    a time (each step's box around the moved box, clipped to that step's output, as
    albumentations moves them), the outputs' sizes, and whether the images are read with their
    edge repeated (:func:`repeats_edge`)."""

    ops: list[dict[int, np.ndarray]]
    cuts: list[list[tuple[np.ndarray, tuple[int, int]]]]
    steps: list[list[tuple[np.ndarray, tuple[int, int]]]]
    outs: list[tuple[int, int]]
    clamp: bool

    def gone(self) -> list[np.ndarray | None]:
        """Per sample, the output pixels the frames after the source's cut away (an (H, W)
        bool map: each pixel's nearest place outside one of them), None where they cut none."""
        maps: list[np.ndarray | None] = []
        for cuts, out in zip(self.cuts, self.outs):
            lost = None
            for p, size in cuts:
                cut = _gone(p, size, out)
                lost = cut if lost is None else lost | cut
            maps.append(lost)
        return maps

    def visible(self, k: int, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Which of sample ``k``'s output points (pixel centres at integers) every frame after
        the source's held: their places inside each (the output's keypoint rule)."""
        keep = np.ones(len(x), bool)
        for p, size in self.cuts[k]:
            keep &= _inside(p, x, y, size)
        return keep

    def image_ops(self, fill: list[float]) -> list[dict[int, np.ndarray]]:
        """:attr:`ops` with an image's fill (one value per channel, in its units)."""
        out = []
        for own in self.ops:
            done = {}
            for i, rows in own.items():
                rows = rows.copy()
                rows[1, 1:1 + len(fill)] = fill  # (words 1-4; word 5 is the map's)
                done[i] = rows
            out.append(done)
        return out


def _corners(wo: int, ho: int) -> tuple[np.ndarray, np.ndarray]:
    """The output's corner pixel centres (x, y)."""
    return (np.array([0, wo - 1, 0, wo - 1], np.float64),
            np.array([0, 0, ho - 1, ho - 1], np.float64))


def _places(p: np.ndarray, x: Any, y: Any) -> tuple:
    """(qx, qy, whether in front of a perspective map's horizon): the places of output points
    (x, y) through ``p`` (output -> an earlier image)."""
    den = p[2, 0] * x + p[2, 1] * y + p[2, 2]
    return (p[0, 0] * x + p[0, 1] * y + p[0, 2]) / den, \
        (p[1, 0] * x + p[1, 1] * y + p[1, 2]) / den, den > 0


def _inside(p: np.ndarray, x: Any, y: Any, size: tuple[int, int]) -> np.ndarray:
    """Whether the places of output points (x, y) through ``p`` lie inside an image of
    ``size`` by the nearest rule (the keypoints' rule, :func:`in_output`: [-0.5, w - 0.5))."""
    qx, qy, front = _places(p, x, y)
    return front & in_output(qx, qy, size)


def _covered(p: np.ndarray, size: tuple[int, int], out: tuple[int, int], nearest: bool) -> bool:
    """Whether every output pixel's place through ``p`` (output -> the frame's image) reads
    only inside an image of ``size`` (w, h), by the nearest rule or with every linear tap inside
    ([0, w - 1]): the corners' places decide (the output's centres are their convex hull, which
    an affine or a perspective map in front of its horizon keeps)."""
    x, y = _corners(*out)
    if nearest:
        return bool(_inside(p, x, y, size).all())
    qx, qy, front = _places(p, x, y)
    w, h = size
    return bool((front & (qx >= 0) & (qx <= w - 1) & (qy >= 0) & (qy <= h - 1)).all())


def _gone(p: np.ndarray, size: tuple[int, int], out: tuple[int, int]) -> np.ndarray:
    """The output pixels (an (H, W) bool map) whose nearest place through ``p`` lies outside an
    image of ``size``: for an affine ``p`` each row's pixels inside are a run of columns (two
    bounds a row), else each pixel's place is tested."""
    wo, ho = out
    w, h = size
    x = np.arange(wo, dtype=np.float64)[None, :]
    y = np.arange(ho, dtype=np.float64)[:, None]
    if p[2, 0] != 0 or p[2, 1] != 0:
        return ~_inside(p, x, y, size)
    p = p / p[2, 2]
    lo = np.zeros(ho)
    hi = np.full(ho, float(wo))
    rows = y[:, 0]
    for a, b, c, side in ((p[0, 0], p[0, 1], p[0, 2], w), (p[1, 0], p[1, 1], p[1, 2], h)):
        r = b * rows + c  # the place's coordinate at column 0 of each row; a more a column
        if a == 0:  # the same on a whole row
            inside = (r >= -0.5) & (r < side - 0.5)
            hi = np.where(inside, hi, lo)
            continue
        first, last = (-0.5 - r) / a, (side - 0.5 - r) / a  # (-0.5 and side - 0.5 reached)
        if a > 0:  # columns x with first <= x < last
            lo, hi = np.maximum(lo, np.ceil(first)), np.minimum(hi, np.ceil(last))
        else:  # last < x <= first
            lo, hi = np.maximum(lo, np.floor(last) + 1), np.minimum(hi, np.floor(first) + 1)
    return (x < lo[:, None]) | (x >= hi[:, None])


def _op_rows(p: np.ndarray, size: tuple[int, int], nearest: bool) -> np.ndarray:
    """WK_COL_FRAME's two rows for the map ``p`` (output -> the frame's image) and a frame of
    ``size`` (the fill 0: :meth:`Frames.image_ops`). The map is scaled so that its last entry
    is 1, or -1 where it is negative (a perspective map whose output origin lies behind its
    horizon: the sign of the place's last coordinate says which side a pixel is on), in the
    data operation's word 5."""
    scale = abs(p[2, 2]) if p[2, 2] != 0 else np.abs(p).max()
    p = p / scale
    rows = np.zeros((2, WORDS), np.float32)
    rows[0, :12] = [COL_FRAME, *p[0], *p[1], p[2, 0], p[2, 1], size[0], size[1], float(nearest)]
    rows[1, 0] = COL_DATA
    rows[1, 5] = p[2, 2]
    return rows


def frame_plan(pipe: Any, plist: list[dict], sizes: list[tuple[int, int]],
               outs: list[tuple[int, int]], nearest: bool, images: bool,
               targets: bool) -> Frames:
    """Each sample's frames (:class:`Frames`) for the pipeline's applied steps (their maps
    must be matrices). ``sizes``, ``outs``:
    each sample's input and output (w, h); ``nearest``: the image's interpolation is nearest;
    ``images``: the call has images (their operations are made for them); ``targets``: the
    call has masks or keypoints (the frames that cut them are kept).

    The source's frame (the input of the first step that moves pixels, through the flips and
    quarter turns before it) is the warp's own constant border, unless the pipeline reads its
    images with their edge repeated (:func:`repeats_edge`): then it is an operation too, in its
    step's place. Masks keep the warp's constant border for it."""
    clamp = repeats_edge(pipe)
    ops: list[dict[int, np.ndarray]] = []
    cuts: list[list] = []
    moves = []
    for params, size, out in zip(plist, sizes, outs):
        steps = []  # (position, map, input size, fills outside, the source's frame)
        moved = False
        for i, (t, q) in enumerate(pipe.applied_steps(params)):
            if isinstance(t, IdentityStep):
                continue
            m, after = t.map(q, size)
            moves_frame = not t.keeps_frame
            steps.append((i, np.asarray(m, np.float64), size, fills_outside(t),
                          moves_frame and not moved))
            moved = moved or moves_frame
            size = after
        moves.append([(m, after) for (_, m, _, _, _), after in
                      zip(steps, [before for _, _, before, _, _ in steps[1:]] + [size])])
        own: dict[int, np.ndarray] = {}
        cut = []
        suffix = np.eye(3)
        for i, m, before, fills, source in reversed(steps):
            suffix = suffix @ m
            if not fills:
                continue
            p = np.linalg.inv(suffix)  # (output -> this step's input)
            if images and (clamp or not source) and not _covered(p, before, out, nearest):
                own[i] = _op_rows(p, before, nearest)
            if targets and not source and not _covered(p, before, out, True):
                cut.append((p, before))
        ops.append(own)
        cuts.append(cut)
    return Frames(ops, cuts, moves, list(outs), clamp)


def repeats_edge(pipe: Any) -> bool:
    """Whether a pipeline of ``edges="each_step"`` reads its images with their edge repeated,
    the source's frame among the frames' operations: where a colour step (its border must not
    go through it) or a resize (``cv2.resize`` repeats the edge) may come before the first step
    that fills outside its input, in any sample. A property of the pipeline, so that a
    sample's result does not depend on the batch it is in: the steps are read in order, a
    step's own steps (a OneOf's choices, a nested pipeline's) together, since any of them may
    be the one a sample applies (elsewhere the warp's constant border is that frame, rounded
    once)."""
    from ._base import leaves

    for t in pipe.transforms:
        moving = [s for s in leaves(t) if not s.keeps_frame]
        if moving:  # (the first step that may move pixels: all of its own fill, or not)
            return not all(fills_outside(s) for s in moving)
    return False


def check_each_step_edges(pipe: Any) -> None:
    """Refuse ``edges="each_step"`` for a pipeline whose steps it cannot follow: a non-linear
    step (its field is no matrix) or a Mosaic (whose cells are frames of their own)."""
    from ._base import all_steps
    from ._mosaic import Mosaic
    from ._nonlinear import FieldTransform

    for t in all_steps(pipe):
        if isinstance(t, (FieldTransform, Mosaic)):
            raise ValueError(f"edges='each_step' follows the frames of steps whose maps are "
                             f"matrices; {type(t).__name__} is not one: use edges='output' "
                             f"(or passes='as_needed' with the steps in passes of their own)")


def edges_needed(transforms: list) -> str:
    """``"each_step"`` where applying ``transforms`` one after the other differs from one map
    at the edges (a step that fills outside its input after a colour step or after geometry
    other than flips and quarter turns) and :func:`check_each_step_edges` allows it, else
    ``"output"`` (the same result): what ``from_albumentations`` gives its pipeline."""
    from ._base import all_steps, leaves
    from ._mosaic import Mosaic
    from ._nonlinear import FieldTransform

    if any(isinstance(s, (FieldTransform, Mosaic)) for t in transforms for s in all_steps(t)):
        return "output"
    from ._host import is_host

    before = False  # (a colour step or geometry that moves the frame came before)
    for s in (s for t in transforms for s in leaves(t)):
        if is_host(s):  # (a pass of its own after it: it reads the host step's image)
            before = False
            continue
        if before and fills_outside(s):
            return "each_step"
        before = before or not s.keeps_frame
    return "output"

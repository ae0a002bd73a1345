"""Chains ``[M_0, F_1, M_1, ..., F_n, M_n]`` of projective maps (destination from source, as
everywhere in warpkit) around non-linear stages (:mod:`.stages`): their algebra (merging,
the projective part, points moved back and forward) and their packing into the kernel's
arguments (:func:`chain_coords`: each stage's frame folded into the maps around it), so that an
image is still resampled once, in one launch, and the full-resolution map is never made.
Points move forward through a chain by Newton's method on the inverse map, or exactly where
every stage has its own ``forward`` (:func:`forward_points`)."""

from __future__ import annotations

from typing import Callable

import numpy as np

from .. import geometry
from .coords import COORD_AXES, COORD_FIELD, Coords
from .inputs import stack
from .stages import STAGE_FIELD, AxisField, NonLinear, stage_at

#: Newton iterations for moving points forward through a chain, and the residual (pixels) below
#: which a point counts as found
NEWTON_STEPS = 30
NEWTON_TOLERANCE = 1e-3

#: the identity map where a chain has no matrix to multiply in (read-only and shared: the chain
#: functions skip it by identity, `s is _I`, which saves a pipeline call its arithmetic)
_I = geometry.IDENTITY


def merge(stages: list) -> list:
    """A chain with adjacent matrices multiplied, and starting and ending with a matrix (``_I``
    where there is none)."""
    out: list = [_I]
    for s in stages:
        if isinstance(s, NonLinear):
            out += [s, _I]
        elif out[-1] is _I:
            out[-1] = np.array(s, np.float64)
        else:
            out[-1] = np.asarray(s, np.float64) @ out[-1]
    return out


def fields_of(chain: list) -> list[NonLinear]:
    return [s for s in chain if isinstance(s, NonLinear)]


def projective_part(chain: list) -> np.ndarray:
    """The product of a chain's matrices (its map with the fields left out): a new array, or one
    of the chain's own where only it is not the identity."""
    m = None
    for s in chain:
        if s is not _I and not isinstance(s, NonLinear):
            m = s if m is None else s @ m
    return geometry.identity() if m is None else m


def inverse_points(chain: list, pts: np.ndarray) -> np.ndarray:
    """Output positions to source positions through a chain (what the kernel samples)."""
    q = np.asarray(pts, np.float64)
    for s in reversed(chain):
        if isinstance(s, NonLinear):
            q = stage_at(s, q)
        elif s is not _I:
            q = geometry.transform_points(geometry.invert(s), q)
    return q


def forward_points(chain: list, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Source positions to output positions: (positions, found) where ``found`` marks the points
    moved: through a stage with its own ``forward`` (a map with jumps, which Newton's method
    cannot cross: :class:`~.stages.Tiles`) exactly, through the pieces of the chain between such
    stages by Newton's method on their inverse map (:func:`_newton_forward`); the others are
    NaN."""
    src = np.asarray(pts, np.float64).reshape(-1, 2)
    if not fields_of(chain):
        return geometry.transform_points(projective_part(chain), src), np.ones(len(src), bool)
    if not any(hasattr(f, "forward") for f in fields_of(chain)):
        return _newton_forward(chain, src)
    q, found, piece = src, np.ones(len(src), bool), []
    for s in chain:
        if isinstance(s, NonLinear) and hasattr(s, "forward"):
            q, ok = _newton_forward(piece, q)
            with np.errstate(invalid="ignore"):
                q = s.forward(q)
            found &= ok & np.isfinite(q).all(1)
            piece = []
        else:
            piece.append(s)
    q, ok = _newton_forward(piece, q)
    found &= ok
    q[~found] = np.nan
    return q, found


def _newton_forward(chain: list, src: np.ndarray, start: np.ndarray | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`forward_points` of a chain (or a piece of one) without exact stages: the
    projective part where it has no field, else Newton's method on :func:`inverse_points`
    (found: within ``NEWTON_TOLERANCE`` px), starting from the chain's projective part (or
    from ``start``)."""
    if not fields_of(chain):
        return geometry.transform_points(projective_part(chain), src), np.isfinite(src).all(1)
    p = geometry.transform_points(projective_part(chain), src) if start is None else \
        np.array(start, np.float64)
    h = 1e-3
    done = np.zeros(len(src), bool)
    for _ in range(NEWTON_STEPS):
        with np.errstate(all="ignore"):
            f = inverse_points(chain, p) - src
        err = np.hypot(f[:, 0], f[:, 1])
        done = np.isfinite(err) & (err < NEWTON_TOLERANCE)
        if done.all():
            break
        jx, jy = _central(lambda q: inverse_points(chain, q), p, h)
        det = jx[:, 0] * jy[:, 1] - jy[:, 0] * jx[:, 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            dx = (f[:, 0] * jy[:, 1] - jy[:, 0] * f[:, 1]) / det
            dy = (jx[:, 0] * f[:, 1] - f[:, 0] * jx[:, 1]) / det
        step = np.stack([dx, dy], 1)
        step[done] = 0
        p = p - step
    p[~done] = np.nan
    return p, done


def forward_jacobians(chain: list, pts: np.ndarray, h: float = 0.25
                      ) -> tuple[np.ndarray, np.ndarray]:
    """The derivative of a chain's forward map at source positions ``pts`` (N, 2), by central
    differences ``h`` px apart: (d/dx, d/dy), each (N, 2); NaN where a point was not found."""
    p = np.asarray(pts, np.float64).reshape(-1, 2)
    return _central(lambda q: forward_points(chain, q)[0], p, h)


def _central(fn: Callable[[np.ndarray], np.ndarray], p: np.ndarray, h: float
             ) -> tuple[np.ndarray, np.ndarray]:
    """The derivative of ``fn`` (N, 2) -> (N, 2) at points ``p`` by central differences ``h``
    apart: (d/dx, d/dy), each (N, 2)."""
    jx = (fn(p + [h, 0]) - fn(p - [h, 0])) / (2 * h)
    jy = (fn(p + [0, h]) - fn(p - [0, h])) / (2 * h)
    return jx, jy


def _separable(chain: list) -> bool:
    """Whether a chain's source x depends on the output x only and y on y only: axis-aligned
    affine maps (scales, flips, shifts, axis-aligned crops) and per-axis fields."""
    for s in chain:
        if isinstance(s, NonLinear):
            if not isinstance(s, AxisField):
                return False
        elif s is not _I and (s[0, 1] != 0 or s[1, 0] != 0 or s[2, 0] != 0 or s[2, 1] != 0
                              or s[2, 2] != 1):
            return False
    return True


def _one_structure(chains: list[list]) -> bool:
    """Whether the chains have their maps and stages at the same positions (a batch through one
    pipeline): then they are evaluated a position at a time, as stacks over the items."""
    return len(chains) == 1 or \
        len({tuple(isinstance(s, NonLinear) for s in c) for c in chains}) == 1


def _stacked_inverses(chains: list[list]) -> list[np.ndarray]:
    """Chains of :func:`_one_structure`'s projective maps, inverted (src_from_dst): per map
    position, a (B, 3, 3) stack (geometry.invert's arithmetic, in one call per position, without
    checking again matrices the stages made and checked), or ``_I`` where every chain has it."""
    at = [j for j, s in enumerate(chains[0]) if not isinstance(s, NonLinear)]
    return [_I if all(c[j] is _I for c in chains)
            else geometry.invert_checked(stack([c[j] for c in chains])) for j in at]


def _along_all(fields: tuple, axis: int, v: np.ndarray) -> np.ndarray:
    """:meth:`AxisField.along` of each item's field on its row of ``v`` (B, n) (or one row for
    all, (1, n)): for fields of one table length and frame, in one interpolation over the batch
    (the same arithmetic)."""
    if len(fields) == 1:  # one image's call
        return fields[0].along(axis, v)
    tables = [f.dy if axis else f.dx for f in fields]
    if len({len(t) for t in tables}) != 1 or len({f.size for f in fields}) != 1:
        v = np.broadcast_to(v, (len(fields), v.shape[-1]))
        return np.stack([f.along(axis, r) for f, r in zip(fields, v)])
    B, n = len(tables), len(tables[0])
    g = v * fields[0].scale()[axis]
    # one np.interp over every item's table laid end to end: item k's grid coordinates, clamped
    # to its own points (never between two items' tables), shifted to its place (k n)
    np.maximum(g, 0, out=g)
    np.minimum(g, n - 1, out=g)
    g = g + (n * np.arange(B))[:, None]
    return v + np.interp(g, np.arange(B * n), np.asarray(tables, np.float64).reshape(-1))


def _axes_tables(chains: list[list], wo: int, ho: int) -> np.ndarray:
    """(B, wo + ho) float32: each output column's source x, then each row's source y, of
    separable chains of one structure; inverse_points along each axis alone (a chain of 1-D
    maps; 2-D points took 4x longer), a position at a time over the batch (the positions start
    as one row for all items, which the first stage of each item's own widens)."""
    x = np.arange(wo, dtype=np.float64)[None]
    y = np.arange(ho, dtype=np.float64)[None]
    for at in reversed(list(zip(*chains))):  # every chain's stage at one position
        if isinstance(at[0], NonLinear):
            x, y = _along_all(at, 0, x), _along_all(at, 1, y)
        elif all(s is _I for s in at):  # the maps around a stage alone: x stays x
            continue
        else:  # axis-aligned maps (_separable): inverted along each axis, (p - shift) / scale
            m = stack(at)
            sx, sy = m[:, 0, 0, None], m[:, 1, 1, None]
            if not (sx.all() and sy.all()):
                raise geometry.singular_error(0.0)  # a scale of 0 along an axis
            x = (x - m[:, 0, 2, None]) / sx
            y = (y - m[:, 1, 2, None]) / sy
    out = np.empty((len(chains), wo + ho), np.float32)
    out[:, :wo] = x
    out[:, wo:] = y
    return out


def axes_coords(chains: list[list], size: tuple[int, int]) -> Coords | None:
    """The kernel's arguments (kernels_cl/warp.cl, COORD_AXES) for chains that are all
    :func:`_separable`, with a (width, height) output: each output column's source x and each
    row's source y, from the float64 chain (a table read per block of 8 pixels instead of the
    stages' arithmetic: docs/performance.md). None where a
    chain is not separable or a position is not finite (the stages' path handles those).
    A batch through one pipeline is evaluated as stacks, one numpy call per position."""
    if not all(_separable(c) for c in chains):
        return None
    wo, ho = size
    if _one_structure(chains):
        tables = _axes_tables(chains, wo, ho)
    else:
        tables = np.concatenate([_axes_tables([c], wo, ho) for c in chains])
    # NaN fails too (and past float32's range: inf)
    if not (-1e30 <= tables.min() and tables.max() <= 1e30):
        return None
    return Coords(COORD_AXES, axes=tables)


def _stage_maps(chains: list[list]) -> np.ndarray:
    """(B, n + 1, 3, 3): the kernel's maps of chains of one structure with n stages, src_from_dst
    in each stage's frame: A_0 = G_n M_n^-1, A_k = G_{n-k} M_{n-k}^-1 U_{n-k+1}, last
    M_0^-1 U_1, with G a stage's frame() and U its unframe(); a position at a time over the
    batch (one numpy call per position instead of per chain)."""
    inverses = _stacked_inverses(chains)
    per = list(zip(*(fields_of(c) for c in chains)))  # every chain's stage k
    # a class's own stacked frames where stage k is of one class, else NonLinear's
    kinds = [type(st[0]) if len({type(s) for s in st}) == 1 else NonLinear for st in per]
    frames = [kind.frames(st) for kind, st in zip(kinds, per)]
    unframes = [kind.unframes(st) for kind, st in zip(kinds, per)]
    n = len(per)
    maps = np.empty((len(chains), n + 1, 3, 3))
    for k in range(n + 1):
        m = inverses[n - k]
        if k > 0:
            m = unframes[n - k] if m is _I else m @ unframes[n - k]
        if k < n:
            m = frames[n - k - 1] if m is _I else frames[n - k - 1] @ m
        maps[:, k] = m
    return maps


def prepare_stages(chains: list[list]) -> None:
    """Let each stage class that works out many stages at once (``prepare``: Quads, whose
    cells a batch rasters and solves in one pass) do so for every stage of ``chains``: called
    for a whole call before its items are launched one by one (a ragged list), again per launch
    (a no-op for stages already worked out)."""
    by_kind: dict = {}
    for chain in chains:
        for f in fields_of(chain):
            by_kind.setdefault(type(f), []).append(f)
    for kind, fs in by_kind.items():
        if hasattr(kind, "prepare"):
            kind.prepare(fs)


def chain_coords(chains: list[list], size: tuple[int, int] | None = None) -> Coords:
    """The kernel's arguments for one chain per item (or one for all): with an output ``size``,
    per-axis tables where every chain is separable (:func:`axes_coords`); otherwise
    (kernels_cl/warp.cl, COORD_FIELD) src_from_dst maps in each stage's frame around the
    stages (:func:`_stage_maps`), last stage first; items with fewer stages get zero fields
    and identity maps, so every item has the batch's largest count."""
    if size is not None:
        axes = axes_coords(chains, size)
        if axes is not None:
            return axes
    nf = max(len(fields_of(c)) for c in chains)
    if _one_structure(chains):  # every chain has nf stages
        maps = _stage_maps(chains)
    else:  # identity maps after a chain's own
        maps = np.stack([np.concatenate([m, np.broadcast_to(geometry.identity(),
                                                            (nf + 1 - len(m), 3, 3))])
                         for m in (_stage_maps([c])[0] for c in chains)])
    prepare_stages(chains)
    blocks, fi = [], []
    offset = 0
    for chain in chains:
        fields = fields_of(chain)
        for f in reversed(fields):
            data, kind, fa, fb = f.kernel_data()
            blocks.append(data)
            fi.append((offset, kind, fa, fb))
            offset += data.size
        for _ in range(nf - len(fields)):  # no displacement: a 2x2 grid of zeros
            blocks.append(np.zeros(8, np.float32))
            fi.append((offset, STAGE_FIELD, 2, 2))
            offset += 8
    return Coords(COORD_FIELD, chain=maps,
                  fields=np.concatenate(blocks) if blocks else np.zeros(1, np.float32),
                  fi=np.asarray(fi, np.int32).reshape(len(chains), nf, 4))

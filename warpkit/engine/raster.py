"""Which pixels OpenCV's ``cv2.fillConvexPoly`` (integer vertices, 8-connected lines) sets for
a quadrilateral, as spans per row, exactly: the integer arithmetic of its scan (the two chains
walked down from the top vertex in 16.16 fixed point, each row's span rounded, the last row
left to the outline) and of the outline it draws first (each edge clipped to the image as
``clipLine`` clips it, then stepped as its 8-connected ``LineIterator`` steps, from the left
end).

:func:`quad_spans` does it for many quadrilaterals at once with array arithmetic. That holds
for a quadrilateral whose outline goes down then up once from its top vertex (monotone in y:
every convex one, and most others); the rest, and any whose span and outline pixels do not
meet on a row, are scanned one by one (:func:`_walk_rows`), as OpenCV scans them, and a row
with several runs of pixels then gives several entries. GridElasticDeform paints its cells
with it (``warpkit.augment._nonlinear``)."""

from __future__ import annotations

import numpy as np

SHIFT = 16
ONE = 1 << SHIFT
HALF = ONE >> 1


def c_div(a, b) -> np.ndarray:
    """C's integer division (toward zero) of integer arrays or numbers; b != 0."""
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


def clip_lines(p0: np.ndarray, p1: np.ndarray, size: tuple[int, int]
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """OpenCV's ``clipLine`` of segments p0 -> p1 ((n, 2) int64) to a W x H image: (p0, p1,
    whether anything is left), its integer arithmetic step by step."""
    W, H = size
    right, bottom = W - 1, H - 1
    a, b = [p0[:, 0].copy(), p0[:, 1].copy()], [p1[:, 0].copy(), p1[:, 1].copy()]

    def code(p):
        return (p[0] < 0) * 1 + (p[0] > right) * 2 + (p[1] < 0) * 4 + (p[1] > bottom) * 8

    def onto(p, q, m, axis, line):
        """p moved along p -> q onto coordinate ``axis`` = ``line`` where m (C's division)."""
        o = 1 - axis
        d = np.where(m, q[axis] - p[axis], 1)
        p[o] = np.where(m, p[o] + c_div((line - p[axis]) * (q[o] - p[o]), d), p[o])
        p[axis] = np.where(m, line, p[axis])

    c1, c2 = code(a), code(b)
    act = ((c1 & c2) == 0) & ((c1 | c2) != 0)
    for p, q, c in ((a, b, c1), (b, a, c2)):  # onto the top or bottom row, p0 then p1
        onto(p, q, act & ((c & 12) != 0), 1, np.where(c < 8, 0, bottom))
    c1 = np.where(act & ((c1 & 12) != 0), (a[0] < 0) * 1 + (a[0] > right) * 2, c1)
    c2 = np.where(act & ((c2 & 12) != 0), (b[0] < 0) * 1 + (b[0] > right) * 2, c2)
    act &= ((c1 & c2) == 0) & ((c1 | c2) != 0)
    for p, q, c in ((a, b, c1), (b, a, c2)):  # onto the left or right column
        onto(p, q, act & (c != 0), 0, np.where(c == 1, 0, right))
    c1, c2 = np.where(act, 0, c1), np.where(act, 0, c2)
    return np.stack(a, 1), np.stack(b, 1), (c1 | c2) == 0


def line_rows(p0: np.ndarray, p1: np.ndarray, size: tuple[int, int], ys: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """The columns (lo, hi) that OpenCV's 8-connected line p0 -> p1 ((n, 2) int64, clipped
    here) sets on rows ``ys`` ((n, R) int64), each (n, R); lo > hi where it sets none. From
    the left end, after i steps along the longer extent D the other coordinate has moved
    max(0, ceil((2 d i - D) / (2 D))), d the shorter extent."""
    a, b, ok = clip_lines(p0, p1, size)
    swap = a[:, 0] > b[:, 0]  # LineIterator(left_to_right=True)
    a, b = np.where(swap[:, None], b, a), np.where(swap[:, None], a, b)
    D = b[:, 0] - a[:, 0]  # >= 0
    dy = b[:, 1] - a[:, 1]
    d = np.abs(dy)
    sy = np.where(dy < 0, -1, 1)
    x0, y0 = a[:, 0:1], a[:, 1:2]
    t = (ys - y0) * sy[:, None]  # rows along the line, from its left end
    on = ok[:, None] & (t >= 0) & (t <= d[:, None])
    steep = (d > D)[:, None]
    Dc, dc = D[:, None], np.maximum(d, 1)[:, None]
    # steep: one pixel a row, x = x0 + ceil((2 D t - d) / (2 d)) (>= 0): the floor of
    # (2 D t + d - 1) / (2 d), the numerator >= 0 where t >= 0
    tt = np.maximum(t, 0)
    xs = x0 + (2 * Dc * tt + dc - 1) // (2 * dc)
    # shallow: the steps i whose offset is t: from floor(D (2t - 1) / (2d)) + 1 (0 at t = 0)
    # to floor(D (2t + 1) / (2d)) (D at t = d); a level line (d = 0) is all D + 1 of them
    lo = np.where(tt == 0, 0, (Dc * (2 * tt - 1)) // (2 * dc) + 1)
    hi = np.where(tt == d[:, None], Dc, (Dc * (2 * tt + 1)) // (2 * dc))
    lo_x = np.where(steep, xs, x0 + lo)
    hi_x = np.where(steep, xs, x0 + hi)
    return np.where(on, lo_x, 1), np.where(on, hi_x, 0)


def _monotone(y: np.ndarray) -> np.ndarray:
    """(n,) whether each quadrilateral's y, going round from its (first) top vertex, never
    falls and then rises again: OpenCV's scan then follows one chain of edges a side."""
    n = len(y)
    top = np.argmin(y, axis=1)  # the first of the lowest y, as OpenCV's imin
    order = (top[:, None] + np.arange(5)) % 4
    s = y[np.arange(n)[:, None], order]
    d = np.diff(s, axis=1)
    fell = np.cumsum(d < 0, axis=1) > 0
    return ~((d > 0) & np.concatenate([np.zeros((n, 1), bool), fell[:, :-1]], 1)).any(1)


def quad_spans(quads: np.ndarray, size) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The pixels ``cv2.fillConvexPoly(img, quad, ...)`` sets for each quadrilateral of
    ``quads`` ((n, 4, 2) integer vertices, in order) on an image of ``size`` = (W, H), one for
    all or (n, 2), one per quad: entries ``(owner, r0, lo, hi)``, arrays (E,), (E,), (E, R),
    (E, R): entry e covers columns lo[e, r] .. hi[e, r] of row r0[e] + r of quad owner[e]
    (lo > hi: none), sorted by owner (a quad's entries together, in the quads' order). A quad
    whose rows hold several runs of pixels gives an entry per run; one that sets nothing gives
    none."""
    q = np.asarray(quads, np.int64).reshape(-1, 4, 2)
    n = len(q)
    sz = np.broadcast_to(np.asarray(size, np.int64).reshape(-1, 2), (n, 2))
    W, H = sz[:, 0:1], sz[:, 1:2]  # (n, 1)
    if n == 0:
        z = np.zeros(0, np.int64)
        return z, z, np.zeros((0, 1), np.int64), np.zeros((0, 1), np.int64)
    x, y = q[..., 0], q[..., 1]
    ymin, ymax = y.min(1, keepdims=True), y.max(1, keepdims=True)
    r0 = np.clip(ymin, 0, H - 1)
    r1 = np.clip(ymax, 0, H - 1)
    R = int(max(1, (r1 - r0).max() + 1))
    ys = r0 + np.arange(R)  # (n, R)
    rows_ok = (ys <= r1) & (ymax >= 0) & (ymin < H) & (x.max(1, keepdims=True) >= 0) & \
        (x.min(1, keepdims=True) < W)
    # the outline: the four edges, from the last vertex round
    a = q[:, [3, 0, 1, 2]].reshape(-1, 2)
    b = q.reshape(-1, 2)
    llo, lhi = line_rows(a, b, (np.repeat(W[:, 0], 4), np.repeat(H[:, 0], 4)),
                         np.repeat(ys, 4, axis=0))
    llo, lhi = llo.reshape(n, 4, R), lhi.reshape(n, 4, R)
    # the scan: each edge not level, from its upper vertex, on rows [upper y, lower y)
    ya, yb = y[:, [3, 0, 1, 2]], y
    xa, xb = x[:, [3, 0, 1, 2]], x
    up = ya < yb
    xu, yu = np.where(up, xa, xb), np.where(up, ya, yb)
    xl, yl = np.where(up, xb, xa), np.where(up, yb, ya)
    span = np.maximum(yl - yu, 1)
    dx = c_div(((xl - xu) << SHIFT) * 2 + span, 2 * span)  # OpenCV's rounded step a row
    yy = ys[:, None, :]
    active = (ya != yb)[..., None] & (yy >= yu[..., None]) & (yy < yl[..., None])
    xe = (xu[..., None] << SHIFT) + dx[..., None] * (yy - yu[..., None])
    big = np.int64(1) << 62
    left = np.where(active, xe, big).min(1)
    right = np.where(active, xe, -big).max(1)
    scanned = active.any(1) & (ys < ymax)  # the last row is the outline's alone
    slo = np.where(scanned, (left + HALF) >> SHIFT, 1)
    shi = np.where(scanned, (right + HALF) >> SHIFT, 0)
    slo, shi = np.maximum(slo, 0), np.minimum(shi, W - 1)
    # the row's runs: the span and each edge's pixels; one run where they meet
    parts_lo = np.concatenate([slo[:, None], llo], 1)  # (n, 5, R)
    parts_hi = np.concatenate([shi[:, None], lhi], 1)
    has = parts_lo <= parts_hi
    lo = np.where(has, parts_lo, big).min(1)
    hi = np.where(has, parts_hi, -big).max(1)
    # one run where every edge's pixels touch the span (most rows), else sorted out exactly
    touch = ~has[:, 1:] | (has[:, :1] & (llo <= shi[:, None] + 1) & (lhi >= slo[:, None] - 1))
    covered = touch.all(1)
    odd = np.flatnonzero(~covered)
    if len(odd):
        covered.reshape(-1)[odd] = _covered(
            *(np.moveaxis(a, 1, 2).reshape(-1, 5)[odd][:, :, None]
              for a in (parts_lo, parts_hi, has)))[:, 0]
    keep = rows_ok & (lo <= hi)
    lo, hi = np.where(keep, lo, 1), np.where(keep, hi, 0)
    simple = _monotone(y) & (covered | ~rows_ok).all(1)
    owner = np.flatnonzero(simple & keep.any(1))
    parts = [(owner, r0[owner, 0], lo[owner], hi[owner])]
    for i in np.flatnonzero(~simple).tolist():  # scanned one by one, as OpenCV scans them
        runs = _walk_runs(q[i], (int(W[i, 0]), int(H[i, 0])))
        if runs:
            width = max(R, max(len(l) for _, l, _ in runs))
            block = np.ones((len(runs), 2, width), np.int64)
            block[:, 1] = 0
            for j, (rr, l, h) in enumerate(runs):
                block[j, 0, :len(l)], block[j, 1, :len(h)] = l, h
            parts.append((np.full(len(runs), i), np.array([r for r, _, _ in runs]),
                          block[:, 0], block[:, 1]))
    width = max(p[2].shape[1] for p in parts)
    own = np.concatenate([p[0] for p in parts]).astype(np.int64)
    order = np.argsort(own, kind="stable")
    pad = [(np.pad(p[2], ((0, 0), (0, width - p[2].shape[1])), constant_values=1),
            np.pad(p[3], ((0, 0), (0, width - p[3].shape[1])), constant_values=0)) for p in parts]
    return (own[order], np.concatenate([p[1] for p in parts]).astype(np.int64)[order],
            np.concatenate([a for a, _ in pad])[order], np.concatenate([b for _, b in pad])[order])


def _covered(lo: np.ndarray, hi: np.ndarray, has: np.ndarray) -> np.ndarray:
    """(n, R): whether the intervals [lo, hi] (``has``) of each row join into one run (no
    gap between them), by sorting them along axis 1."""
    big = np.int64(1) << 62
    slo = np.where(has, lo, big)
    order = np.argsort(slo, axis=1, kind="stable")
    slo = np.take_along_axis(slo, order, 1)
    shi = np.take_along_axis(np.where(has, hi, -big), order, 1)
    reach = np.maximum.accumulate(shi, axis=1)
    gap = (slo[:, 1:] < big) & (slo[:, 1:] > reach[:, :-1] + 1)
    return ~gap.any(1)


def _walk_runs(quad: np.ndarray, size: tuple[int, int]) -> list[tuple[int, np.ndarray,
                                                                       np.ndarray]]:
    """One quadrilateral's pixels as OpenCV sets them (:func:`_walk_mask`), as entries
    ``(first row, lo, hi)``: the first run of each row, then the second, ..."""
    W, H = size
    m, y0, x0 = _walk_mask(quad, size)
    if m is None:
        return []
    pad = np.zeros((m.shape[0], m.shape[1] + 2), np.int8)
    pad[:, 1:-1] = m
    d = np.diff(pad, axis=1)
    starts = [np.flatnonzero(r == 1) for r in d]
    ends = [np.flatnonzero(r == -1) - 1 for r in d]
    runs = max((len(s) for s in starts), default=0)
    out = []
    for k in range(runs):
        lo = np.array([s[k] + x0 if len(s) > k else 1 for s in starts], np.int64)
        hi = np.array([e[k] + x0 if len(e) > k else 0 for e in ends], np.int64)
        out.append((y0, lo, hi))
    return out


def _walk_mask(quad: np.ndarray, size: tuple[int, int]):
    """A quadrilateral's pixels as ``cv2.fillConvexPoly`` sets them (shift 0, LINE_8), OpenCV's
    scan line by line: (mask of its rows and columns within the image, first row, first
    column), or (None, 0, 0) where it sets none."""
    W, H = size
    v = [(int(a), int(b)) for a, b in np.asarray(quad, np.int64).reshape(4, 2)]
    xs, ys = [p[0] for p in v], [p[1] for p in v]
    X0, X1 = max(min(xs), 0), min(max(xs), W - 1)
    Y0, Y1 = max(min(ys), 0), min(max(ys), H - 1)
    if X0 > X1 or Y0 > Y1:
        return None, 0, 0
    m = np.zeros((Y1 - Y0 + 1, X1 - X0 + 1), bool)
    # the outline
    p0 = np.array([v[3], v[0], v[1], v[2]], np.int64)
    p1 = np.array(v, np.int64)
    rows = np.arange(Y0, Y1 + 1)[None].repeat(4, 0)
    lo, hi = line_rows(p0, p1, size, rows)
    for e in range(4):
        for r in np.flatnonzero(lo[e] <= hi[e]):
            m[r, lo[e, r] - X0:hi[e, r] - X0 + 1] = True
    # the scan (FillConvexPoly's loop, shift 0)
    npts, imin = 4, int(np.argmin(ys))
    ymin, ymax = min(ys), max(ys)
    if max(xs) < 0 or ymax < 0 or min(xs) >= W or ymin >= H:
        return m, Y0, X0
    ymax = min(ymax, H - 1)
    edge = [{"idx": imin, "di": 1, "x": -ONE, "dx": 0, "ye": ymin},
            {"idx": imin, "di": npts - 1, "x": -ONE, "dx": 0, "ye": ymin}]
    edges, y = npts, ymin
    while True:
        for e in edge:
            if y >= e["ye"]:
                idx0, di = e["idx"], e["di"]
                idx = (idx0 + di) % npts
                while True:
                    if edges <= 0:
                        edges -= 1
                        break
                    edges -= 1
                    ty = v[idx][1]
                    if ty > y:
                        xs_, xe_ = v[idx0][0] << SHIFT, v[idx][0] << SHIFT
                        e["ye"] = ty
                        num, den = (xe_ - xs_) * 2 + (ty - y), 2 * (ty - y)
                        e["dx"] = int(c_div(np.int64(num), np.int64(den)))
                        e["x"] = xs_
                        e["idx"] = idx
                        break
                    idx0 = idx
                    idx = (idx + di) % npts
        if edges < 0:
            break
        if y >= 0:
            l, r = (edge[0], edge[1]) if edge[0]["x"] <= edge[1]["x"] else (edge[1], edge[0])
            x1, x2 = (l["x"] + HALF) >> SHIFT, (r["x"] + HALF) >> SHIFT
            if x2 >= 0 and x1 < W:
                x1, x2 = max(x1, 0), min(x2, W - 1)
                m[y - Y0, x1 - X0:x2 - X0 + 1] = True
        edge[0]["x"] += edge[0]["dx"]
        edge[1]["x"] += edge[1]["dx"]
        y += 1
        if y > ymax:
            break
    return m, Y0, X0

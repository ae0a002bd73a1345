/* OpenCV's raster into a bit mask of an output (a bit per pixel: rows of mw words, bit b of
 * word w column 32 w + b), ORed in by atomics so that the work-items of a group can draw side by
 * side: clipLine, Line2, FillConvexPoly of a quadrilateral, the filled Circle, and cv2.line's
 * ThickLine built of them, as OpenCV 4 computes each (its 16.16 fixed point in 64 bits; signs
 * taken by shifts, never by a 64-bit comparison, which llvmpipe got wrong). rain.cl draws
 * RandomRain's drops with them, flare.cl RandomSunFlare's physics-based sun and spikes. */
#ifndef WK_RASTER_H
#define WK_RASTER_H
/* columns ca .. cb (ca <= cb, inside the row) of the row at m lit */
inline void wk_rain_run(volatile __global uint *m, int ca, int cb) {
    for (int w = ca >> 5; w <= cb >> 5; w++) {
        const int lo = max(ca - 32 * w, 0), hi = min(cb - 32 * w, 31);
        atomic_or(m + w, ((2u << (hi - lo)) - 1u) << lo);
    }
}

/* ---- drops wider than a pixel: OpenCV's ThickLine (its 16.16 fixed point, in 64 bits; signs
 * taken by shifts, never by a 64-bit comparison, which llvmpipe got wrong) ---- */
#define WK_XY_ONE 65536L
#define WK_XY_HALF 32768L
inline int wk_neg64(long v) { return (int)((ulong)v >> 63); }
inline int wk_lt64(long a, long b) { return wk_neg64(a - b); }
/* |v| as a product with its sign (a select of -v or v becomes llvm.abs.i64, which Oclgrind
 * lacks) */
inline long wk_abs64(long v) { return v * (long)(1 - 2 * wk_neg64(v)); }
/* C's p / b (toward zero) in 64 bits, by magnitudes */
inline long wk_div64(long p, long b) {
    const int sp = wk_neg64(p), sb = wk_neg64(b);
    const long m = (long)((ulong)wk_abs64(p) / (ulong)wk_abs64(b));
    return m * (long)(1 - 2 * (sp ^ sb));
}
/* OpenCV's clipLine of (x1, y1) - (x2, y2) to [0, right] x [0, bottom] (its int64 arithmetic,
 * the quotients truncated): whether anything is left. Whole pixels for the thin drops, 16.16
 * fixed point for Line2 */
inline int wk_rain_clip(long *x1, long *y1, long *x2, long *y2, long right, long bottom) {
    int c1 = wk_neg64(*x1) + wk_lt64(right, *x1) * 2 + wk_neg64(*y1) * 4 + wk_lt64(bottom, *y1) * 8;
    int c2 = wk_neg64(*x2) + wk_lt64(right, *x2) * 2 + wk_neg64(*y2) * 4 + wk_lt64(bottom, *y2) * 8;
    if ((c1 & c2) != 0) return 0;
    if ((c1 | c2) != 0) {
        if (c1 & 12) {
            const long a = c1 < 8 ? 0 : bottom;
            *x1 += wk_div64((a - *y1) * (*x2 - *x1), *y2 - *y1);
            *y1 = a;
            c1 = wk_neg64(*x1) + wk_lt64(right, *x1) * 2;
        }
        if (c2 & 12) {
            const long a = c2 < 8 ? 0 : bottom;
            *x2 += wk_div64((a - *y2) * (*x2 - *x1), *y2 - *y1);
            *y2 = a;
            c2 = wk_neg64(*x2) + wk_lt64(right, *x2) * 2;
        }
        if ((c1 & c2) == 0 && (c1 | c2) != 0) {
            if (c1) {
                const long a = c1 == 1 ? 0 : right;
                *y1 += wk_div64((a - *x1) * (*y2 - *y1), *x2 - *x1);
                *x1 = a;
                c1 = 0;
            }
            if (c2) {
                const long a = c2 == 1 ? 0 : right;
                *y2 += wk_div64((a - *x2) * (*y2 - *y1), *x2 - *x1);
                *x2 = a;
                c2 = 0;
            }
        }
    }
    return (c1 | c2) == 0;
}
/* columns xa .. xb of row y lit, clipped to the image (OpenCV's ICV_HLINE of a clipped run) */
inline void wk_rain_hline(volatile __global uint *mask, int mw, int W, int H, int y, int xa, int xb) {
    if (y < 0 || y >= H) return;
    xa = max(xa, 0);
    xb = min(xb, W - 1);
    if (xa <= xb) wk_rain_run(mask + (long)y * mw, xa, xb);
}
/* OpenCV's Line2: a line between 16.16 points, clipped to the image scaled by 2^16 */
inline void wk_rain_line2(volatile __global uint *mask, int mw, int W, int H, long x1, long y1, long x2,
                          long y2) {
    if (!wk_rain_clip(&x1, &y1, &x2, &y2, (long)W * WK_XY_ONE - 1, (long)H * WK_XY_ONE - 1)) return;
    long dx = x2 - x1, dy = y2 - y1;
    const int jn = wk_neg64(dx), yn = wk_neg64(dy);
    const long ax = wk_abs64(dx), ay = wk_abs64(dy);
    const int wide = wk_lt64(ay, ax);
    long x_step, y_step;
    int ecount;
    if (wide) {
        if (jn) { const long tx = x1, ty = y1; x1 = x2; y1 = y2; x2 = tx; y2 = ty; dy = -dy; }
        x_step = WK_XY_ONE;
        y_step = wk_div64(dy * WK_XY_ONE, ax | 1);
        ecount = (int)((x2 - x1) >> 16);
    } else {
        if (yn) { const long tx = x1, ty = y1; x1 = x2; y1 = y2; x2 = tx; y2 = ty; dx = -dx; }
        x_step = wk_div64(dx * WK_XY_ONE, ay | 1);
        y_step = WK_XY_ONE;
        ecount = (int)((y2 - y1) >> 16);
    }
    x1 += WK_XY_HALF;
    y1 += WK_XY_HALF;
    wk_rain_hline(mask, mw, W, H, (int)((y2 + WK_XY_HALF) >> 16), (int)((x2 + WK_XY_HALF) >> 16),
                  (int)((x2 + WK_XY_HALF) >> 16));
    if (wide) {
        int px = (int)(x1 >> 16);
        for (; ecount >= 0; ecount--, px++, y1 += y_step) wk_rain_hline(mask, mw, W, H, (int)(y1 >> 16), px, px);
    } else {
        int py = (int)(y1 >> 16);
        for (; ecount >= 0; ecount--, py++, x1 += x_step) wk_rain_hline(mask, mw, W, H, py, (int)(x1 >> 16), (int)(x1 >> 16));
    }
}
/* OpenCV's FillConvexPoly of 4 16.16 points (shift 16, a 4- or 8-connected line type): the
 * outline by Line2, then the scan down both chains from the top vertex */
inline void wk_rain_quad(volatile __global uint *mask, int mw, int W, int H, const long *vx, const long *vy) {
    int imin = 0;
    long xmin = vx[0], xmax = vx[0], ymin = vy[0], ymax = vy[0];
    long p0x = vx[3], p0y = vy[3];
    for (int i = 0; i < 4; i++) {
        if (wk_lt64(vy[i], ymin)) { ymin = vy[i]; imin = i; }
        if (wk_lt64(ymax, vy[i])) ymax = vy[i];
        if (wk_lt64(xmax, vx[i])) xmax = vx[i];
        if (wk_lt64(vx[i], xmin)) xmin = vx[i];
        wk_rain_line2(mask, mw, W, H, p0x, p0y, vx[i], vy[i]);
        p0x = vx[i];
        p0y = vy[i];
    }
    const int ix0 = (int)((xmin + WK_XY_HALF) >> 16), ix1 = (int)((xmax + WK_XY_HALF) >> 16);
    const int iy0 = (int)((ymin + WK_XY_HALF) >> 16);
    int iy1 = (int)((ymax + WK_XY_HALF) >> 16);
    if (ix1 < 0 || iy1 < 0 || ix0 >= W || iy0 >= H) return;
    iy1 = min(iy1, H - 1);
    int idx[2] = {imin, imin}, ye[2] = {iy0, iy0};
    const int di[2] = {1, 3};
    long ex[2] = {-WK_XY_ONE, -WK_XY_ONE}, edx[2] = {0, 0};
    int edges = 4, y = iy0;
    do {
        for (int i = 0; i < 2; i++) {
            if (y >= ye[i]) {
                int idx0 = idx[i], id = (idx[i] + di[i]) & 3;
                for (; edges-- > 0;) {
                    const int ty = (int)((vy[id] + WK_XY_HALF) >> 16);
                    if (ty > y) {
                        ye[i] = ty;
                        edx[i] = wk_div64((vx[id] - vx[idx0]) * 2 + (ty - y), 2 * (long)(ty - y));
                        ex[i] = vx[idx0];
                        idx[i] = id;
                        break;
                    }
                    idx0 = id;
                    id = (id + di[i]) & 3;
                }
            }
        }
        if (edges < 0) break;
        if (y >= 0) {
            const int l = wk_lt64(ex[1], ex[0]);
            const int xa = (int)(((l ? ex[1] : ex[0]) + WK_XY_HALF) >> 16);
            const int xb = (int)(((l ? ex[0] : ex[1]) + WK_XY_HALF) >> 16);
            if (xb >= 0 && xa < W) wk_rain_hline(mask, mw, W, H, y, xa, xb);
        }
        ex[0] += edx[0];
        ex[1] += edx[1];
    } while (++y <= iy1);
}
/* OpenCV's filled Circle of a whole radius about (cx, cy), clipped */
inline void wk_rain_disc(volatile __global uint *mask, int mw, int W, int H, int cx, int cy, int radius) {
    int err = 0, dx = radius, dy = 0, plus = 1, minus = (radius << 1) - 1;
    while (dx >= dy) {
        wk_rain_hline(mask, mw, W, H, cy - dy, cx - dx, cx + dx);
        wk_rain_hline(mask, mw, W, H, cy + dy, cx - dx, cx + dx);
        wk_rain_hline(mask, mw, W, H, cy - dx, cx - dy, cx + dy);
        wk_rain_hline(mask, mw, W, H, cy + dx, cx - dy, cx + dy);
        dy++;
        err += plus;
        plus += 2;
        const int m = (err <= 0) - 1;
        err -= minus & m;
        dx += m;
        minus -= m & 2;
    }
}
/* a drop ``width`` wide from (x1, y1) to (x2, y2) (whole pixels), its polygon's half-width
 * vector (dpx, dpy) in 16.16 (the host's, OpenCV's double arithmetic): ThickLine's quadrilateral
 * and its two round ends */
inline void wk_rain_thick(volatile __global uint *mask, int mw, int W, int H, int x1, int y1, int x2, int y2,
                          int dpx, int dpy, int width) {
    if ((dpx | dpy) != 0) {
        const long p0x = (long)x1 * WK_XY_ONE, p0y = (long)y1 * WK_XY_ONE;
        const long p1x = (long)x2 * WK_XY_ONE, p1y = (long)y2 * WK_XY_ONE;
        const long vx[4] = {p0x + dpx, p0x - dpx, p1x - dpx, p1x + dpx};
        const long vy[4] = {p0y + dpy, p0y - dpy, p1y - dpy, p1y + dpy};
        wk_rain_quad(mask, mw, W, H, vx, vy);
    }
    const int radius = (width + 1) >> 1;
    wk_rain_disc(mask, mw, W, H, x1, y1, radius);
    wk_rain_disc(mask, mw, W, H, x2, y2, radius);
}

#endif

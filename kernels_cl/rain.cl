/* RandomRain's drops drawn once per item, before the operations run (colour.h's WK_COL_RAIN).
 *
 * rain_mask draws every drop of each item's WK_COL_RAIN operations into that operation's bit
 * mask: a bit per output pixel, rows of WK_RAIN_MW(Wo) words (bit b of word w: column 32 w + b;
 * the last word of a row past the image, so that a read of 32 columns from any column of the
 * row stays in it), Ho rows. The host puts each mask after the item's list (a row of zeros
 * ends the list before it: engine.core's rain_masks) and its place, in operations from the
 * operation, in word 9 of the operation's first WK_COL_DATA operation; the upload leaves the
 * masks zero. RI[item * nr + r] is the place of the item's r-th WK_COL_RAIN operation in its
 * list (-1: none).
 *
 * Each drop is clipped and rasterised as OpenCV's LineIterator does for cv2.line (LINE_4, one
 * pixel wide): clipLine's integer arithmetic first (which moves the line's steps), then, along
 * the longer axis d1, a step across after each point while d2 i < d1 j does not hold; its
 * columns on each row are computed in closed form and ORed into the row's words.
 *
 * NDRange: (64, 1, B), work-groups of 64: the work-items of an item take its drops in turn.
 */
#define COLOUR 1
#include "warpkit.h"
#include "colour.h"

/* p q / b truncated toward zero (C's division of OpenCV's int64 product), by magnitudes in 64
 * unsigned bits and signs in 32 (llvmpipe, rusticl, took a 64-bit x < 0 as false) */
inline int wk_rain_div(int p, int q, int b) {
    const ulong m = (ulong)abs(p) * (ulong)abs(q) / (ulong)abs(b);
    return ((p < 0) != (q < 0)) != (b < 0) && m ? -(int)m : (int)m;
}

/* columns ca .. cb (ca <= cb, inside the row) of the row at m lit */
inline void wk_rain_run(volatile __global uint *m, int ca, int cb) {
    for (int w = ca >> 5; w <= cb >> 5; w++) {
        const int lo = max(ca - 32 * w, 0), hi = min(cb - 32 * w, 31);
        atomic_or(m + w, ((2u << (hi - lo)) - 1u) << lo);
    }
}

__kernel void rain_mask(__global uint *COL, int ncol, __global const int *restrict RI, int nr,
                        int Ho, int Wo) {
    const int item = get_global_id(2), lane = get_global_id(0), lanes = get_global_size(0);
    const int W = Wo, H = Ho, mw = WK_RAIN_MW(Wo);
    __global uint *list = COL + (long)item * ncol * WK_COL_WORDS;
    for (int r = 0; r < nr; r++) {
        const int at = RI[item * nr + r];
        if (at < 0) continue;
        __global uint *op = list + (long)at * WK_COL_WORDS;
        const int n = (int)as_float(op[1]), w0 = (int)as_float(op[4]), h0 = (int)as_float(op[5]);
        if (n == 0) continue;
        volatile __global uint *mask = (volatile __global uint *)(
            op + (long)WK_COL_WORDS * (int)as_float(op[WK_COL_WORDS + 9]));
        for (int j = lane; j < n; j += lanes) {
            __global const uint *d = op + WK_COL_WORDS * (1 + j / 2) + 1 + 4 * (j % 2);
            int x1 = WK_FOG_PX(as_float(d[0]), w0, W), y1 = WK_FOG_PX(as_float(d[1]), h0, H);
            int x2 = WK_FOG_PX(as_float(d[2]), w0, W), y2 = WK_FOG_PX(as_float(d[3]), h0, H);
            /* OpenCV's clipLine (its int64 and double arithmetic: the quotients truncated; the
             * points in 32 bits: llvmpipe (rusticl) took a 64-bit x < 0 here as false) */
            const int right = W - 1, bottom = H - 1;
            int c1 = (x1 < 0) + (x1 > right) * 2 + (y1 < 0) * 4 + (y1 > bottom) * 8;
            int c2 = (x2 < 0) + (x2 > right) * 2 + (y2 < 0) * 4 + (y2 > bottom) * 8;
            if ((c1 & c2) != 0) continue;
            if ((c1 | c2) != 0) {
                if (c1 & 12) {
                    const int e = c1 < 8 ? 0 : bottom;
                    x1 += wk_rain_div(e - y1, x2 - x1, y2 - y1);
                    y1 = e;
                    c1 = (x1 < 0) + (x1 > right) * 2;
                }
                if (c2 & 12) {
                    const int e = c2 < 8 ? 0 : bottom;
                    x2 += wk_rain_div(e - y2, x2 - x1, y2 - y1);
                    y2 = e;
                    c2 = (x2 < 0) + (x2 > right) * 2;
                }
                if ((c1 & c2) == 0 && (c1 | c2) != 0) {
                    if (c1) {
                        const int e = c1 == 1 ? 0 : right;
                        y1 += wk_rain_div(e - x1, y2 - y1, x2 - x1);
                        x1 = e;
                        c1 = 0;
                    }
                    if (c2) {
                        const int e = c2 == 1 ? 0 : right;
                        y2 += wk_rain_div(e - x2, y2 - y1, x2 - x1);
                        x2 = e;
                        c2 = 0;
                    }
                }
                if ((c1 | c2) != 0) continue;
            }
            if (x2 < x1) { /* left to right */
                const int tx = x1, ty = y1;
                x1 = x2; y1 = y2; x2 = tx; y2 = ty;
            }
            const int dx = x2 - x1, sy = y2 < y1 ? -1 : 1, dy = y2 < y1 ? y1 - y2 : y2 - y1;
            const int steep = dy > dx;
            for (int i = 0; i <= dy; i++) { /* rows along the line */
                uint xa, xb; /* its columns on row y1 + sy i, from x1 */
                if (steep) { /* a row a point: the columns ceil(dx (i - 1) / dy) .. ceil(dx i / dy) */
                    xa = i == 0 ? 0u : ((uint)dx * (uint)(i - 1) + (uint)dy - 1u) / (uint)dy;
                    xb = ((uint)dx * (uint)i + (uint)dy - 1u) / (uint)dy;
                } else if (dy == 0) {
                    xa = 0u;
                    xb = (uint)dx;
                } else { /* the columns whose runs of rows hold row i */
                    xa = i == 0 ? 0u : ((uint)dx * (uint)(i - 1)) / (uint)dy + 1u;
                    xb = min(((uint)dx * (uint)i) / (uint)dy + 1u, (uint)dx);
                }
                if (xa > xb) continue;
                wk_rain_run(mask + (long)(y1 + sy * i) * mw, x1 + (int)xa, x1 + (int)xb);
            }
        }
    }
}

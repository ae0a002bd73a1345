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
 * columns on each row are computed in closed form and ORed into the row's words. A drop wider
 * than a pixel (word 10 of the first COL_DATA operation; then a drop an operation, with its
 * half-width vector) is OpenCV 4's ThickLine: its quadrilateral in 16.16 fixed point filled
 * as FillConvexPoly fills it (the outline by Line2, clipped by clipLine in 64 bits), and a
 * filled Circle at each end.
 *
 * NDRange: (64, 1, B), work-groups of 64: the work-items of an item take its drops in turn.
 */
#define COLOUR 1
#include "warpkit.h"
#include "colour.h"
#include "raster.h"

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
        const int width = (int)as_float(op[WK_COL_WORDS + 10]);
        for (int j = lane; j < n; j += lanes) {
            if (width > 1) { /* a drop an operation: ends, half-width vector (scaled as the ends) */
                __global const uint *d = op + WK_COL_WORDS * (1 + j) + 1;
                const float vx = as_float(d[4]), vy = as_float(d[5]);
                wk_rain_thick(mask, mw, W, H, WK_FOG_PX(as_float(d[0]), w0, W), WK_FOG_PX(as_float(d[1]), h0, H),
                              WK_FOG_PX(as_float(d[2]), w0, W), WK_FOG_PX(as_float(d[3]), h0, H),
                              W == w0 ? (int)vx : (int)rint(vx * (float)W / (float)w0),
                              H == h0 ? (int)vy : (int)rint(vy * (float)H / (float)h0), width);
                continue;
            }
            __global const uint *d = op + WK_COL_WORDS * (1 + j / 2) + 1 + 4 * (j % 2);
            int x1 = WK_FOG_PX(as_float(d[0]), w0, W), y1 = WK_FOG_PX(as_float(d[1]), h0, H);
            int x2 = WK_FOG_PX(as_float(d[2]), w0, W), y2 = WK_FOG_PX(as_float(d[3]), h0, H);
            {
                long a1 = x1, b1 = y1, a2 = x2, b2 = y2;
                if (!wk_rain_clip(&a1, &b1, &a2, &b2, W - 1, H - 1)) continue;
                x1 = (int)a1; y1 = (int)b1; x2 = (int)a2; y2 = (int)b2;
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

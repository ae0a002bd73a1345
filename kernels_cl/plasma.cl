/* The plasma pattern of PlasmaBrightnessContrast and PlasmaShadow (colour.h's WK_COL_PLASMA and
 * WK_COL_PLASMA_MEAN), made once per item and operation before the operations run.
 *
 * albumentations' generate_plasma_pattern, step by step in its float32 arithmetic: a grid of
 * G x G points, G = 2^(S + 1) + 1 the least such side >= the output's longer side (S steps,
 * none below 4 pixels), starts as 3 x 3 uniform numbers in [-1, 1); each step s = 1 .. S
 * doubles it: every old point plus a uniform number in [-r^(s - 1), r^(s - 1)) (r the
 * roughness), then each new point whose four diagonal neighbours' mean (OpenCV's filter2D with
 * the diamond kernel, its sums in the kernel's row-major order) is above 0 takes that mean
 * plus its number, then each point between two old ones whose (up to) four neighbours' sum
 * times 1/4 (the square kernel, 0 past the grid) is above 0 takes it plus its number, the
 * others 0; then cv2.normalize's min-max scaling to [0, 1] (its float scale, the shift rounded
 * apart, v scale + shift fused). The pattern is then the grid's top-left Ho x Wo, scaled to
 * [0, 1] again over that part alone and clipped.
 *
 * The numbers come from Philox (colour.h's wk_key of the operation's words 1-3): point (i, j)
 * of step s's grid (step 0: the first 3 x 3) takes word j % 4 of the block of counter
 * (j / 4, i, PL_TAG + s, 0), w, as scale ((w >> 8) 2^-23 - 1) (warpkit/augment/_plasma.py
 * draws the same on the host).
 *
 * The grid lives in the operation's area (its place, in operations from it, w[9] 2^20 + w[10];
 * the host's engine.core.plasma_areas), G floats a row, each step's point (i, j) at (i t, j t),
 * t = 2^(S - s): the last step's grid is the pattern, read by the operations at (y, x). A
 * step's scaling is applied as the next step reads its old points (and the pattern's two
 * scalings in one pass: a scaling keeps the order of the values, so the part's extremes are
 * the scaled extremes of the raw values there).
 *
 * PI[item * np + r] is the place of the item's r-th plasma operation in its list (-1: none).
 * NDRange: (64, 1, B), work-groups of 64: each makes its item's patterns in turn.
 */
#define COLOUR 1
#include "warpkit.h"
#include "colour.h"

#define PL_TAG 0x504C4100u

/* the numbers of columns 32 m .. 32 m + 31 of row i of step s's grid, scale times uniform
 * numbers in [-1, 1) (24 bits: 2 u - 1 exact, the product rounded once), column 32 m + c at
 * PL_U(u, c): word c % 4 of the Philox block of counter 8 m + c / 4 (colour.h's wk_philox8,
 * eight counters at once) */
inline void pl_numbers32(uint2 key, int s, int i, int m, float scale, float *u) {
    uint8 o[4];
    wk_philox8((uint8)(8 * m) + (uint8)(0, 1, 2, 3, 4, 5, 6, 7), (uint8)i, (uint8)(PL_TAG + (uint)s),
               key.x, key.y, o);
    for (int w = 0; w < 4; w++) vstore8(scale * (convert_float8(o[w] >> 8) * 0x1p-23f - 1.0f), w, u);
}
#define PL_U(u, c) (u)[8 * ((c) & 3) + ((c) >> 2)]

/* the least and greatest of m over the work-group (every work-item calls it) */
inline float2 pl_extremes(__local float2 *part, int lid, float2 m) {
    part[lid] = m;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 32; s > 0; s >>= 1) {
        if (lid < s) part[lid] = (float2)(fmin(part[lid].x, part[lid + s].x), fmax(part[lid].y, part[lid + s].y));
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const float2 r = part[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

/* cv2.normalize's scale and shift to [0, 1] for extremes m (float output): the scale is
 * 1 / (max - min) rounded to float (the difference exact as two floats, one correction of the
 * device's quotient), 0 where the extremes are equal; the shift 0 - min scale, rounded */
inline float2 pl_scaling(float2 m) {
    const float hi = m.y - m.x, back = hi - m.y;
    const float lo = (m.y - (hi - back)) + (-m.x - back);
    if (!(hi > 2.220446e-16f)) return (float2)(0.0f, 0.0f);
    const float q0 = 1.0f / hi;
    const float r = fma(-q0, hi, 1.0f) - q0 * lo;
    const float q = fma(q0, r, q0);
    return (float2)(q, 0.0f - m.x * q);
}

inline float2 pl_take(float2 m, float v) { return (float2)(fmin(m.x, v), fmax(m.y, v)); }

/* the pattern of the operation at op, by the work-group (lid: this work-item) */
inline void pl_pattern(__global float *op, int Ho, int Wo, int lid, __local float2 *part) {
    __global float *g = op + ((long)op[9] * 1048576 + (long)op[10]) * WK_COL_WORDS;
    const int G = (int)op[11]; /* at most 65537 (outputs up to 65536 a side) */
    const uint2 key = wk_key(op + 1);
    const float rough = op[4];
    int S = 0; /* G = 2^(S + 1) + 1 */
    while ((2 << S) + 1 < G) S++;
    const float2 none = (float2)(INFINITY, -INFINITY);
    /* step 0: 3 x 3 numbers at stride 2^S, not scaled (the part: points inside Ho x Wo, where
     * this is the last step) */
    int t = 1 << S;
    float2 m = none, part_m = none;
    float u[32];
    if (lid < 3) {
        const int i = lid;
        pl_numbers32(key, 0, i, 0, 1.0f, u);
        for (int j = 0; j < 3; j++) {
            const float v = PL_U(u, j);
            g[(long)(i * t) * G + j * t] = v;
            m = pl_take(m, v);
            if (S == 0 && i < Ho && j < Wo) part_m = pl_take(part_m, v);
        }
    }
    float2 ab = (float2)(1.0f, 0.0f); /* the last step's scaling (none for step 0) */
    float scale = 1.0f;
    for (int s = 1; s <= S; s++, scale *= rough) {
        barrier(CLK_GLOBAL_MEM_FENCE);
        const int no = (1 << s) + 1, n = 2 * no - 1; /* the old grid's side, the new one's */
        const int C = (n + 31) >> 5; /* a work-item takes 32 columns of a row at a time */
        t = 1 << (S - s);
        const int last = s == S;
        m = none;
        part_m = none;
        /* the old points (even rows and columns), scaled, plus their numbers */
        for (int p = lid; p < no * C; p += 64) {
            const int i = 2 * (p / C), j0 = 32 * (p % C);
            pl_numbers32(key, s, i, p % C, scale, u);
            __global float *row = g + (long)(i * t) * G;
            for (int c = 0; c < 32 && j0 + c < n; c += 2) {
                const int j = j0 + c;
                const float v = fma(row[j * t], ab.x, ab.y) + PL_U(u, c);
                row[j * t] = v;
                m = pl_take(m, v);
                if (last && i < Ho && j < Wo) part_m = pl_take(part_m, v);
            }
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
        /* the diamond step: the points between four old ones (odd rows and columns) */
        for (int p = lid; p < (no - 1) * C; p += 64) {
            const int i = 2 * (p / C) + 1, j0 = 32 * (p % C);
            pl_numbers32(key, s, i, p % C, scale, u);
            __global float *row = g + (long)(i * t) * G;
            const long down = (long)t * G, up = -down;
            for (int c = 1; c < 32 && j0 + c < n; c += 2) {
                __global float *q = row + (j0 + c) * t;
                const float d = ((0.25f * q[up - t] + 0.25f * q[up + t]) + 0.25f * q[down - t]) + 0.25f * q[down + t];
                const float v = d > 0.0f ? d + PL_U(u, c) : 0.0f;
                *q = v;
                m = pl_take(m, v);
                if (last && i < Ho && j0 + c < Wo) part_m = pl_take(part_m, v);
            }
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
        /* the square step: the points between two old ones (odd columns of even rows, even
         * columns of odd rows) */
        for (int p = lid; p < n * C; p += 64) {
            const int i = p / C, j0 = 32 * (p % C);
            pl_numbers32(key, s, i, p % C, scale, u);
            __global float *row = g + (long)(i * t) * G;
            const long down = (long)t * G;
            for (int c = 1 - (i & 1); c < 32 && j0 + c < n; c += 2) {
                const int j = j0 + c;
                __global float *q = row + j * t;
                float d = 0.0f; /* the taps (-1, 0), (0, -1), (0, 1), (1, 0); 0 past the grid */
                if (i > 0) d += 0.25f * q[-down];
                if (j > 0) d += 0.25f * q[-t];
                if (j < n - 1) d += 0.25f * q[t];
                if (i < n - 1) d += 0.25f * q[down];
                const float v = d > 0.0f ? d + PL_U(u, c) : 0.0f;
                *q = v;
                m = pl_take(m, v);
                if (last && i < Ho && j < Wo) part_m = pl_take(part_m, v);
            }
        }
        ab = pl_scaling(pl_extremes(part, lid, m));
    }
    /* the pattern: the last step scaled, then scaled again over the part, clipped */
    const float2 pm = pl_extremes(part, lid, part_m);
    const float2 ab2 = pl_scaling((float2)(fma(pm.x, ab.x, ab.y), fma(pm.y, ab.x, ab.y)));
    barrier(CLK_GLOBAL_MEM_FENCE);
    for (int y = 0; y < Ho; y++) { /* (loops in 32 bits: llvmpipe's 64-bit comparisons) */
        __global float *row = g + (long)y * G;
        for (int x = lid; x < Wo; x += 64) row[x] = clamp(fma(fma(row[x], ab.x, ab.y), ab2.x, ab2.y), 0.0f, 1.0f);
    }
}

__kernel void plasma_pattern(__global float *COL, int ncol, __global const int *restrict PI, int np,
                             int Ho, int Wo) {
    const int item = (int)get_group_id(2), lid = (int)get_local_id(0);
    __local float2 part[64];
    for (int r = 0; r < np; r++) {
        const int at = PI[item * np + r];
        if (at < 0) break; /* the whole work-group: the places come first */
        pl_pattern(COL + ((long)item * ncol + at) * WK_COL_WORDS, Ho, Wo, lid, part);
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
}

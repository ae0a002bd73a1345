/* The plasma pattern of PlasmaBrightnessContrast and PlasmaShadow (colour.h's WK_COL_PLASMA and
 * WK_COL_PLASMA_MEAN), made once per item and operation before the operations run.
 *
 * albumentations' generate_plasma_pattern, step by step in its float32 arithmetic: a grid of
 * G x G points, G = 2^(S + 1) + 1 the least such side >= the output's longer side (S steps,
 * none below 4 pixels), starts as 3 x 3 uniform numbers in [-1, 1); each step s = 1 .. S
 * doubles it: every old point plus a uniform number in [-r^(s - 1), r^(s - 1)) (r the
 * roughness, its powers as repeated float products), then each new point whose four diagonal
 * neighbours' mean (OpenCV's filter2D with the diamond kernel, its sums in the kernel's
 * row-major order) is above 0 takes that mean plus its number, then each point between two
 * old ones whose (up to) four neighbours' sum times 1/4 (the square kernel, 0 past the grid)
 * is above 0 takes it plus its number, the others 0; then cv2.normalize's min-max scaling to
 * [0, 1] (its float scale, the shift rounded apart, v scale + shift fused). The pattern is
 * then the grid's top-left Ho x Wo, scaled to [0, 1] again over that part alone and clipped.
 *
 * The numbers come from Philox (colour.h's wk_key of the operation's words 1-3): point (i, j)
 * of step s's grid (step 0: the first 3 x 3) takes word j % 4 of the block of counter
 * (j / 4, i, PL_TAG + s, 0), w, as scale ((w >> 8) 2^-23 - 1) (warpkit/augment/_plasma.py
 * draws the same on the host).
 *
 * Each step's grid is stored whole, rows of P(n) = 32 ceil(n / 32) floats, in the operation's
 * area (its place, in operations from it, w[9] 2^20 + w[10]; the host's
 * engine.core.plasma_areas): the last step's in its first G P(G) floats (the pattern: the
 * operations read it at (y, x), w[11] = P(G) floats a row), the one before in the next
 * P((G + 1) / 2) (G + 1) / 2, and so on alternately, 32 floats spare after each. A work-item
 * takes 32 columns of a row at a time, in four vectors of 8 (x[w].sL: column 4 L + w, the
 * layout of the Philox words), so that each class of points is whole vectors: the old
 * points (even rows and columns) w = 0 and 2 of even rows, the diamond's w = 1 and 3 of odd
 * rows, the square's the others. A step's scaling is applied as the next step reads its old
 * points (and the pattern's two scalings in one pass: a scaling keeps the order of the
 * values, so the part's extremes are the scaled extremes of the raw values there).
 * A phase reads only points of the classes it does not compute; a block's store rewrites
 * those with the values they hold, so a neighbour's read of them (the next block's first
 * column, the rows above and below) finds the same value before or after it.
 *
 * PI[item * np + r] is the place of the item's r-th plasma operation in its list (-1: none).
 * NDRange: (64, 1, B), work-groups of 64: each makes its item's patterns in turn.
 */
#define COLOUR 1
#include "warpkit.h"
#include "colour.h"

#define PL_TAG 0x504C4100u

/* the numbers of columns 32 m .. 32 m + 31 of row i of step s's grid, scale times uniform
 * numbers in [-1, 1) (24 bits: 2 u - 1 exact, the product rounded once): u[w].sL for column
 * 32 m + 4 L + w, word w of the Philox block of counter 8 m + L (colour.h's wk_philox8) */
inline __attribute__((always_inline)) void pl_numbers32(uint2 key, int s, int i, int m, float scale, float8 *u) {
    uint8 o[4];
    wk_philox8((uint8)(8 * m) + (uint8)(0, 1, 2, 3, 4, 5, 6, 7), (uint8)i, (uint8)(PL_TAG + (uint)s),
               key.x, key.y, o);
    for (int w = 0; w < 4; w++) u[w] = scale * (convert_float8(o[w] >> 8) * 0x1p-23f - 1.0f);
}

/* columns 32 m .. 32 m + 31 of a row as x[w].sL = column 32 m + 4 L + w (in vectors of 8: a
 * call with a float16 crosses an ABI that differs with AVX-512; colour.h's wk_store32 stores
 * them back) */
inline __attribute__((always_inline)) void pl_load32(__global const float *row, int m, float8 *x) {
    const float8 a = vload8(0, row + 32 * m), b = vload8(1, row + 32 * m);
    const float8 c = vload8(2, row + 32 * m), d = vload8(3, row + 32 * m);
    x[0] = (float8)(a.s04, b.s04, c.s04, d.s04);
    x[1] = (float8)(a.s15, b.s15, c.s15, d.s15);
    x[2] = (float8)(a.s26, b.s26, c.s26, d.s26);
    x[3] = (float8)(a.s37, b.s37, c.s37, d.s37);
}

/* lanes 1 .. 7 of x, then y (the next column of the same class) */
inline __attribute__((always_inline)) float8 pl_next8(float8 x, float y) { return (float8)(x.s1, x.s2, x.s3, x.s4, x.s5, x.s6, x.s7, y); }

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

/* the extremes so far (lo, hi: per lane) taking the lanes of x where live (masks of -1 and 0
 * combined with &: Oclgrind 21.10 mis-evaluated a vector && a scalar) */
inline __attribute__((always_inline)) void pl_take8(float8 *lo, float8 *hi, float8 x, int8 live) {
    *lo = WK_SELECT(*lo, wk_fmin8(*lo, x), live);
    *hi = WK_SELECT(*hi, wk_fmax8(*hi, x), live);
}

/* the block m of row i stored (x), and the extremes taking its columns w0 and w0 + 2: the
 * grid's (columns below n) and, in the last step, the part's (rows below Ho, columns below Wo) */
inline __attribute__((always_inline)) void pl_put_block(__global float *row, int m, const float8 *x, int w0, int n,
                                                         int i, int last, int Ho, int Wo, float8 *lo, float8 *hi,
                                                         float8 *plo, float8 *phi) {
    wk_store32(row, m, x);
    const float8 j0 = (float8)(0.0f, 4.0f, 8.0f, 12.0f, 16.0f, 20.0f, 24.0f, 28.0f) + (float)(32 * m);
    for (int w = w0; w < 4; w += 2) {
        const int8 live = j0 + (float)w < (float)n;
        pl_take8(lo, hi, x[w], live);
        if (last) pl_take8(plo, phi, x[w], live & (j0 + (float)w < (float)Wo) & (int8)(-(i < Ho)));
    }
}

inline float2 pl_fold8(float8 lo, float8 hi) {
    const float4 a = fmin(lo.lo, lo.hi), b = fmax(hi.lo, hi.hi);
    return (float2)(fmin(fmin(a.x, a.y), fmin(a.z, a.w)), fmax(fmax(b.x, b.y), fmax(b.z, b.w)));
}

/* the diamond's or the square's rule: the taps' sum where above 0 plus the number, else 0 */
inline __attribute__((always_inline)) float8 pl_rule8(float8 d, float8 u) { return WK_SELECT((float8)0.0f, d + u, d > 0.0f); }

/* the row stride of a grid of side n (whole blocks of 32 columns) */
inline int pl_pitch(int n) { return (n + 31) & ~31; }

/* the pattern of the operation at op, by the work-group (lid: this work-item) */
inline void pl_pattern(__global float *op, int Ho, int Wo, int lid, __local float2 *part) {
    __global float *area = WK_COL_AREA(op);
    const uint2 key = wk_key(op + 1);
    const float rough = op[4];
    int S = 0; /* G = 2^(S + 1) + 1 >= max(Ho, Wo): at most 65537 */
    while ((2 << S) + 1 < max(Ho, Wo)) S++;
    const int G = (2 << S) + 1;
    /* the grids: the last step's (and every other one's before it) first, the others after */
    __global float *grid[2] = {area, area + (long)G * pl_pitch(G) + 32};
    const float8 lane = convert_float8((int8)(0, 1, 2, 3, 4, 5, 6, 7)) * 4.0f;
    const float inf = INFINITY;
    float8 lo = inf, hi = -inf, plo = inf, phi = -inf; /* (plo, phi: the part's, last step) */
    float8 u[4], x[4];
    /* step 0: 3 x 3 numbers, not scaled */
    if (lid < 3) {
        pl_numbers32(key, 0, lid, 0, 1.0f, u);
        wk_store32(grid[S & 1] + lid * pl_pitch(3), 0, u);
        for (int w = 0; w < 3; w++) {
            const int8 live = (int8)(1, 0, 0, 0, 0, 0, 0, 0) != 0;
            pl_take8(&lo, &hi, u[w], live);
            if (S == 0) pl_take8(&plo, &phi, u[w], live & ((float8)(float)w < (float)Wo) & (int8)(-(lid < Ho)));
        }
    }
    float2 ab = (float2)(1.0f, 0.0f); /* the last step's scaling (none for step 0) */
    float scale = 1.0f;
    for (int s = 1; s <= S; s++, scale *= rough) {
        const float2 ex = pl_extremes(part, lid, pl_fold8(lo, hi));
        if (s > 1) ab = pl_scaling(ex);
        barrier(CLK_GLOBAL_MEM_FENCE);
        const int no = (1 << s) + 1, n = 2 * no - 1; /* the old grid's side, the new one's */
        const int po = pl_pitch(no), pn = pl_pitch(n), C = pn >> 5;
        __global const float *old = grid[(S - s + 1) & 1];
        __global float *N = grid[(S - s) & 1];
        const int last = s == S;
        lo = inf;
        hi = -inf;
        /* the old points (even rows and columns), scaled, plus their numbers; the row's other
         * numbers in the other columns, for the square step */
        for (int p = lid; p < no * C; p += 64) {
            const int i = 2 * (p / C), m = p % C;
            pl_numbers32(key, s, i, m, scale, u);
            __global const float *ov = old + (long)(i / 2) * po + 16 * m;
            const float8 e = vload8(0, ov), f = vload8(1, ov);
            x[0] = wk_fma8((float8)(e.even, f.even), (float8)ab.x, (float8)ab.y) + u[0];
            x[2] = wk_fma8((float8)(e.odd, f.odd), (float8)ab.x, (float8)ab.y) + u[2];
            x[1] = u[1];
            x[3] = u[3];
            pl_put_block(N + (long)i * pn, m, x, 0, n, i, last, Ho, Wo, &lo, &hi, &plo, &phi);
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
        /* the diamond step: odd rows and columns, from the old points at their corners (the
         * row's other numbers in the other columns, as above) */
        for (int p = lid; p < (no - 1) * C; p += 64) {
            const int i = 2 * (p / C) + 1, m = p % C;
            pl_numbers32(key, s, i, m, scale, u);
            float8 up[4], dn[4];
            __global const float *ru = N + (long)(i - 1) * pn, *rd = N + (long)(i + 1) * pn;
            pl_load32(ru, m, up);
            pl_load32(rd, m, dn);
            /* (column 32 m + 4 L + 4: the next lane's w = 0, the next block's first) */
            const float8 un = pl_next8(up[0], ru[32 * m + 32]);
            const float8 dnx = pl_next8(dn[0], rd[32 * m + 32]);
            x[1] = pl_rule8(((0.25f * up[0] + 0.25f * up[2]) + 0.25f * dn[0]) + 0.25f * dn[2], u[1]);
            x[3] = pl_rule8(((0.25f * up[2] + 0.25f * un) + 0.25f * dn[2]) + 0.25f * dnx, u[3]);
            x[0] = u[0];
            x[2] = u[2];
            pl_put_block(N + (long)i * pn, m, x, 1, n, i, last, Ho, Wo, &lo, &hi, &plo, &phi);
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
        /* the square step: odd columns of even rows, even columns of odd rows, each from its
         * four neighbours (up, left, right, down in the kernel's order; 0 past the grid), its
         * number where it is stored */
        for (int p = lid; p < n * C; p += 64) {
            const int i = p / C, m = p % C, odd = i & 1;
            __global float *row = N + (long)i * pn;
            float8 up[4], dn[4];
            pl_load32(row, m, x);
            pl_load32(N + (long)(i > 0 ? i - 1 : i) * pn, m, up);
            pl_load32(N + (long)(i < n - 1 ? i + 1 : i) * pn, m, dn);
            const float8 j0 = lane + (float)(32 * m);
            const float fu = i > 0 ? 0.25f : 0.0f, fd = i < n - 1 ? 0.25f : 0.0f;
            if (!odd) { /* columns 4 L + 1 and 4 L + 3: left and right are old points */
                const float8 xn = pl_next8(x[0], row[32 * m + 32]);
                x[1] = pl_rule8(((fu * up[1] + 0.25f * x[0]) + 0.25f * x[2]) + fd * dn[1], x[1]);
                x[3] = pl_rule8(((fu * up[3] + 0.25f * x[2]) + 0.25f * xn) + fd * dn[3], x[3]);
            } else { /* columns 4 L and 4 L + 2: left and right are the diamond's points */
                const float before = m > 0 ? row[32 * m - 1] : 0.0f;
                const float8 xp = (float8)(before, x[3].s0, x[3].s1, x[3].s2, x[3].s3, x[3].s4, x[3].s5, x[3].s6);
                const float8 r1 = WK_SELECT((float8)0.0f, x[1], j0 + 1.0f < (float)n);
                const float8 r3 = WK_SELECT((float8)0.0f, x[3], j0 + 3.0f < (float)n);
                x[0] = pl_rule8(((0.25f * up[0] + 0.25f * xp) + 0.25f * r1) + 0.25f * dn[0], x[0]);
                x[2] = pl_rule8(((0.25f * up[2] + 0.25f * x[1]) + 0.25f * r3) + 0.25f * dn[2], x[2]);
            }
            pl_put_block(row, m, x, 1 - odd, n, i, last, Ho, Wo, &lo, &hi, &plo, &phi);
        }
    }
    /* the pattern: the last step scaled, then scaled again over the part, clipped */
    const float2 ex = pl_extremes(part, lid, pl_fold8(lo, hi));
    if (S > 0) ab = pl_scaling(ex);
    const float2 pm = pl_extremes(part, lid, pl_fold8(plo, phi));
    const float2 ab2 = pl_scaling((float2)(fma(pm.x, ab.x, ab.y), fma(pm.y, ab.x, ab.y)));
    barrier(CLK_GLOBAL_MEM_FENCE);
    const int pg = pl_pitch(G), bx = (Wo + 7) >> 3;
    for (int p = lid; p < Ho * bx; p += 64) { /* (loops in 32 bits: llvmpipe's 64-bit compares) */
        __global float *q = area + (long)(p / bx) * pg + 8 * (p % bx);
        const float8 v = wk_fma8(wk_fma8(vload8(0, q), (float8)ab.x, (float8)ab.y), (float8)ab2.x, (float8)ab2.y);
        vstore8(wk_clamp8(v, 0.0f, 1.0f), 0, q);
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

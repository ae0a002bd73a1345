/* A colour pass after the warp: for the operations that need the whole image (colour.h's
 * WK_COL_CONTRAST: the image's gray mean as the operation finds it), the warp stores each item
 * with the operations before that one, in the image's storage type (B, Ho, Wo, C) (exact: every
 * colour result is a level of an integer image, a float of a float one); then
 *   colour_mean   sums each item's gray values and all its values, a row band per work-group:
 *                 P[2 (b * G + g)] and the next;
 *   colour_apply  applies each item's next operations with that mean to every pixel, and stores
 *                 the result (another such pass's input, or the model's input: store.h).
 * NDRange: colour_mean (64, G, B), colour_apply (Wo / 8 rounded up to 64, Ho, B), in work-groups
 * of 64; 8 pixels of a row per work-item.
 */
#define COLOUR 1
/* CH: the channels, a build-time constant (the channel loops unroll, the pixels stay in
 * registers) */
#ifndef CH
#define CH 3
#endif
#include "warpkit.h"
#include "colour.h"
#include "store.h"

/* 8 pixels of row y from x0 (n of them: the rest repeat the last) as colour operations take
 * them (colour.h: integer levels rounded, floats clipped to [0, 1]), channel c in v[c] */
inline void cp_load8(__global const X_T *S, long row, int x0, int n, float8 *v) {
    const int C = CH;
    __global const X_T *p = S + (row + x0) * C;
    float l[32];
    if (n == 8) { /* one contiguous run of 8 C values */
        for (int k = 0; k < 8 * C; k++) l[k] = (float)p[k];
    } else {
        for (int k = 0; k < 8; k++)
            for (int c = 0; c < C; c++) l[k * C + c] = (float)p[(k < n ? k : n - 1) * C + c];
    }
    for (int c = 0; c < C; c++) {
        const float8 x = clamp((float8)(l[c], l[C + c], l[2 * C + c], l[3 * C + c], l[4 * C + c],
                                        l[5 * C + c], l[6 * C + c], l[7 * C + c]),
                               0.0f, WK_PEAK);
#if WK_COL_INT
        v[c] = floor(x + 0.5f);
#else
        v[c] = x;
#endif
    }
}

__kernel void colour_mean(__global const X_T *restrict S, int Ho, int Wo,
                          __global float *restrict P) {
    const int C = CH;
    const int lid = (int)get_local_id(0), g = (int)get_group_id(1), G = (int)get_num_groups(1);
    const int b = (int)get_global_id(2);
    __local float2 part[64];
    float8 gray = 0.0f, all = 0.0f;
    for (int y = g; y < Ho; y += G) {
        for (int x = 8 * lid; x < Wo; x += 512) {
            const int n = min(8, Wo - x);
            float8 v[4];
            cp_load8(S, ((long)b * Ho + y) * Wo, x, n, v);
            const int8 live = (int8)(0, 1, 2, 3, 4, 5, 6, 7) < n;
            gray += live ? (C >= 3 ? wk_gray8(v) : v[0]) : 0.0f;
            for (int c = 0; c < C; c++) all += live ? v[c] : 0.0f;
        }
    }
    const float4 g4 = gray.lo + gray.hi, a4 = all.lo + all.hi;
    const float2 g2 = g4.lo + g4.hi, a2 = a4.lo + a4.hi;
    part[lid] = (float2)(g2.x + g2.y, a2.x + a2.y);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 32; s > 0; s >>= 1) {
        if (lid < s) part[lid] += part[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) vstore2(part[0], (long)b * G + g, P);
}

/* 8 pixels per work-item along a row */
__kernel void colour_apply(__global const X_T *restrict S, int Ho, int Wo,
                           __global const float *restrict P, int G, __global Y_PTR_T *restrict Y,
                           float4 yscale, float4 ybias, __global const float *restrict COL,
                           int ncol) {
    const int C = CH;
    const int xo = 8 * (int)get_global_id(0), yo = (int)get_global_id(1), b = (int)get_global_id(2);
    /* the item's means, summed once per work-group (a sum per work-item costs more than the
     * operations on CPUs: the work-item loop keeps it) */
    __local float2 total;
    if (get_local_id(0) == 0) {
        float2 sum = 0.0f;
        for (int g = 0; g < G; g++) sum += vload2((long)b * G + g, P);
        total = sum;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (xo >= Wo || yo >= Ho) return;
    const float np = (float)Ho * (float)Wo;
    const float2 mean = total / (float2)(np, np * (float)C);
    const int n = min(8, Wo - xo);
    const long row = ((long)b * Ho + yo) * Wo;
    float8 v[4];
    cp_load8(S, row, xo, n, v);
    wk_colour8(v, C, WK_COL_OF(b), ncol, mean, (int2)(xo, yo), (int2)(Wo, Ho));
#if Y_NORM
    const float ys[4] = {yscale.s0, yscale.s1, yscale.s2, yscale.s3};
    const float yb[4] = {ybias.s0, ybias.s1, ybias.s2, ybias.s3};
#endif
    for (int c = 0; c < C; c++) {
#if Y_NORM
        const float8 y = Y_CLAMP(v[c]) * ys[c] + yb[c];
#if Y_CHW && !Y_HALF
        if (n == 8) { /* a plane's 8 neighbours */
            vstore8(y, 0, Y + Y_AT(b, c, yo, xo, C));
            continue;
        }
#endif
        float l[8];
        vstore8(y, 0, l);
        for (int k = 0; k < n; k++) Y_STORE1(Y_AT(b, c, yo, xo + k, C), l[k]);
#else
        float l[8];
        vstore8(v[c], 0, l);
        for (int k = 0; k < n; k++) STORE_PIX(Y, (row + xo + k) * C + c, (acc_t)l[k]);
#endif
    }
}

/* A colour pass after the warp: for the operations that need the whole image (colour.h's
 * WK_COL_CONTRAST: the image's gray mean as the operation finds it), the warp stores each item
 * with the operations before that one, in the image's storage type (B, Ho, Wo, C) (exact: every
 * colour result is a level of an integer image, a float of a float one); then
 *   colour_mean   sums each item's gray values and all its values, a row band per work-group:
 *                 P[2 (b * G + g)] and the next;
 *   colour_apply  applies each item's next operations with that mean to every pixel, and stores
 *                 the result (another such pass's input, or the model's input: store.h).
 * NDRange: colour_mean (64, G, B) in work-groups of 64; colour_apply (Wo rounded up to 64, Ho, B).
 */
#define COLOUR 1
#include "warpkit.h"
#include "colour.h"
#include "store.h"

/* pixel i's C channels as colour operations take them (colour.h: integer levels rounded,
 * floats clipped to [0, 1]) */
inline void cp_load(__global const X_T *S, long i, int C, float *v) {
    for (int c = 0; c < C; c++) {
        const float x = (float)S[i + c];
#if WK_COL_INT
        v[c] = floor(clamp(x, 0.0f, WK_PEAK) + 0.5f);
#else
        v[c] = clamp(x, 0.0f, WK_PEAK);
#endif
    }
}

__kernel void colour_mean(__global const X_T *restrict S, int Ho, int Wo, int C,
                          __global float *restrict P) {
    const int lid = (int)get_local_id(0), g = (int)get_group_id(1), G = (int)get_num_groups(1);
    const int b = (int)get_global_id(2);
    __local float2 part[64];
    float2 sum = 0.0f;
    for (int y = g; y < Ho; y += G) {
        for (int x = lid; x < Wo; x += 64) {
            float v[4];
            cp_load(S, (((long)b * Ho + y) * Wo + x) * C, C, v);
            if (C >= 3) {
                float8 w[3] = {(float8)v[0], (float8)v[1], (float8)v[2]};
                sum.x += wk_gray8(w).s0;
            } else {
                sum.x += v[0];
            }
            for (int c = 0; c < C; c++) sum.y += v[c];
        }
    }
    part[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 32; s > 0; s >>= 1) {
        if (lid < s) part[lid] += part[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) vstore2(part[0], (long)b * G + g, P);
}

__kernel void colour_apply(__global const X_T *restrict S, int Ho, int Wo, int C,
                           __global const float *restrict P, int G, __global Y_PTR_T *restrict Y,
                           float4 yscale, float4 ybias, __global const float *restrict COL,
                           int ncol) {
    const int xo = (int)get_global_id(0), yo = (int)get_global_id(1), b = (int)get_global_id(2);
    if (xo >= Wo) return;
    float2 sum = 0.0f;
    for (int g = 0; g < G; g++) sum += vload2((long)b * G + g, P);
    const float n = (float)Ho * (float)Wo;
    const float2 mean = sum / (float2)(n, n * (float)C);
    const long i = (((long)b * Ho + yo) * Wo + xo) * C;
    float v[4];
    cp_load(S, i, C, v);
    wk_colour1(v, C, WK_COL_OF(b), ncol, mean);
#if Y_NORM
    const float ys[4] = {yscale.s0, yscale.s1, yscale.s2, yscale.s3};
    const float yb[4] = {ybias.s0, ybias.s1, ybias.s2, ybias.s3};
    for (int c = 0; c < C; c++) Y_STORE1(Y_AT(b, c, yo, xo, C), Y_CLAMP(v[c]) * ys[c] + yb[c]);
#else
    for (int c = 0; c < C; c++) STORE_PIX(Y, i + c, (acc_t)v[c]);
#endif
}

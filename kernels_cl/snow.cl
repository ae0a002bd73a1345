/* The snow texture and sparkles of RandomSnow's "texture" method (colour.h's WK_COL_SNOW_TEX),
 * made once per item and operation before the operations run.
 *
 * albumentations' generate_snow_textures and add_snow_texture make the texture as a normal
 * number per pixel (mean 0.5, standard deviation 0.3), blurred twice by cv2.GaussianBlur with
 * sigma 1 (its 9-tap kernel, edges reflected without repeating the edge pixel), then scaled
 * by row y's depth, numpy's linspace(1, 0.2, Ho)[y]; a pixel sparkles where a uniform number
 * in [0, 1) is above 0.99. Two blurs by one symmetric kernel are one blur by the kernel
 * convolved with itself (17 taps: SN_K), the reflected edges included (a signal mirrored
 * about both its ends stays so under a symmetric filter), so each axis takes one pass: the
 * rows, then the columns. albumentations blurs in float64; here float32 (the texture within
 * a few units in its last place).
 *
 * The numbers come from Philox (colour.h's wk_key of the operation's words 1-3): pixel (x, y)'s
 * normal is colour.h's wk_normal4 of point (x / 4, y) (its z[x % 4]: Box-Muller on the words of
 * the block of counter (x / 4, y, 0, 0)); its sparkle number word x % 4 of the block of counter
 * (x / 4, y, 1, 0), as (w >> 8) 2^-24 (warpkit/augment/_pixel.py's snow_numbers draws the
 * same on the host).
 *
 * The operation's area (its place in operations from it, w[9] 2^20 + w[10]; the host's
 * engine.core.snow_areas) holds the sparkles' bits (Ho rows of P / 32 words, P = w[11]: bit
 * x % 32 of word x / 32), then from float w[8] the texture T (Ho rows of P floats, the
 * columns in whole blocks of 32), then a grid H of the same shape. The normals go into T, the
 * rows' pass writes H, the columns' pass writes T.
 *
 * SI[item * ns + r] is the place of the item's r-th such operation in its list (-1: none).
 * NDRange: (64, 1, B), work-groups of 64: each makes its item's textures in turn.
 */
#define COLOUR 1
#include "warpkit.h"
#include "colour.h"

/* a sparkle: numpy's random() > 0.99 for a number (w >> 8) 2^-24 is (w >> 8) >= this
 * (0.99 2^24 = 16609443.84) */
#define SN_SPARKLE 16609444u

/* cv2.getGaussianKernel(9, 1) convolved with itself, from its middle tap out (float64, rounded) */
__constant float SN_K[9] = {0.28212565f, 0.21967423f, 0.10378821f, 0.029729513f, 0.0051665916f,
                            0.0005433288f, 3.409273e-05f, 1.1862376e-06f, 1.7910637e-08f};

/* index p of a signal of n reflected into it (OpenCV's BORDER_REFLECT_101, for any p) */
inline int sn_reflect(int p, int n) {
    if (n == 1) return 0;
    const int m = 2 * n - 2;
    p %= m;
    p = p < 0 ? p + m : p;
    return p < n ? p : m - p;
}

__kernel void snow_texture(__global float *COL, int ncol, __global const int *SI, int ns, int Ho,
                           int Wo) {
    const int item = get_group_id(2), lid = get_local_id(0);
    __global float *list = COL + (long)item * ncol * WK_COL_WORDS;
    const int blocks = (Wo + 31) / 32, chunks = (Wo + 7) / 8;
    /* numpy's linspace(1, 0.2, Ho): y (0.2 - 1) / (Ho - 1) + 1, its last value 0.2 */
    const float step = Ho > 1 ? -0.8f / (float)(Ho - 1) : 0.0f;
    for (int r = 0; r < ns; r++) {
        const int j = SI[item * ns + r];
        if (j < 0) break;
        __global const float *op = list + (long)j * WK_COL_WORDS;
        __global float *area = list + (long)j * WK_COL_WORDS + ((long)op[9] * 1048576 + (long)op[10]) * WK_COL_WORDS;
        const int P = (int)op[11];
        __global uint *bits = (__global uint *)area;
        __global float *T = area + (long)op[8], *H = T + (long)Ho * P;
        const uint2 key = wk_key(op + 1);
        /* the normals (into T) and the sparkles' bits: 32 columns of a row a work-item */
        for (int t = lid; t < Ho * blocks; t += 64) {
            const int y = t / blocks, m = t - y * blocks;
            const int8 pts = (int8)(8 * m) + (int8)(0, 1, 2, 3, 4, 5, 6, 7);
            float8 z[4];
            wk_normal4(pts, (int8)y, key, z);
            for (int w = 0; w < 4; w++) z[w] = 0.5f + 0.3f * z[w];
            wk_store32(T + (long)y * P, m, z);
            uint8 o[4];
            wk_philox8(as_uint8(pts), (uint8)y, (uint8)1u, key.x, key.y, o);
            uint8 b = (uint8)0u;
            for (int w = 0; w < 4; w++)
                b |= as_uint8((o[w] >> 8) >= (uint8)SN_SPARKLE) & ((uint8)1u << ((uint8)(0, 4, 8, 12, 16, 20, 24, 28) + (uint8)w));
            const uint4 b4 = b.lo | b.hi;
            bits[(long)y * (P / 32) + m] = b4.x | b4.y | b4.z | b4.w;
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
        /* the rows' pass: H = T blurred along x, 8 columns a work-item */
        for (int t = lid; t < Ho * chunks; t += 64) {
            const int y = t / chunks, x0 = 8 * (t - y * chunks);
            __global const float *row = T + (long)y * P;
            float8 acc;
            if (x0 >= 8 && x0 + 16 <= Wo) {
                acc = SN_K[0] * vload8(0, row + x0);
                for (int d = 1; d < 9; d++) acc += SN_K[d] * (vload8(0, row + x0 - d) + vload8(0, row + x0 + d));
            } else { /* near an edge: each lane's taps reflected */
                float a[8];
                for (int l = 0; l < 8; l++) {
                    const int x = x0 + l;
                    float s = SN_K[0] * row[sn_reflect(x, Wo)];
                    for (int d = 1; d < 9; d++) s += SN_K[d] * (row[sn_reflect(x - d, Wo)] + row[sn_reflect(x + d, Wo)]);
                    a[l] = s;
                }
                acc = vload8(0, a);
            }
            vstore8(acc, 0, H + (long)y * P + x0);
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
        /* the columns' pass: T = H blurred along y, times the row's depth */
        for (int t = lid; t < Ho * chunks; t += 64) {
            const int y = t / chunks, x0 = 8 * (t - y * chunks);
            float8 acc = SN_K[0] * vload8(0, H + (long)y * P + x0);
            for (int d = 1; d < 9; d++)
                acc += SN_K[d] * (vload8(0, H + (long)sn_reflect(y - d, Ho) * P + x0)
                                  + vload8(0, H + (long)sn_reflect(y + d, Ho) * P + x0));
            const float depth = y == Ho - 1 && Ho > 1 ? 0.2f : (float)y * step + 1.0f;
            vstore8(acc * depth, 0, T + (long)y * P + x0);
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
}

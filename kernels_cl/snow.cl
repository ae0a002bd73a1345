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
 * x % 32 of word x / 32), then a grid of Ho rows of P floats whose row y holds the texture T
 * from its float 8 (T starts at float w[8] of the area; P is Wo in whole blocks of 32, and 32
 * more: 8 columns before each row and up to 24 after it), then a grid H of the same shape.
 * The normals go into T, each row's edges are reflected into the columns around it (so the
 * rows' pass reads no index twice over), the rows' pass writes H, the columns' pass writes T.
 *
 * Measured on PoCL (2 cores, 64 outputs of 224 x 224, the launch's device time): 36 ms with a
 * pass a blur each way, 8 columns a work-item, 17 loads of 8 a tap set (the edges' lanes one
 * by one); the rows' taps as lanes shifted between three blocks of 8 of the padded rows 32
 * ms -> 27 ms; the columns' 4 rows a work-item, each row of H read once for them (taps as
 * constants) 21 ms. The numbers (two Philox blocks and a Box-Muller pair per 4 pixels) are
 * the largest part now (13 ms alone).
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

/* cv2.getGaussianKernel(9, 1) convolved with itself, from its middle tap out (float64, rounded),
 * then zeros (the columns' pass takes tap |r - k| for up to 11) */
__constant float SN_K[12] = {0.28212565f, 0.21967423f, 0.10378821f, 0.029729513f, 0.0051665916f,
                             0.0005433288f, 3.409273e-05f, 1.1862376e-06f, 1.7910637e-08f,
                             0.0f, 0.0f, 0.0f};

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
        __global float *area = WK_COL_AREA(list + (long)j * WK_COL_WORDS);
        const int P = (int)op[11];
        __global uint *bits = (__global uint *)area;
        __global float *T = area + (long)op[8], *H = T - 8 + (long)Ho * P;
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
        /* each row's edges reflected into the 8 columns before it and the columns after it
         * that the rows' pass reads (up to 8 chunks + 7) */
        for (int t = lid; t < Ho; t += 64) {
            __global float *row = T + (long)t * P;
            for (int x = -8; x < 0; x++) row[x] = row[wk_reflect101(x, Wo)];
            for (int x = Wo; x < 8 * chunks + 8; x++) row[x] = row[wk_reflect101(x, Wo)];
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
        /* the rows' pass: H = T blurred along x, 8 columns a work-item, from the three blocks
         * of 8 around them (each tap's columns by shifting lanes between them; swizzles of
         * 1, 2, 3, 4, 8 or 16 lanes only) */
        for (int t = lid; t < Ho * chunks; t += 64) {
            const int y = t / chunks, x0 = 8 * (t - y * chunks);
            __global const float *row = T + (long)y * P + x0;
            const float8 a = vload8(-1, row), b = vload8(0, row), c = vload8(1, row);
            float8 acc = SN_K[0] * b + SN_K[8] * (a + c);
            acc += SN_K[1] * ((float8)(a.s7, b.s0123, b.s456) + (float8)(b.s1234, b.s567, c.s0));
            acc += SN_K[2] * ((float8)(a.s67, b.s0123, b.s45) + (float8)(b.s2345, b.s67, c.s01));
            acc += SN_K[3] * ((float8)(a.s567, b.s0123, b.s4) + (float8)(b.s3, b.s4567, c.s012));
            acc += SN_K[4] * ((float8)(a.s4567, b.s0123) + (float8)(b.s4567, c.s0123));
            acc += SN_K[5] * ((float8)(a.s3, a.s4567, b.s012) + (float8)(b.s567, c.s0123, c.s4));
            acc += SN_K[6] * ((float8)(a.s23, a.s4567, b.s01) + (float8)(b.s67, c.s0123, c.s45));
            acc += SN_K[7] * ((float8)(a.s123, a.s4567, b.s0) + (float8)(b.s7, c.s0123, c.s456));
            vstore8(acc, 0, H + (long)y * P + x0);
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
        /* the columns' pass: T = H blurred along y, times the row's depth: 4 rows of 8 columns
         * a work-item, each row of H read once for the 4 */
        const int quads = (Ho + 3) / 4;
        for (int t = lid; t < quads * chunks; t += 64) {
            const int q = t / chunks, x0 = 8 * (t - q * chunks), y0 = 4 * q;
            float8 acc[4] = {(float8)0.0f, (float8)0.0f, (float8)0.0f, (float8)0.0f};
            /* row y0 + r of H into the 4 sums (r a literal: every tap's index a constant) */
#define SN_ROW(r)                                                                                 \
    {                                                                                             \
        const float8 h = vload8(0, H + (long)wk_reflect101(y0 + (r), Ho) * P + x0);               \
        acc[0] += SN_K[abs(r)] * h;                                                               \
        acc[1] += SN_K[abs((r) - 1)] * h;                                                         \
        acc[2] += SN_K[abs((r) - 2)] * h;                                                         \
        acc[3] += SN_K[abs((r) - 3)] * h;                                                         \
    }
            SN_ROW(-8) SN_ROW(-7) SN_ROW(-6) SN_ROW(-5) SN_ROW(-4) SN_ROW(-3) SN_ROW(-2) SN_ROW(-1)
            SN_ROW(0) SN_ROW(1) SN_ROW(2) SN_ROW(3) SN_ROW(4) SN_ROW(5) SN_ROW(6) SN_ROW(7)
            SN_ROW(8) SN_ROW(9) SN_ROW(10) SN_ROW(11)
#undef SN_ROW
            for (int k = 0; k < 4 && y0 + k < Ho; k++) {
                const int y = y0 + k;
                const float depth = y == Ho - 1 && Ho > 1 ? 0.2f : (float)y * step + 1.0f;
                vstore8(acc[k] * depth, 0, T + (long)y * P + x0);
            }
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
}

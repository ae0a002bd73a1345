/* ONNX AffineGrid (opset 20): normalized sampling grids from affine matrices (docs/semantics.md).
 *
 * theta (N, R, R+1) (any strides) and the contiguous output (N, [D,] H, W, R) have one storage
 * type (G_KIND in warpkit.h); math in coord_t (double for float64). One work-item writes 8 consecutive
 * positions of one output row. NDRange: (ceil(W / 8), D * H, N).
 */
#include "warpkit.h"

#ifndef R
#define R 2
#endif
#ifndef WK_CPU
#define WK_CPU 0 /* 1: a CPU device, where unaligned vector stores are cheap and safe */
#endif
#if WK_CPU
typedef float16 float16_u __attribute__((aligned(4)));
#endif

/* base coordinate of index i on an axis of size d */
inline coord_t wk_base(int i, int d, int align) {
    if (align) return d == 1 ? (coord_t)-1 : (coord_t)-1 + (coord_t)(2 * i) / (coord_t)(d - 1);
    return (coord_t)-1 + (coord_t)(2 * i + 1) / (coord_t)d;
}

__kernel void affine_grid(__global const G_PTR_T *restrict theta, long t_off, long stn, long str,
                          long stc, __global G_PTR_T *restrict out, int D, int H, int W,
                          int align) {
    const int w0 = (int)get_global_id(0) * 8;
    const int row = (int)get_global_id(1);
    const int n = (int)get_global_id(2);
    if (w0 >= W) return;
    coord_t t[R * (R + 1)];
    for (int j = 0; j < R; j++)
        for (int k = 0; k <= R; k++) t[j * (R + 1) + k] = LOAD_G(theta, t_off + n * stn + j * str + k * stc);
    const coord_t y = wk_base(row % H, H, align);
#if R == 3
    const coord_t z = wk_base(row / H, D, align);
#endif
    /* the constant part of each output coordinate, then x's term added per position */
    coord_t c[R];
    for (int j = 0; j < R; j++) {
#if R == 2
        c[j] = t[j * 3 + 1] * y;
#else
        c[j] = t[j * 4 + 1] * y + t[j * 4 + 2] * z;
#endif
    }
    __global G_PTR_T *o = out + (((long)n * D * H + row) * W + w0) * R;
    const int wend = w0 + 8 < W ? w0 + 8 : W;
#if WK_CPU && G_KIND == WK_F32 && R == 2
    if (wend - w0 == 8) { /* 8 positions as vectors, stored interleaved in one go */
        float8 i = (float8)(0, 1, 2, 3, 4, 5, 6, 7) + (float)w0;
        float8 x = align ? (W == 1 ? (float8)-1 : (float8)-1 + (2 * i) / (float)(W - 1))
                         : (float8)-1 + (2 * i + 1) / (float)W;
        float8 gx = t[0] * x + c[0] + t[2];
        float8 gy = t[3] * x + c[1] + t[5];
        float16 v = (float16)(gx.s0, gy.s0, gx.s1, gy.s1, gx.s2, gy.s2, gx.s3, gy.s3,
                              gx.s4, gy.s4, gx.s5, gy.s5, gx.s6, gy.s6, gx.s7, gy.s7);
        *(__global float16_u *)o = v;
        return;
    }
#endif
    for (int w = w0; w < wend; w++) {
        const coord_t x = wk_base(w, W, align);
        for (int j = 0; j < R; j++) {
            /* theta @ (x, y, [z,] 1), summed left to right */
            coord_t v = t[j * (R + 1)] * x + c[j] + t[j * (R + 1) + R];
            STORE_G(o, (w - w0) * R + j, v);
        }
    }
}

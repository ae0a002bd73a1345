/* warpkit's sampling engine: padding of integer taps, tap weights and the folding of coordinates,
 * shared by every kernel that samples an image (grid_sample.cl, warp.cl).
 *
 * Padding modes of the taps (numbered by the host's table, warpkit/_options.py):
 *   WK_PAD_ZEROS        a tap outside reads a constant (0 for GridSample, the fill for warps)
 *   WK_PAD_BORDER       the nearest edge pixel (OpenCV's BORDER_REPLICATE)
 *   WK_PAD_REFLECT      mirrored about the outer pixel edges: ..1 0 | 0 1 2.. (OpenCV's
 *                       BORDER_REFLECT; GridSample's reflection with align_corners=0)
 *   WK_PAD_REFLECT_101  mirrored about the edge pixels' centres: ..2 1 | 0 1 2.. (OpenCV's
 *                       BORDER_REFLECT_101; GridSample's reflection with align_corners=1)
 *   WK_PAD_CONSTANT_EDGE (warps only) the fill where the position is outside the image's pixels
 *                       ([-0.5, W - 0.5] x [-0.5, H - 0.5]); inside, taps past the edge repeat
 *                       it (WK_PAD_BORDER): a resize, then a constant pad. The kernels turn it
 *                       into WK_PAD_BORDER and a position test before these helpers see it.
 * Every index these helpers return is inside [0, d - 1], whatever tap they were given.
 *
 * Needs warpkit.h (storage types, MODE and TAPS, acc_t, WK_KEYS_WEIGHTS, CV).
 */
#ifndef WK_SAMPLING_H
#define WK_SAMPLING_H

/* WK_PAD_ZEROS, WK_PAD_BORDER, WK_PAD_REFLECT, WK_PAD_REFLECT_101 come as -D defines */
#ifndef WK_PAD_REFLECT_101
#error "build through warpkit's Runtime.program, which defines the option numbers"
#endif

/* WK_PAD_CONSTANT_EDGE's test: whether the position (x, y) lies on the image's pixels, their
 * outer edges included (scalars: 1 or 0; vectors: -1 or 0 per lane) */
#define WK_ON_PIXELS(x, y, W, H)                                                              \
    (((x) >= -0.5f) & ((x) <= (float)(W) - 0.5f) & ((y) >= -0.5f) & ((y) <= (float)(H) - 0.5f))

/* the mirror period of an axis of d pixels: 2d, or 2d - 2 about the pixel centres (0 for d = 1,
 * where every tap reads pixel 0) */
inline int wk_period(int d, int pad) { return pad == WK_PAD_REFLECT ? 2 * d : 2 * d - 2; }

/* integer tap i of an axis of d pixels: the index to read, inside [0, d - 1], and in *inside
 * whether it reads the image (only WK_PAD_ZEROS reads a constant). Any int i. */
inline int wk_pad_tap(int i, int d, int pad, int *inside) {
    *inside = 1;
    if (i >= 0 && i < d) return i;
    if (pad == WK_PAD_ZEROS) {
        *inside = 0;
        return i < 0 ? 0 : d - 1;
    }
    if (pad == WK_PAD_BORDER) return i < 0 ? 0 : d - 1;
    const int p = wk_period(d, pad);
    if (p == 0) return 0;
    int m = i % p;
    m = m < 0 ? m + p : m;
    return m < d ? m : p - 1 - m + (pad == WK_PAD_REFLECT_101);
}

/* wk_pad_tap for 8 taps at most one period outside the axis: i in [-p, 2p) for the reflections
 * (p = wk_period(d, pad)); *inside: -1 where the tap reads the image */
inline __attribute__((always_inline)) int8 wk_pad_tap8(int8 i, int d, int pad, int8 *inside) {
    if (pad == WK_PAD_ZEROS) {
        *inside = (i >= 0) & (i < d);
    } else {
        *inside = (int8)-1;
        if (pad != WK_PAD_BORDER) {
            const int p = wk_period(d, pad);
            if (p == 0) return (int8)0;
            int8 m = i < 0 ? i + p : (i >= p ? i - p : i);
            i = m < d ? m : (int8)(p - 1 + (pad == WK_PAD_REFLECT_101)) - m;
        }
    }
    return i < 0 ? (int8)0 : (i > d - 1 ? (int8)(d - 1) : i);
}

/* wk_pad_tap8 for taps anywhere (an area footprint may reach far past the image): the
 * reflections fold by the remainder of a period, as wk_pad_tap does */
inline __attribute__((always_inline)) int8 wk_pad_tap8_any(int8 i, int d, int pad, int8 *inside) {
    if (pad != WK_PAD_ZEROS && pad != WK_PAD_BORDER) {
        const int p = wk_period(d, pad);
        if (p == 0) {
            *inside = (int8)-1;
            return (int8)0;
        }
        i = i % p;
        i = i < 0 ? i + p : i; /* [0, p): one period, which wk_pad_tap8 takes */
    }
    return wk_pad_tap8(i, d, pad, inside);
}

/* wk_pad_tap8 for taps at most two pixels outside the axis (GridSample's, after its coordinate
 * pre-pass): one mirror suffices where d >= 3, which costs less than folding a period (linear
 * GridSample 3-4% faster); smaller axes fold */
inline __attribute__((always_inline)) int8 wk_pad_tap8_near(int8 i, int d, int pad, int8 *inside) {
    if (pad == WK_PAD_ZEROS) {
        *inside = (i >= 0) & (i < d);
    } else {
        *inside = (int8)-1;
        if (pad != WK_PAD_BORDER) {
            if (d < 3) return wk_pad_tap8(i, d, pad, inside);
            const int off = pad == WK_PAD_REFLECT; /* -1 mirrors to 0 about the edge, else to 1 */
            i = i < 0 ? -i - off : i;
            i = i > d - 1 ? (int8)(2 * d - 2 + off) - i : i;
        }
    }
    return i < 0 ? (int8)0 : (i > d - 1 ? (int8)(d - 1) : i);
}

/* the weights of the TAPS taps of the current MODE at fraction t = x - floor(x) (nearest: one
 * tap of weight 1; linear: 1 - t, t; cubic: Keys, A = -0.75), in acc_t */
inline void wk_tap_weights(acc_t t, acc_t *w) {
#if MODE == MODE_NEAREST
    w[0] = 1;
#elif MODE == MODE_LINEAR
    w[0] = (acc_t)1 - t;
    w[1] = t;
#else
    WK_KEYS_WEIGHTS(acc_t, t, w);
#endif
}

/* The first tap of the current MODE for a coordinate x (finite, within the int range) and its
 * fraction: nearest rounds half to even, linear floors, cubic starts one before the floor. */
inline int wk_first_tap(float x, float *t) {
#if MODE == MODE_NEAREST
    *t = 0;
    return (int)wk_rint(x);
#else
    int x0 = (int)x;
    x0 -= (x < (float)x0);
    *t = x - (float)x0;
    return MODE == MODE_CUBIC ? x0 - 1 : x0;
#endif
}

/* Fold a coordinate into [0, p) of a reflecting axis of d pixels (p = wk_period(d, pad); the
 * reflections repeat with that period, so the taps of the folded coordinate are those of x).
 * Coordinates are first held within +-2^22, where float steps are below a pixel; the fold is
 * exact (x minus a multiple of p). */
inline float wk_fold(float x, int d, int pad) {
    const int p = wk_period(d, pad);
    if (p == 0) return 0;
    x = x < -4194304.0f ? -4194304.0f : (x > 4194304.0f ? 4194304.0f : x);
    const float pf = (float)p;
    float k = (float)(int)(x / pf);
    k -= (x < k * pf);
    return x - k * pf;
}

/* wk_fold for 8 coordinates */
inline __attribute__((always_inline)) float8 wk_fold8(float8 x, int d, int pad) {
    const int p = wk_period(d, pad);
    if (p == 0) return (float8)0;
    x = x < -4194304.0f ? (float8)-4194304.0f : (x > 4194304.0f ? (float8)4194304.0f : x);
    const float pf = (float)p;
    float8 k = CV(CV(x / pf, int8), float8);
    k += CV(x < k * pf, float8); /* true is -1 */
    return x - k * pf;
}

#endif

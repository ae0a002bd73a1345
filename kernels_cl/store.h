/* Storing a warp's result (warp.cl, colour_pass.cl): in the image's storage type X_T, rounded
 * and saturated for integers, or as the model's input (Y_NORM). */
#ifndef WK_STORE_H
#define WK_STORE_H

/* Y_NORM 1: the result is the model's input, made in the same pass: each sample v becomes
 * v * yscale[c] + ybias[c] (the host folds (v / peak - mean) / std into these), integer sources
 * clamped to their range first but not rounded, stored as float (Y_HALF 0) or float16 (Y_HALF 1,
 * written as its bits: no cl_khr_fp16 needed), channels innermost (Y_CHW 0) or as planes (Y_CHW 1). */
#ifndef Y_NORM
#define Y_NORM 0
#endif
#ifndef Y_CHW
#define Y_CHW 0
#endif
#ifndef Y_HALF
#define Y_HALF 0
#endif
#if Y_NORM
#if Y_HALF
#define Y_PTR_T half
#define Y_STORE1(i, v) WK_STORE_HALF(Y, i, v)
#define Y_STORE8(i, v) WK_STORE8(uint8, wk_half_bits8(v), (__global ushort *)(Y + (i)))
#else
#define Y_PTR_T float
#define Y_STORE1(i, v) (Y[i] = (v))
#define Y_STORE8(i, v) WK_STORE8(float8, (v), Y + (i))
#endif
/* element (b, c, y, x) of the result, C_ channels */
#if Y_CHW
#define Y_AT(b, c, y, x, C_) ((((long)(b) * (C_) + (c)) * Ho + (y)) * Wo + (x))
#else
#define Y_AT(b, c, y, x, C_) ((((long)(b) * Ho + (y)) * Wo + (x)) * (C_) + (c))
#endif
#if X_KIND == WK_INT
#define Y_CLAMP(v) ((v) < (float)(X_MIN) ? (float)(X_MIN) : ((v) > (float)(X_MAX) ? (float)(X_MAX) : (v)))
#else
#define Y_CLAMP(v) (v)
#endif
#else
#define Y_PTR_T X_T
#endif

/* floor(x + 0.5) for x inside the long range */
inline long wp_round_half_up_acc(acc_t x) {
    const acc_t t = x + (acc_t)0.5;
    const long i = (long)t;
    return i - ((acc_t)i > t);
}

/* round to nearest (halves up, as OpenCV and Pillow) and saturate into the storage type */
#if X_KIND == WK_INT
#define STORE_PIX(p, i, v)                                                                  \
    ((p)[i] = ((v) != (v))                  ? (X_T)0                                        \
              : ((v) <= (acc_t)(X_MIN)) ? (X_T)(X_MIN)                                      \
              : ((v) >= (acc_t)(X_MAX)) ? (X_T)(X_MAX)                                      \
                                        : (X_T)wp_round_half_up_acc(v))
#else
#define STORE_PIX(p, i, v) ((p)[i] = (X_T)(v))
#endif

#endif

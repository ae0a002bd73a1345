/* Pointwise colour inside the warp: each output pixel's resampled channels go through its
 * item's colour operations before the store (the model's normalisation, the rounding), so an
 * augmentation's colour costs no pass over memory of its own.
 *
 * COLOUR 1: the kernel takes COL and ncol. COL holds, per item, ncol operations of
 * WK_COL_WORDS floats each: the operation's code, then its values; code 0 ends the list (the
 * count is an argument, not a build option: a batch's longest list changes with the draws,
 * one build serves them all).
 * Values are in the image's units, 0 .. WK_PEAK (255 for uint8, 65535 for uint16, 1 for float
 * images, which the operations clip to [0, 1] as albumentations does). Integer images work in
 * whole levels as 8-bit lookup tables do: the resampled value is rounded (halves up) once, and
 * each operation's result is truncated to a level (albumentations' uint8 tables truncate).
 *
 * The operations (w: the operation's words):
 *   WK_COL_AFFINE     channel c = clip(w[1 + c] * v + w[5 + c])  brightness, contrast, shifts,
 *                                                              inversion
 *   WK_COL_GAMMA      v = peak * (v / peak) ^ w[1]
 *   WK_COL_GRAY       every channel = w[1] R + w[2] G + w[3] B (rounded to a level: OpenCV's)
 *   WK_COL_SHUFFLE    channel c = channel w[1 + c]
 *   WK_COL_SOLARIZE   v >= w[1] ? peak - v : v
 *   WK_COL_POSTERIZE  level of channel c with its low bits cleared: keep w[1 + c] high bits of 8
 */
#ifndef COLOUR
#define COLOUR 0
#endif
#define WK_COL_WORDS 12
#define WK_COL_AFFINE 1
#define WK_COL_GAMMA 2
#define WK_COL_GRAY 3
#define WK_COL_SHUFFLE 4
#define WK_COL_SOLARIZE 5
#define WK_COL_POSTERIZE 6

#if COLOUR
#define WK_COLOUR_PARAM , __global const float *restrict COL, int ncol
#if X_KIND == WK_INT
#define WK_COL_INT 1
#define WK_PEAK ((float)(X_MAX))
/* a level: what a lookup table's entry holds (values are >= 0 here) */
#define WK_COL_LEVEL(v) floor(v)
#else
#define WK_COL_INT 0
#define WK_PEAK 1.0f
#define WK_COL_LEVEL(v) (v)
#endif

inline float8 wk_col_clip(float8 v) { return clamp(v, (float8)0.0f, (float8)WK_PEAK); }

/* the C (<= 4) channels v[0 .. C - 1] of 8 pixels through the n operations at op */
inline __attribute__((always_inline)) void wk_colour8(float8 *v, int C, __global const float *op, int n) {
    for (int c = 0; c < C; c++) {
#if WK_COL_INT
        v[c] = floor(wk_col_clip(v[c]) + 0.5f);
#else
        v[c] = wk_col_clip(v[c]);
#endif
    }
    for (int k = 0; k < n; k++, op += WK_COL_WORDS) {
        const int code = (int)op[0];
        if (code == 0) break;
        if (code == WK_COL_AFFINE) {
            for (int c = 0; c < C; c++) v[c] = WK_COL_LEVEL(wk_col_clip(op[1 + c] * v[c] + op[5 + c]));
        } else if (code == WK_COL_GAMMA) {
            const float g = op[1];
            for (int c = 0; c < C; c++) v[c] = WK_COL_LEVEL(pow(v[c] * (1.0f / WK_PEAK), g) * WK_PEAK);
        } else if (code == WK_COL_GRAY) {
            if (C >= 3) {
                float8 y = op[1] * v[0] + op[2] * v[1] + op[3] * v[2];
#if WK_COL_INT
                y = floor(y + 0.5f);
#endif
                y = wk_col_clip(y);
                v[0] = y;
                v[1] = y;
                v[2] = y;
            }
        } else if (code == WK_COL_SHUFFLE) {
            float8 s[4];
            for (int c = 0; c < C; c++) s[c] = v[c];
            for (int c = 0; c < C; c++) v[c] = s[(int)op[1 + c]];
        } else if (code == WK_COL_SOLARIZE) {
            const float t = op[1];
            for (int c = 0; c < C; c++) v[c] = v[c] >= t ? (float8)WK_PEAK - v[c] : v[c];
        } else if (code == WK_COL_POSTERIZE) {
            for (int c = 0; c < C; c++) {
                /* on 8-bit levels: the image's value as a level of 255 */
                const float8 scale = (float8)(255.0f / WK_PEAK);
                const int8 lv = convert_int8(floor(v[c] * scale + (WK_COL_INT ? 0.0f : 0.5f)));
                const int keep = (int)op[1 + c];
                const int8 kept = lv & (int8)(~((1 << (8 - keep)) - 1) & 255);
                v[c] = convert_float8(kept) / scale;
            }
        }
    }
}

/* the same for one pixel (the general kernel): its channels in lane 0 */
inline void wk_colour1(float *v, int C, __global const float *op, int n) {
    float8 w[4];
    for (int c = 0; c < C; c++) w[c] = (float8)v[c];
    wk_colour8(w, C, op, n);
    for (int c = 0; c < C; c++) v[c] = w[c].s0;
}
#define WK_COL_OF(b) (COL + (long)(b) * ncol * WK_COL_WORDS)
#else
#define WK_COLOUR_PARAM
#endif

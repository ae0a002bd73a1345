/* ONNX RoiAlign (opsets 10, 16, 22), exactly as docs/semantics.md orders the float math.
 *
 * One work-item computes one output bin (ph, pw) of one ROI for CB consecutive channels: the
 * sample positions and corner weights are computed once and applied to every channel.
 * NDRange: (OH * OW, ceil(C / CB), R): the bins of one ROI for CB channels run together, so their
 * reads stay in a small region of CB planes (the cache keeps it), not in all C planes.
 *
 * X (N, C, H, W) and rois (R, 4) have X's storage type (X_KIND / X_T in warpkit.h); coordinates
 * are computed in coord_t (float, double for float64), values accumulated in acc_t.
 */
#include "warpkit.h"

#ifndef CB
#define CB 8
#endif
#ifndef BI_T
#define BI_T long /* the batch indices' type */
#endif
#define RA_AVG 0
#define RA_MAX 1        /* ONNX: per sample the largest weighted corner, then the max */
#define RA_MAX_INTERP 2 /* opt-in: per sample the interpolated value, then the max */

/* add one sample (values v1..v4 at corner weights w1..w4) to ACC, scalar or vector of type T:
 * avg sums the interpolated values; max keeps the largest per-sample value (the largest weighted
 * corner, or the interpolated value for RA_MAX_INTERP); `first` marks the bin's first sample */
#define RA_ACCUMULATE(T, ACC)                                                               \
    if (mode == RA_AVG) {                                                                   \
        ACC += w1 * v1 + w2 * v2 + w3 * v3 + w4 * v4;                                       \
    } else {                                                                                \
        T v_;                                                                               \
        if (mode == RA_MAX) {                                                               \
            T b_ = w2 * v2, c_ = w3 * v3, d_ = w4 * v4;                                     \
            v_ = w1 * v1;                                                                   \
            v_ = b_ > v_ ? b_ : v_;                                                         \
            v_ = c_ > v_ ? c_ : v_;                                                         \
            v_ = d_ > v_ ? d_ : v_;                                                         \
        } else {                                                                            \
            v_ = w1 * v1 + w2 * v2 + w3 * v3 + w4 * v4;                                     \
        }                                                                                   \
        ACC = first ? v_ : (v_ > ACC ? v_ : ACC);                                           \
    }

#ifndef RA_MAX_SAMPLES
#define RA_MAX_SAMPLES (1 << 20) /* per bin: the host's limit (roi_align._MAX_SAMPLES) */
#endif

/* the geometry of ROI r: where its samples start, the bin sizes and the samples per bin;
 * `refused`: a box the host refuses (not finite, or more than RA_MAX_SAMPLES samples per bin).
 * Boxes from a host array were refused before the launch; device boxes are not read back (that
 * would make the call wait), so the kernel refuses them itself: their bins become NaN. */
typedef struct {
    coord_t start_w, start_h, bin_w, bin_h;
    int grid_h, grid_w, count, refused;
} ra_roi;

inline ra_roi ra_roi_geometry(__global const X_PTR_T *roi, long src, int OH, int OW,
                              int sampling_ratio, coord_t spatial_scale, int half_pixel) {
    ra_roi g;
    const coord_t off = half_pixel ? (coord_t)0.5 : (coord_t)0;
    g.start_w = (coord_t)LOAD_X(roi, 0) * spatial_scale - off;
    g.start_h = (coord_t)LOAD_X(roi, src) * spatial_scale - off;
    const coord_t end_w = (coord_t)LOAD_X(roi, 2 * src) * spatial_scale - off;
    const coord_t end_h = (coord_t)LOAD_X(roi, 3 * src) * spatial_scale - off;
    g.refused = !(isfinite((coord_t)LOAD_X(roi, 0)) && isfinite((coord_t)LOAD_X(roi, src)) &&
                  isfinite((coord_t)LOAD_X(roi, 2 * src)) &&
                  isfinite((coord_t)LOAD_X(roi, 3 * src)));
    if (g.refused) {
        g.grid_h = g.grid_w = g.count = 1;
        return g;
    }
    coord_t roi_w = end_w - g.start_w, roi_h = end_h - g.start_h;
    if (!half_pixel) {
        roi_w = roi_w > 1 ? roi_w : (coord_t)1;
        roi_h = roi_h > 1 ? roi_h : (coord_t)1;
    }
    g.bin_h = roi_h / (coord_t)OH;
    g.bin_w = roi_w / (coord_t)OW;
    if (sampling_ratio > 0) {
        g.grid_h = g.grid_w = sampling_ratio;
    } else { /* ceil, for finite values of any sign; huge ones are capped above the limit (so
              * that a capped axis is refused whatever the other's count) */
        const coord_t cap = (coord_t)(2 * RA_MAX_SAMPLES);
        coord_t qh = roi_h / (coord_t)OH, qw = roi_w / (coord_t)OW;
        qh = qh > cap ? cap : (qh < -cap ? -cap : qh);
        qw = qw > cap ? cap : (qw < -cap ? -cap : qw);
        g.grid_h = (int)qh;
        g.grid_h += ((coord_t)g.grid_h < qh);
        g.grid_w = (int)qw;
        g.grid_w += ((coord_t)g.grid_w < qw);
    }
    g.refused = g.grid_h > 0 && g.grid_w > 0 && (long)g.grid_h * g.grid_w > RA_MAX_SAMPLES;
    if (g.refused) g.grid_h = g.grid_w = 1;
    g.count = g.grid_h * g.grid_w > 1 ? g.grid_h * g.grid_w : 1;
    return g;
}

/* the four corners of a sample at (y, x): offsets (rows sy, columns sx apart) and weights; a
 * sample outside [-1, H] x [-1, W] gets zero weights on pixel 0 (it contributes 0, still counts) */
inline void ra_corners(coord_t y, coord_t x, int H, int W, long sy, long sx, long *p, acc_t *w) {
    p[0] = p[1] = p[2] = p[3] = 0;
    w[0] = w[1] = w[2] = w[3] = 0;
    if (y < -1 || y > (coord_t)H || x < -1 || x > (coord_t)W) return;
    y = y > 0 ? y : (coord_t)0;
    x = x > 0 ? x : (coord_t)0;
    int yl = (int)y, xl = (int)x, yh, xh;
    if (yl >= H - 1) {
        yl = yh = H - 1;
        y = (coord_t)yl;
    } else {
        yh = yl + 1;
    }
    if (xl >= W - 1) {
        xl = xh = W - 1;
        x = (coord_t)xl;
    } else {
        xh = xl + 1;
    }
    coord_t ly = y - (coord_t)yl, lx = x - (coord_t)xl;
    coord_t hy = 1 - ly, hx = 1 - lx;
    w[0] = (acc_t)(hy * hx);
    w[1] = (acc_t)(hy * lx);
    w[2] = (acc_t)(ly * hx);
    w[3] = (acc_t)(ly * lx);
    p[0] = yl * sy + xl * sx;
    p[1] = yl * sy + xh * sx;
    p[2] = yh * sy + xl * sx;
    p[3] = yh * sy + xh * sx;
}

/* sample (iy, ix) of bin (ph, pw), in docs/semantics.md's order of operations */
inline coord_t ra_sample_y(const ra_roi *g, int ph, int iy) {
    return g->start_h + (coord_t)ph * g->bin_h + ((coord_t)iy + (coord_t)0.5) * g->bin_h / (coord_t)g->grid_h;
}
inline coord_t ra_sample_x(const ra_roi *g, int pw, int ix) {
    return g->start_w + (coord_t)pw * g->bin_w + ((coord_t)ix + (coord_t)0.5) * g->bin_w / (coord_t)g->grid_w;
}

#if !WK_ONE_KERNEL || defined(WK_KERNEL_roi_align)
__kernel void roi_align(__global const X_PTR_T *restrict X, long x_off, long sxn, long sxc,
                        long sxh, long sxw, int N, int C, int H, int W,
                        __global const X_PTR_T *restrict rois, long r_off, long srr, long src,
                        __global const BI_T *restrict bidx, long b_off, long sb,
                        __global X_PTR_T *restrict Y, long y_off, int OH, int OW, int sampling_ratio,
                        coord_t spatial_scale, int half_pixel, int mode) {
    const int bin = (int)get_global_id(0);
    const int c0 = (int)get_global_id(1) * CB;
    const int r = (int)get_global_id(2);
    if (c0 >= C || bin >= OH * OW) return;
    const int ph = bin / OW, pw = bin % OW;

    const ra_roi g = ra_roi_geometry(rois + r_off + r * srr, src, OH, OW, sampling_ratio,
                                     spatial_scale, half_pixel);
    const long b = (long)bidx[b_off + r * sb];
    __global X_PTR_T *yb = Y + y_off + ((long)r * C) * OH * OW + bin;
    if (g.refused || b < 0 || b >= N) { /* nothing read: the bins are NaN */
        for (int k = 0; k < CB && c0 + k < C; k++)
            STORE_X(yb, (long)(c0 + k) * OH * OW, (acc_t)NAN);
        return;
    }

    __global const X_PTR_T *xb = X + x_off + b * sxn;
    acc_t acc[CB];
    for (int k = 0; k < CB; k++) acc[k] = 0;
    int first = 1;
    for (int iy = 0; iy < g.grid_h; iy++) {
        const coord_t y = ra_sample_y(&g, ph, iy);
        for (int ix = 0; ix < g.grid_w; ix++) {
            long p[4];
            acc_t w[4];
            ra_corners(y, ra_sample_x(&g, pw, ix), H, W, sxh, sxw, p, w);
            const acc_t w1 = w[0], w2 = w[1], w3 = w[2], w4 = w[3];
            const long p1 = p[0], p2 = p[1], p3 = p[2], p4 = p[3];
            for (int k = 0; k < CB; k++) {
                const int c = c0 + k < C ? c0 + k : C - 1;
                __global const X_PTR_T *xc = xb + c * sxc;
                acc_t v1 = LOAD_X(xc, p1), v2 = LOAD_X(xc, p2), v3 = LOAD_X(xc, p3), v4 = LOAD_X(xc, p4);
                RA_ACCUMULATE(acc_t, acc[k])
            }
            first = 0;
        }
    }
    for (int k = 0; k < CB; k++) {
        if (c0 + k >= C) break;
        acc_t v = mode == RA_AVG ? acc[k] / (acc_t)g.count : acc[k];
        STORE_X(yb, (long)(c0 + k) * OH * OW, v);
    }
}
#endif

/* ---- channels-last path ----------------------------------------------------------------------
 * X is first transposed to (N, H, W, C8) with C8 = C rounded up to CB (zero padded): the CB
 * channels of a corner are then CB consecutive values, one vector load instead of CB gathers from
 * CB planes. NDRange of the transpose: (W, H, N * C). */
#if !WK_ONE_KERNEL || defined(WK_KERNEL_to_channels_last)
__kernel void to_channels_last(__global const X_PTR_T *restrict X, long x_off, long sxn, long sxc,
                               long sxh, long sxw, int C, int C8, __global X_T *restrict T) {
    const int x = (int)get_global_id(0), y = (int)get_global_id(1);
    const int nc = (int)get_global_id(2);
    const int n = nc / C, c = nc % C;
    const int W = (int)get_global_size(0), H = (int)get_global_size(1);
    T[(((long)n * H + y) * W + x) * C8 + c] =
        ((__global const X_T *)X)[x_off + n * sxn + c * sxc + y * sxh + x * sxw];
}
#endif

#ifndef CG
#define CG 8 /* channel blocks per work-item in the channels-last path */
#endif
#if CB == 8 && !ACC_DOUBLE
typedef float8 float8_u __attribute__((aligned(4)));
#if WK_CPU && X_KIND == WK_F32
#define LOAD_CB(p) (*(__global const float8_u *)(p))
#else
#define LOAD_CB(p) ((accv)(LOAD_X(p, 0), LOAD_X(p, 1), LOAD_X(p, 2), LOAD_X(p, 3), LOAD_X(p, 4), \
                           LOAD_X(p, 5), LOAD_X(p, 6), LOAD_X(p, 7)))
#endif
typedef float8 accv;

#if !WK_ONE_KERNEL || defined(WK_KERNEL_roi_align_cl)
__kernel void roi_align_cl(__global const X_PTR_T *restrict T, int N, int C, int C8, int H, int W,
                           __global const X_PTR_T *restrict rois, long r_off, long srr, long src,
                           __global const BI_T *restrict bidx, long b_off, long sb,
                           __global X_PTR_T *restrict Y, long y_off, int OH, int OW,
                           int sampling_ratio, coord_t spatial_scale, int half_pixel, int mode) {
    const int bin = (int)get_global_id(0);
    const int c0 = (int)get_global_id(1) * CB * CG;
    const int r = (int)get_global_id(2);
    if (c0 >= C || bin >= OH * OW) return;
    /* this work-item's channel blocks: up to CG blocks of CB channels */
    const int nb = (C - c0 + CB - 1) / CB < CG ? (C - c0 + CB - 1) / CB : CG;
    const int ph = bin / OW, pw = bin % OW;
    const ra_roi g = ra_roi_geometry(rois + r_off + r * srr, src, OH, OW, sampling_ratio,
                                     spatial_scale, half_pixel);
    const long b = (long)bidx[b_off + r * sb];
    __global X_PTR_T *yb = Y + y_off + ((long)r * C) * OH * OW + bin;
    const long ps = (long)OH * OW;
    if (g.refused || b < 0 || b >= N) { /* nothing read: the bins are NaN */
        for (int c = c0; c < C && c < c0 + nb * CB; c++) STORE_X(yb, c * ps, (acc_t)NAN);
        return;
    }
    __global const X_PTR_T *tb = T + b * H * W * C8 + c0;
    accv acc[CG];
    for (int k = 0; k < CG; k++) acc[k] = (accv)0;
    int first = 1;
    for (int iy = 0; iy < g.grid_h; iy++) {
        const coord_t y = ra_sample_y(&g, ph, iy);
        for (int ix = 0; ix < g.grid_w; ix++) {
            long p[4];
            acc_t w[4];
            ra_corners(y, ra_sample_x(&g, pw, ix), H, W, (long)W * C8, C8, p, w);
            const acc_t w1 = w[0], w2 = w[1], w3 = w[2], w4 = w[3];
            const long p1 = p[0], p2 = p[1], p3 = p[2], p4 = p[3];
            /* the sample's geometry serves every channel block of this work-item */
            for (int k = 0; k < nb; k++) {
                __global const X_PTR_T *t = tb + k * CB;
                accv v1 = LOAD_CB(t + p1), v2 = LOAD_CB(t + p2), v3 = LOAD_CB(t + p3),
                     v4 = LOAD_CB(t + p4);
                RA_ACCUMULATE(accv, acc[k])
            }
            first = 0;
        }
    }
    for (int k = 0; k < nb; k++) {
        accv a = mode == RA_AVG ? acc[k] / (acc_t)g.count : acc[k];
        const int cb = c0 + k * CB;
#define ST(j) if (cb + j < C) STORE_X(yb, (cb + j) * ps, a.s##j);
        ST(0) ST(1) ST(2) ST(3) ST(4) ST(5) ST(6) ST(7)
#undef ST
    }
}
#endif
#endif

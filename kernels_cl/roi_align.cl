/* ONNX RoiAlign (opsets 10, 16, 22), exactly as SEMANTICS.md orders the float math.
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
#define RA_AVG 0
#define RA_MAX 1        /* ONNX: per sample the largest weighted corner, then the max */
#define RA_MAX_INTERP 2 /* opt-in: per sample the interpolated value, then the max */

__kernel void roi_align(__global const X_PTR_T *restrict X, long x_off, long sxn, long sxc,
                        long sxh, long sxw, int N, int C, int H, int W,
                        __global const X_PTR_T *restrict rois, long r_off, long srr, long src,
                        __global const long *restrict bidx,
                        __global X_PTR_T *restrict Y, long y_off, int OH, int OW, int sampling_ratio,
                        coord_t spatial_scale, int half_pixel, int mode) {
    const int bin = (int)get_global_id(0);
    const int c0 = (int)get_global_id(1) * CB;
    const int r = (int)get_global_id(2);
    if (c0 >= C || bin >= OH * OW) return;
    const int ph = bin / OW, pw = bin % OW;

    /* batch indices are validated on the host; clamp anyway so no read can leave X */
    long b = bidx[r];
    b = b < 0 ? 0 : (b >= N ? N - 1 : b);
    __global const X_PTR_T *roi = rois + r_off + r * srr;
    const coord_t off = half_pixel ? (coord_t)0.5 : (coord_t)0;
    const coord_t start_w = (coord_t)LOAD_X(roi, 0) * spatial_scale - off;
    const coord_t start_h = (coord_t)LOAD_X(roi, src) * spatial_scale - off;
    const coord_t end_w = (coord_t)LOAD_X(roi, 2 * src) * spatial_scale - off;
    const coord_t end_h = (coord_t)LOAD_X(roi, 3 * src) * spatial_scale - off;
    coord_t roi_w = end_w - start_w, roi_h = end_h - start_h;
    if (!half_pixel) {
        roi_w = roi_w > 1 ? roi_w : (coord_t)1;
        roi_h = roi_h > 1 ? roi_h : (coord_t)1;
    }
    const coord_t bin_h = roi_h / (coord_t)OH, bin_w = roi_w / (coord_t)OW;
    int grid_h, grid_w;
    if (sampling_ratio > 0) {
        grid_h = grid_w = sampling_ratio;
    } else { /* ceil, for finite values of any sign; huge ones are capped (the host caps rois) */
        coord_t qh = roi_h / (coord_t)OH, qw = roi_w / (coord_t)OW;
        qh = qh > (coord_t)1e6 ? (coord_t)1e6 : (qh < (coord_t)-1e6 ? (coord_t)-1e6 : qh);
        qw = qw > (coord_t)1e6 ? (coord_t)1e6 : (qw < (coord_t)-1e6 ? (coord_t)-1e6 : qw);
        grid_h = (int)qh;
        grid_h += ((coord_t)grid_h < qh);
        grid_w = (int)qw;
        grid_w += ((coord_t)grid_w < qw);
    }
    const int count = grid_h * grid_w > 1 ? grid_h * grid_w : 1;

    __global const X_PTR_T *xb = X + x_off + b * sxn;
    acc_t acc[CB];
    for (int k = 0; k < CB; k++) acc[k] = 0;
    int first = 1;
    for (int iy = 0; iy < grid_h; iy++) {
        coord_t y0 = start_h + (coord_t)ph * bin_h + ((coord_t)iy + (coord_t)0.5) * bin_h / (coord_t)grid_h;
        for (int ix = 0; ix < grid_w; ix++) {
            coord_t y = y0;
            coord_t x = start_w + (coord_t)pw * bin_w + ((coord_t)ix + (coord_t)0.5) * bin_w / (coord_t)grid_w;
            acc_t w1 = 0, w2 = 0, w3 = 0, w4 = 0;
            long p1 = 0, p2 = 0, p3 = 0, p4 = 0;
            if (!(y < -1 || y > (coord_t)H || x < -1 || x > (coord_t)W)) {
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
                w1 = (acc_t)(hy * hx);
                w2 = (acc_t)(hy * lx);
                w3 = (acc_t)(ly * hx);
                w4 = (acc_t)(ly * lx);
                p1 = yl * sxh + xl * sxw;
                p2 = yl * sxh + xh * sxw;
                p3 = yh * sxh + xl * sxw;
                p4 = yh * sxh + xh * sxw;
            } /* else: a sample outside contributes 0 and still counts */
            for (int k = 0; k < CB; k++) {
                const int c = c0 + k < C ? c0 + k : C - 1;
                __global const X_PTR_T *xc = xb + c * sxc;
                acc_t v1 = LOAD_X(xc, p1), v2 = LOAD_X(xc, p2), v3 = LOAD_X(xc, p3), v4 = LOAD_X(xc, p4);
                if (mode == RA_AVG) {
                    acc[k] += w1 * v1 + w2 * v2 + w3 * v3 + w4 * v4;
                } else {
                    acc_t v;
                    if (mode == RA_MAX) {
                        acc_t a = w1 * v1, bb = w2 * v2, cc = w3 * v3, d = w4 * v4;
                        v = a;
                        v = bb > v ? bb : v;
                        v = cc > v ? cc : v;
                        v = d > v ? d : v;
                    } else {
                        v = w1 * v1 + w2 * v2 + w3 * v3 + w4 * v4;
                    }
                    acc[k] = (first || v > acc[k]) ? v : acc[k];
                }
            }
            first = 0;
        }
    }
    __global X_PTR_T *yb = Y + y_off + ((long)r * C) * OH * OW + bin;
    for (int k = 0; k < CB; k++) {
        if (c0 + k >= C) break;
        acc_t v = mode == RA_AVG ? acc[k] / (acc_t)count : acc[k];
        STORE_X(yb, (long)(c0 + k) * OH * OW, v);
    }
}

/* ---- channels-last path ----------------------------------------------------------------------
 * X is first transposed to (N, H, W, C8) with C8 = C rounded up to CB (zero padded): the CB
 * channels of a corner are then CB consecutive values, one vector load instead of CB gathers from
 * CB planes. NDRange of the transpose: (W, H, N * C). */
__kernel void to_channels_last(__global const X_PTR_T *restrict X, long x_off, long sxn, long sxc,
                               long sxh, long sxw, int C, int C8, __global X_T *restrict T) {
    const int x = (int)get_global_id(0), y = (int)get_global_id(1);
    const int nc = (int)get_global_id(2);
    const int n = nc / C, c = nc % C;
    const int W = (int)get_global_size(0), H = (int)get_global_size(1);
    T[(((long)n * H + y) * W + x) * C8 + c] =
        ((__global const X_T *)X)[x_off + n * sxn + c * sxc + y * sxh + x * sxw];
}

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

__kernel void roi_align_cl(__global const X_T *restrict T, int N, int C, int C8, int H, int W,
                           __global const X_PTR_T *restrict rois, long r_off, long srr, long src,
                           __global const long *restrict bidx,
                           __global X_PTR_T *restrict Y, long y_off, int OH, int OW,
                           int sampling_ratio, coord_t spatial_scale, int half_pixel, int mode) {
    const int bin = (int)get_global_id(0);
    const int c0 = (int)get_global_id(1) * CB * CG;
    const int r = (int)get_global_id(2);
    if (c0 >= C || bin >= OH * OW) return;
    /* this work-item's channel blocks: up to CG blocks of CB channels */
    const int nb = (C - c0 + CB - 1) / CB < CG ? (C - c0 + CB - 1) / CB : CG;
    const int ph = bin / OW, pw = bin % OW;
    long b = bidx[r];
    b = b < 0 ? 0 : (b >= N ? N - 1 : b);
    __global const X_PTR_T *roi = rois + r_off + r * srr;
    const coord_t off = half_pixel ? (coord_t)0.5 : (coord_t)0;
    const coord_t start_w = (coord_t)LOAD_X(roi, 0) * spatial_scale - off;
    const coord_t start_h = (coord_t)LOAD_X(roi, src) * spatial_scale - off;
    const coord_t end_w = (coord_t)LOAD_X(roi, 2 * src) * spatial_scale - off;
    const coord_t end_h = (coord_t)LOAD_X(roi, 3 * src) * spatial_scale - off;
    coord_t roi_w = end_w - start_w, roi_h = end_h - start_h;
    if (!half_pixel) {
        roi_w = roi_w > 1 ? roi_w : (coord_t)1;
        roi_h = roi_h > 1 ? roi_h : (coord_t)1;
    }
    const coord_t bin_h = roi_h / (coord_t)OH, bin_w = roi_w / (coord_t)OW;
    int grid_h, grid_w;
    if (sampling_ratio > 0) {
        grid_h = grid_w = sampling_ratio;
    } else {
        coord_t qh = roi_h / (coord_t)OH, qw = roi_w / (coord_t)OW;
        qh = qh > (coord_t)1e6 ? (coord_t)1e6 : (qh < (coord_t)-1e6 ? (coord_t)-1e6 : qh);
        qw = qw > (coord_t)1e6 ? (coord_t)1e6 : (qw < (coord_t)-1e6 ? (coord_t)-1e6 : qw);
        grid_h = (int)qh;
        grid_h += ((coord_t)grid_h < qh);
        grid_w = (int)qw;
        grid_w += ((coord_t)grid_w < qw);
    }
    const int count = grid_h * grid_w > 1 ? grid_h * grid_w : 1;
    __global const X_T *tb = T + b * H * W * C8 + c0;
    accv acc[CG];
    for (int k = 0; k < CG; k++) acc[k] = (accv)0;
    int first = 1;
    for (int iy = 0; iy < grid_h; iy++) {
        coord_t y0 = start_h + (coord_t)ph * bin_h + ((coord_t)iy + (coord_t)0.5) * bin_h / (coord_t)grid_h;
        for (int ix = 0; ix < grid_w; ix++) {
            coord_t y = y0;
            coord_t x = start_w + (coord_t)pw * bin_w + ((coord_t)ix + (coord_t)0.5) * bin_w / (coord_t)grid_w;
            acc_t w1 = 0, w2 = 0, w3 = 0, w4 = 0;
            long p1 = 0, p2 = 0, p3 = 0, p4 = 0;
            if (!(y < -1 || y > (coord_t)H || x < -1 || x > (coord_t)W)) {
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
                w1 = (acc_t)(hy * hx);
                w2 = (acc_t)(hy * lx);
                w3 = (acc_t)(ly * hx);
                w4 = (acc_t)(ly * lx);
                p1 = ((long)yl * W + xl) * C8;
                p2 = ((long)yl * W + xh) * C8;
                p3 = ((long)yh * W + xl) * C8;
                p4 = ((long)yh * W + xh) * C8;
            }
            /* the sample's geometry serves every channel block of this work-item */
            for (int k = 0; k < nb; k++) {
                __global const X_T *t = tb + k * CB;
                accv v1 = LOAD_CB(t + p1), v2 = LOAD_CB(t + p2), v3 = LOAD_CB(t + p3),
                     v4 = LOAD_CB(t + p4);
                if (mode == RA_AVG) {
                    acc[k] += w1 * v1 + w2 * v2 + w3 * v3 + w4 * v4;
                } else {
                    accv v;
                    if (mode == RA_MAX) {
                        accv a = w1 * v1, bb = w2 * v2, cc = w3 * v3, d = w4 * v4;
                        v = a;
                        v = bb > v ? bb : v;
                        v = cc > v ? cc : v;
                        v = d > v ? d : v;
                    } else {
                        v = w1 * v1 + w2 * v2 + w3 * v3 + w4 * v4;
                    }
                    acc[k] = first ? v : (v > acc[k] ? v : acc[k]);
                }
            }
            first = 0;
        }
    }
    __global X_PTR_T *yb = Y + y_off + ((long)r * C) * OH * OW + bin;
    const long ps = (long)OH * OW;
    for (int k = 0; k < nb; k++) {
        accv a = mode == RA_AVG ? acc[k] / (acc_t)count : acc[k];
        const int cb = c0 + k * CB;
#define ST(j) if (cb + j < C) STORE_X(yb, (cb + j) * ps, a.s##j);
        ST(0) ST(1) ST(2) ST(3) ST(4) ST(5) ST(6) ST(7)
#undef ST
    }
}
#endif

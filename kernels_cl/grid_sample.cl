/* ONNX GridSample for any spatial rank R, every mode, padding and dtype (rules: SEMANTICS.md).
 *
 * Specialised at build time on what changes the inner loop: R, MODE and the storage/compute types
 * (warpkit.h). Padding, align_corners, sizes and strides are arguments.
 *
 * One work-item computes PIX consecutive output positions (flattened over the R output axes) of one
 * batch item: it works out the taps (indices and weights) of a position once and applies them to
 * every channel.
 */
#include "warpkit.h"

#ifndef R
#define R 2
#endif
#ifndef PIX
#define PIX 4
#endif

#define PAD_ZEROS 0
#define PAD_BORDER 1
#define PAD_REFLECTION 2

/* TAPS^R: number of tap combinations per position */
#if R == 1
#define NT (TAPS)
#elif R == 2
#define NT (TAPS * TAPS)
#elif R == 3
#define NT (TAPS * TAPS * TAPS)
#else
#define NT 0 /* computed per combination for higher ranks */
#endif

/* reflect x into [lo, hi] (SEMANTICS.md step 3); x finite. A size-1 axis with align_corners
 * (rng == 0) gives 0. The result is clamped into [lo, hi] so that no rounding can leave it. */
inline coord_t wk_reflect(coord_t x, coord_t lo, coord_t hi) {
    coord_t rng = hi - lo;
    if (rng == (coord_t)0) return (coord_t)0;
    int below = x < lo;
    coord_t dx = below ? lo - x : x - hi;
    if (dx <= (coord_t)0) return x; /* inside */
    coord_t q = dx / rng;
    coord_t k;
    int odd;
    if (q < (coord_t)0x1p62f) { /* 2^62: an exact long conversion */
        long ki = (long)q;
        k = (coord_t)ki;
        odd = (int)(ki & 1);
    } else { /* beyond 2^62 every float and double is an even integer */
        k = q;
        odd = 0;
    }
    coord_t r = dx - k * rng;
    r = wk_minc(wk_maxc(r, (coord_t)0), rng);
    coord_t res = below ? (odd ? hi - r : lo + r) : (odd ? lo + r : hi - r);
    return wk_minc(wk_maxc(res, lo), hi);
}

inline void wk_cubic_weights(acc_t t, acc_t *w) { WK_KEYS_WEIGHTS(acc_t, t, w); }

/* integer tap i on an axis of size d: the memory index to read and whether it reads X (zeros
 * padding reads nothing outside). The index is always inside [0, d-1]. */
inline int wk_tap(int i, int d, int pad, coord_t lo, coord_t hi, int *valid) {
    if (pad == PAD_ZEROS) {
        *valid = (i >= 0) & (i < d);
        return wk_clampi(i, 0, d - 1);
    }
    *valid = 1;
    if (pad == PAD_BORDER) return wk_clampi(i, 0, d - 1);
    return wk_clampi((int)wk_reflect((coord_t)i, lo, hi), 0, d - 1);
}

/* Per-axis taps of one position. Returns 0 when the position is NaN (or inf under reflection). */
inline int wk_axis_taps(coord_t g, int d, int pad, int align, int *idx, acc_t *w, int *valid) {
    coord_t dd = (coord_t)d;
    coord_t x = align ? (g + 1) / 2 * (dd - 1) : ((g + 1) * dd - 1) / 2;
    if (x != x) return 0;
#if MODE == MODE_NEAREST
    x = wk_rint(x);
#endif
    coord_t lo = align ? (coord_t)0 : (coord_t)-0.5;
    coord_t hi = align ? dd - 1 : dd - (coord_t)0.5;
    if (x < lo || x > hi) {
        if (pad == PAD_REFLECTION) {
            if (!wk_isfinite(x)) return 0;
            x = wk_reflect(x, lo, hi);
        }
#if MODE != MODE_CUBIC
        else if (pad == PAD_BORDER) {
            x = wk_minc(wk_maxc(x, (coord_t)0), dd - 1);
        }
#endif
    }
    /* Far-away coordinates give the same taps as these (all outside under zeros, all on the edge
     * under border), and keep every int conversion below in range: 1e30 or inf never reaches one. */
    x = wk_minc(wk_maxc(x, (coord_t)-4), dd + 3);
#if MODE == MODE_NEAREST
    idx[0] = wk_tap((int)x, d, pad, lo, hi, &valid[0]);
    w[0] = 1;
#else
    int x0 = wk_floori(x);
    /* weights in acc_t: double for wide integers, even with float coordinates */
    acc_t t = (acc_t)x - (acc_t)x0;
#if MODE == MODE_LINEAR
    w[0] = 1 - t;
    w[1] = t;
    idx[0] = wk_tap(x0, d, pad, lo, hi, &valid[0]);
    idx[1] = wk_tap(x0 + 1, d, pad, lo, hi, &valid[1]);
#else
    wk_cubic_weights(t, w);
    for (int k = 0; k < 4; k++) idx[k] = wk_tap(x0 - 1 + k, d, pad, lo, hi, &valid[k]);
#endif
#endif
    return 1;
}

/* meta (long): in_dims[R], x_strides[R], out_dims[R], grid_strides[R] (elements)
 * X:    element (n, c, i_1..i_R) at x_off + n*sxn + c*sxc + sum i_a * x_strides[a]
 * grid: element (n, o_1..o_R, k) at g_off + n*sgn + sum o_a * grid_strides[a] + k*sgk
 * Y:    contiguous (N, C, out...), element (n, c, o) at y_off + ((n*C + c) * out_sp + o) */
__kernel void grid_sample(__global const X_PTR_T *restrict X, long x_off, long sxn, long sxc,
                          __global const G_PTR_T *restrict G, long g_off, long sgn, long sgk,
                          __global X_PTR_T *restrict Y, long y_off, __global const long *restrict meta,
                          int C, long out_sp, int pad, int align) {
    const long blk = get_global_id(0);
    const int n = (int)get_global_id(1);
    const long o_begin = blk * PIX;
    if (o_begin >= out_sp) return;

    int in_dims[R];
    long xs[R], os[R], gs[R];
    for (int a = 0; a < R; a++) {
        in_dims[a] = (int)meta[a];
        xs[a] = meta[R + a];
        os[a] = meta[2 * R + a];
        gs[a] = meta[3 * R + a];
    }
    __global const X_PTR_T *xn = X + x_off + n * sxn;
    __global X_PTR_T *yn = Y + y_off + (long)n * C * out_sp;

    for (int p = 0; p < PIX; p++) {
        const long o = o_begin + p;
        if (o >= out_sp) break;
        /* grid address of output position o */
        long rem = o, goff = g_off + n * sgn;
        for (int a = R - 1; a >= 0; a--) {
            long q = rem / os[a];
            goff += (rem - q * os[a]) * gs[a];
            rem = q;
        }
        int idx[R][TAPS], valid[R][TAPS];
        acc_t w[R][TAPS];
        int ok = 1;
        for (int a = 0; a < R; a++) {
            /* grid[..., k] indexes axis R-1-k: coordinates are listed innermost first */
            coord_t g = LOAD_G(G, goff + (R - 1 - a) * sgk);
            ok &= wk_axis_taps(g, in_dims[a], pad, align, idx[a], w[a], valid[a]);
        }
        __global X_PTR_T *yo = yn + o;
        if (!ok) {
            for (int c = 0; c < C; c++) {
#if MODE == MODE_NEAREST || X_KIND == WK_F16 || X_KIND == WK_BF16
                ((__global X_T *)yo)[(long)c * out_sp] = X_NAN_RAW;
#else
                STORE_X(yo, (long)c * out_sp, (acc_t)NAN);
#endif
            }
            continue;
        }
#if MODE == MODE_NEAREST
        long off = 0;
        int v = 1;
        for (int a = 0; a < R; a++) {
            off += idx[a][0] * xs[a];
            v &= valid[a][0];
        }
        __global const X_T *src = (__global const X_T *)xn + off;
        __global X_T *dst = (__global X_T *)yo;
        for (int c = 0; c < C; c++) {
            X_T val = src[(long)c * sxc];
            dst[(long)c * out_sp] = v ? val : (X_T)0;
        }
#elif NT > 0
        /* combine the per-axis taps once; apply them to every channel */
        long toff[NT];
        acc_t tw[NT];
        int tv[NT];
        for (int k = 0; k < NT; k++) {
            int kk = k;
            long off = 0;
            acc_t wt = 1;
            int v = 1;
            for (int a = R - 1; a >= 0; a--) {
                int j = kk % TAPS;
                kk /= TAPS;
                off += idx[a][j] * xs[a];
                wt *= w[a][j];
                v &= valid[a][j];
            }
            toff[k] = off;
            tw[k] = wt;
            tv[k] = v;
        }
        for (int c = 0; c < C; c++) {
            __global const X_PTR_T *xc = xn + (long)c * sxc;
            acc_t acc = 0;
            for (int k = 0; k < NT; k++) {
                acc_t val = LOAD_X(xc, toff[k]);
                acc += tw[k] * (tv[k] ? val : (acc_t)0);
            }
            STORE_X(yo, (long)c * out_sp, acc);
        }
#else
        /* high ranks: TAPS^R combinations, combined per channel */
        long ncomb = 1;
        for (int a = 0; a < R; a++) ncomb *= TAPS;
        for (int c = 0; c < C; c++) {
            __global const X_PTR_T *xc = xn + (long)c * sxc;
            acc_t acc = 0;
            for (long k = 0; k < ncomb; k++) {
                long kk = k, off = 0;
                acc_t wt = 1;
                int v = 1;
                for (int a = R - 1; a >= 0; a--) {
                    int j = (int)(kk % TAPS);
                    kk /= TAPS;
                    off += idx[a][j] * xs[a];
                    wt *= w[a][j];
                    v &= valid[a][j];
                }
                acc_t val = LOAD_X(xc, off);
                acc += wt * (v ? val : (acc_t)0);
            }
            STORE_X(yo, (long)c * out_sp, acc);
        }
#endif
    }
}


#if R <= 3 && !COORD_DOUBLE && !ACC_DOUBLE
/* ---- The fast path for ranks 1-3 (float math; double math takes the general kernel: PoCL 3.0
 * could not reload double8 programs from its kernel cache): 8 output positions per work-item, as vectors ------------------
 * One work-item computes 8 consecutive positions along the last output axis of one (n, outer
 * output index) row: coordinates, taps and weights are computed as 8-wide vectors (PoCL does not
 * vectorize across work-items), then each channel gathers its taps. In-plane offsets fit an int
 * (checked on the host). NDRange: (ceil(W_out / 8), prod(other output axes), N). */

#define CV(v, t) __builtin_convertvector(v, t)
#define WK_VINLINE inline __attribute__((always_inline))
#ifndef WK_SIM
#define WK_SIM 0 /* 1: the Oclgrind simulator */
#endif
/* select(a, b, m): Oclgrind 21.10 mis-evaluates ?: on a mask combined with ^ (only the sign bit
 * is reliable there), so it gets the select() builtin; elsewhere ?: avoids a call PoCL would not
 * inline */
#if WK_SIM
#define WK_SELECT(a, b, m) select((a), (b), (m))
#else
#define WK_SELECT(a, b, m) ((m) ? (b) : (a))
#endif
#ifndef WK_CPU
#define WK_CPU 0 /* 1: a CPU device, where unaligned vector loads and stores are cheap and safe */
#endif
#ifndef GRID_PACKED
#define GRID_PACKED 0 /* 1: grid's last two axes are contiguous (strides R and 1 elements) */
#endif
#if WK_CPU
typedef float8 float8_u __attribute__((aligned(4))); /* unaligned vectors */
typedef float4 float4_u __attribute__((aligned(4)));
typedef float2 float2_u __attribute__((aligned(4)));
#endif
/* rows of the row-vector path: TAPS^(R-1) */
#if R == 1
#define NR 1
#elif R == 2
#define NR (TAPS)
#else
#define NR (TAPS * TAPS)
#endif


typedef int8 intv;
typedef float8 coordv;
typedef int8 cmaskv;
typedef float8 accv;
typedef int8 amaskv;

inline acc_t lane8(accv v, int k) {
    return k == 0 ? v.s0 : k == 1 ? v.s1 : k == 2 ? v.s2 : k == 3 ? v.s3 : k == 4 ? v.s4
           : k == 5 ? v.s5 : k == 6 ? v.s6 : v.s7;
}
#if WK_CPU && X_KIND == WK_F32
#define STORE8(yc, acc) *(__global float8_u *)(yc) = (acc);
#else
#define STORE8(yc, acc) \
    STORE_X(yc, 0, (acc).s0); STORE_X(yc, 1, (acc).s1); STORE_X(yc, 2, (acc).s2); STORE_X(yc, 3, (acc).s3); \
    STORE_X(yc, 4, (acc).s4); STORE_X(yc, 5, (acc).s5); STORE_X(yc, 6, (acc).s6); STORE_X(yc, 7, (acc).s7);
#endif

WK_VINLINE coordv wk_minv(coordv a, coordv b) { return a < b ? a : b; }
WK_VINLINE coordv wk_maxv(coordv a, coordv b) { return a > b ? a : b; }
WK_VINLINE intv wk_clampv(intv v, int lo, int hi) {
    v = v < lo ? (intv)lo : v;
    return v > hi ? (intv)hi : v;
}

/* wk_reflect for 8 finite coordinates */
WK_VINLINE coordv wk_reflect_v(coordv x, coord_t lo, coord_t hi) {
    coord_t rng = hi - lo;
    if (rng == (coord_t)0) return (coordv)0;
    cmaskv below = x < lo;
    coordv dx = below ? (coordv)lo - x : x - (coordv)hi;
    cmaskv outside = dx > 0;
    dx = outside ? dx : (coordv)0;
    /* a reciprocal instead of a division: where it makes k one too small (dx an exact multiple
     * of rng), r becomes rng and the parity flips, which lands on the same point */
    coordv q = dx * ((coord_t)1 / rng);
    cmaskv big = q >= (coord_t)0x1p30f; /* beyond 2^30 a float is an even integer; a double may
                                           not be, but its reflection is noise anyway */
    intv ki = CV(big ? (coordv)0 : q, intv);
    coordv k = big ? q : CV(ki, coordv);
    cmaskv odd = CV((ki & 1) != 0, cmaskv) & ~big;
    coordv r = wk_minv(wk_maxv(dx - k * rng, (coordv)0), (coordv)rng);
    /* below and even, or above and odd: measured from lo */
    cmaskv from_lo = below ^ odd;
    coordv res = WK_SELECT((coordv)hi - r, (coordv)lo + r, from_lo);
    res = wk_minv(wk_maxv(res, (coordv)lo), (coordv)hi);
    return WK_SELECT(x, res, outside);
}

WK_VINLINE intv wk_tap_v(intv i, int d, int pad, coord_t lo, coord_t hi, intv *valid) {
    if (pad == PAD_ZEROS) {
        *valid = (i >= 0) & (i < d);
        return wk_clampv(i, 0, d - 1);
    }
    *valid = (intv)-1;
    if (pad == PAD_BORDER) return wk_clampv(i, 0, d - 1);
    if (d >= 3) {
        /* after the coordinate pre-pass a tap is at most 2 outside: one mirror suffices
         * (align_corners=0 mirrors about -0.5 and d-0.5, align_corners=1 about 0 and d-1) */
        const int off = lo == (coord_t)0 ? 0 : 1;
        intv m = i < 0 ? -i - off : i;
        m = m > d - 1 ? (intv)(2 * d - 2 + off) - m : m;
        return wk_clampv(m, 0, d - 1);
    }
    return wk_clampv(CV(wk_reflect_v(CV(i, coordv), lo, hi), intv), 0, d - 1);
}

/* the taps of 8 positions on one axis; returns the lanes that are usable (not NaN, and not inf
 * under reflection) as -1, the others as 0 (their taps are harmless). */
WK_VINLINE intv wk_axis_taps_v(coordv g, int d, int pad, int align, intv *idx, accv *w, intv *valid) {
    coord_t dd = (coord_t)d;
    coordv x = align ? (g + 1) / 2 * (dd - 1) : ((g + 1) * dd - 1) / 2;
    cmaskv ok = x == x;
#if MODE == MODE_NEAREST
    x = wk_rint_f8(x);
#endif
    coord_t lo = align ? (coord_t)0 : (coord_t)-0.5;
    coord_t hi = align ? dd - 1 : dd - (coord_t)0.5;
    if (pad == PAD_REFLECTION) {
        ok &= (x - x) == (x - x); /* inf acts as NaN */
        x = ok ? x : (coordv)0;
        x = wk_reflect_v(x, lo, hi);
    } else {
        x = ok ? x : (coordv)0;
#if MODE != MODE_CUBIC
        if (pad == PAD_BORDER) x = wk_minv(wk_maxv(x, (coordv)0), (coordv)(dd - 1));
#endif
    }
    x = wk_minv(wk_maxv(x, (coordv)-4), (coordv)(dd + 3));
    intv x0 = CV(x, intv);
#if MODE == MODE_NEAREST
    idx[0] = wk_tap_v(x0, d, pad, lo, hi, &valid[0]);
    w[0] = (accv)1;
#else
    x0 += CV(x < CV(x0, coordv), intv); /* floor: true is -1 */
    accv t = CV(x, accv) - CV(x0, accv);
#if MODE == MODE_LINEAR
    w[0] = 1 - t;
    w[1] = t;
    idx[0] = wk_tap_v(x0, d, pad, lo, hi, &valid[0]);
    idx[1] = wk_tap_v(x0 + 1, d, pad, lo, hi, &valid[1]);
#else
    WK_KEYS_WEIGHTS(acc_t, t, w);
#pragma unroll
    for (int k = 0; k < 4; k++) idx[k] = wk_tap_v(x0 - 1 + k, d, pad, lo, hi, &valid[k]);
#endif
#endif
    return CV(ok, intv);
}

#define LANES(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7)

/* Every combination of the taps of axes TOP..0 (TAPS per axis, the last axis varying fastest):
 * its offset (from BASE), weight and mask, into OFF[k], WT[k], MASK[k] for k < COUNT. */
#define WK_COMBINE_TAPS(COUNT, TOP, BASE, OFF, WT, MASK)                                    \
    _Pragma("unroll") for (int k = 0; k < (COUNT); k++) {                                   \
        int kk = k;                                                                         \
        intv o = (BASE), m = (intv)-1;                                                      \
        accv wt = (accv)1;                                                                  \
        _Pragma("unroll") for (int a = (TOP); a >= 0; a--) {                                \
            int j = kk % TAPS;                                                              \
            kk /= TAPS;                                                                     \
            o += idx[a][j] * xs[a];                                                         \
            wt *= w[a][j];                                                                  \
            m &= valid[a][j];                                                               \
        }                                                                                   \
        OFF[k] = o;                                                                         \
        WT[k] = wt;                                                                         \
        MASK[k] = CV(m, amaskv);                                                            \
    }

/* dims: in sizes (d1..dR) and X strides (elements) of the spatial axes, outermost first;
 * odims: output sizes; gstr: grid strides of the spatial axes; sgk: stride of grid's last axis. */
/* restrict matters here (PoCL's cubic path runs 1.5x faster with it), but inlining a function
 * with restrict parameters emits llvm.experimental.noalias.scope.decl, which Oclgrind cannot run */
#if WK_SIM
#define WK_FN_RESTRICT
#else
#define WK_FN_RESTRICT restrict
#endif
WK_VINLINE void gs_v_row(__global const X_PTR_T *WK_FN_RESTRICT X, long x_off, long sxn, long sxc,
                            int4 in_dims, int4 xstr,
                            __global const G_PTR_T *WK_FN_RESTRICT G, long g_off, long sgn, long4 gstr,
                            long sgk,
                            __global X_PTR_T *WK_FN_RESTRICT Y, long y_off, int C, int4 odims,
                            int pad, int align, const int Wout, const int row, const int n, const int wo0) {
    const int din[3] = {in_dims.s0, in_dims.s1, in_dims.s2};
    const int xs[3] = {xstr.s0, xstr.s1, xstr.s2};
    /* the outer output indices of this row, and the grid address of its first position */
    long gbase = g_off + n * sgn;
#if R == 2
    gbase += row * gstr.s0;
#elif R == 3
    gbase += (row / odims.s1) * gstr.s0 + (row % odims.s1) * gstr.s1;
#endif
    const long gw = R == 1 ? gstr.s0 : (R == 2 ? gstr.s1 : gstr.s2);
    const long plane = (long)odims.s0 * (R >= 2 ? odims.s1 : 1) * (R >= 3 ? odims.s2 : 1);
    __global const X_PTR_T *xn = X + x_off + n * sxn;
    __global X_PTR_T *yrow = Y + y_off + (long)n * C * plane + (long)row * Wout + wo0;

    /* lanes past the end of the row repeat the last position and are not stored */
    const int nl = Wout - wo0 < 8 ? Wout - wo0 : 8;
    intv ok = (intv)-1;
    intv idx[R][TAPS], valid[R][TAPS];
    accv w[R][TAPS];
    coordv gv[R]; /* gv[a]: the coordinate of X's spatial axis a (grid lists them innermost first) */
#if WK_CPU && GRID_PACKED && G_KIND == WK_F32
    if (nl == 8) { /* the grid's last two axes are packed: 8 positions are 8*R consecutive floats */
        __global const float *gp = G + gbase + wo0 * R;
#if R == 1
        gv[0] = *(__global const float8_u *)gp;
#elif R == 2
        float8 p0 = *(__global const float8_u *)gp, p1 = *(__global const float8_u *)(gp + 8);
        gv[1] = (float8)(p0.even, p1.even);
        gv[0] = (float8)(p0.odd, p1.odd);
#else
        float8 p0 = *(__global const float8_u *)gp, p1 = *(__global const float8_u *)(gp + 8),
               p2 = *(__global const float8_u *)(gp + 16);
        gv[2] = (float8)(p0.s0, p0.s3, p0.s6, p1.s1, p1.s4, p1.s7, p2.s2, p2.s5);
        gv[1] = (float8)(p0.s1, p0.s4, p0.s7, p1.s2, p1.s5, p2.s0, p2.s3, p2.s6);
        gv[0] = (float8)(p0.s2, p0.s5, p1.s0, p1.s3, p1.s6, p2.s1, p2.s4, p2.s7);
#endif
    } else
#endif
    {
#pragma unroll
        for (int a = 0; a < R; a++) {
            __global const G_PTR_T *gp = G + gbase + (R - 1 - a) * sgk + wo0 * gw;
            if (nl == 8) {
                gv[a] = (coordv)(LOAD_G(gp, 0), LOAD_G(gp, gw), LOAD_G(gp, 2 * gw), LOAD_G(gp, 3 * gw),
                                 LOAD_G(gp, 4 * gw), LOAD_G(gp, 5 * gw), LOAD_G(gp, 6 * gw),
                                 LOAD_G(gp, 7 * gw));
            } else { /* lanes past the row's end repeat its last position */
#define GL(k) LOAD_G(gp, (k < nl ? k : nl - 1) * gw)
                gv[a] = (coordv)(GL(0), GL(1), GL(2), GL(3), GL(4), GL(5), GL(6), GL(7));
#undef GL
            }
        }
    }
#pragma unroll
    for (int a = 0; a < R; a++) ok &= wk_axis_taps_v(gv[a], din[a], pad, align, idx[a], w[a], valid[a]);

#if MODE == MODE_NEAREST
    intv off = (intv)0, v = ok;
#pragma unroll
    for (int a = 0; a < R; a++) {
        off += idx[a][0] * xs[a];
        v &= valid[a][0];
    }
#if WK_CPU && X_KIND == WK_F32
    if (nl == 8) { /* gather into a vector, select, one vector store */
        for (int c = 0; c < C; c++) {
            __global const float *src = (__global const float *)xn + c * sxc;
            float8 val = (float8)(src[off.s0], src[off.s1], src[off.s2], src[off.s3], src[off.s4],
                                  src[off.s5], src[off.s6], src[off.s7]);
            val = v ? val : (float8)0;
            *(__global float8_u *)((__global float *)yrow + c * plane) = ok ? val : (float8)NAN;
        }
        return;
    }
#endif
    for (int c = 0; c < C; c++) {
        __global const X_T *src = (__global const X_T *)xn + c * sxc;
        __global X_T *dst = (__global X_T *)yrow + c * plane;
/* load first (every offset is in bounds), then select: a load inside ?: becomes a branch */
#define NST(k) { X_T val = src[off.s##k]; dst[k] = ok.s##k ? (v.s##k ? val : (X_T)0) : X_NAN_RAW; }
        if (nl == 8) {
            LANES(NST)
        } else {
#define NSTT(k) if (k < nl) NST(k)
            LANES(NSTT)
#undef NSTT
        }
#undef NST
    }
#else
    const amaskv okm = CV(ok, amaskv);
#define STORE_ACC(yc, acc)                                                                    \
    if (nl == 8) {                                                                            \
        STORE8(yc, acc)                                                                       \
    } else {                                                                                  \
        _Pragma("unroll") for (int k_ = 0; k_ < 8; k_++) if (k_ < nl) STORE_X(yc, k_, lane8(acc, k_)); \
    }
#if WK_CPU && X_KIND == WK_F32 && R >= 2
    /* Row vectors: where X's innermost axis is contiguous and holds at least TAPS pixels, every
     * padded tap of a position lies in the TAPS pixels from bx = clamp(first tap, 0, d - TAPS):
     * read them as one float2 / float4 per row instead of TAPS scalars, and give each of the TAPS
     * pixels the summed weight of the taps that landed on it (border and reflection can land two
     * taps on one pixel). */
    if (xs[R - 1] == 1 && din[R - 1] >= TAPS && xs[0] >= 0 && xs[R - 2] >= 0) {
        /* (offsets are then >= 0, read as unsigned below) */
        const int dx = din[R - 1];
        intv bx = idx[R - 1][0];
#pragma unroll
        for (int t = 1; t < TAPS; t++) bx = idx[R - 1][t] < bx ? idx[R - 1][t] : bx;
        bx = wk_clampv(bx, 0, dx - TAPS); /* the padded taps span at most TAPS pixels */
        accv we[TAPS];
        amaskv me[TAPS];
#pragma unroll
        for (int e = 0; e < TAPS; e++) {
            we[e] = (accv)0;
            intv m = (intv)0;
#pragma unroll
            for (int t = 0; t < TAPS; t++) {
                intv hit = (idx[R - 1][t] == bx + e) & valid[R - 1][t];
                we[e] += CV(hit, amaskv) ? w[R - 1][t] : (accv)0;
                m |= hit;
            }
            me[e] = CV(m, amaskv);
        }
        /* the rows: every combination of the outer axes' taps */
        intv roff[NR];
        accv rw[NR];
        amaskv rm[NR];
        WK_COMBINE_TAPS(NR, R - 2, bx, roff, rw, rm)
        for (int c = 0; c < C; c++) {
#if TAPS == 2 /* fused multiply-adds: linear 1.2x faster, cubic 1.2x slower on PoCL 3.0 */
#pragma OPENCL FP_CONTRACT ON
#endif
            __global const float *xc = (__global const float *)xn + c * sxc;
            accv acc = (accv)0;
#pragma unroll
            for (int k = 0; k < NR; k++) {
                intv o = roff[k];
#if TAPS == 2
                /* two 4-byte reads per lane from two bases with the same offsets (one 8-byte
                 * read per lane needed a shuffle network to split; measured slower) */
                const uint8 uo = as_uint8(o);
                __global const float *xc1 = xc + 1;
                accv v0 = (float8)(xc[uo.s0], xc[uo.s1], xc[uo.s2], xc[uo.s3], xc[uo.s4], xc[uo.s5],
                                   xc[uo.s6], xc[uo.s7]);
                accv v1 = (float8)(xc1[uo.s0], xc1[uo.s1], xc1[uo.s2], xc1[uo.s3], xc1[uo.s4],
                                   xc1[uo.s5], xc1[uo.s6], xc1[uo.s7]);
                accv rv = we[0] * (me[0] ? v0 : (accv)0) + we[1] * (me[1] ? v1 : (accv)0);
#else
                float4 q0 = *(__global const float4_u *)(xc + o.s0), q1 = *(__global const float4_u *)(xc + o.s1),
                       q2 = *(__global const float4_u *)(xc + o.s2), q3 = *(__global const float4_u *)(xc + o.s3),
                       q4 = *(__global const float4_u *)(xc + o.s4), q5 = *(__global const float4_u *)(xc + o.s5),
                       q6 = *(__global const float4_u *)(xc + o.s6), q7 = *(__global const float4_u *)(xc + o.s7);
                accv v0 = (float8)(q0.s0, q1.s0, q2.s0, q3.s0, q4.s0, q5.s0, q6.s0, q7.s0);
                accv v1 = (float8)(q0.s1, q1.s1, q2.s1, q3.s1, q4.s1, q5.s1, q6.s1, q7.s1);
                accv v2 = (float8)(q0.s2, q1.s2, q2.s2, q3.s2, q4.s2, q5.s2, q6.s2, q7.s2);
                accv v3 = (float8)(q0.s3, q1.s3, q2.s3, q3.s3, q4.s3, q5.s3, q6.s3, q7.s3);
                accv rv = we[0] * (me[0] ? v0 : (accv)0) + we[1] * (me[1] ? v1 : (accv)0) +
                          we[2] * (me[2] ? v2 : (accv)0) + we[3] * (me[3] ? v3 : (accv)0);
#endif
                acc += rw[k] * (rm[k] ? rv : (accv)0);
            }
            acc = okm ? acc : (accv)NAN;
            __global X_PTR_T *yc = yrow + c * plane;
            STORE_ACC(yc, acc)
        }
        return;
    }
#endif
    /* combine the per-axis taps into TAPS^R (offset, weight, mask) vectors, once */
    intv toff[NT];
    accv tw[NT];
    amaskv tm[NT];
    WK_COMBINE_TAPS(NT, R - 1, (intv)0, toff, tw, tm)
    for (int c = 0; c < C; c++) {
        __global const X_PTR_T *xc = xn + c * sxc;
        accv acc = (accv)0;
#pragma unroll
        for (int k = 0; k < NT; k++) {
            intv o = toff[k];
            accv val = (accv)(LOAD_X(xc, o.s0), LOAD_X(xc, o.s1), LOAD_X(xc, o.s2), LOAD_X(xc, o.s3),
                              LOAD_X(xc, o.s4), LOAD_X(xc, o.s5), LOAD_X(xc, o.s6), LOAD_X(xc, o.s7));
            acc += tw[k] * (tm[k] ? val : (accv)0);
        }
        acc = okm ? acc : (accv)NAN;
        __global X_PTR_T *yc = yrow + c * plane;
        STORE_ACC(yc, acc)
    }
#endif
}
__kernel void grid_sample_v(__global const X_PTR_T *restrict X, long x_off, long sxn, long sxc,
                            int4 in_dims, int4 xstr,
                            __global const G_PTR_T *restrict G, long g_off, long sgn, long4 gstr,
                            long sgk,
                            __global X_PTR_T *restrict Y, long y_off, int C, int4 odims,
                            int pad, int align) {
    const int Wout = R == 1 ? odims.s0 : (R == 2 ? odims.s1 : odims.s2);
    const int wo0 = (int)get_global_id(0) * 8;
    const int row = (int)get_global_id(1);
    const int n = (int)get_global_id(2);
    if (wo0 >= Wout) return;
#if MODE == MODE_CUBIC
    /* a (one-trip) loop around the body: PoCL 3.0 compiles the cubic body 1.5x faster inside one
     * (and the linear and nearest bodies 1.2x slower) */
    const int rows = R == 1 ? 1 : (R == 2 ? odims.s0 : odims.s0 * odims.s1);
    for (int r = row; r < rows && r < row + 1; r++)
        gs_v_row(X, x_off, sxn, sxc, in_dims, xstr, G, g_off, sgn, gstr, sgk, Y, y_off, C, odims,
                 pad, align, Wout, r, n, wo0);
#else
    gs_v_row(X, x_off, sxn, sxc, in_dims, xstr, G, g_off, sgn, gstr, sgk, Y, y_off, C, odims, pad,
             align, Wout, row, n, wo0);
#endif
}
#endif

/* ONNX GridSample for any spatial rank R, every mode, padding and dtype (rules: docs/semantics.md).
 *
 * Specialised at build time on what changes the inner loop: R, MODE and the storage/compute types
 * (warpkit.h). Padding, align_corners, sizes and strides are arguments.
 *
 * One work-item computes PIX consecutive output positions (flattened over the R output axes) of one
 * batch item: it works out the taps (indices and weights) of a position once and applies them to
 * every channel.
 */
#include "warpkit.h"
#include "sampling.h"

#ifndef R
#define R 2
#endif
#ifndef PIX
#define PIX 4
#endif

/* padding_mode (the coordinate pre-pass; numbered by warpkit/_options.py); taps pad with
 * sampling.h's modes (wk_tap_pad) */
#define PAD_ZEROS GS_PAD_ZEROS
#define PAD_BORDER GS_PAD_BORDER
#define PAD_REFLECTION GS_PAD_REFLECTION

/* the tap padding of a padding_mode: reflection mirrors taps about the outer edges
 * (align_corners=0: lo = -0.5, hi = d - 0.5) or the edge pixels' centres (align_corners=1) */
inline int wk_tap_pad(int pad, int align) {
    return pad == PAD_REFLECTION ? (align ? WK_PAD_REFLECT_101 : WK_PAD_REFLECT)
                                 : (pad == PAD_BORDER ? WK_PAD_BORDER : WK_PAD_ZEROS);
}

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

/* reflect x into [lo, hi] (docs/semantics.md step 3); x finite. A size-1 axis with align_corners
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


/* the source coordinate of a normalized grid value on an axis of size d (wk_unnorm_v: 8 of them) */
inline coord_t wk_unnorm(coord_t g, int d, int align) {
    const coord_t dd = (coord_t)d;
    return align ? (g + 1) / 2 * (dd - 1) : ((g + 1) * dd - 1) / 2;
}

/* Per-axis taps of one position. Returns 0 when the position is NaN (or inf under reflection). */
inline int wk_axis_taps(coord_t g, int d, int pad, int align, int *idx, acc_t *w, int *valid) {
    coord_t dd = (coord_t)d;
    coord_t x = wk_unnorm(g, d, align);
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
    const int tp = wk_tap_pad(pad, align);
#if MODE == MODE_NEAREST
    const int first = (int)x;
    wk_tap_weights(0, w);
#else
    const int x0 = wk_floori(x);
    /* weights in acc_t: double for wide integers, even with float coordinates */
    wk_tap_weights((acc_t)x - (acc_t)x0, w);
    const int first = MODE == MODE_CUBIC ? x0 - 1 : x0;
#endif
    for (int k = 0; k < TAPS; k++) idx[k] = wk_pad_tap(first + k, d, tp, &valid[k]);
    return 1;
}

/* meta (long): in_dims[R], x_strides[R], out_dims[R], grid_strides[R] (elements)
 * X:    element (n, c, i_1..i_R) at x_off + n*sxn + c*sxc + sum i_a * x_strides[a]
 * grid: element (n, o_1..o_R, k) at g_off + n*sgn + sum o_a * grid_strides[a] + k*sgk
 * Y:    contiguous (N, C, out...), element (n, c, o) at y_off + ((n*C + c) * out_sp + o) */
#if !WK_ONE_KERNEL || defined(WK_KERNEL_grid_sample)
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
#endif


#if R <= 3 && !COORD_DOUBLE && !ACC_DOUBLE
/* ---- The fast path for ranks 1-3 (float math; double math takes the general kernel: PoCL 3.0
 * could not reload double8 programs from its kernel cache): 8 output positions per work-item, as vectors ------------------
 * One work-item computes 8 consecutive positions along the last output axis of one (n, outer
 * output index) row: coordinates, taps and weights are computed as 8-wide vectors (PoCL does not
 * vectorize across work-items), then each channel gathers its taps. In-plane offsets fit an int
 * (checked on the host). NDRange: (ceil(W_out / 8), prod(other output axes), N). */

#define WK_VINLINE inline __attribute__((always_inline))
#ifndef WK_SIM
#define WK_SIM 0 /* 1: the Oclgrind simulator */
#endif
/* (WK_SELECT: warpkit.h's, ?: on PoCL, select() elsewhere) */
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
/* planes of the linear quad path: TAPS^(R-2) */
#define NP (R == 3 ? TAPS : 1)


typedef int8 intv;
typedef float8 coordv;
typedef int8 cmaskv;
typedef float8 accv;
typedef int8 amaskv;

inline acc_t lane8(accv v, int k) {
    return k == 0 ? v.s0 : k == 1 ? v.s1 : k == 2 ? v.s2 : k == 3 ? v.s3 : k == 4 ? v.s4
           : k == 5 ? v.s5 : k == 6 ? v.s6 : v.s7;
}
#if WK_CPU && WK_BUILTINS && defined(__clang__) && defined(__x86_64__)
/* Non-temporal stores are weakly ordered: a work-group's last work-item (PoCL runs a group's
 * work-items in order on one thread) fences them before the group is reported done. */
#define WK_NT_FENCE(nt)                                                                       \
    if ((nt) && get_local_id(0) == get_local_size(0) - 1 && get_local_id(1) == get_local_size(1) - 1) \
        __builtin_ia32_sfence();
#else
#define WK_NT_FENCE(nt)
#endif
#if WK_CPU
/* 8 floats at p; nt: non-temporal (past the caches, without first reading the lines in), where
 * p is 32-byte aligned. For large outputs that no cache can keep anyway: linear GridSample
 * 1.14x, cubic 1.11x (8x3x512x512 on PoCL 3.0). */
WK_VINLINE void wk_store8f(__global float *p, float8 v, int nt) {
#if WK_BUILTINS && defined(__clang__)
    if (nt && ((ulong)p & 31) == 0) {
        __builtin_nontemporal_store(v, (__global float8 *)p);
        return;
    }
#endif
    *(__global float8_u *)p = v;
}
#endif
#if WK_CPU && X_KIND == WK_F32
#define STORE8(yc, acc) wk_store8f((__global float *)(yc), (acc), nt);
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


/* the source coordinates of 8 normalized grid values on an axis of size d */
WK_VINLINE coordv wk_unnorm_v(coordv g, int d, int align) {
    const coord_t dd = (coord_t)d;
    return align ? (g + 1) / 2 * (dd - 1) : ((g + 1) * dd - 1) / 2;
}

/* the taps of 8 positions on one axis from their source coordinates x (wk_unnorm_v); returns the
 * lanes that are usable (not NaN, and not inf under reflection) as -1, the others as 0 (their taps
 * are harmless). */
WK_VINLINE intv wk_axis_taps_v(coordv x, int d, int pad, int align, intv *idx, accv *w, intv *valid) {
    coord_t dd = (coord_t)d;
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
    /* after the pre-pass a tap is at most 2 outside [0, d - 1] */
    const int tp = wk_tap_pad(pad, align);
#if MODE == MODE_NEAREST
    idx[0] = wk_pad_tap8_near(x0, d, tp, &valid[0]);
    w[0] = (accv)1;
#else
    x0 += CV(x < CV(x0, coordv), intv); /* floor: true is -1 */
    accv t = CV(x, accv) - CV(x0, accv);
#if MODE == MODE_LINEAR
    w[0] = 1 - t;
    w[1] = t;
    idx[0] = wk_pad_tap8_near(x0, d, tp, &valid[0]);
    idx[1] = wk_pad_tap8_near(x0 + 1, d, tp, &valid[1]);
#else
    WK_KEYS_WEIGHTS(acc_t, t, w);
#pragma unroll
    for (int k = 0; k < 4; k++) idx[k] = wk_pad_tap8_near(x0 - 1 + k, d, tp, &valid[k]);
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

/* The TAPS pixels from b = clamp(first tap, 0, d - TAPS) hold every padded tap of a position
 * (d >= TAPS): returns b, and gives each of those pixels the summed weight of the taps that landed
 * on it (border and reflection can land two taps on one pixel) and a mask of whether any did. */
WK_VINLINE intv wk_span_v(const intv *idx, const intv *valid, const accv *w, int d, accv *we,
                          amaskv *me) {
    intv b = idx[0];
#pragma unroll
    for (int t = 1; t < TAPS; t++) b = idx[t] < b ? idx[t] : b;
    b = wk_clampv(b, 0, d - TAPS);
#pragma unroll
    for (int e = 0; e < TAPS; e++) {
        we[e] = (accv)0;
        intv m = (intv)0;
#pragma unroll
        for (int t = 0; t < TAPS; t++) {
            intv hit = (idx[t] == b + e) & valid[t];
            we[e] += CV(hit, amaskv) ? w[t] : (accv)0;
            m |= hit;
        }
        me[e] = CV(m, amaskv);
    }
    return b;
}

/* results of one channel: 8, or the first nl of them (a row's last block), non-temporal if nt */
#define STORE_ACC(yc, acc)                                                                    \
    if (nl == 8) {                                                                            \
        STORE8(yc, acc)                                                                       \
    } else {                                                                                  \
        _Pragma("unroll") for (int k_ = 0; k_ < 8; k_++) if (k_ < nl) STORE_X(yc, k_, lane8(acc, k_)); \
    }

/* channel c's results, NaN where the position was unusable (okm false) */
#define STORE_CHANNEL(c, acc, okm)                                                            \
    {                                                                                         \
        const accv r_ = (okm) ? (acc) : (accv)NAN;                                            \
        __global X_PTR_T *yc_ = yrow + (c) * plane;                                           \
        STORE_ACC(yc_, r_)                                                                    \
    }

/* restrict matters here (PoCL's cubic path runs 1.5x faster with it), but inlining a function
 * with restrict parameters emits llvm.experimental.noalias.scope.decl, which Oclgrind cannot run */
#if WK_SIM
#define WK_FN_RESTRICT
#else
#define WK_FN_RESTRICT restrict
#endif

/* The channel loops. Each takes its taps' masks as arguments: the interior path passes
 * constant all-true masks, which the compiler folds away after inlining. */
#if MODE == MODE_NEAREST
/* one gather per position and channel; v: the tap is inside X (else 0), ok: usable (else NaN) */
WK_VINLINE void gs_v_nearest(__global const X_PTR_T *WK_FN_RESTRICT xn, long sxc, int C, intv off,
                             intv v, intv ok, __global X_PTR_T *WK_FN_RESTRICT yrow, long plane,
                             int nl, int nt) {
#if WK_CPU && X_KIND == WK_F32
    if (nl == 8) { /* gather into a vector, select, one vector store */
        for (int c = 0; c < C; c++) {
            __global const float *src = (__global const float *)xn + c * sxc;
            float8 val = (float8)(src[off.s0], src[off.s1], src[off.s2], src[off.s3], src[off.s4],
                                  src[off.s5], src[off.s6], src[off.s7]);
            val = v ? val : (float8)0;
            wk_store8f((__global float *)yrow + c * plane, ok ? val : (float8)NAN, nt);
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
}
#endif

#if WK_CPU && X_KIND == WK_F32 && R >= 2 && TAPS == 2
/* Linear quads: a position's four taps are the 2x2 pixels at one offset (per plane of the outer
 * axis), read as two 8-byte pairs (rows o and o + sy). Lanes j and j + 4 share a vector (their
 * 2x2 blocks side by side), weighted per pixel (wx/wy: the weights of the pixel pair on each
 * axis, mx/my: whether a tap landed on it), and three pairwise-add levels (vhaddps) sum each
 * block in lane order. Offsets are >= 0 (non-negative strides): read as unsigned. */
WK_VINLINE void gs_v_quads(__global const X_PTR_T *WK_FN_RESTRICT xn, long sxc, int C, int sy,
                           const intv *poff, const accv *pw, const amaskv *pm, accv wx0, accv wx1,
                           accv wy0, accv wy1, amaskv mx0, amaskv mx1, amaskv my0, amaskv my1,
                           amaskv okm, __global X_PTR_T *WK_FN_RESTRICT yrow, long plane, int nl,
                           int nt) {
#pragma OPENCL FP_CONTRACT ON
    /* per-pixel weights and masks in the pair layout: (y0x0, y0x1, y1x0, y1x1) of lane j, then
     * the same of lane j + 4 */
    const accv a00 = wy0 * wx0, a01 = wy0 * wx1, a10 = wy1 * wx0, a11 = wy1 * wx1;
    const amaskv m00 = my0 & mx0, m01 = my0 & mx1, m10 = my1 & mx0, m11 = my1 & mx1;
#define QW(j, k) (float8)(a00.s##j, a01.s##j, a10.s##j, a11.s##j, a00.s##k, a01.s##k, a10.s##k, a11.s##k)
#define QM(j, k) (int8)(m00.s##j, m01.s##j, m10.s##j, m11.s##j, m00.s##k, m01.s##k, m10.s##k, m11.s##k)
    const float8 W0 = QW(0, 4), W1 = QW(1, 5), W2 = QW(2, 6), W3 = QW(3, 7);
    const int8 M0 = QM(0, 4), M1 = QM(1, 5), M2 = QM(2, 6), M3 = QM(3, 7);
#undef QW
#undef QM
    for (int c = 0; c < C; c++) {
        __global const float *r0 = (__global const float *)xn + c * sxc;
        __global const float *r1 = r0 + sy;
        accv acc = (accv)0;
#pragma unroll
        for (int k = 0; k < NP; k++) {
            const uint8 uo = as_uint8(poff[k]);
#define QV(j, l) (float8)(*(__global const float2_u *)(r0 + uo.s##j), *(__global const float2_u *)(r1 + uo.s##j), \
                          *(__global const float2_u *)(r0 + uo.s##l), *(__global const float2_u *)(r1 + uo.s##l))
            const float8 p0 = as_float8(as_int8(QV(0, 4)) & M0) * W0;
            const float8 p1 = as_float8(as_int8(QV(1, 5)) & M1) * W1;
            const float8 p2 = as_float8(as_int8(QV(2, 6)) & M2) * W2;
            const float8 p3 = as_float8(as_int8(QV(3, 7)) & M3) * W3;
#undef QV
            const float8 h01 = (float8)(p0.s0, p0.s2, p1.s0, p1.s2, p0.s4, p0.s6, p1.s4, p1.s6) +
                               (float8)(p0.s1, p0.s3, p1.s1, p1.s3, p0.s5, p0.s7, p1.s5, p1.s7);
            const float8 h23 = (float8)(p2.s0, p2.s2, p3.s0, p3.s2, p2.s4, p2.s6, p3.s4, p3.s6) +
                               (float8)(p2.s1, p2.s3, p3.s1, p3.s3, p2.s5, p2.s7, p3.s5, p3.s7);
            const float8 q = (float8)(h01.s0, h01.s2, h23.s0, h23.s2, h01.s4, h01.s6, h23.s4, h23.s6) +
                             (float8)(h01.s1, h01.s3, h23.s1, h23.s3, h01.s5, h01.s7, h23.s5, h23.s7);
#if R == 2
            acc = q;
#else
            acc += pw[k] * (pm[k] ? q : (accv)0);
#endif
        }
        STORE_CHANNEL(c, acc, okm)
    }
}
#endif

#if WK_CPU && X_KIND == WK_F32 && R >= 2
/* Row vectors: the TAPS pixels of a position on the innermost axis from offset roff[k] of each
 * of the NR rows (the combinations of the outer axes' taps), read as one float4 (cubic) or two
 * scalars (linear) per row; we/me: the weights and masks of those pixels, rw/rm: of the rows. */
WK_VINLINE void gs_v_rows(__global const X_PTR_T *WK_FN_RESTRICT xn, long sxc, int C,
                          const intv *roff, const accv *rw, const amaskv *rm, const accv *we,
                          const amaskv *me, amaskv okm, __global X_PTR_T *WK_FN_RESTRICT yrow,
                          long plane, int nl, int nt) {
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
            /* two 4-byte reads per lane from two bases with the same offsets */
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
        STORE_CHANNEL(c, acc, okm)
    }
}
#endif

#define GS_PREFETCH (WK_CPU && WK_BUILTINS && R == 2 && GRID_PACKED && G_KIND == WK_F32 && X_KIND == WK_F32 && \
                     MODE != MODE_CUBIC)
#if GS_PREFETCH
/* How far ahead to prefetch, in output rows (measured best from 5 to 8 on PoCL 3.0). */
#define GS_PF_ROWS 6
/* Prefetch X (each channel, up to 4) under the first position of this block GS_PF_ROWS output rows
 * further down, when this output row crosses source rows (its two ends lie two or more source
 * rows apart). A slanted row visits each source row for a few pixels only, which defeats the
 * hardware prefetcher, and the source lines that a later output row reaches first are where its
 * misses come from; a row along the source rows streams well without help, and prefetching there
 * cost 5-10%. 8x3x512x512 float32, kernel time without -> with: random affine maps (the
 * benchmark) nearest 1.2-1.3x, linear 1.1-1.2x; rotations of 2-10 degrees, which ran 2-3x slower
 * than 0 or 30 degrees, 1.6-2.4x; 30 degrees and 90 degrees 0.93-1.0x (cubic, whose arithmetic
 * hides the misses, gained nothing). g: this row's grid (packed x, y pairs); prefetches never
 * fault, and the point is clamped only to keep the offset in range. */
WK_VINLINE void gs_v_prefetch_below(__global const float *xn, long sxc, int C, const int *din,
                                    const int *xs, __global const float *g, long sgh, int Wout,
                                    int wo0, int row, int Hout, int align) {
    const float dy = (g[2 * (Wout - 1) + 1] - g[1]) * (float)din[0]; /* 2 x source rows */
    if (!(dy >= 4.0f || dy <= -4.0f) || row + GS_PF_ROWS >= Hout) return;
    __global const float *q = g + GS_PF_ROWS * sgh + 2 * wo0;
    /* clamped into X (NaN -> 0): any strides then give an address inside it */
    const coord_t x = wk_minc(wk_maxc(wk_unnorm(q[0], din[1], align), 0), din[1] - 1);
    const coord_t y = wk_minc(wk_maxc(wk_unnorm(q[1], din[0], align), 0), din[0] - 1);
    __global const float *p = xn + (long)(int)y * xs[0] + (long)(int)x * xs[1];
    for (int c = 0; c < C && c < 4; c++) __builtin_prefetch(p + c * sxc);
}
#endif

/* dims: in sizes (d1..dR) and X strides (elements) of the spatial axes, outermost first;
 * odims: output sizes; gstr: grid strides of the spatial axes; sgk: stride of grid's last axis. */
WK_VINLINE void gs_v_row(__global const X_PTR_T *WK_FN_RESTRICT X, long x_off, long sxn, long sxc,
                            int4 in_dims, int4 xstr,
                            __global const G_PTR_T *WK_FN_RESTRICT G, long g_off, long sgn, long4 gstr,
                            long sgk,
                            __global X_PTR_T *WK_FN_RESTRICT Y, long y_off, int C, int4 odims,
                            int pad, int align, int nt, const int Wout, const int row, const int n, const int wo0) {
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
    coordv gv[R]; /* gv[a]: the grid value for X's spatial axis a (the grid lists them innermost
                   * first), then its source coordinate */
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
#if GS_PREFETCH
    gs_v_prefetch_below((__global const float *)xn, sxc, C, din, xs, G + gbase, gstr.s0, Wout, wo0,
                        row, odims.s0, align);
#endif
    /* from here on, source coordinates */
#pragma unroll
    for (int a = 0; a < R; a++) gv[a] = wk_unnorm_v(gv[a], din[a], align);
#if WK_CPU && X_KIND == WK_F32 && R >= 2
    /* X's innermost axis is contiguous and no stride is negative: the row paths' offsets are
     * >= 0 (read as unsigned) */
    const int rows_ok = xs[R - 1] == 1 && xs[0] >= 0 && xs[R - 2] >= 0;
#endif
#if MODE == MODE_NEAREST || (WK_CPU && X_KIND == WK_F32 && R >= 2)
    /* Whole-block shortcuts, each the general path's arithmetic bit for bit:
     * - interior: every tap of the 8 positions lies inside X on every axis, so no padding rule
     *   applies: the taps follow from the coordinates and every mask is true;
     * - border (nearest, linear): the clamped coordinates give the taps directly (linear: a
     *   position on the last pixel of an axis reads the pixel before it, masked);
     * - zeros: no position has a tap inside X: the result is 0. */
    {
        coordv xa[R];
        intv in = (intv)-1, fin = (intv)-1, out = (intv)0;
#pragma unroll
        for (int a = 0; a < R; a++) {
            const coord_t dd = (coord_t)din[a];
            coordv x = gv[a];
#if MODE == MODE_NEAREST
            x = wk_rint_f8(x);
            out |= (x < 0) | (x > dd - 1);
#elif MODE == MODE_LINEAR
            out |= (x < -1) | (x >= dd);
#else
            out |= (x < -2) | (x >= dd + 1);
#endif
            fin &= x == x;
#if MODE != MODE_CUBIC
            if (pad == PAD_BORDER) x = wk_minv(wk_maxv(x, (coordv)0), (coordv)(dd - 1));
#endif
#if MODE == MODE_NEAREST
            in &= (x >= 0) & (x <= dd - 1);
#elif MODE == MODE_LINEAR
            in &= (x >= 0) & (x < dd - 1);
#else
            in &= (x >= 1) & (x < dd - 2);
#endif
            xa[a] = x;
        }
        in &= fin;
        if (pad == PAD_ZEROS && wk_all8(out & fin)) {
#if MODE == MODE_NEAREST
            gs_v_nearest(xn, sxc, C, (intv)0, (intv)0, (intv)-1, yrow, plane, nl, nt);
#else
            for (int c = 0; c < C; c++) STORE_CHANNEL(c, (accv)0, (amaskv)-1)
#endif
            return;
        }
#if MODE == MODE_NEAREST
        if (wk_all8(in)) {
            intv off = (intv)0;
#pragma unroll
            for (int a = 0; a < R; a++) off += CV(xa[a], intv) * xs[a];
            gs_v_nearest(xn, sxc, C, off, (intv)-1, (intv)-1, yrow, plane, nl, nt);
            return;
        }
#else
        const amaskv all = (amaskv)-1;
        if (wk_all8(in) && rows_ok) {
#pragma unroll
            for (int a = 0; a < R; a++) { /* coordinates >= 0: truncation is the floor */
                const intv x0 = CV(xa[a], intv);
                const accv t = CV(xa[a], accv) - CV(x0, accv);
#if MODE == MODE_LINEAR
                w[a][0] = 1 - t;
                w[a][1] = t;
                idx[a][0] = x0;
                idx[a][1] = x0 + 1;
#else
                WK_KEYS_WEIGHTS(acc_t, t, w[a]);
#pragma unroll
                for (int k = 0; k < 4; k++) idx[a][k] = x0 - 1 + k;
#endif
#pragma unroll
                for (int k = 0; k < TAPS; k++) valid[a][k] = (intv)-1;
            }
#if MODE == MODE_LINEAR
            intv poff[NP];
            accv pw[NP];
            amaskv pm[NP];
            WK_COMBINE_TAPS(NP, R - 3, idx[R - 1][0] + idx[R - 2][0] * xs[R - 2], poff, pw, pm)
            gs_v_quads(xn, sxc, C, xs[R - 2], poff, pw, pm, w[R - 1][0], w[R - 1][1], w[R - 2][0],
                       w[R - 2][1], all, all, all, all, all, yrow, plane, nl, nt);
#else
            intv roff[NR];
            accv rw[NR];
            amaskv rm[NR];
            WK_COMBINE_TAPS(NR, R - 2, idx[R - 1][0], roff, rw, rm)
            const amaskv me[TAPS] = {all, all, all, all};
            gs_v_rows(xn, sxc, C, roff, rw, rm, w[R - 1], me, all, yrow, plane, nl, nt);
#endif
            return;
        }
#if MODE == MODE_LINEAR
        if (pad == PAD_BORDER && wk_all8(fin) && rows_ok && din[R - 1] >= 2 && din[R - 2] >= 2) {
            /* the general path's spans after the clamp: the pair from b = min(x0, d - 2) with
             * weights (1 - t, t), t = x - b; pixel b is no tap when x = d - 1 */
            accv wq[2][2];
            amaskv mq[2];
#pragma unroll
            for (int a = R - 2; a < R; a++) {
                const intv b = wk_clampv(CV(xa[a], intv), 0, din[a] - 2);
                const accv t = CV(xa[a], accv) - CV(b, accv);
                wq[a - (R - 2)][0] = 1 - t;
                wq[a - (R - 2)][1] = t;
                mq[a - (R - 2)] = CV(xa[a] < (coord_t)(din[a] - 1), amaskv);
                idx[a][0] = b;
            }
#if R == 3 /* the outer axis: its two taps as the general path has them */
            {
                const intv x0 = CV(xa[0], intv);
                const accv t = CV(xa[0], accv) - CV(x0, accv);
                w[0][0] = 1 - t;
                w[0][1] = t;
                idx[0][0] = x0;
                idx[0][1] = wk_clampv(x0 + 1, 0, din[0] - 1);
                valid[0][0] = valid[0][1] = (intv)-1;
            }
#endif
            intv poff[NP];
            accv pw[NP];
            amaskv pm[NP];
            WK_COMBINE_TAPS(NP, R - 3, idx[R - 1][0] + idx[R - 2][0] * xs[R - 2], poff, pw, pm)
            gs_v_quads(xn, sxc, C, xs[R - 2], poff, pw, pm, wq[1][0], wq[1][1], wq[0][0], wq[0][1],
                       mq[1], all, mq[0], all, all, yrow, plane, nl, nt);
            return;
        }
#endif
#endif
    }
#endif
#pragma unroll
    for (int a = 0; a < R; a++) ok &= wk_axis_taps_v(gv[a], din[a], pad, align, idx[a], w[a], valid[a]);

#if MODE == MODE_NEAREST
    intv off = (intv)0, v = ok;
#pragma unroll
    for (int a = 0; a < R; a++) {
        off += idx[a][0] * xs[a];
        v &= valid[a][0];
    }
    gs_v_nearest(xn, sxc, C, off, v, ok, yrow, plane, nl, nt);
#else
    const amaskv okm = CV(ok, amaskv);
#if WK_CPU && X_KIND == WK_F32 && R >= 2
    /* Spans: where X's innermost axis is contiguous and holds at least TAPS pixels, every padded
     * tap of a position lies in the TAPS pixels from bx = clamp(first tap, 0, d - TAPS) (see
     * wk_span_v): read them as one float4 (cubic) or a pair per row, and for linear with two
     * rows or more, the 2x2 pixels at bx + by * row stride as quads. */
    if (rows_ok && din[R - 1] >= TAPS) {
        accv we[TAPS];
        amaskv me[TAPS];
        const intv bx = wk_span_v(idx[R - 1], valid[R - 1], w[R - 1], din[R - 1], we, me);
#if TAPS == 2
        if (din[R - 2] >= 2) {
            accv wy[2];
            amaskv my[2];
            const intv by = wk_span_v(idx[R - 2], valid[R - 2], w[R - 2], din[R - 2], wy, my);
            intv poff[NP];
            accv pw[NP];
            amaskv pm[NP];
            WK_COMBINE_TAPS(NP, R - 3, bx + by * xs[R - 2], poff, pw, pm)
            gs_v_quads(xn, sxc, C, xs[R - 2], poff, pw, pm, we[0], we[1], wy[0], wy[1], me[0], me[1],
                       my[0], my[1], okm, yrow, plane, nl, nt);
            return;
        }
#endif
        /* the rows: every combination of the outer axes' taps */
        intv roff[NR];
        accv rw[NR];
        amaskv rm[NR];
        WK_COMBINE_TAPS(NR, R - 2, bx, roff, rw, rm)
        gs_v_rows(xn, sxc, C, roff, rw, rm, we, me, okm, yrow, plane, nl, nt);
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
        STORE_CHANNEL(c, acc, okm)
    }
#endif
}
#if !WK_ONE_KERNEL || defined(WK_KERNEL_grid_sample_v)
__kernel void grid_sample_v(__global const X_PTR_T *restrict X, long x_off, long sxn, long sxc,
                            int4 in_dims, int4 xstr,
                            __global const G_PTR_T *restrict G, long g_off, long sgn, long4 gstr,
                            long sgk,
                            __global X_PTR_T *restrict Y, long y_off, int C, int4 odims,
                            int pad, int align, int nt) {
#if MODE == MODE_NEAREST
    /* nt: the host asks for non-temporal stores of large results; they pay where the gathers are
     * heavy (linear, cubic). Nearest's plain stores measured faster on random affine grids
     * (8x3x512x512 on PoCL 3.0, kernel ms, zeros / border / reflection: 4.26 -> 3.85, 5.59 ->
     * 5.21, 6.18 -> 5.63; a pure rotation: 0 deg 4.2 -> 2.8, 28 deg 4.5 -> 3.9, but 5 deg
     * 6.3 -> 8.2, where the output's read-for-ownership competes with the missing source reads) */
    nt = 0;
#endif
    const int Wout = R == 1 ? odims.s0 : (R == 2 ? odims.s1 : odims.s2);
    const int wo0 = (int)get_global_id(0) * 8;
    const int row = (int)get_global_id(1);
    const int n = (int)get_global_id(2);
    if (wo0 < Wout) {
#if MODE == MODE_CUBIC
        /* a (one-trip) loop around the body: PoCL 3.0 compiles the cubic body 1.5x faster inside
         * one (and the linear and nearest bodies 1.2x slower) */
        const int rows = R == 1 ? 1 : (R == 2 ? odims.s0 : odims.s0 * odims.s1);
        for (int r = row; r < rows && r < row + 1; r++)
            gs_v_row(X, x_off, sxn, sxc, in_dims, xstr, G, g_off, sgn, gstr, sgk, Y, y_off, C,
                     odims, pad, align, nt, Wout, r, n, wo0);
#else
        gs_v_row(X, x_off, sxn, sxc, in_dims, xstr, G, g_off, sgn, gstr, sgk, Y, y_off, C, odims,
                 pad, align, nt, Wout, row, n, wo0);
#endif
    }
    WK_NT_FENCE(nt);
}
#endif
#endif

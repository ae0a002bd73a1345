/* A colour pass after the warp: for the operations that need the whole image (colour.h's
 * WK_COL_CONTRAST: the image's gray mean as the operation finds it; WK_COL_BLUR, WK_COL_MOTION:
 * each pixel's neighbours), the warp stores each item with the operations before that one, in
 * the image's storage type (B, Ho, Wo, C) (exact: every colour result is a level of an integer
 * image, a float of a float one); then
 *   colour_mean       sums each item's gray values and all its values, a band of whole rows
 *                     per work-group: P[CP_PW (b * G + g)] and the next (items whose pass
 *                     starts with a mean's operation; the others skip it; PCA 1: for
 *                     WK_COL_PCA the C channels' sums, then the C (C + 1) / 2 products of
 *                     channels c <= d, in that order);
 *   colour_blur_rows  (BLUR 1) filters each row of the items whose pass starts with WK_COL_BLUR
 *                     (or WK_COL_UNSHARP) into T, float, planar (B, C, Ho, Wp), Wp = Wo
 *                     rounded up to 8;
 *   colour_unsharp_rows (UNSHARP 1, with BLUR 1) for the items whose pass starts with
 *                     WK_COL_UNSHARP: the threshold's mask of the blurred image (T's columns)
 *                     into U, then each row of it filtered into M (see its section below);
 *   colour_jpeg_blocks (JPEG 1) a JPEG round trip's blocks, for the items whose pass starts with
 *                     WK_COL_JPEG: the decoded planes into JPG (see its section below);
 *   colour_apply      filters T's columns (those items), filters the image with a few taps
 *                     (MOTION 1: items whose pass starts with WK_COL_MOTION, WK_COL_CONV or
 *                     WK_COL_TAPS),
 *                     takes each pixel's median (MEDIAN 1: those starting with WK_COL_MEDIAN)
 *                     or reads it,
 *                     applies each item's next operations with its mean to every pixel, and
 *                     stores the result (another such pass's input, or the model's input:
 *                     store.h).
 * NDRange: colour_mean (64, G, B), colour_blur_rows and
 * colour_apply (64, Ho / rows rounded up, B), in work-groups of 64; blocks of 8 pixels of a
 * row.
 */
#define COLOUR 1
/* CH: the channels, a build-time constant (the channel loops unroll, the pixels stay in
 * registers) */
#ifndef CH
#define CH 3
#endif
#ifndef BLUR
#define BLUR 0
#endif
#ifndef MOTION
#define MOTION 0
#endif
#ifndef MEDIAN
#define MEDIAN 0
#endif
#ifndef CLAHE
#define CLAHE 0
#endif
#ifndef GATHER
#define GATHER 0
#endif
#ifndef JPEG
#define JPEG 0
#endif
#ifndef PCA
#define PCA 0
#endif
#ifndef UNSHARP
#define UNSHARP 0
#endif
#ifndef ZOOM
#define ZOOM 0
#endif
#ifndef CHROMA
#define CHROMA 0
#endif
#ifndef MORPH
#define MORPH 0
#endif
#ifndef GLASS
#define GLASS 0
#endif
#ifndef RESCALE
#define RESCALE 0
#endif
#ifndef FDA
#define FDA 0
#endif
#ifndef PCA_DOUBLE
#define PCA_DOUBLE 0
#endif
#ifndef HM_DOUBLE
#define HM_DOUBLE 0
#endif
/* colour_mean's floats per work-group in P (FancyPCA's 4 sums and 10 products, padded), and
 * colour_pca's per item in PM (the 4 x 4 matrix, the 4 means): the host's MEAN_WORDS and
 * PCA_WORDS (engine/plan.py) */
#ifndef CP_PW
#define CP_PW 16
#endif
#ifndef CP_PM
#define CP_PM 20
#endif
#include "warpkit.h"
#include "colour.h"
#include "store.h"

/* CP_VEC: the stored type read 8 values at a time (uint8 and float32 images): on PoCL as one
 * unaligned vector load (x86 loads need no alignment), elsewhere vload8 */
#if X_KIND == WK_INT && X_MAX == UCHAR_MAX
#define CP_VEC 1
typedef uchar8 cp_vec8;
#elif X_KIND == WK_F32
#define CP_VEC 1
typedef float8 cp_vec8;
#else
#define CP_VEC 0
#endif
#if CP_VEC && WK_BUILTINS
typedef cp_vec8 cp_vec8_u __attribute__((aligned(1)));
#define CP_LOAD8(p, k) (*(__global const cp_vec8_u *)((p) + 8 * (k)))
#define CP_STORE8(p, k, x) (*(__global cp_vec8_u *)((p) + 8 * (k)) = (x))
#elif CP_VEC
#define CP_LOAD8(p, k) vload8((k), (p))
#define CP_STORE8(p, k, x) vstore8((x), (k), (p))
#endif

/* 8 pixels' C interleaved values in the C vectors q0 .. q3 (qk: values 8k .. 8k + 7, of type
 * vt), split into channels: x[c] as floats */
#if CH == 1
#define CP_SPLIT(vt, q0, q1, q2, q3, x) x[0] = CV(q0, float8)
#elif CH == 2
#define CP_SPLIT(vt, q0, q1, q2, q3, x)              \
    {                                                \
        x[0] = CV((vt)(q0.even, q1.even), float8);   \
        x[1] = CV((vt)(q0.odd, q1.odd), float8);     \
    }
#elif CH == 3
#define CP_SPLIT(vt, q0, q1, q2, q3, x)                                                \
    {                                                                                  \
        x[0] = CV((vt)(q0.s0, q0.s3, q0.s6, q1.s1, q1.s4, q1.s7, q2.s2, q2.s5), float8); \
        x[1] = CV((vt)(q0.s1, q0.s4, q0.s7, q1.s2, q1.s5, q2.s0, q2.s3, q2.s6), float8); \
        x[2] = CV((vt)(q0.s2, q0.s5, q1.s0, q1.s3, q1.s6, q2.s1, q2.s4, q2.s7), float8); \
    }
#else
#define CP_SPLIT(vt, q0, q1, q2, q3, x)                                                \
    {                                                                                  \
        x[0] = CV((vt)(q0.s0, q0.s4, q1.s0, q1.s4, q2.s0, q2.s4, q3.s0, q3.s4), float8); \
        x[1] = CV((vt)(q0.s1, q0.s5, q1.s1, q1.s5, q2.s1, q2.s5, q3.s1, q3.s5), float8); \
        x[2] = CV((vt)(q0.s2, q0.s6, q1.s2, q1.s6, q2.s2, q2.s6, q3.s2, q3.s6), float8); \
        x[3] = CV((vt)(q0.s3, q0.s7, q1.s3, q1.s7, q2.s3, q2.s7, q3.s3, q3.s7), float8); \
    }
#endif
/* CP_SPLIT's inverse: the channels x[c] of 8 pixels interleaved into C vectors q0 .. q3 */
#if CH == 1
#define CP_MERGE(x, q) q[0] = x[0]
#elif CH == 2
#define CP_MERGE(x, q)                                                                       \
    {                                                                                        \
        q[0] = (float8)(x[0].s0, x[1].s0, x[0].s1, x[1].s1, x[0].s2, x[1].s2, x[0].s3, x[1].s3); \
        q[1] = (float8)(x[0].s4, x[1].s4, x[0].s5, x[1].s5, x[0].s6, x[1].s6, x[0].s7, x[1].s7); \
    }
#elif CH == 3
#define CP_MERGE(x, q)                                                                       \
    {                                                                                        \
        q[0] = (float8)(x[0].s0, x[1].s0, x[2].s0, x[0].s1, x[1].s1, x[2].s1, x[0].s2, x[1].s2); \
        q[1] = (float8)(x[2].s2, x[0].s3, x[1].s3, x[2].s3, x[0].s4, x[1].s4, x[2].s4, x[0].s5); \
        q[2] = (float8)(x[1].s5, x[2].s5, x[0].s6, x[1].s6, x[2].s6, x[0].s7, x[1].s7, x[2].s7); \
    }
#else
#define CP_MERGE(x, q)                                                                       \
    {                                                                                        \
        q[0] = (float8)(x[0].s0, x[1].s0, x[2].s0, x[3].s0, x[0].s1, x[1].s1, x[2].s1, x[3].s1); \
        q[1] = (float8)(x[0].s2, x[1].s2, x[2].s2, x[3].s2, x[0].s3, x[1].s3, x[2].s3, x[3].s3); \
        q[2] = (float8)(x[0].s4, x[1].s4, x[2].s4, x[3].s4, x[0].s5, x[1].s5, x[2].s5, x[3].s5); \
        q[3] = (float8)(x[0].s6, x[1].s6, x[2].s6, x[3].s6, x[0].s7, x[1].s7, x[2].s7, x[3].s7); \
    }
#endif
/* 8 values as the image stores them (store.h's STORE_PIX: integers rounded halves up and
 * saturated, NaN as 0; floats as they are) */
#if X_KIND == WK_INT
#define CP_STORED8(x) CV(wk_clamp8(wk_floor8((x) + 0.5f), (float)(X_MIN), (float)(X_MAX)), cp_vec8)
#else
#define CP_STORED8(x) (x)
#endif
/* 8 stored values as the filters take them: uint8 levels as they are (every value one),
 * floats clipped to [0, 1] */
#if X_KIND == WK_INT && X_MAX == UCHAR_MAX
#define CP_LEVEL8(x) (x)
#else
#define CP_LEVEL8(x) wk_clamp8((x), 0.0f, WK_PEAK)
#endif
/* vector k of 8 pixels' values from p (k < CH; past it vector 0, never read past the pixels) */
#define CP_PART(p, k) CP_LOAD8(p, (k) < CH ? (k) : 0)

/* 8 pixels of row y from x0 (n of them: the rest repeat the last) as colour operations take
 * them (colour.h: integer levels rounded, floats clipped to [0, 1]), channel c in v[c]. Eight
 * whole pixels are C vectors of 8 values, split into channels by swizzles (element by element
 * through an array, the loads and moves cost colour_mean and colour_apply ~3 ms each for 64
 * items of 224x224 on PoCL) */
inline __attribute__((always_inline)) void cp_load8(__global const X_T *S, long row, int x0, int n, float8 *v) {
    const int C = CH;
    __global const X_T *p = S + (row + x0) * C;
    float8 x[4];
#if CP_VEC
    if (n == 8) {
        CP_SPLIT(cp_vec8, CP_PART(p, 0), CP_PART(p, 1), CP_PART(p, 2), CP_PART(p, 3), x);
    } else
#endif
    {
        float l[32];
        for (int k = 0; k < 8; k++)
            for (int c = 0; c < C; c++) l[k * C + c] = (float)p[(k < n ? k : n - 1) * C + c];
        WK_EACH_C(x[c] = (float8)(l[c], l[C + c], l[2 * C + c], l[3 * C + c], l[4 * C + c], l[5 * C + c],
                                  l[6 * C + c], l[7 * C + c]));
    }
#if X_KIND == WK_INT && X_MAX == UCHAR_MAX
    WK_EACH_C(v[c] = x[c]); /* uint8 values are levels: rounding and clipping keep them */
#elif WK_COL_INT
    WK_EACH_C(v[c] = wk_floor8(wk_clamp8(x[c], 0.0f, WK_PEAK) + 0.5f));
#else
    WK_EACH_C(v[c] = wk_clamp8(x[c], 0.0f, WK_PEAK));
#endif
}

/* does the item's pass start with an operation on the image's mean */
inline int cp_wants_mean(__global const float *op) {
    const int code = (int)op[0];
    return code == WK_COL_CONTRAST || code == WK_COL_AFFINE_MEAN || code == WK_COL_ISO
           || code == WK_COL_PCA || code == WK_COL_PLASMA_MEAN;
}

/* the sum of x over a work-group of 64 (at lid 0; every work-item calls it) */
inline float2 cp_sum64(__local float2 *part, int lid, float2 x) {
    part[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 32; s > 0; s >>= 1) {
        if (lid < s) part[lid] += part[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const float2 total = part[0];
    barrier(CLK_LOCAL_MEM_FENCE); /* (part is reused) */
    return total;
}

inline float cp_hsum8(float8 x) {
    const float4 y = x.lo + x.hi;
    return y.x + y.y + y.z + y.w;
}

#if PCA
/* an item's first pixel, which FancyPCA's sums are taken about */
inline void cp_pca_ref(__global const X_T *restrict S, int Ho, int Wo, int b, float *ref) {
    float8 v[4];
    cp_load8(S, (long)b * Ho * Wo, 0, 1, v);
    for (int c = 0; c < 4; c++) ref[c] = c < CH ? v[c].s0 : 0.0f;
}

/* colour_mean's band of rows for WK_COL_PCA: the channels' sums, then the products of channels
 * c <= d (levels of WK_PEAK), into P */
inline void cp_pca_sums(__global const X_T *restrict S, int Ho, int Wo, int b, int lid, int y0,
                        int end, __local float2 *part, __global float *restrict P) {
    const int C = CH;
    float8 s[4], q[10];
    float ref[4];
    cp_pca_ref(S, Ho, Wo, b, ref);
    for (int k = 0; k < 4; k++) s[k] = 0.0f;
    for (int k = 0; k < 10; k++) q[k] = 0.0f;
    for (int y = y0 + lid; y < end; y += 64) {
        for (int x = 0; x < Wo; x += 8) {
            const int n = Wo - x < 8 ? Wo - x : 8;
            float8 v[4];
            cp_load8(S, ((long)b * Ho + y) * Wo, x, n, v);
            const int8 live = (int8)(0, 1, 2, 3, 4, 5, 6, 7) < n;
            /* about the first pixel: sums of whole levels, exact 0 for a constant channel */
            WK_EACH_C(v[c] = live ? v[c] - ref[c] : 0.0f; s[c] += v[c]);
            int k = 0;
            for (int c = 0; c < C; c++)
                for (int d = c; d < C; d++) q[k++] += v[c] * v[d];
        }
    }
    float w[14];
    for (int c = 0; c < 4; c++) w[c] = cp_hsum8(s[c]);
    for (int k = 0; k < 10; k++) w[4 + k] = cp_hsum8(q[k]);
    for (int k = 0; k < 14; k += 2) {
        const float2 t = cp_sum64(part, lid, (float2)(w[k], w[k + 1]));
        if (lid == 0) vstore2(t, 0, P + k);
    }
}

/* FancyPCA's eigenproblem as numpy's eigh solves it (LAPACK's dsyevd, lower triangle: for
 * n <= 25 dsytd2's Householder tridiagonalisation, dsteqr's implicit QL/QR with its 2 x 2
 * blocks (dlaev2) and rotations (LAPACK 3.10's dlartg), its selection sort, then dorm2r's
 * reflectors), step by step: albumentations' noise takes each eigenvector with the sign LAPACK
 * gives it. In double where the device has it (PCA_DOUBLE; every sign as numpy's: 3000 random
 * matrices through these steps in double on the host, 200 random images on the device); in
 * float otherwise, where LAPACK's iterations (their count set by double's rounding) can end
 * elsewhere: 1 or 2 matrices in 100 have an eigenvector of the other sign */
#if PCA_DOUBLE
typedef double pca_t;
#define PCA_EPS 0x1p-53
#define PCA_SAFMIN 0x1p-1022
#else
typedef float pca_t;
#define PCA_EPS 0x1p-24f
#define PCA_SAFMIN 0x1p-126f
#endif
inline pca_t pca_sign(pca_t x, pca_t y) { return y >= 0 ? fabs(x) : -fabs(x); }

/* columns j, j + 1 of z by the rotation (c, s) (dlasr's body) */
inline void pca_rot(pca_t z[4][4], int j, pca_t c, pca_t s) {
    if (c == 1 && s == 0) return;
    for (int i = 0; i < CH; i++) {
        const pca_t t = z[i][j + 1];
        z[i][j + 1] = c * t - s * z[i][j];
        z[i][j] = s * t + c * z[i][j];
    }
}

/* dlartg (LAPACK 3.10: c >= 0, r with f's sign), for values well inside the range */
inline void pca_lartg(pca_t f, pca_t g, pca_t *c, pca_t *s, pca_t *r) {
    if (g == 0) {
        *c = 1; *s = 0; *r = f;
    } else if (f == 0) {
        *c = 0; *s = pca_sign(1, g); *r = fabs(g);
    } else {
        const pca_t d = sqrt(f * f + g * g);
        *c = fabs(f) / d;
        *r = pca_sign(d, f);
        *s = g / *r;
    }
}

/* dlaev2: the eigenvalues of [[a, b], [b, c]] (rt1 the larger in magnitude) and rt1's vector */
inline void pca_laev2(pca_t a, pca_t b, pca_t c, pca_t *rt1, pca_t *rt2, pca_t *cs1, pca_t *sn1) {
    const pca_t sm = a + c, df = a - c, adf = fabs(df), tb = b + b, ab = fabs(tb);
    const pca_t acmx = fabs(a) > fabs(c) ? a : c, acmn = fabs(a) > fabs(c) ? c : a;
    pca_t rt;
    if (adf > ab) rt = adf * sqrt(1 + (ab / adf) * (ab / adf));
    else if (adf < ab) rt = ab * sqrt(1 + (adf / ab) * (adf / ab));
    else rt = ab * sqrt((pca_t)2);
    int sgn1, sgn2;
    if (sm < 0) {
        *rt1 = (pca_t)0.5 * (sm - rt); sgn1 = -1;
        *rt2 = (acmx / *rt1) * acmn - (b / *rt1) * b;
    } else if (sm > 0) {
        *rt1 = (pca_t)0.5 * (sm + rt); sgn1 = 1;
        *rt2 = (acmx / *rt1) * acmn - (b / *rt1) * b;
    } else {
        *rt1 = (pca_t)0.5 * rt; *rt2 = (pca_t)-0.5 * rt; sgn1 = 1;
    }
    pca_t cs;
    if (df >= 0) { cs = df + rt; sgn2 = 1; } else { cs = df - rt; sgn2 = -1; }
    if (fabs(cs) > ab) {
        const pca_t ct = -tb / cs;
        *sn1 = 1 / sqrt(1 + ct * ct);
        *cs1 = ct * *sn1;
    } else if (ab == 0) {
        *cs1 = 1; *sn1 = 0;
    } else {
        const pca_t tn = -cs / tb;
        *cs1 = 1 / sqrt(1 + tn * tn);
        *sn1 = tn * *cs1;
    }
    if (sgn1 == sgn2) {
        const pca_t tn = *cs1;
        *cs1 = -*sn1;
        *sn1 = tn;
    }
}

/* numpy's eigh of the symmetric CH x CH matrix a (its lower triangle): ascending eigenvalues
 * in w, their vectors in z's columns */
inline void pca_eigh(pca_t a[4][4], pca_t w[4], pca_t z[4][4]) {
    const int n = CH;
    pca_t e[4], tau[4], cs[4], sn[4];
    for (int i = 0; i < 4; i++) e[i] = tau[i] = 0;
    /* dsytd2, lower */
    for (int i = 0; i < n - 1; i++) {
        const int m = n - i - 1;
        pca_t alpha = a[i + 1][i], taui = 0;
        if (m > 1) {
            pca_t xx = 0;
            for (int k = i + 2; k < n; k++) xx += a[k][i] * a[k][i];
            const pca_t xnorm = sqrt(xx);
            if (xnorm != 0) {
                const pca_t beta = -pca_sign(sqrt(alpha * alpha + xnorm * xnorm), alpha);
                taui = (beta - alpha) / beta;
                const pca_t scal = 1 / (alpha - beta);
                for (int k = i + 2; k < n; k++) a[k][i] *= scal;
                alpha = beta;
            }
        }
        e[i] = alpha;
        if (taui != 0) {
            pca_t v[4], x[4], w4[4];
            a[i + 1][i] = 1;
            for (int r = 0; r < m; r++) v[r] = a[i + 1 + r][i];
            pca_t xv = 0;
            for (int r = 0; r < m; r++) {
                pca_t t = 0;
                for (int c = 0; c < m; c++) {
                    const int R = i + 1 + r, Q = i + 1 + c;
                    t += (R >= Q ? a[R][Q] : a[Q][R]) * v[c];
                }
                x[r] = taui * t;
                xv += x[r] * v[r];
            }
            const pca_t al = (pca_t)-0.5 * taui * xv;
            for (int r = 0; r < m; r++) w4[r] = x[r] + al * v[r];
            for (int r = 0; r < m; r++)
                for (int c = 0; c <= r; c++)
                    a[i + 1 + r][i + 1 + c] -= v[r] * w4[c] + w4[r] * v[c];
            a[i + 1][i] = e[i];
        }
        w[i] = a[i][i];
        tau[i] = taui;
    }
    w[n - 1] = a[n - 1][n - 1];
    /* dsteqr, vectors of the tridiagonal (w, e) from the identity */
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) z[i][j] = i == j;
    const pca_t eps = PCA_EPS, eps2 = eps * eps;
    const int nmaxit = 30 * n;
    int jtot = 0, l1 = 0;
    while (l1 <= n - 1 && jtot < nmaxit) {
        if (l1 > 0) e[l1 - 1] = 0;
        int m = n - 1;
        for (int k = l1; k < n - 1; k++) {
            const pca_t t = fabs(e[k]);
            if (t == 0) { m = k; break; }
            if (t <= sqrt(fabs(w[k])) * sqrt(fabs(w[k + 1])) * eps) { e[k] = 0; m = k; break; }
        }
        int l = l1, lend = m;
        l1 = m + 1;
        if (lend == l) continue;
        pca_t anorm = 0;
        for (int k = l; k <= lend; k++) anorm = fmax(anorm, fabs(w[k]));
        for (int k = l; k < lend; k++) anorm = fmax(anorm, fabs(e[k]));
        if (anorm == 0) continue;
        if (fabs(w[lend]) < fabs(w[l])) { const int t = lend; lend = l; l = t; }
        if (lend > l) { /* QL */
            for (;;) {
                m = lend;
                for (int k = l; k < lend; k++)
                    if (fabs(e[k]) * fabs(e[k]) <= (eps2 * fabs(w[k])) * fabs(w[k + 1]) + PCA_SAFMIN) { m = k; break; }
                if (m < lend) e[m] = 0;
                pca_t p = w[l];
                if (m == l) {
                    l += 1;
                    if (l <= lend) continue;
                    break;
                }
                if (m == l + 1) {
                    pca_t rt1, rt2, c, s;
                    pca_laev2(w[l], e[l], w[l + 1], &rt1, &rt2, &c, &s);
                    pca_rot(z, l, c, s);
                    w[l] = rt1; w[l + 1] = rt2; e[l] = 0;
                    l += 2;
                    if (l <= lend) continue;
                    break;
                }
                if (jtot == nmaxit) break;
                jtot++;
                pca_t g = (w[l + 1] - p) / (2 * e[l]), r = sqrt(g * g + 1);
                g = w[m] - p + e[l] / (g + pca_sign(r, g));
                pca_t s = 1, c = 1;
                p = 0;
                for (int i = m - 1; i >= l; i--) {
                    const pca_t f = s * e[i], b = c * e[i];
                    pca_lartg(g, f, &c, &s, &r);
                    if (i != m - 1) e[i + 1] = r;
                    g = w[i + 1] - p;
                    r = (w[i] - g) * s + 2 * c * b;
                    p = s * r;
                    w[i + 1] = g + p;
                    g = c * r - b;
                    cs[i] = c; sn[i] = -s;
                }
                for (int j = m - 1; j >= l; j--) pca_rot(z, j, cs[j], sn[j]);
                w[l] -= p;
                e[l] = g;
            }
        } else { /* QR */
            for (;;) {
                m = lend;
                for (int k = l; k > lend; k--)
                    if (fabs(e[k - 1]) * fabs(e[k - 1]) <= (eps2 * fabs(w[k])) * fabs(w[k - 1]) + PCA_SAFMIN) { m = k; break; }
                if (m > lend) e[m - 1] = 0;
                pca_t p = w[l];
                if (m == l) {
                    l -= 1;
                    if (l >= lend) continue;
                    break;
                }
                if (m == l - 1) {
                    pca_t rt1, rt2, c, s;
                    pca_laev2(w[l - 1], e[l - 1], w[l], &rt1, &rt2, &c, &s);
                    pca_rot(z, l - 1, c, s);
                    w[l - 1] = rt1; w[l] = rt2; e[l - 1] = 0;
                    l -= 2;
                    if (l >= lend) continue;
                    break;
                }
                if (jtot == nmaxit) break;
                jtot++;
                pca_t g = (w[l - 1] - p) / (2 * e[l - 1]), r = sqrt(g * g + 1);
                g = w[m] - p + e[l - 1] / (g + pca_sign(r, g));
                pca_t s = 1, c = 1;
                p = 0;
                for (int i = m; i < l; i++) {
                    const pca_t f = s * e[i], b = c * e[i];
                    pca_lartg(g, f, &c, &s, &r);
                    if (i != m) e[i - 1] = r;
                    g = w[i] - p;
                    r = (w[i + 1] - g) * s + 2 * c * b;
                    p = s * r;
                    w[i] = g + p;
                    g = c * r - b;
                    cs[i] = c; sn[i] = s;
                }
                for (int j = m; j < l; j++) pca_rot(z, j, cs[j], sn[j]);
                w[l] -= p;
                e[l - 1] = g;
            }
        }
    }
    /* the selection sort, ascending */
    for (int i = 0; i < n - 1; i++) {
        int k = i;
        pca_t p = w[i];
        for (int j = i + 1; j < n; j++)
            if (w[j] < p) { k = j; p = w[j]; }
        if (k != i) {
            w[k] = w[i]; w[i] = p;
            for (int r = 0; r < n; r++) { const pca_t t = z[r][i]; z[r][i] = z[r][k]; z[r][k] = t; }
        }
    }
    /* dorm2r: z's rows 1 .. n-1 := H(0) H(1) ... z, H(i) = I - tau v v^T on rows i + 1 .. */
    for (int i = n - 2; i >= 0; i--) {
        if (tau[i] == 0) continue;
        for (int col = 0; col < n; col++) {
            pca_t dot = z[i + 1][col];
            for (int k = i + 2; k < n; k++) dot += a[k][i] * z[k][col];
            z[i + 1][col] -= tau[i] * dot;
            for (int k = i + 2; k < n; k++) z[k][col] -= tau[i] * a[k][i] * dot;
        }
    }
}

/* an item's means (into pm[16 ..]) and its channels' covariance (a, both triangles) from its
 * sums t (cp_pca_sums': about the reference pixel ref, over np pixels), the centred products
 * summed over `over` pixels and in units of `unit` (FancyPCA's and ToGray pca's) */
inline void cp_pca_moments(const float *t, const float *ref, float np, pca_t over, pca_t unit,
                           pca_t a[4][4], __global float *pm) {
    const int C = CH;
    for (int c = 0; c < 4; c++) pm[16 + c] = c < C ? ref[c] + t[c] / np : 0.0f;
    int k = 4;
    for (int c = 0; c < C; c++)
        for (int d = c; d < C; d++, k++) {
            a[d][c] = ((pca_t)t[k] - (pca_t)t[c] * (pca_t)t[d] / (pca_t)np) / over / unit;
            a[c][d] = a[d][c];
        }
}

/* FancyPCA's matrix M (row-major 4 x 4, in pm[0 .. 15]) and the means (pm[16 .. 19]) from an
 * item's sums t (cp_pca_sums': about the reference pixel ref, over np pixels) and its operation
 * op (colour.h's WK_COL_PCA): albumentations' noise V diag(alpha l) (x - mean), V and l the
 * covariance's eigenvectors and eigenvalues in numpy's order of eigh's values reversed
 * and argsorted (descending where they differ) */
inline void cp_pca_matrix(const float *t, const float *ref, float np, __global const float *op,
                          __global float *pm) {
    const int C = CH;
    pca_t a[4][4], z[4][4], w[4];
    /* numpy's cov: over N - 1; for one channel numpy's std: over N */
    cp_pca_moments(t, ref, np, (pca_t)np - (C == 1 ? 0 : 1), (pca_t)WK_PEAK * (pca_t)WK_PEAK, a,
                   pm);
    for (int i = 0; i < 16; i++) pm[i] = 0.0f;
    if (np < 2.0f) return; /* (a pixel is its own mean: no noise; numpy's cov fails there) */
    if (C == 1) {
        pm[0] = op[1] * (float)sqrt(fmax(a[0][0], (pca_t)0));
        return;
    }
    pca_eigh(a, w, z);
    /* numpy's argsort (an insertion sort: ties in order) of the values reversed */
    int perm[4] = {0, 1, 2, 3};
    for (int i = 1; i < C; i++) {
        const int x = perm[i];
        int j = i;
        while (j > 0 && w[C - 1 - perm[j - 1]] > w[C - 1 - x]) { perm[j] = perm[j - 1]; j--; }
        perm[j] = x;
    }
    for (int q = 0; q < C; q++) {
        const int j = perm[q]; /* the q-th value and column of the original order */
        for (int c = 0; c < C; c++) pm[4 * c + q] = (float)(z[c][j] * (pca_t)op[1 + q] * w[j]);
    }
}

/* ToGray(method="pca") (WK_COL_PCA mode 1, 3 channels): albumentations' cv2.PCACompute2 of
 * the pixels, whose covariance (over N) cv::eigen solves by Jacobi's rotations (OpenCV's
 * JacobiImpl_, step by step: the largest value's eigenvector keeps the sign they give it),
 * then each pixel's projection on it taken to [0, 1] by the image's least and largest
 * (cv2.normalize's NORM_MINMAX; a flat image 0). Into pm: the eigenvector (pm[0 .. 2]), the
 * least projection and 1 / the spread (pm[3], pm[4]; 0 where flat), the means (pm[16 ..]) */
#if PCA_DOUBLE
#define JAC_EPS 0x1p-52 /* (OpenCV's numeric_limits<T>::epsilon) */
#else
#define JAC_EPS 0x1p-23f
#endif

/* the index of the largest |a[k][m]| of row k past the diagonal (m > k), and of column k
 * above it (m < k): OpenCV's indR, indC (the first of equals) */
inline int jac_row(pca_t a[4][4], int k) {
    int m = k + 1;
    for (int i = k + 2; i < 3; i++) if (fabs(a[k][m]) < fabs(a[k][i])) m = i;
    return m;
}
inline int jac_col(pca_t a[4][4], int k) {
    int m = 0;
    for (int i = 1; i < k; i++) if (fabs(a[m][k]) < fabs(a[i][k])) m = i;
    return m;
}

/* the eigenvalues w and eigenvectors (rows of v) of the symmetric 3 x 3 a (its upper triangle;
 * in 4 x 4 arrays, as FancyPCA's), in descending order, as OpenCV's JacobiImpl_ gives them */
inline void pca_jacobi(pca_t a[4][4], pca_t w[4], pca_t v[4][4]) {
    const int n = 3;
    int ind_r[3] = {0, 0, 0}, ind_c[3] = {0, 0, 0};
    for (int k = 0; k < n; k++) {
        for (int i = 0; i < n; i++) v[k][i] = i == k;
        w[k] = a[k][k];
        if (k < n - 1) ind_r[k] = jac_row(a, k);
        if (k > 0) ind_c[k] = jac_col(a, k);
    }
    for (int iters = 0; iters < n * n * 30; iters++) {
        /* the pivot (k, l): the largest of the rows' and columns' largest */
        int k = 0, l;
        pca_t mv = fabs(a[0][ind_r[0]]);
        for (int i = 1; i < n - 1; i++)
            if (mv < fabs(a[i][ind_r[i]])) { mv = fabs(a[i][ind_r[i]]); k = i; }
        l = ind_r[k];
        for (int i = 1; i < n; i++)
            if (mv < fabs(a[ind_c[i]][i])) { mv = fabs(a[ind_c[i]][i]); k = ind_c[i]; l = i; }
        const pca_t p = a[k][l];
        if (fabs(p) <= JAC_EPS) break;
        const pca_t y = (w[l] - w[k]) * (pca_t)0.5;
        pca_t t = fabs(y) + hypot(p, y), s = hypot(p, t);
        const pca_t c = t / s;
        s = p / s;
        t = (p / t) * p;
        if (y < 0) { s = -s; t = -t; }
        a[k][l] = 0;
        w[k] -= t;
        w[l] += t;
        pca_t a0, b0;
#define JAC_ROT(x, z) a0 = (x); b0 = (z); (x) = a0 * c - b0 * s; (z) = a0 * s + b0 * c
        for (int i = 0; i < k; i++) { JAC_ROT(a[i][k], a[i][l]); }
        for (int i = k + 1; i < l; i++) { JAC_ROT(a[k][i], a[i][l]); }
        for (int i = l + 1; i < n; i++) { JAC_ROT(a[k][i], a[l][i]); }
        for (int i = 0; i < n; i++) { JAC_ROT(v[k][i], v[l][i]); }
#undef JAC_ROT
        for (int j = 0; j < 2; j++) {
            const int idx = j == 0 ? k : l;
            if (idx < n - 1) ind_r[idx] = jac_row(a, idx);
            if (idx > 0) ind_c[idx] = jac_col(a, idx);
        }
    }
    for (int k = 0; k < n - 1; k++) { /* the selection sort, descending (the first largest) */
        int m = k;
        for (int i = k + 1; i < n; i++) if (w[m] < w[i]) m = i;
        if (k != m) {
            const pca_t t = w[m]; w[m] = w[k]; w[k] = t;
            for (int i = 0; i < n; i++) { const pca_t u = v[m][i]; v[m][i] = v[k][i]; v[k][i] = u; }
        }
    }
}

/* a pixel's projection on the component (pm[0 .. 2]) about the means (pm[16 ..]), 8 at once:
 * the same arithmetic for the scan that finds its bounds and for the apply */
inline float8 cp_gray_pca_proj8(const float8 *v, __global const float *pm) {
    return pm[0] * (v[0] - pm[16]) + pm[1] * (v[1] - pm[17]) + pm[2] * (v[2] - pm[18]);
}

/* ToGray pca's component, bounds and means for item b (sums t about ref, as FancyPCA's) */
inline void cp_gray_pca(__global const X_T *restrict S, int Ho, int Wo, int b, const float *t,
                        const float *ref, __global float *pm) {
    const float np = (float)Ho * (float)Wo;
    pca_t a[4][4], w[4], e[4][4];
    cp_pca_moments(t, ref, np, (pca_t)np, (pca_t)1, a, pm); /* (OpenCV's PCA: over N, levels) */
    pca_jacobi(a, w, e);
    for (int c = 0; c < 3; c++) pm[c] = (float)e[0][c];
    float8 lo = INFINITY, hi = -INFINITY;
    for (int y = 0; y < Ho; y++)
        for (int x = 0; x < Wo; x += 8) {
            const int n = Wo - x < 8 ? Wo - x : 8;
            float8 v[4];
            cp_load8(S, ((long)b * Ho + y) * Wo, x, n, v);
            const float8 q = cp_gray_pca_proj8(v, pm);
            const int8 live = (int8)(0, 1, 2, 3, 4, 5, 6, 7) < n;
            lo = live ? fmin(lo, q) : lo;
            hi = live ? fmax(hi, q) : hi;
        }
    const float4 l4 = fmin(lo.lo, lo.hi), h4 = fmax(hi.lo, hi.hi);
    const float least = fmin(fmin(l4.x, l4.y), fmin(l4.z, l4.w));
    const float most = fmax(fmax(h4.x, h4.y), fmax(h4.z, h4.w));
    pm[3] = least;
    pm[4] = most > least ? 1.0f / (most - least) : 0.0f;
}

/* ToGray pca on 8 pixels: the projection over the spread into the 3 channels, integer images
 * rounded to a level of the peak (albumentations' from_float of cv2.normalize's float32) */
inline void cp_gray_pca8(float8 *v, __global const float *pm) {
    float8 g = wk_clamp8((cp_gray_pca_proj8(v, pm) - pm[3]) * pm[4], 0.0f, 1.0f);
    if (WK_COL_INT) g = wk_rint8(g * WK_PEAK);
    v[0] = g;
    v[1] = g;
    v[2] = g;
}

/* WK_COL_PCA on 8 pixels' channels, M and the means in pm */
inline void cp_pca8(float8 *v, __global const float *pm) {
    const int C = CH;
    float8 dv[4], out[4];
    WK_EACH_C(dv[c] = v[c] - pm[16 + c]);
    for (int c = 0; c < C; c++) {
        float8 n = 0.0f;
        for (int d = 0; d < C; d++) n += pm[4 * c + d] * dv[d];
        out[c] = v[c] + n;
    }
    WK_EACH_C(v[c] = wk_col_clip(WK_COL_INT ? wk_rint8(out[c]) : out[c]));
}

/* FancyPCA's matrix and means, once per item (a work-item each; the others return): its bands'
 * sums (colour_mean's, in P) added up, the eigenproblem solved, into PM (CP_PM floats an
 * item) for colour_apply's work-groups */
#if !WK_ONE_KERNEL || defined(WK_KERNEL_colour_pca)
__kernel void colour_pca(__global const X_T *restrict S, int Ho, int Wo,
                         __global const float *restrict P, int G, __global const float *restrict COL,
                         int ncol, int items, __global float *restrict PM) {
    const int b = (int)get_global_id(0);
    if (b >= items || (int)WK_COL_OF(b)[0] != WK_COL_PCA) return;
    float t[14], ref[4];
    for (int k = 0; k < 14; k++) t[k] = 0.0f;
    for (int g = 0; g < G; g++)
        for (int k = 0; k < 14; k++) t[k] += P[CP_PW * ((long)b * G + g) + k];
    cp_pca_ref(S, Ho, Wo, b, ref);
#if CH == 3
    if ((int)WK_COL_OF(b)[5] == 1) { /* (ToGray's: the engine takes it for 3 channels alone) */
        cp_gray_pca(S, Ho, Wo, b, t, ref, PM + (long)b * CP_PM);
        return;
    }
#endif
    cp_pca_matrix(t, ref, (float)Ho * (float)Wo, WK_COL_OF(b), PM + (long)b * CP_PM);
}
#endif
#define PCA_PARAM , __global const float *restrict PM
#else
#define PCA_PARAM
#endif

#if BLUR || MOTION || MEDIAN || CLAHE || GATHER || JPEG || ZOOM || CHROMA || MORPH || GLASS || RESCALE || FDA
/* OpenCV's BORDER_REFLECT_101 (the edge pixel not repeated), any distance: an index in [0, n)
 * (each turn brings i nearer: no division, a rare path) */
inline int cp_reflect(int i, int n) {
    if (n == 1) return 0;
    while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
    return i;
}

/* an operation's values in order past its own words (colour.h's WK_COL_BLUR, WK_COL_MOTION):
 * its words to the 11th, then words 1 .. 11 of each WK_COL_DATA operation after it (left: the
 * words still to come in the current operation) */
#define CP_NEXT_WORD(w, left) \
    do { \
        (w)++; \
        if (--(left) == 0) { \
            (w)++; \
            (left) = WK_COL_WORDS - 1; \
        } \
    } while (0)

/* a stored value as the colour operations take it (colour.h: an integer image's are levels
 * already; floats clipped to [0, 1]) */
inline float cp_level1(X_T x) {
#if WK_COL_INT
    return (float)x;
#else
    const float f = (float)x;
    return f < 0.0f ? 0.0f : (f > 1.0f ? 1.0f : f);
#endif
}

/* 8 pixels' 8-bit levels (l: pixel by pixel, CH each) as the operations take them, channel c
 * in v[c]: an integer image's as they are, a float image's as level / 255 (albumentations'
 * uint8 round trip) */
inline void cp_from_levels8(const float *l, float8 *v) {
    const int C = CH;
    for (int c = 0; c < C; c++) {
        const float8 x = (float8)(l[c], l[C + c], l[2 * C + c], l[3 * C + c], l[4 * C + c],
                                  l[5 * C + c], l[6 * C + c], l[7 * C + c]);
        v[c] = WK_COL_INT ? x : x / 255.0f;
    }
}

/* the pixels x0 .. x0 + 7 of row y as cp_level1 gives them, those outside the image reflected,
 * channel c in v[c] */
inline void cp_tap8(__global const X_T *S, long row, int x0, int Wo, float8 *v) {
    const int C = CH;
    const int inside = x0 >= 0 && x0 + 8 <= Wo;
#if CP_VEC
    if (inside) { /* 8 whole pixels: C vector loads, split into channels (cp_load8's levels) */
        cp_load8(S, row, x0, 8, v);
        return;
    }
#endif
    float l[32];
    for (int k = 0; k < 8; k++) {
        const int x = inside ? x0 + k : cp_reflect(x0 + k, Wo);
        for (int c = 0; c < C; c++) l[k * C + c] = cp_level1(S[(row + x) * C + c]);
    }
    for (int c = 0; c < C; c++)
        v[c] = (float8)(l[c], l[C + c], l[2 * C + c], l[3 * C + c], l[4 * C + c], l[5 * C + c],
                        l[6 * C + c], l[7 * C + c]);
}

/* a filter's result as OpenCV stores it: integer images rounded to the nearest level */
inline __attribute__((always_inline)) void cp_filtered8(float8 *v) {
    const int C = CH;
#if WK_COL_INT
    WK_EACH_C(v[c] = wk_clamp8(wk_rint8(v[c]), 0.0f, WK_PEAK));
#else
    WK_EACH_C(v[c] = wk_clamp8(v[c], 0.0f, WK_PEAK));
#endif
}
#endif

#if ZOOM
/* WK_COL_ZOOM: albumentations' ZoomBlur, (v + z_1 + ... + z_n) / (n + 1) in float (z_1 the
 * image itself: the first zoom is 1), each zoom read from the item's table (engine.core's
 * zoom_tables: per zoom, the output columns' first source column, second and its weight, then
 * the rows'; ZF zooms an item) by OpenCV's linear resize: the two columns of each of the two
 * rows, then the rows, in OpenCV's order; v the values as cp_load8 gives them */
#define ZOOM_PARAM , __global const float *restrict ZT, int ZF
/* lane k of p's lanes k - e_k (e_k in [0, min(k, hi)]), as shifts of p picked by select():
 * PoCL's shuffle2 with a varying mask cost ZoomBlur twice its scalar reads */
inline float8 cp_pick8(float8 p, int8 e, int hi) {
    float8 r = p;
    if (hi >= 1) r = e == 1 ? (float8)(p.s0, p.s0, p.s1, p.s2, p.s3, p.s4, p.s5, p.s6) : r;
    if (hi >= 2) r = e == 2 ? (float8)(p.s0, p.s0, p.s0, p.s1, p.s2, p.s3, p.s4, p.s5) : r;
    if (hi >= 3) r = e == 3 ? (float8)(p.s0, p.s0, p.s0, p.s0, p.s1, p.s2, p.s3, p.s4) : r;
    if (hi >= 4) r = e == 4 ? (float8)(p.s0, p.s0, p.s0, p.s0, p.s0, p.s1, p.s2, p.s3) : r;
    if (hi >= 5) r = e == 5 ? (float8)(p.s0, p.s0, p.s0, p.s0, p.s0, p.s0, p.s1, p.s2) : r;
    if (hi >= 6) r = e == 6 ? (float8)(p.s0, p.s0, p.s0, p.s0, p.s0, p.s0, p.s0, p.s1) : r;
    if (hi >= 7) r = e == 7 ? (float8)(p.s0) : r;
    return r;
}

inline void cp_zoom8(__global const X_T *S, int Ho, int Wo, int b, int xo, int yo, int n,
                     int count, __global const float *zt, float8 *v) {
    const int C = CH;
    float8 acc[4];
    WK_EACH_C(acc[c] = 0.0f);
    const long L = 3 * (long)(Wo + Ho);
    const int8 lane = (int8)(0, 1, 2, 3, 4, 5, 6, 7);
    for (int f = 0; f < count; f++) {
        __global const float *t = zt + f * L, *r = t + 3 * Wo;
        const float wy = r[2 * Ho + yo];
        const long r0 = ((long)b * Ho + (int)r[yo]) * Wo, r1 = ((long)b * Ho + (int)r[Ho + yo]) * Wo;
        int8 x0;
        float8 wx;
        if (n == 8) {
            x0 = convert_int8(vload8(0, t + xo));
            wx = vload8(0, t + 2 * Wo + xo);
        } else {
            int i0[8];
            float w[8];
            for (int k = 0; k < 8; k++) {
                const int x = xo + (k < n ? k : n - 1);
                i0[k] = (int)t[x];
                w[k] = t[2 * Wo + x];
            }
            x0 = vload8(0, i0);
            wx = vload8(0, w);
        }
        const int s = x0.s0, x8 = s + 8 < Wo ? s + 8 : Wo - 1;
        const int8 e = lane - (x0 - s);
        const int hi = e.s7;
        float8 p[4], q[4];
        cp_tap8(S, r0, s, Wo, p);
        cp_tap8(S, r1, s, Wo, q);
        WK_EACH_C(
            const float nx = cp_level1(S[(r0 + x8) * C + c]) * (1.0f - wy) + cp_level1(S[(r1 + x8) * C + c]) * wy;
            const float8 m = p[c] * (1.0f - wy) + q[c] * wy;
            const float8 m1 = (float8)(m.s1, m.s2, m.s3, m.s4, m.s5, m.s6, m.s7, nx);
            const float8 a = cp_pick8(m, e, hi);
            acc[c] += wx == 0.0f ? a : a * (1.0f - wx) + cp_pick8(m1, e, hi) * wx);
    }
    WK_EACH_C(v[c] = (v[c] + acc[c]) / (float)(count + 1));
    cp_filtered8(v);
}
#else
#define ZOOM_PARAM
#endif

#if CHROMA
/* WK_COL_CHROMA: albumentations' ChromaticAberration on 8 pixels (v: the values as cp_load8
 * gives them): channels 0 and 2 each read again at OpenCV's undistortion map
 * (cv::initUndistortRectifyMap) of the camera fx = Wo, fy = Ho, cx = Wo / 2, cy = Ho / 2 with
 * k1, k2 = w[1], w[2] (channel 0) and w[3], w[4] (channel 2), by cv::remap's interpolation
 * w[5] (1: linear; 0: nearest, 2: cubic, 4: Lanczos's 8 taps: cp_chroma_taps8), the edges
 * repeated (cv::remap's BORDER_REPLICATE); the other channels as they are */
/* OpenCV's weights of an interpolation's k taps (k = 4: cubic, its A = -0.75; k = 8: Lanczos
 * over 8 taps, normalised) at the fractions t of the 8 pixels: w[0 .. k - 1] */
inline void cp_interp_weights(float8 t, int k, float8 *w) {
    if (k == 4) {
        const float A = -0.75f;
        const float8 u = t + 1.0f, s = 1.0f - t;
        w[0] = ((A * u - 5.0f * A) * u + 8.0f * A) * u - 4.0f * A;
        w[1] = ((A + 2.0f) * t - (A + 3.0f)) * t * t + 1.0f;
        w[2] = ((A + 2.0f) * s - (A + 3.0f)) * s * s + 1.0f;
        w[3] = 1.0f - w[0] - w[1] - w[2];
        return;
    }
    /* OpenCV's interpolateLanczos4: the sine and cosine of one angle, each tap's numerator
     * from them by its turn of 45 degrees (cs), over its squared distance in quarter turns;
     * 1e30 for a tap at distance 0; then normalised */
    const float s45 = 0.70710678118654752f, pi4 = 0.78539816339744831f;
    const float cs[8][2] = {{1.0f, 0.0f}, {-s45, -s45}, {0.0f, 1.0f}, {s45, -s45},
                            {-1.0f, 0.0f}, {s45, s45}, {0.0f, -1.0f}, {-s45, s45}};
    const float8 y0 = -(t + 3.0f) * pi4, s0 = sin(y0), c0 = cos(y0);
    float8 sum = 0.0f;
    for (int i = 0; i < 8; i++) {
        const float8 yi = t + (float)(3 - i), y = -yi * pi4;
        const float8 c = (cs[i][0] * s0 + cs[i][1] * c0) / (y * y);
        w[i] = fabs(yi) >= 1e-6f ? c : (float8)1e30f;
        sum += w[i];
    }
    for (int i = 0; i < 8; i++) w[i] /= sum;
}

/* channel q of the 8 pixels at positions (mx, my) by OpenCV's interpolation `mode` (0:
 * nearest, cvRound as cv::remap rounds a float map; 2: cubic; 4: Lanczos's 8 taps), the edges
 * repeated; the taps' sums row by row */
inline float8 cp_chroma_taps8(__global const X_T *Si, int Ho, int Wo, float8 mx, float8 my,
                              int mode, int q) {
    const int C = CH;
    const int k = mode == 0 ? 1 : (mode == 2 ? 4 : 8), back = mode == 0 ? 0 : k / 2 - 1;
    const float fx = (float)Wo, fy = (float)Ho;
    const float8 bx = mode == 0 ? rint(mx) : wk_floor8(mx), by = mode == 0 ? rint(my) : wk_floor8(my);
    float8 wx[8], wy[8];
    if (mode == 0) {
        wx[0] = 1.0f;
        wy[0] = 1.0f;
    } else {
        cp_interp_weights(mx - bx, k, wx);
        cp_interp_weights(my - by, k, wy);
    }
    /* the first tap's column and row, far positions clamped before they become ints */
    const int8 x0 = convert_int8(wk_clamp8(bx, -16.0f, fx + 16.0f)) - back;
    const int8 y0 = convert_int8(wk_clamp8(by, -16.0f, fy + 16.0f)) - back;
    const int8 zero = (int8)0, xm = (int8)(Wo - 1), ym = (int8)(Ho - 1);
    float8 acc = 0.0f;
    for (int j = 0; j < k; j++) {
        int R[8];
        vstore8(clamp(y0 + j, zero, ym), 0, R);
        float8 row = 0.0f;
        for (int i = 0; i < k; i++) {
            int X[8];
            vstore8(clamp(x0 + i, zero, xm), 0, X);
            float T[8];
            for (int l = 0; l < 8; l++) T[l] = cp_level1(Si[((long)R[l] * Wo + X[l]) * C + q]);
            row += wx[i] * vload8(0, T);
        }
        acc += wy[j] * row;
    }
    return acc;
}

inline void cp_chroma8(__global const X_T *S, int Ho, int Wo, int b, int xo, int yo,
                       __global const float *op, float8 *v) {
    const int C = CH;
    if (C < 3) return;
    const float fx = (float)Wo, fy = (float)Ho, cx = 0.5f * fx, cy = 0.5f * fy;
    const float8 x = ((float8)(0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f) + (float)xo - cx) / fx;
    const float y = ((float)yo - cy) / fy;
    const float8 r2 = x * x + y * y;
    __global const X_T *Si = S + (long)b * Ho * Wo * C;
    const int small = (long)Ho * Wo * C < INT_MAX; /* an image whose offsets fit an int */
    for (int q = 0; q < 2; q++) {
        const float k1 = op[1 + 2 * q], k2 = op[2 + 2 * q];
        const float8 kr = 1.0f + (k2 * r2 + k1) * r2;
        const float8 mx = fx * (x * kr) + cx, my = fy * (y * kr) + cy;
        if ((int)op[5] != 1) {
            v[2 * q] = cp_chroma_taps8(Si, Ho, Wo, mx, my, (int)op[5], 2 * q);
            continue;
        }
        const float8 fx0 = wk_floor8(mx), fy0 = wk_floor8(my), ax = mx - fx0, ay = my - fy0;
        /* the four taps' offsets, the edges repeated (positions far outside clamp to the edge
         * before they become ints) */
        const int8 x0 = convert_int8(wk_clamp8(fx0, -1.0f, fx)), y0 = convert_int8(wk_clamp8(fy0, -1.0f, fy));
        /* (vector bounds: Oclgrind's clamp of an int8 by two ints read past them) */
        const int8 zero = (int8)0, xm = (int8)(Wo - 1), ym = (int8)(Ho - 1);
        const int8 xa = clamp(x0, zero, xm), xb = clamp(x0 + 1, zero, xm);
        const int8 ya = clamp(y0, zero, ym), yb = clamp(y0 + 1, zero, ym);
        const int8 ra = ya * Wo, rb = yb * Wo;
        float T[32];
        if (small) { /* the offsets as ints, in vectors (39 -> 22 ms for 64 items of 224 x 224) */
            int O[32];
            vstore8((ra + xa) * C + 2 * q, 0, O);
            vstore8((ra + xb) * C + 2 * q, 1, O);
            vstore8((rb + xa) * C + 2 * q, 2, O);
            vstore8((rb + xb) * C + 2 * q, 3, O);
            for (int k = 0; k < 32; k++) T[k] = cp_level1(Si[O[k]]);
        } else {
            int R[16], X[16];
            vstore8(ya, 0, R);
            vstore8(yb, 1, R);
            vstore8(xa, 0, X);
            vstore8(xb, 1, X);
            for (int k = 0; k < 32; k++)
                T[k] = cp_level1(Si[((long)R[(k >> 4) * 8 + (k & 7)] * Wo + X[(k >> 3 & 1) * 8 + (k & 7)]) * C + 2 * q]);
        }
        const float8 t00 = vload8(0, T), t01 = vload8(1, T), t10 = vload8(2, T), t11 = vload8(3, T);
        v[2 * q] = (t00 * (1.0f - ax) + t01 * ax) * (1.0f - ay) + (t10 * (1.0f - ax) + t11 * ax) * ay;
    }
    cp_filtered8(v);
}
#endif

#if MOTION
/* the taps' values in order past an operation's first words: op[first] on, then words 1 .. 11
 * of each WK_COL_DATA operation after it (CP_NEXT_WORD) */
#define CP_TAP_WORDS(op, first) __global const float *t = (op) + (first); int left = WK_COL_WORDS - (first)

/* albumentations' MotionBlur (OpenCV's filter2D with its line kernel) of the 8 pixels from xo of
 * row yo: op (WK_COL_MOTION) holds the taps' count n, their weight, then n (dx, dy) offsets */
inline void cp_motion8(__global const X_T *S, int Ho, int Wo, int b, int xo, int yo,
                       __global const float *op, float8 *v) {
    const int C = CH;
    const int n = (int)op[1];
    const float w = op[2];
    CP_TAP_WORDS(op, 3);
    WK_EACH_C(v[c] = 0.0f);
    for (int i = 0; i < n; i++) {
        const int dx = (int)*t;
        CP_NEXT_WORD(t, left);
        const int dy = (int)*t;
        CP_NEXT_WORD(t, left);
        float8 p[4];
        cp_tap8(S, ((long)b * Ho + cp_reflect(yo + dy, Ho)) * Wo, xo + dx, Wo, p);
        WK_EACH_C(v[c] += w * p[c]); /* (copies: the sums stay in registers) */
    }
    cp_filtered8(v);
}

/* CP_TAP_R: the widest reach of a WK_COL_TAPS kernel (engine/plan.MAX_TAP_RADIUS) */
#define CP_TAP_R 32
/* OpenCV's filter2D with any kernel (albumentations' AdvancedBlur, Defocus and
 * RingingOvershoot) of the 8 pixels from xo of row yo: op (WK_COL_TAPS) holds the kernel's rows
 * with a nonzero weight and its reach r (|dx| <= r); each row is a WK_COL_DATA operation (dy,
 * the first dx, the count of weights from there) and its weights, 8 an operation; summed row by
 * row and left to right, as OpenCV sums them (a zero weight inside a row adds an exact 0). Each
 * row's source pixels xo + dx0 .. xo + dx0 + count + 6 are read once, into a private row per
 * channel, and each weight's 8 values come from there: a tap read from the image on its own
 * with its (dx, dy) cost ~30 cycles a block (a Defocus of ~200 taps took 250 ms per 64 outputs
 * of 224 x 224) */
inline void cp_taps8(__global const X_T *S, int Ho, int Wo, int b, int xo, int yo,
                     __global const float *op, float8 *v) {
    const int C = CH;
    const int rows = (int)op[1];
    float seg[4][2 * CP_TAP_R + 16];
    WK_EACH_C(v[c] = 0.0f);
    __global const float *q = op + WK_COL_WORDS;
    for (int i = 0; i < rows; i++) {
        const int dy = (int)q[1], dx0 = (int)q[2], n = (int)q[3];
        const long at = ((long)b * Ho + cp_reflect(yo + dy, Ho)) * Wo;
        for (int k = 0; k < n + 7; k += 8) { /* the row's source pixels, 8 at a time */
            float8 p[4];
            cp_tap8(S, at, xo + dx0 + k, Wo, p);
            WK_EACH_C(vstore8(p[c], 0, seg[c] + k));
        }
        __global const float *w = q + WK_COL_WORDS + 1;
        /* the channels as copies (WK_EACH_C): the sums stay in registers */
        for (int j = 0; j < n; j++) {
            const float wj = w[WK_COL_WORDS * (j >> 3) + (j & 7)];
            WK_EACH_C(v[c] += wj * vload8(0, seg[c] + j));
        }
        q += WK_COL_WORDS * (1 + ((n + 7) >> 3));
    }
    cp_filtered8(v);
}

/* OpenCV's filter2D with a 3x3 kernel (albumentations' Sharpen and Emboss) of the 8 pixels
 * from xo of row yo: op (WK_COL_CONV) holds the weights of offsets (-1, -1) .. (1, 1) row by
 * row, summed in that order as OpenCV sums them */
inline void cp_conv8(__global const X_T *S, int Ho, int Wo, int b, int xo, int yo,
                     __global const float *op, float8 *v) {
    const int C = CH;
    WK_EACH_C(v[c] = 0.0f);
    for (int t = 0; t < 9; t++) {
        const float w = op[1 + t];
        float8 p[4];
        cp_tap8(S, ((long)b * Ho + cp_reflect(yo + t / 3 - 1, Ho)) * Wo, xo + t % 3 - 1, Wo, p);
        WK_EACH_C(v[c] += w * p[c]);
    }
    cp_filtered8(v);
}
#endif

#if MEDIAN || MORPH
/* channel c of the 8 pixels from x0 of `row` for the median and Morphological, the columns
 * past the edges repeating them (OpenCV's BORDER_REPLICATE; out of line: inlined at every tap
 * of the networks, it took PoCL seconds to compile) */
__attribute__((noinline)) float8 cp_mtap_edge(__global const X_T *S, long row, int x0, int Wo,
                                              int c) {
    float l[8];
    for (int k = 0; k < 8; k++) {
        const int x = x0 + k < 0 ? 0 : (x0 + k >= Wo ? Wo - 1 : x0 + k);
        l[k] = cp_level1(S[(row + x) * CH + c]);
    }
    return (float8)(l[0], l[1], l[2], l[3], l[4], l[5], l[6], l[7]);
}

/* vector c of the 8 pixels' tap (dx, dy) for the median and Morphological: inside its rows,
 * as stored (interleaved: vector c holds values 8c .. 8c + 7 of the 8 pixels' C values, each
 * tap a shift of C dx values, so each lane stays one pixel's channel); else channel c, the rows
 * and columns past the edges repeating them (OpenCV's BORDER_REPLICATE) */
inline __attribute__((always_inline)) float8 cp_mtap(__global const X_T *S, int Ho, int Wo,
                                                     int b, int xo, int yo, int dx, int dy,
                                                     int c, int inside) {
    const int y = yo + dy < 0 ? 0 : (yo + dy >= Ho ? Ho - 1 : yo + dy);
    const long row = ((long)b * Ho + y) * Wo;
#if CP_VEC
    if (inside) return CP_LEVEL8(CV(CP_LOAD8(S + (row + xo + dx) * CH, c), float8));
#endif
    return cp_mtap_edge(S, row, xo + dx, Wo, c);
}
#endif

#if MORPH
/* the larger / smaller of two vectors of the stored type or of floats */
#if WK_BUILTINS
#define CP_VMAX(a, b) __builtin_elementwise_max(a, b)
#define CP_VMIN(a, b) __builtin_elementwise_min(a, b)
#else
#define CP_VMAX(a, b) max(a, b)
#define CP_VMIN(a, b) min(a, b)
#endif
/* each row's taps of the element at op into m, vector by vector: TAP(dx, c) the tap's vector
 * c in the row yo + dy (ROW(dy): what TAP needs of it, made once a row, in `at`; m starts as
 * the anchor's own values: the anchor is in every element) */
#define CP_MORPH_ROWS(ROW, TAP)                                                                 \
    {                                                                                           \
        __global const float *q = op + WK_COL_WORDS;                                            \
        {                                                                                       \
            ROW(0);                                                                             \
            WK_EACH_C(m[c] = TAP(0, c));                                                        \
        }                                                                                       \
        for (int i = 0; i < rows; i++, q += WK_COL_WORDS) {                                     \
            const int dy = (int)q[1], dx0 = (int)q[2], n = (int)q[3];                           \
            ROW(dy);                                                                            \
            if (dilate) {                                                                       \
                for (int dx = dx0; dx < dx0 + n; dx++) WK_EACH_C(m[c] = CP_VMAX(m[c], TAP(dx, c))); \
            } else {                                                                            \
                for (int dx = dx0; dx < dx0 + n; dx++) WK_EACH_C(m[c] = CP_VMIN(m[c], TAP(dx, c))); \
            }                                                                                   \
        }                                                                                       \
    }
/* albumentations' Morphological (OpenCV's dilate or erode with an elliptic structuring element)
 * of the 8 pixels from xo of row yo: op (WK_COL_MORPH) holds the element's rows (op[1]: each
 * a WK_COL_DATA operation after it, dy, the first dx, the count of columns), its reach (op[2]:
 * the largest |dx|), the rows' count again (op[3]: the operations skipped with it), then 1
 * to dilate (each channel's largest value under the element) or 0 to erode (its smallest).
 * OpenCV leaves the taps outside the image out; repeating the edge pixels instead (cp_mtap)
 * gives the same values, since each row of the ellipse is one run holding the anchor's column
 * and rows nearer the anchor's are no narrower (a tap past an edge is then replaced by one
 * inside the element). A block whose taps stay inside its rows takes them as stored, the C
 * values of its 8 pixels interleaved (each tap a shift of C dx values: a lane stays one
 * pixel's channel), and splits the extremes into channels once at the end, as the median.
 * Exact: the result is one of the values. */
inline __attribute__((always_inline)) void cp_morph8(__global const X_T *S, int Ho, int Wo,
                                                     int b, int xo, int yo,
                                                     __global const float *op, float8 *v) {
    const int C = CH;
    const int rows = (int)op[1], reach = (int)op[2], dilate = op[4] != 0.0f;
#if CP_VEC
    if (xo - reach >= 0 && xo + 8 + reach <= Wo) {
        /* the values as stored, compared in their own type (uchar8: no conversion a tap) */
        cp_vec8 m[4];
#define CP_RAW_ROW(dy) \
        __global const X_T *at = S + (((long)b * Ho + clamp(yo + (dy), 0, Ho - 1)) * Wo + xo) * CH
#define CP_RAW_TAP(dx, c) CP_LOAD8(at + (dx) * CH, c)
        CP_MORPH_ROWS(CP_RAW_ROW, CP_RAW_TAP)
#undef CP_RAW_ROW
#undef CP_RAW_TAP
        float8 f[4], x[4];
        WK_EACH_C(f[c] = CP_LEVEL8(CV(m[c], float8)));
        CP_SPLIT(float8, f[0], f[C > 1 ? 1 : 0], f[C > 2 ? 2 : 0], f[C > 3 ? 3 : 0], x);
        WK_EACH_C(v[c] = x[c]);
        return;
    }
#endif
    float8 m[4];
#define CP_EDGE_ROW(dy) const int at = (dy)
#define CP_EDGE_TAP(dx, c) cp_mtap(S, Ho, Wo, b, xo, yo, dx, at, c, 0)
    CP_MORPH_ROWS(CP_EDGE_ROW, CP_EDGE_TAP)
#undef CP_EDGE_ROW
#undef CP_EDGE_TAP
    WK_EACH_C(v[c] = m[c]);
}
#endif

#if MEDIAN
/* CP_MTOP: the highest bit of a level the median's search tries (uint8 images and float images
 * as levels of 255: 128; uint16: 32768) */
#if WK_COL_INT && X_MAX > UCHAR_MAX
#define CP_MTOP 32768.0f
#else
#define CP_MTOP 128.0f
#endif
/* a compare-exchange of w[a] and w[b] (the smaller in a), and its halves */
#define CP_CE(w, a, b) { const float8 t_ = w[a]; w[a] = wk_fmin8(t_, w[b]); w[b] = wk_fmax8(t_, w[b]); }
#define CP_LO(w, a, b) w[a] = wk_fmin8(w[a], w[b]);
#define CP_HI(w, a, b) w[b] = wk_fmax8(w[a], w[b]);
/* median networks, generated by tests/median_networks.py (do not edit by hand) */
#define CP_MEDIAN3(w) \
    CP_CE(w, 1, 2) CP_CE(w, 3, 4) CP_CE(w, 5, 6) CP_CE(w, 7, 8) CP_CE(w, 1, 3) CP_CE(w, 2, 4) \
    CP_CE(w, 5, 7) CP_CE(w, 6, 8) CP_CE(w, 2, 3) CP_CE(w, 6, 7) CP_CE(w, 0, 4) CP_CE(w, 0, 2) \
    CP_CE(w, 0, 1) CP_CE(w, 2, 3) CP_CE(w, 6, 7) CP_HI(w, 0, 8) CP_HI(w, 1, 5) CP_HI(w, 2, 6) \
    CP_LO(w, 3, 7) CP_LO(w, 4, 8) CP_HI(w, 3, 5) CP_LO(w, 4, 6) CP_LO(w, 4, 5)
#define CP_MEDIAN3_AT 4
#define CP_MEDIAN5(w) \
    CP_CE(w, 1, 2) CP_CE(w, 3, 4) CP_CE(w, 5, 6) CP_CE(w, 7, 8) CP_CE(w, 9, 10) CP_CE(w, 11, 12) \
    CP_CE(w, 13, 14) CP_CE(w, 15, 16) CP_CE(w, 17, 18) CP_CE(w, 19, 20) CP_CE(w, 21, 22) \
    CP_CE(w, 23, 24) CP_CE(w, 1, 3) CP_CE(w, 2, 4) CP_CE(w, 5, 7) CP_CE(w, 6, 8) CP_CE(w, 9, 11) \
    CP_CE(w, 10, 12) CP_CE(w, 13, 15) CP_CE(w, 14, 16) CP_CE(w, 17, 19) CP_CE(w, 18, 20) \
    CP_CE(w, 21, 23) CP_CE(w, 22, 24) CP_CE(w, 2, 3) CP_CE(w, 6, 7) CP_CE(w, 10, 11) \
    CP_CE(w, 14, 15) CP_CE(w, 18, 19) CP_CE(w, 22, 23) CP_CE(w, 0, 4) CP_CE(w, 5, 9) \
    CP_CE(w, 6, 10) CP_CE(w, 7, 11) CP_CE(w, 8, 12) CP_CE(w, 13, 17) CP_CE(w, 14, 18) \
    CP_CE(w, 15, 19) CP_CE(w, 16, 20) CP_CE(w, 0, 2) CP_CE(w, 7, 9) CP_CE(w, 8, 10) \
    CP_CE(w, 15, 17) CP_CE(w, 16, 18) CP_CE(w, 0, 1) CP_CE(w, 2, 3) CP_CE(w, 6, 7) \
    CP_CE(w, 8, 9) CP_CE(w, 10, 11) CP_CE(w, 14, 15) CP_CE(w, 16, 17) CP_CE(w, 18, 19) \
    CP_CE(w, 22, 23) CP_CE(w, 0, 8) CP_CE(w, 1, 9) CP_CE(w, 2, 10) CP_CE(w, 3, 11) \
    CP_CE(w, 4, 12) CP_CE(w, 13, 21) CP_CE(w, 14, 22) CP_CE(w, 15, 23) CP_CE(w, 16, 24) \
    CP_CE(w, 1, 5) CP_CE(w, 2, 6) CP_CE(w, 3, 7) CP_CE(w, 4, 8) CP_CE(w, 17, 21) \
    CP_CE(w, 18, 22) CP_CE(w, 19, 23) CP_CE(w, 20, 24) CP_CE(w, 0, 2) CP_CE(w, 3, 5) \
    CP_CE(w, 4, 6) CP_CE(w, 7, 9) CP_CE(w, 8, 10) CP_CE(w, 15, 17) CP_CE(w, 16, 18) \
    CP_CE(w, 19, 21) CP_CE(w, 20, 22) CP_CE(w, 0, 1) CP_CE(w, 2, 3) CP_CE(w, 4, 5) \
    CP_CE(w, 6, 7) CP_CE(w, 8, 9) CP_CE(w, 10, 11) CP_CE(w, 14, 15) CP_CE(w, 16, 17) \
    CP_CE(w, 18, 19) CP_CE(w, 20, 21) CP_CE(w, 22, 23) CP_HI(w, 0, 16) CP_HI(w, 1, 17) \
    CP_HI(w, 2, 18) CP_HI(w, 3, 19) CP_HI(w, 4, 20) CP_LO(w, 5, 21) CP_LO(w, 6, 22) \
    CP_LO(w, 7, 23) CP_LO(w, 8, 24) CP_HI(w, 5, 13) CP_HI(w, 6, 14) CP_HI(w, 7, 15) \
    CP_HI(w, 8, 16) CP_LO(w, 9, 17) CP_LO(w, 10, 18) CP_LO(w, 11, 19) CP_LO(w, 12, 20) \
    CP_HI(w, 9, 13) CP_HI(w, 10, 14) CP_LO(w, 11, 15) CP_LO(w, 12, 16) CP_HI(w, 11, 13) \
    CP_LO(w, 12, 14) CP_LO(w, 12, 13)
#define CP_MEDIAN5_AT 12
#define CP_MEDIAN7(w) \
    CP_CE(w, 1, 2) CP_CE(w, 3, 4) CP_CE(w, 5, 6) CP_CE(w, 7, 8) CP_CE(w, 9, 10) CP_CE(w, 11, 12) \
    CP_CE(w, 13, 14) CP_CE(w, 15, 16) CP_CE(w, 17, 18) CP_CE(w, 19, 20) CP_CE(w, 21, 22) \
    CP_CE(w, 23, 24) CP_CE(w, 25, 26) CP_CE(w, 27, 28) CP_CE(w, 29, 30) CP_CE(w, 31, 32) \
    CP_CE(w, 33, 34) CP_CE(w, 35, 36) CP_CE(w, 37, 38) CP_CE(w, 39, 40) CP_CE(w, 41, 42) \
    CP_CE(w, 43, 44) CP_CE(w, 45, 46) CP_CE(w, 47, 48) CP_CE(w, 1, 3) CP_CE(w, 2, 4) \
    CP_CE(w, 5, 7) CP_CE(w, 6, 8) CP_CE(w, 9, 11) CP_CE(w, 10, 12) CP_CE(w, 13, 15) \
    CP_CE(w, 14, 16) CP_CE(w, 17, 19) CP_CE(w, 18, 20) CP_CE(w, 21, 23) CP_CE(w, 22, 24) \
    CP_CE(w, 25, 27) CP_CE(w, 26, 28) CP_CE(w, 29, 31) CP_CE(w, 30, 32) CP_CE(w, 33, 35) \
    CP_CE(w, 34, 36) CP_CE(w, 37, 39) CP_CE(w, 38, 40) CP_CE(w, 41, 43) CP_CE(w, 42, 44) \
    CP_CE(w, 45, 47) CP_CE(w, 46, 48) CP_CE(w, 2, 3) CP_CE(w, 6, 7) CP_CE(w, 10, 11) \
    CP_CE(w, 14, 15) CP_CE(w, 18, 19) CP_CE(w, 22, 23) CP_CE(w, 26, 27) CP_CE(w, 30, 31) \
    CP_CE(w, 34, 35) CP_CE(w, 38, 39) CP_CE(w, 42, 43) CP_CE(w, 46, 47) CP_CE(w, 1, 5) \
    CP_CE(w, 2, 6) CP_CE(w, 3, 7) CP_CE(w, 4, 8) CP_CE(w, 9, 13) CP_CE(w, 10, 14) \
    CP_CE(w, 11, 15) CP_CE(w, 12, 16) CP_CE(w, 17, 21) CP_CE(w, 18, 22) CP_CE(w, 19, 23) \
    CP_CE(w, 20, 24) CP_CE(w, 25, 29) CP_CE(w, 26, 30) CP_CE(w, 27, 31) CP_CE(w, 28, 32) \
    CP_CE(w, 33, 37) CP_CE(w, 34, 38) CP_CE(w, 35, 39) CP_CE(w, 36, 40) CP_CE(w, 41, 45) \
    CP_CE(w, 42, 46) CP_CE(w, 43, 47) CP_CE(w, 44, 48) CP_CE(w, 3, 5) CP_CE(w, 4, 6) \
    CP_CE(w, 11, 13) CP_CE(w, 12, 14) CP_CE(w, 19, 21) CP_CE(w, 20, 22) CP_CE(w, 27, 29) \
    CP_CE(w, 28, 30) CP_CE(w, 35, 37) CP_CE(w, 36, 38) CP_CE(w, 43, 45) CP_CE(w, 44, 46) \
    CP_CE(w, 2, 3) CP_CE(w, 4, 5) CP_CE(w, 6, 7) CP_CE(w, 10, 11) CP_CE(w, 12, 13) \
    CP_CE(w, 14, 15) CP_CE(w, 18, 19) CP_CE(w, 20, 21) CP_CE(w, 22, 23) CP_CE(w, 26, 27) \
    CP_CE(w, 28, 29) CP_CE(w, 30, 31) CP_CE(w, 34, 35) CP_CE(w, 36, 37) CP_CE(w, 38, 39) \
    CP_CE(w, 42, 43) CP_CE(w, 44, 45) CP_CE(w, 46, 47) CP_CE(w, 0, 8) CP_CE(w, 9, 17) \
    CP_CE(w, 10, 18) CP_CE(w, 11, 19) CP_CE(w, 12, 20) CP_CE(w, 13, 21) CP_CE(w, 14, 22) \
    CP_CE(w, 15, 23) CP_CE(w, 16, 24) CP_CE(w, 25, 33) CP_CE(w, 26, 34) CP_CE(w, 27, 35) \
    CP_CE(w, 28, 36) CP_CE(w, 29, 37) CP_CE(w, 30, 38) CP_CE(w, 31, 39) CP_CE(w, 32, 40) \
    CP_CE(w, 0, 4) CP_CE(w, 13, 17) CP_CE(w, 14, 18) CP_CE(w, 15, 19) CP_CE(w, 16, 20) \
    CP_CE(w, 29, 33) CP_CE(w, 30, 34) CP_CE(w, 31, 35) CP_CE(w, 32, 36) CP_CE(w, 0, 2) \
    CP_CE(w, 3, 5) CP_CE(w, 4, 6) CP_CE(w, 11, 13) CP_CE(w, 12, 14) CP_CE(w, 15, 17) \
    CP_CE(w, 16, 18) CP_CE(w, 19, 21) CP_CE(w, 20, 22) CP_CE(w, 27, 29) CP_CE(w, 28, 30) \
    CP_CE(w, 31, 33) CP_CE(w, 32, 34) CP_CE(w, 35, 37) CP_CE(w, 36, 38) CP_CE(w, 43, 45) \
    CP_CE(w, 44, 46) CP_CE(w, 0, 1) CP_CE(w, 2, 3) CP_CE(w, 4, 5) CP_CE(w, 6, 7) \
    CP_CE(w, 10, 11) CP_CE(w, 12, 13) CP_CE(w, 14, 15) CP_CE(w, 16, 17) CP_CE(w, 18, 19) \
    CP_CE(w, 20, 21) CP_CE(w, 22, 23) CP_CE(w, 26, 27) CP_CE(w, 28, 29) CP_CE(w, 30, 31) \
    CP_CE(w, 32, 33) CP_CE(w, 34, 35) CP_CE(w, 36, 37) CP_CE(w, 38, 39) CP_CE(w, 42, 43) \
    CP_CE(w, 44, 45) CP_CE(w, 46, 47) CP_CE(w, 0, 16) CP_CE(w, 1, 17) CP_CE(w, 2, 18) \
    CP_CE(w, 3, 19) CP_CE(w, 4, 20) CP_CE(w, 5, 21) CP_CE(w, 6, 22) CP_CE(w, 7, 23) \
    CP_CE(w, 8, 24) CP_CE(w, 25, 41) CP_CE(w, 26, 42) CP_CE(w, 27, 43) CP_CE(w, 28, 44) \
    CP_CE(w, 29, 45) CP_CE(w, 30, 46) CP_CE(w, 31, 47) CP_CE(w, 32, 48) CP_CE(w, 1, 9) \
    CP_CE(w, 2, 10) CP_CE(w, 3, 11) CP_CE(w, 4, 12) CP_CE(w, 5, 13) CP_CE(w, 6, 14) \
    CP_CE(w, 7, 15) CP_CE(w, 8, 16) CP_CE(w, 33, 41) CP_CE(w, 34, 42) CP_CE(w, 35, 43) \
    CP_CE(w, 36, 44) CP_CE(w, 37, 45) CP_CE(w, 38, 46) CP_CE(w, 39, 47) CP_CE(w, 40, 48) \
    CP_CE(w, 0, 4) CP_CE(w, 5, 9) CP_CE(w, 6, 10) CP_CE(w, 7, 11) CP_CE(w, 8, 12) \
    CP_CE(w, 13, 17) CP_CE(w, 14, 18) CP_CE(w, 15, 19) CP_CE(w, 16, 20) CP_CE(w, 29, 33) \
    CP_CE(w, 30, 34) CP_CE(w, 31, 35) CP_CE(w, 32, 36) CP_CE(w, 37, 41) CP_CE(w, 38, 42) \
    CP_CE(w, 39, 43) CP_CE(w, 40, 44) CP_CE(w, 0, 2) CP_CE(w, 3, 5) CP_CE(w, 4, 6) \
    CP_CE(w, 7, 9) CP_CE(w, 8, 10) CP_CE(w, 11, 13) CP_CE(w, 12, 14) CP_CE(w, 15, 17) \
    CP_CE(w, 16, 18) CP_CE(w, 19, 21) CP_CE(w, 20, 22) CP_CE(w, 27, 29) CP_CE(w, 28, 30) \
    CP_CE(w, 31, 33) CP_CE(w, 32, 34) CP_CE(w, 35, 37) CP_CE(w, 36, 38) CP_CE(w, 39, 41) \
    CP_CE(w, 40, 42) CP_CE(w, 43, 45) CP_CE(w, 44, 46) CP_CE(w, 0, 1) CP_CE(w, 2, 3) \
    CP_CE(w, 4, 5) CP_CE(w, 6, 7) CP_CE(w, 8, 9) CP_CE(w, 10, 11) CP_CE(w, 12, 13) \
    CP_CE(w, 14, 15) CP_CE(w, 16, 17) CP_CE(w, 18, 19) CP_CE(w, 20, 21) CP_CE(w, 22, 23) \
    CP_CE(w, 26, 27) CP_CE(w, 28, 29) CP_CE(w, 30, 31) CP_CE(w, 32, 33) CP_CE(w, 34, 35) \
    CP_CE(w, 36, 37) CP_CE(w, 38, 39) CP_CE(w, 40, 41) CP_CE(w, 42, 43) CP_CE(w, 44, 45) \
    CP_CE(w, 46, 47) CP_HI(w, 0, 32) CP_HI(w, 1, 33) CP_HI(w, 2, 34) CP_HI(w, 3, 35) \
    CP_HI(w, 4, 36) CP_HI(w, 5, 37) CP_HI(w, 6, 38) CP_HI(w, 7, 39) CP_HI(w, 8, 40) \
    CP_LO(w, 9, 41) CP_LO(w, 10, 42) CP_LO(w, 11, 43) CP_LO(w, 12, 44) CP_LO(w, 13, 45) \
    CP_LO(w, 14, 46) CP_LO(w, 15, 47) CP_LO(w, 16, 48) CP_HI(w, 9, 25) CP_HI(w, 10, 26) \
    CP_HI(w, 11, 27) CP_HI(w, 12, 28) CP_HI(w, 13, 29) CP_HI(w, 14, 30) CP_HI(w, 15, 31) \
    CP_HI(w, 16, 32) CP_LO(w, 17, 33) CP_LO(w, 18, 34) CP_LO(w, 19, 35) CP_LO(w, 20, 36) \
    CP_LO(w, 21, 37) CP_LO(w, 22, 38) CP_LO(w, 23, 39) CP_LO(w, 24, 40) CP_HI(w, 17, 25) \
    CP_HI(w, 18, 26) CP_HI(w, 19, 27) CP_HI(w, 20, 28) CP_LO(w, 21, 29) CP_LO(w, 22, 30) \
    CP_LO(w, 23, 31) CP_LO(w, 24, 32) CP_HI(w, 21, 25) CP_HI(w, 22, 26) CP_LO(w, 23, 27) \
    CP_LO(w, 24, 28) CP_HI(w, 23, 25) CP_LO(w, 24, 26) CP_LO(w, 24, 25)
#define CP_MEDIAN7_AT 24
/* end of the median networks */

/* the median of vector c's k x k taps by a network (k = 3, 5, 7: CP_MEDIAN<k>) */
#define CP_MEDIAN_NET(K)                                                                   \
    for (int c = 0; c < C; c++) {                                                          \
        float8 w[K * K];                                                                   \
        _Pragma("unroll") for (int t = 0; t < K * K; t++)                                  \
            w[t] = cp_mtap(S, Ho, Wo, b, xo, yo, t % K - K / 2, t / K - K / 2, c, inside); \
        CP_MEDIAN##K(w)                                                                    \
        m[c] = w[CP_MEDIAN##K##_AT];                                                       \
    }

/* albumentations' MedianBlur (OpenCV's medianBlur on 8-bit levels, the edge pixels repeated)
 * of the 8 pixels from xo of row yo: each pixel's and channel's median of the k x k values
 * around it (k = op[1], odd). Sizes 3, 5 and 7 (albumentations' default range) go through a
 * selection network (tests/median_networks.py: 23, 114 and 320 comparisons a vector; the
 * larger two only in builds whose items draw them: colour.h's WK_COLG_MED5, WK_COLG_MED7); the
 * others search the median bit by bit from the top: the largest level m with at most
 * h = (k k - 1) / 2 of the values below it, the middle one of them (exact: levels are whole
 * numbers). Float images take their values as albumentations' uint8 conversion makes them,
 * rint(255 v) of v clipped to [0, 1] (the networks select among the floats: rounding keeps
 * their order), and the median back as m / 255. A block whose taps stay inside its rows reads
 * them as stored and splits the medians into channels once at the end (cp_mtap). */
inline __attribute__((always_inline)) void cp_median8(__global const X_T *S, int Ho, int Wo,
                                                      int b, int xo, int yo, int k, float8 *v) {
    const int C = CH, r = k / 2;
#if CP_VEC
    const int inside = xo - r >= 0 && xo + 8 + r <= Wo;
#else
    const int inside = 0;
#endif
    float8 m[4];
    WK_EACH_C(m[c] = 0.0f);
    if (k == 3) {
        CP_MEDIAN_NET(3)
#if WK_COL_HEAVY & WK_COLG_MED5
    } else if (k == 5) {
        CP_MEDIAN_NET(5)
#endif
#if WK_COL_HEAVY & WK_COLG_MED7
    } else if (k == 7) {
        CP_MEDIAN_NET(7)
#endif
    } else {
        const float h = (float)((k * k) / 2);
        for (int c = 0; c < C; c++) {
            for (float bit = CP_MTOP; bit >= 1.0f; bit *= 0.5f) {
                float8 below = 0.0f;
                for (int dy = -r; dy <= r; dy++)
                    for (int dx = -r; dx <= r; dx++) {
                        float8 p = cp_mtap(S, Ho, Wo, b, xo, yo, dx, dy, c, inside);
#if !WK_COL_INT
                        p = wk_rint8(p * 255.0f);
#endif
                        /* (a comparison is -1 where it holds; select() and convert_* are
                         * library calls on PoCL) */
                        below -= CV(p < m[c] + bit, float8);
                    }
                m[c] += as_float8(as_int8((float8)bit) & (below <= h));
            }
#if !WK_COL_INT
            m[c] /= 255.0f; /* (back to a value: the networks' results are values) */
#endif
        }
    }
#if CP_VEC
    if (inside) {
        float8 x[4];
        CP_SPLIT(float8, m[0], m[C > 1 ? 1 : 0], m[C > 2 ? 2 : 0], m[C > 3 ? 3 : 0], x);
        WK_EACH_C(m[c] = x[c]);
    }
#endif
#if WK_COL_INT
    WK_EACH_C(v[c] = m[c]);
#else
    WK_EACH_C(v[c] = wk_rint8(m[c] * 255.0f) / 255.0f);
#endif
}
#endif

#if BLUR
/* CP_RMAX: the largest radius a blur takes, set by the host (engine.plan.MAX_BLUR_RADIUS; the
 * host refuses operations with larger ones before any launch) */
#ifndef CP_RMAX
#error "CP_RMAX must be defined"
#endif

/* the weights of offsets -r .. r at K[-r .. r] (K = h + r + pad; h: 2 (r + pad) + 1 floats, the
 * pad's zeros around them); the radius r. They start at word 2 of a WK_COL_BLUR, word 4 of a
 * WK_COL_UNSHARP (after its amount and threshold) */
inline int cp_weights(__global const float *op, __local float *h, int pad) {
    const int r = (int)op[1], first = (int)op[0] == WK_COL_UNSHARP ? 4 : 2;
    for (int j = 0; j < 2 * (r + pad) + 1; j++) h[j] = 0.0f;
    __global const float *w = op + first;
    int left = WK_COL_WORDS - first;
    for (int j = 0; j <= r; j++) {
        h[pad + r + j] = *w;
        h[pad + r - j] = *w;
        CP_NEXT_WORD(w, left);
    }
    return r;
}

/* a row filter's tables (work-item 0 of its work-group makes them): K the weights of offsets
 * -r .. r padded with 7 zeros each side (cp_weights), W[m].sk the weight input x0 + m has in
 * output xo + k (x0 = xo - r), m in 0 .. 2 r + 7 */
inline void cp_row_table(__global const float *op, __local float *K, __local float8 *W) {
    const int r = cp_weights(op, K, 7);
    for (int m = 0; m < 2 * r + 8; m++) {
        __local const float *k = K + 2 * r + 7 - m;
        W[m] = (float8)(k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7]);
    }
}

/* each row of the items whose pass starts with WK_COL_BLUR, filtered: T (B, C, Ho, Wp). A
 * work-group takes `rows` rows, its work-items their blocks as colour_apply's. A block away
 * from the row's ends adds, tap by tap (offsets -r .. r), the weight times the 8 pixels that
 * far along, their values as they are stored (interleaved: C vectors, split into channels at
 * the end; uint8 and float32); near an end each input pixel of the 8 outputs' window
 * is read once (reflected) and weighs all 8: input x0 + m (x0 = xo - r) is offset m - r - k
 * from output xo + k, weight W[m].sk (the work-group's table, from the kernel padded with 7
 * zeros each side). Both add each output's terms in the same order (the zero weights add
 * nothing), so they give the same sums. */
#if !WK_ONE_KERNEL || defined(WK_KERNEL_colour_blur_rows)
__kernel void colour_blur_rows(__global const X_T *restrict S, int Ho, int Wo,
                               __global float *restrict T, int Wp,
                               __global const float *restrict COL, int ncol, int rows) {
    const int C = CH;
    const int lid = (int)get_local_id(0), y0 = (int)get_group_id(1) * rows, b = (int)get_global_id(2);
    __global const float *op = WK_COL_OF(b);
    /* the whole work-group: one item (an unsharp mask's image filtered as a blur's) */
    if ((int)op[0] != WK_COL_BLUR && (int)op[0] != WK_COL_UNSHARP) return;
    __local float K[2 * (CP_RMAX + 7) + 1];
    __local float8 W[2 * CP_RMAX + 8];
    const int r = (int)op[1], L = 2 * r + 8;
    if (lid == 0) cp_row_table(op, K, W);
    barrier(CLK_LOCAL_MEM_FENCE);
    /* the tile's blocks as colour_apply walks them (see there). Written out in both kernels on
     * purpose: a shared macro that opened the walk with a one-trip inner loop for yo and xo
     * was miscompiled by PoCL 3.0 after this barrier (a uint16 2-channel blur wrote outside
     * its output and corrupted the host's heap; Oclgrind ran the same source clean) */
    const int nbx = (Wo + 7) >> 3, nr = Ho - y0 < rows ? Ho - y0 : rows, blocks = nr * nbx;
    const int per = (blocks + 63) >> 6, run = rows > 1;
    for (int j = 0; j < per; j++) {
        const int i = run ? lid * per + j : lid + 64 * j;
        if (i >= blocks) break;
        const int yo = y0 + i / nbx, xo = 8 * (i - (yo - y0) * nbx);
        float8 acc[4];
        WK_EACH_C(acc[c] = 0.0f);
        const int x0 = xo - r;
#if CP_VEC
        if (x0 >= 0 && x0 + L <= Wo) {
            /* the 8 outputs' C interleaved values as C vectors (q: values 8q .. 8q + 7), each
             * tap's 8 pixels a shift of C t values; split into channels once at the end */
            __global const X_T *p = S + (((long)b * Ho + yo) * Wo + xo) * C;
            float8 q[4];
            WK_EACH_C(q[c] = 0.0f);
            for (int t = -r; t <= r; t++) {
                const float w = K[7 + r + t];
                WK_EACH_C(q[c] += CP_LEVEL8(CV(CP_LOAD8(p + C * t, c), float8)) * w);
            }
            CP_SPLIT(float8, q[0], q[C > 1 ? 1 : 0], q[C > 2 ? 2 : 0], q[C > 3 ? 3 : 0], acc);
        } else
#endif
        {
            __global const X_T *src = S + ((long)b * Ho + yo) * Wo * C;
            for (int m = 0; m < L; m++) {
                const int x = cp_reflect(x0 + m, Wo);
                const float8 wv = W[m];
                WK_EACH_C(acc[c] += cp_level1(src[x * C + c]) * wv);
            }
        }
        __global float *t = T + (long)b * C * Ho * Wp + (long)yo * Wp + xo;
        WK_EACH_C(*(__global float8 *)(t + (long)c * Ho * Wp) = acc[c]);
    }
}
#endif

/* the 8 pixels from xo of row yo filtered along the columns of T (H: the weights of offsets
 * 0 .. r), in float as they come */
inline __attribute__((always_inline)) void cp_cols8(__global const float *T, int Wp, int Ho, int b, int xo,
                                                     int yo, int r, __local const float *H, float8 *v) {
    const int C = CH;
    __global const float *t = T + (long)b * C * Ho * Wp + xo;
    const long plane = (long)Ho * Wp;
    WK_EACH_C(v[c] = H[0] * *(__global const float8 *)(t + c * plane + (long)yo * Wp));
    const int inside = yo - r >= 0 && yo + r < Ho;
    for (int j = 1; j <= r; j++) {
        const int ya = inside ? yo - j : cp_reflect(yo - j, Ho);
        const int yb = inside ? yo + j : cp_reflect(yo + j, Ho);
        const float k = H[j];
        WK_EACH_C(__global const float *tc = t + c * plane;
                  v[c] += k * (*(__global const float8 *)(tc + (long)ya * Wp) +
                               *(__global const float8 *)(tc + (long)yb * Wp)));
    }
}

/* the same, as a blur's result: the item's blurred pixels (integer images rounded to the
 * nearest level, as OpenCV stores them) */
inline __attribute__((always_inline)) void cp_blur_cols(__global const float *T, int Wp, int Ho, int b, int xo,
                                                         int yo, int r, __local const float *H, float8 *v) {
    cp_cols8(T, Wp, Ho, b, xo, yo, r, H, v);
    cp_filtered8(v);
}

#if UNSHARP
/* albumentations' UnsharpMask (colour.h's WK_COL_UNSHARP), after colour_blur_rows filtered the
 * image's rows into T: a work-group's rows, in two steps. First the blurred image B (T's
 * columns, in float, not rounded) and its mask m = |v - B| 255 / peak > threshold (0 or 1 per
 * value) into U, uchar, planar as T. Then, once the work-group's rows of U are written, each
 * of those rows of the mask filtered along the row with the same weights into M (colour_apply
 * filters M's columns: the soft mask, and T's columns again for B). The mask's row reads only
 * its own row of U, which this work-group wrote: no other work-group's results are needed. */
#if !WK_ONE_KERNEL || defined(WK_KERNEL_colour_unsharp_rows)
__kernel void colour_unsharp_rows(__global const X_T *restrict S, int Ho, int Wo,
                                  __global const float *restrict T, int Wp,
                                  __global const float *restrict COL, int ncol, int rows,
                                  __global uchar *restrict U, __global float *restrict M) {
    const int C = CH;
    const int lid = (int)get_local_id(0), y0 = (int)get_group_id(1) * rows, b = (int)get_global_id(2);
    __global const float *op = WK_COL_OF(b);
    if ((int)op[0] != WK_COL_UNSHARP) return; /* the whole work-group: one item */
    __local float K[2 * (CP_RMAX + 7) + 1];
    __local float8 W[2 * CP_RMAX + 8];
    const int r = (int)op[1], L = 2 * r + 8;
    if (lid == 0) cp_row_table(op, K, W);
    barrier(CLK_LOCAL_MEM_FENCE);
    /* the tile's blocks as colour_blur_rows walks them, written out as there (PoCL 3.0) */
    const int nbx = (Wo + 7) >> 3, nr = Ho - y0 < rows ? Ho - y0 : rows, blocks = nr * nbx;
    const int per = (blocks + 63) >> 6, run = rows > 1;
    const long plane = (long)Ho * Wp, item = (long)b * C * plane;
    const float scale = 255.0f / WK_PEAK, threshold = op[3];
    for (int j = 0; j < per; j++) {
        const int i = run ? lid * per + j : lid + 64 * j;
        if (i >= blocks) break;
        const int yo = y0 + i / nbx, xo = 8 * (i - (yo - y0) * nbx);
        const int n = Wo - xo < 8 ? Wo - xo : 8;
        float8 v[4], B[4];
        cp_cols8(T, Wp, Ho, b, xo, yo, r, K + 7 + r, B);
        cp_load8(S, ((long)b * Ho + yo) * Wo, xo, n, v);
        /* (select, not convert_uchar8(m & 1): Oclgrind stored that as 255) */
        WK_EACH_C(const int8 m = fabs(v[c] - B[c]) * scale > (float8)threshold;
                  vstore8(select((uchar8)0, (uchar8)1, convert_char8(m)), 0,
                          U + item + c * plane + (long)yo * Wp + xo));
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    for (int j = 0; j < per; j++) {
        const int i = run ? lid * per + j : lid + 64 * j;
        if (i >= blocks) break;
        const int yo = y0 + i / nbx, xo = 8 * (i - (yo - y0) * nbx);
        __global const uchar *u = U + item + (long)yo * Wp;
        const int x0 = xo - r;
        float8 acc[4];
        WK_EACH_C(acc[c] = 0.0f);
        if (x0 >= 0 && x0 + L <= Wo) { /* tap by tap, the 8 outputs' inputs that far along */
            for (int t = -r; t <= r; t++) {
                const float w = K[7 + r + t];
                WK_EACH_C(acc[c] += convert_float8(vload8(0, u + c * plane + xo + t)) * w);
            }
        } else { /* near an end: each input (reflected) once, weighing all 8 (W) */
            for (int m = 0; m < L; m++) {
                const int x = cp_reflect(x0 + m, Wo);
                const float8 wv = W[m];
                WK_EACH_C(acc[c] += (float)u[c * plane + x] * wv);
            }
        }
        WK_EACH_C(*(__global float8 *)(M + item + c * plane + (long)yo * Wp + xo) = acc[c]);
    }
}
#endif

/* the unsharp mask's result at the 8 pixels from xo of row yo (their values v as cp_load8
 * gives them): the soft mask s (M's columns), the sharpened image clip(v + amount (v - B)) (B:
 * T's columns, as colour_unsharp_rows made them), then sharp s + v (1 - s), as albumentations
 * computes them (integer images rounded to the nearest level, as its conversion back stores
 * them) */
inline __attribute__((always_inline)) void cp_unsharp8(__global const float *M, __global const float *T, int Wp,
                                                        int Ho, int b, int xo, int yo, int r,
                                                        __local const float *H, float amount, float8 *v) {
    const int C = CH;
    float8 s[4], B[4];
    cp_cols8(M, Wp, Ho, b, xo, yo, r, H, s);
    cp_cols8(T, Wp, Ho, b, xo, yo, r, H, B);
    WK_EACH_C(const float8 sharp = wk_clamp8(v[c] + amount * (v[c] - B[c]), 0.0f, WK_PEAK);
              v[c] = sharp * s[c] + v[c] * (1.0f - s[c]));
    cp_filtered8(v);
}
#define UNSHARP_PARAM , __global const float *restrict M
#else
#define UNSHARP_PARAM
#endif
#define BLUR_PARAM , __global const float *restrict T, int Wp
#else
#if UNSHARP
#error "UNSHARP needs BLUR: an unsharp mask filters the image's rows as a blur does"
#endif
#define BLUR_PARAM
#define UNSHARP_PARAM
#endif

#if CLAHE
/* CLAHE (colour.h's WK_COL_CLAHE): OpenCV's createCLAHE(clip, (gx, gy)).apply on 8-bit levels
 * (float images as rint(255 v), back as level / 255, albumentations' uint8 round trip): of
 * the image itself with one channel, of the L of OpenCV's 8-bit Lab with three (the
 * conversions' lookup tables in LABT, laid out as warpkit/engine/lab.py makes them: LT_*).
 * colour_clahe_hist counts each tile's levels, colour_clahe_lut makes its table of 256 levels
 * in LUT (item, tile); colour_apply interpolates each pixel's level between its 4 nearest
 * tiles' tables. Equalize (WK_COL_EQUALIZE) runs in the same kernels: a histogram of the whole
 * image per channel (or of YCrCb's Y), a table each, each pixel through its table. */
#ifndef CLAHE_PIXELS
#define CLAHE_PIXELS 4096 /* a band's pixels, about (engine.plan.CLAHE_PIXELS) */
#endif
#define CLAHE_PARAM , __global const uchar *restrict LUT, int max_tiles, __global const int *restrict LABT

/* (v + 2^(n-1)) >> n: OpenCV's CV_DESCALE */
inline int cl_descale(int v, int n) { return (v + (1 << (n - 1))) >> n; }

/* an 8-bit level of a value as the pass reads it (cp_level1: levels, or floats in [0, 1]) */
inline int cl_level(float v) {
#if WK_COL_INT
    return (int)v;
#else
    return (int)rint(v * 255.0f);
#endif
}

/* L of OpenCV's RGB2Lab_b (0 .. 255) for one pixel's levels: what the histograms count
 * (cl_rgb_lab8 makes the whole Lab of 8 pixels for the apply) */
inline int cl_lab_l(int r, int g, int b, __global const int *T) {
    __global const int *cf = T + LT_COEFFS;
    const int y = cl_descale(T[LT_GAMMA + r] * cf[3] + T[LT_GAMMA + g] * cf[4] +
                             T[LT_GAMMA + b] * cf[5], 12);
    return clamp(cl_descale(((116 * 255 + 50) / 100) * T[LT_CBRT + y] -
                            (16 * 255 * (1 << 15) + 50) / 100, 15), 0, 255);
}

/* the level CLAHE equalises at pixel p (CH values) */
inline int cl_l_at(__global const X_T *p, __global const int *T) {
    if (CH >= 3)
        return cl_lab_l(cl_level(cp_level1(p[0])), cl_level(cp_level1(p[1])),
                        cl_level(cp_level1(p[2])), T);
    return cl_level(cp_level1(p[0]));
}

/* Equalize (WK_COL_EQUALIZE) shares CLAHE's kernels: its "tiles" are the histograms it
 * equalises (channels 0-2 by channels, else one), each of the whole image (w[8], w[9]: the
 * output's width and height, as the host fills them) */
inline int cl_eq_tables(__global const float *op) {
    return op[1] >= 2.0f ? CH : CH >= 3 && op[2] != 0.0f ? 3 : 1; /* (AutoContrast: each channel) */
}

/* Y of OpenCV's RGB2YCrCb on 8-bit levels (14-bit fixed point) */
inline int cl_ycc_y(int r, int g, int b) {
    return cl_descale(r * 4899 + g * 9617 + b * 1868, 14);
}

/* the level an Equalize of one histogram counts at pixel p (CH values): Y of YCrCb, or the
 * one channel's (by channels, colour_clahe_hist counts the three itself) */
inline int cl_eq_level(__global const X_T *p, __global const float *op) {
    if (CH >= 3 && op[2] == 0.0f)
        return cl_ycc_y(cl_level(cp_level1(p[0])), cl_level(cp_level1(p[1])),
                        cl_level(cp_level1(p[2])));
    return cl_level(cp_level1(p[0]));
}

/* a / b rounded to the nearest float, as an x86 CPU divides (OpenCL lets a device's division
 * be 2.5 ulp off: NVIDIA's is, by default): of the quotient and its four neighbours each side,
 * the one whose exact residual (an fma's, exact this close) is smallest (checked against
 * numpy's float32 division for every divisor below 2^20, a million more, and quotients made
 * 2 to 4 ulp off on purpose) */
inline float cl_div_rn(float a, float b) {
    const float q = a / b;
    float best = q, err = fabs(fma(q, b, -a));
    float up = q, down = q;
    for (int k = 0; k < 4; k++) {
        up = nextafter(up, INFINITY);
        down = nextafter(down, -INFINITY);
        const float eu = fabs(fma(up, b, -a)), ed = fabs(fma(down, b, -a));
        if (eu < err) { best = up; err = eu; }
        if (ed < err) { best = down; err = ed; }
    }
    return best;
}

/* Equalize's mask (w[11] its channels: 0 none, 1, or 3, one a channel by channels): whether
 * pixel (x, y) of the Wo x Ho output counts in channel c's histogram, its bit in the w[10]
 * WK_COL_DATA operations after the operation (16 bits a value, 11 values an operation, the
 * mask's channels one after another, each row-major) */
inline int cl_eq_in(__global const float *op, int c, int x, int y, int Wo, int Ho) {
    if (op[11] == 0.0f) return 1;
    const int m = op[11] == 1.0f ? 0 : c;
    const int bit = (m * Ho + y) * Wo + x, v = bit >> 4;
    return ((int)op[WK_COL_WORDS * (1 + v / 11) + 1 + v % 11] >> (bit & 15)) & 1;
}

/* An Equalize's table of 256 levels from its histogram of n pixels (one work-item):
 * mode 0 as OpenCV's equalizeHist (levels from the first one present: the running sum past it
 * times 255 / (n - its count) in float, rounded; an image of one level stays as it is), mode 1
 * as albumentations' "pil" equalize (step: the count of all but the last level present over
 * 255, floored; each level (its running sum + step / 2) / step, at most 255; no change with a
 * single level or a step of 0; albumentations counts in float32, exact under 2^24 pixels). */
inline void cl_eq_lut(const int *hist, int mode, int n, int masked, __global uchar *lut) {
    int first = 0, last = 255;
    for (int i = 255; i >= 0; i--) first = hist[i] != 0 ? i : first;
    for (int i = 0; i < 256; i++) last = hist[i] != 0 ? i : last;
    if (masked) { /* (the pixels the mask selects: albumentations' table of calcHist's counts) */
        n = 0;
        for (int i = 0; i < 256; i++) n += hist[i];
        if (mode == 0 && hist[first] == n) { /* (255 / 0: numpy's NaN and -inf, as uint8 0) */
            for (int i = 0; i < 256; i++) lut[i] = 0;
            return;
        }
    }
    const int step = (n - hist[last]) / 255;
    const int same = mode == 0 ? hist[first] == n : first == last || step == 0;
    const float scale = cl_div_rn(255.0f, (float)max(n - hist[first], 1)); /* (OpenCV's, in float) */
    int sum = 0;
    for (int i = 0; i < 256; i++) {
        sum += hist[i];
        const int v = same ? i
                    : mode == 0 ? (i <= first ? 0 : (int)clamp(rint((float)(sum - hist[first]) * scale), 0.0f, 255.0f))
                    : min((sum + step / 2) / max(step, 1), 255);
        lut[i] = (uchar)v;
    }
}

/* AutoContrast's arithmetic in double without the device's doubles (OpenCL 1.2 makes them
 * optional): a number m 2^e, m below 2^53, and the operations its bounds and "pil" table need,
 * each rounded to 53 bits, to nearest, ties to even, as numpy's float64 rounds them */
typedef struct { ulong m; int e; } cl_sd;

/* bits in x (0 for 0) */
inline int cl_bits(ulong x) { return x == 0 ? 0 : 64 - (int)clz(x); }

/* bits k and up of the 128-bit hi:lo (0 <= k < 128), the low 64 of them */
inline ulong cl_shr128(ulong hi, ulong lo, int k) {
    return k == 0 ? lo : k < 64 ? (lo >> k) | (hi << (64 - k)) : hi >> (k - 64);
}

/* whether any of bits 0 .. k - 1 of hi:lo is set (0 <= k < 128) */
inline int cl_below128(ulong hi, ulong lo, int k) {
    if (k <= 0) return 0;
    if (k < 64) return (lo & ((1UL << k) - 1)) != 0;
    return lo != 0 || (k > 64 && (hi & ((1UL << (k - 64)) - 1)) != 0);
}

/* (hi:lo + a fraction, not 0 where sticky) 2^e rounded to p bits (53: a double's, 24: a
 * float's) */
inline cl_sd cl_sd_round_to(ulong hi, ulong lo, int e, int sticky, int p) {
    const int n = hi != 0 ? 64 + cl_bits(hi) : cl_bits(lo);
    cl_sd r = {lo, e};
    if (n <= p) return r; /* (then there is no fraction: the callers give one only past p) */
    const int k = n - p;
    ulong m = cl_shr128(hi, lo, k);
    const int mid = (int)(cl_shr128(hi, lo, k - 1) & 1UL); /* (the first bit dropped) */
    if (mid && (sticky || cl_below128(hi, lo, k - 1) || (m & 1UL))) m++;
    r.m = m == (1UL << p) ? m >> 1 : m;
    r.e = e + k + (m == (1UL << p));
    return r;
}
inline cl_sd cl_sd_round(ulong hi, ulong lo, int e, int sticky) {
    return cl_sd_round_to(hi, lo, e, sticky, 53);
}

/* x times the whole number t (0 <= t < 2^31) */
inline cl_sd cl_sd_mul(cl_sd x, uint t) {
    return cl_sd_round(mul_hi(x.m, (ulong)t), x.m * (ulong)t, x.e, 0);
}

/* x divided by the whole number d (1 <= d < 2^10) */
inline cl_sd cl_sd_div(cl_sd x, uint d) {
    if (x.m == 0) return x;
    const int s = 53 - cl_bits(x.m) + 11; /* m to 2^63 .. 2^64: quotients of 54 bits or more */
    const ulong n = x.m << s, q = n / d;
    return cl_sd_round(0, q, x.e - s, n - q * d != 0);
}

/* the smallest whole number >= x, for 0 <= x < 2^31 */
inline long cl_sd_ceil(cl_sd x) {
    if (x.e >= 0) return (long)(x.m << x.e);
    if (x.e <= -64) return x.m != 0;
    return (long)((x.m >> -x.e) + ((x.m & ((1UL << -x.e) - 1)) != 0));
}

/* x rounded to a whole number, ties to even (numpy's round), for 0 <= x < 2^31 */
inline long cl_sd_rint(cl_sd x) {
    if (x.e >= 0) return (long)(x.m << x.e);
    if (x.e < -63) return 0; /* (x < 2^-10) */
    const int k = -x.e;
    ulong q = x.m >> k;
    const ulong rest = x.m & ((1UL << k) - 1), mid = 1UL << (k - 1);
    return (long)(q + (rest > mid || (rest == mid && (q & 1UL))));
}

/* AutoContrast's table of channel t (op: the WK_COL_EQUALIZE words of colour.h: w[1] 2 "cdf" or
 * 3 "pil", w[3] the level ignored or -1, w[4 .. 7] the cutoff in percent as m 2^e, m in three
 * words of 18 bits, high first) from its histogram of 8-bit levels (one work-item; changes the
 * histogram), as albumentations' auto_contrast makes it on OpenCV's calcHist over [0, 255),
 * which never counts level 255:
 * - the bounds: without a cutoff the first and last levels present; with one, the running sum
 *   from below first at least total * cutoff / 100 (in double, then rounded to a float: numpy
 *   compares albumentations' float32 running sum with it in float32) gives lo as the level
 *   after it, from above the level itself; lo past hi: no change (no counts: no change either);
 * - "cdf": the running sum from lo, (sum - sum at lo) * 255 / (sum at hi - sum at lo) in float32
 *   (exact counts under 2^24 pixels), rounded; "pil": (i - lo) * (255 / (hi - lo)) in double,
 *   rounded; 0 below lo, 255 above hi; the ignored level kept, the channel numbered as that
 *   level untouched. */
inline void cl_ac_lut(int *hist, __global const float *op, int t, __global uchar *lut) {
#pragma OPENCL FP_CONTRACT OFF
    const int ignore = (int)op[3];
    hist[255] = 0;
    if (ignore >= 0) hist[ignore] = 0;
    long total = 0;
    for (int i = 0; i < 256; i++) total += hist[i];
    int lo = 0, hi = 0;
    const cl_sd cut = {((ulong)op[4] << 35) | ((ulong)op[5] << 17) | (ulong)op[6], (int)op[7]};
    if (cut.m == 0) {
        lo = 256; hi = -1;
        for (int i = 255; i >= 0; i--) lo = hist[i] != 0 ? i : lo;
        for (int i = 0; i < 256; i++) hi = hist[i] != 0 ? i : hi;
        if (hi < 0) lo = hi = 0;
    } else if (total > 0) { /* (a uniform histogram, albumentations' own case, has no counts) */
        const cl_sd need64 = cl_sd_div(cl_sd_mul(cut, (uint)total), 100);
        const long need = cl_sd_ceil(cl_sd_round_to(0, need64.m, need64.e, 0, 24));
        long sum = 0;
        lo = 0;
        for (int i = 0; i < 256; i++) {
            sum += hist[i];
            if (sum >= need) { lo = i + 1; break; }
        }
        lo = min(lo, 255);
        sum = 0;
        hi = 255;
        for (int i = 255; i >= 0; i--) {
            sum += hist[i];
            if (sum >= need) { hi = i; break; }
        }
        if (lo > hi) lo = hi = 127;
    }
    int span = 0;
    for (int i = lo; i <= hi; i++) span += hist[i];
    const int same = t == ignore || hi <= lo || (op[1] == 2.0f && span == 0); /* ("cdf": no counts between) */
    const cl_sd one = {255, 0};
    const cl_sd scale = cl_sd_div(one, (uint)max(hi - lo, 1));
    int sum = 0;
    const int first = hist[lo];
    const float den = (float)(span - first);
    for (int i = 0; i < 256; i++) {
        int v = i;
        if (!same) {
            if (i >= lo && i <= hi) sum += hist[i];
            v = i < lo ? 0 : i > hi ? 255
              : op[1] == 2.0f ? (int)clamp(rint(cl_div_rn((float)(sum - first) * 255.0f, den)), 0.0f, 255.0f)
                              : (int)min(cl_sd_rint(cl_sd_mul(scale, (uint)(i - lo))), 255L);
            if (i == ignore) v = i;
        }
        lut[i] = (uchar)v;
    }
}

/* HistogramMatching (WK_COL_EQUALIZE mode 4): the reference's running count up to level l of
 * channel c, values 2 (256 c + l) and the next of the operation's data (the WK_COL_DATA
 * operations after it, 11 values each: the count's high 16 bits, then its low 16) */
inline int cl_hm_ref(__global const float *op, int c, int l) {
    const int i = 2 * (256 * c + l), j = i + 1;
    const int hi = (int)op[WK_COL_WORDS * (1 + i / 11) + 1 + i % 11];
    return (hi << 16) | (int)op[WK_COL_WORDS * (1 + j / 11) + 1 + j % 11];
}

/* the next level after l present in the reference's channel c (its running count past t, the
 * count up to l), and that count in *tn; 256 where none */
inline int cl_hm_next(__global const float *op, int c, int l, int t, int *tn) {
    for (int k = l + 1; k < 256; k++) {
        const int u = cl_hm_ref(op, c, k);
        if (u != t) { *tn = u; return k; }
    }
    *tn = 0;
    return 256;
}

#if HM_DOUBLE
typedef double hm_t;
#else
typedef float hm_t;
#endif

/* HistogramMatching's table of channel t from its histogram of n pixels (one work-item), as
 * albumentations' match_histograms makes it: the running count s of each level over n (the
 * source's quantile), numpy's interp of it among the reference's quantiles (its running
 * counts over the same n: the reference is resized to the image's size) onto the reference's
 * levels present, in double where the device has it (HM_DOUBLE; float otherwise, where a value
 * that lands on a whole level may truncate to the one below), unfused, truncated to a level
 * (its uint8 cast); below the first quantile the first level present, at the last the last.
 * Integer images then blend it with the level itself, as albucore's add_weighted (SimSIMD's
 * wsum: alpha w[3] times the match plus beta w[4] times the level, fused, in float32, rounded to
 * even); float images keep the matched level (colour_apply blends each value). */
inline void cl_hm_lut(const int *hist, __global const float *op, int t, int n,
                      __global uchar *lut) {
#pragma OPENCL FP_CONTRACT OFF
    int tn = 0;
    const int first = cl_hm_next(op, t, -1, 0, &tn);
    int cur = -1, tc = 0, nxt = first;
    const hm_t nn = (hm_t)n;
    int s = 0;
    for (int i = 0; i < 256; i++) {
        s += hist[i];
        while (nxt < 256 && tn <= s) {
            cur = nxt;
            tc = tn;
            nxt = cl_hm_next(op, t, cur, tc, &tn);
        }
        int m = cur;
        if (cur < 0) {
            m = first < 256 ? first : 0;
        } else if (nxt < 256 && tc != s) {
            const hm_t x = (hm_t)s / nn, x0 = (hm_t)tc / nn, x1 = (hm_t)tn / nn;
            const hm_t slope = (hm_t)(nxt - cur) / (x1 - x0);
            m = clamp((int)(slope * (x - x0) + (hm_t)cur), cur, nxt);
        }
#if WK_COL_INT
        lut[i] = (uchar)clamp(rint(fma(op[3], (float)m, op[4] * (float)i)), 0.0f, 255.0f);
#else
        lut[i] = (uchar)m;
#endif
    }
}

/* The histograms of an item whose pass starts with WK_COL_CLAHE (op: code, clip limit's three
 * float parts, gx, gy, then filled in by the host for this output size: the histogram's
 * integer limit (0: none), 255 / the tile's pixels, the tile's width and height, 1 / width,
 * 1 / height). The tiles cover the image grown to a multiple of the grid
 * where it is not one (OpenCV's copyMakeBorder, reflected without repeating the edge:
 * cp_reflect). A work-item counts a band of a tile's rows, about CLAHE_PIXELS pixels
 * (CLAHE_PIXELS / the tile's width rows, at least one), into a histogram of its own, and writes
 * it to H (item, tile, band): no atomics (on PoCL a local histogram's atomic increments cost
 * twice the whole count), and short loops (Mesa llvmpipe ends a shader's loops past about 65000
 * turns, which one work-group per tile reached near 1000 x 1500 pixels).
 * NDRange: (max_tiles * max_bands rounded up to 64, 1, B). */
#if !WK_ONE_KERNEL || defined(WK_KERNEL_colour_clahe_hist)
__kernel void colour_clahe_hist(__global const X_T *restrict S, int Ho, int Wo,
                                __global int *restrict H, int max_tiles, int max_bands,
                                __global const float *restrict COL, int ncol,
                                __global const int *restrict LABT) {
    const int g = (int)get_global_id(0), b = (int)get_global_id(2);
    const int t = g / max_bands, band = g - t * max_bands;
    __global const float *op = WK_COL_OF(b);
    const int eq = (int)op[0] == WK_COL_EQUALIZE;
    if ((int)op[0] != WK_COL_CLAHE && !eq) return;
    const int gx = eq ? cl_eq_tables(op) : (int)op[4], gy = eq ? 1 : (int)op[5];
    const int tw = (int)op[8], th = (int)op[9];
    const int per = max(CLAHE_PIXELS / tw, 1);
    if (t >= gx * gy || band >= (th + per - 1) / per) return;
    if (eq && gx > 1) { /* by channels: their histograms (up to CH) in one read of each pixel */
        if (t != 0) return;
        int hc[CH * 256];
        for (int i = 0; i < CH * 256; i++) hc[i] = 0;
        for (int y = band * per; y < min((band + 1) * per, Ho); y++) {
            __global const X_T *row = S + ((long)b * Ho + y) * Wo * CH;
            for (int x = 0; x < Wo; x++) {
                __global const X_T *p = row + (long)x * CH;
                for (int c = 0; c < gx; c++)
                    if (cl_eq_in(op, c, x, y, Wo, Ho)) hc[c * 256 + cl_level(cp_level1(p[c]))]++;
            }
        }
        for (int k = 0; k < gx; k++) {
            __global int *h = H + (((long)b * max_tiles + k) * max_bands + band) * 256;
            for (int i = 0; i < 256; i++) h[i] = hc[k * 256 + i];
        }
        return;
    }
    const int ty = t / gx, tx = t - ty * gx;
    int hist[256];
    for (int i = 0; i < 256; i++) hist[i] = 0;
    const int x0 = eq ? 0 : tx * tw, y0 = ty * th + band * per;
    const int rows = min(per, th - band * per);
    for (int yy = 0; yy < rows; yy++) {
        const int y = y0 + yy < Ho ? y0 + yy : cp_reflect(y0 + yy, Ho);
        __global const X_T *row = S + ((long)b * Ho + y) * Wo * CH;
        if (eq) { /* Equalize of one histogram: the whole image, Y's levels or the channel's */
            for (int x = 0; x < Wo; x++)
                if (cl_eq_in(op, 0, x, y, Wo, Ho)) hist[cl_eq_level(row + (long)x * CH, op)]++;
            continue;
        }
        for (int xx = 0; xx < tw; xx++) {
            const int x = x0 + xx < Wo ? x0 + xx : cp_reflect(x0 + xx, Wo);
            hist[cl_l_at(row + (long)x * CH, LABT)]++;
        }
    }
    __global int *h = H + (((long)b * max_tiles + t) * max_bands + band) * 256;
    for (int i = 0; i < 256; i++) h[i] = hist[i];
}
#endif

/* A CLAHE tile's table from its histogram (one work-item; changes the histogram): clipped at
 * limit (0: none), what was clipped spread over every level as OpenCV spreads it, then the
 * running sum times scale (255 / the tile's pixels), rounded */
inline void cl_clahe_lut(int *hist, int limit, float scale, __global uchar *lut) {
    if (limit > 0) {
        int clipped = 0;
        for (int i = 0; i < 256; i++) {
            if (hist[i] > limit) {
                clipped += hist[i] - limit;
                hist[i] = limit;
            }
        }
        const int batch = clipped / 256;
        int residual = clipped - batch * 256;
        for (int i = 0; i < 256; i++) hist[i] += batch;
        if (residual != 0) {
            const int step = max(256 / residual, 1);
            for (int i = 0; i < 256 && residual > 0; i += step, residual--) hist[i]++;
        }
    }
    int sum = 0;
    for (int i = 0; i < 256; i++) {
        sum += hist[i];
        lut[i] = (uchar)clamp(rint((float)sum * scale), 0.0f, 255.0f);
    }
}

/* Each tile's table from its bands' counts: clipped at the limit, what was clipped spread
 * over every level as OpenCV spreads it, then the running sum times 255 / pixels, rounded
 * (cl_clahe_lut); an Equalize's table of each of its histograms (cl_eq_lut).
 * NDRange: (64, max_tiles, B). */
#if !WK_ONE_KERNEL || defined(WK_KERNEL_colour_clahe_lut)
__kernel void colour_clahe_lut(__global const int *restrict H, __global uchar *restrict LUT,
                               int max_tiles, int max_bands, __global const float *restrict COL,
                               int ncol) {
    const int lid = (int)get_local_id(0), t = (int)get_group_id(1), b = (int)get_global_id(2);
    __global const float *op = WK_COL_OF(b);
    const int eq = (int)op[0] == WK_COL_EQUALIZE;
    const int tables = eq ? cl_eq_tables(op) : (int)op[0] == WK_COL_CLAHE ? (int)op[4] * (int)op[5] : 0;
    if (t >= tables) return;
    const int per = max(CLAHE_PIXELS / (int)op[8], 1), bands = ((int)op[9] + per - 1) / per;
    __local int hist[256];
    __global const int *h = H + ((long)b * max_tiles + t) * max_bands * 256;
    for (int i = lid; i < 256; i += 64) {
        int n = 0;
        for (int k = 0; k < bands; k++) n += h[k * 256 + i];
        hist[i] = n;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* the table by one work-item, from its own copy of the counts: PoCL (3.0, pip) has run
     * such a block on every work-item of the group (a printf or an Equalize's branch in it
     * was enough), which clipped the shared counts again and again; on a copy, the same
     * table however often it runs */
    if (lid == 0) {
        int own[256];
        for (int i = 0; i < 256; i++) own[i] = hist[i];
        __global uchar *lut = LUT + ((long)b * max_tiles + t) * 256;
        if (eq && op[1] == 4.0f)
            cl_hm_lut(own, op, t, (int)op[8] * (int)op[9], lut);
        else if (eq && op[1] >= 2.0f)
            cl_ac_lut(own, op, t, lut);
        else if (eq)
            cl_eq_lut(own, (int)op[1], (int)op[8] * (int)op[9], op[11] != 0.0f, lut);
        else
            cl_clahe_lut(own, (int)op[6], op[7], lut);
    }
}
#endif

/* 8 entries t[i] of a table, i per lane */
#define CL_GATHER8(t, i) \
    ((int8)((t)[(i).s0], (t)[(i).s1], (t)[(i).s2], (t)[(i).s3], (t)[(i).s4], (t)[(i).s5], \
            (t)[(i).s6], (t)[(i).s7]))
#define CL_DESCALE8(v, n) (((v) + (1 << ((n) - 1))) >> (n))

/* OpenCV's RGB2Lab_b for 8 pixels' levels: L, a, b (levels) */
inline __attribute__((always_inline)) void cl_rgb_lab8(int8 r, int8 g, int8 b,
                                                       __global const int *T, int8 *L, int8 *A,
                                                       int8 *B) {
    __global const int *cf = T + LT_COEFFS, *cb = T + LT_CBRT;
    const int8 R = CL_GATHER8(T + LT_GAMMA, r), G = CL_GATHER8(T + LT_GAMMA, g);
    const int8 Bl = CL_GATHER8(T + LT_GAMMA, b);
    const int8 ix = CL_DESCALE8(R * cf[0] + G * cf[1] + Bl * cf[2], 12);
    const int8 iy = CL_DESCALE8(R * cf[3] + G * cf[4] + Bl * cf[5], 12);
    const int8 iz = CL_DESCALE8(R * cf[6] + G * cf[7] + Bl * cf[8], 12);
    const int8 fx = CL_GATHER8(cb, ix), fy = CL_GATHER8(cb, iy), fz = CL_GATHER8(cb, iz);
    const int8 lo = (int8)0, hi = (int8)255; /* (vector bounds: see cp_clahe8) */
    *L = clamp(CL_DESCALE8(((116 * 255 + 50) / 100) * fy - (16 * 255 * (1 << 15) + 50) / 100, 15),
               lo, hi);
    *A = clamp(CL_DESCALE8(500 * (fx - fy) + 128 * (1 << 15), 15), lo, hi);
    *B = clamp(CL_DESCALE8(200 * (fy - fz) + 128 * (1 << 15), 15), lo, hi);
}

/* OpenCV's Lab2RGBinteger for 8 pixels: 8-bit (L, a, b) to RGB levels in r, g, b */
inline __attribute__((always_inline)) void cl_lab_rgb8(int8 l, int8 a, int8 b,
                                                       __global const int *T, int8 *r, int8 *g,
                                                       int8 *bl) {
    __global const int *cf = T + LT_INV_COEFFS, *ig = T + LT_INV_GAMMA;
    const int8 y = CL_GATHER8(T + LT_YF, 2 * l), ify = CL_GATHER8(T + LT_YF + 1, 2 * l);
    const int8 adiv = ((5 * a * 53687 + (1 << 7)) >> 13) - 128 * (1 << 14) / 500;
    const int8 bdiv = ((b * 41943 + (1 << 4)) >> 9) - 128 * (1 << 14) / 200 + 1;
    const int8 x = CL_GATHER8(T + LT_ABXZ - LT_MIN_AB, ify + adiv);
    const int8 z = CL_GATHER8(T + LT_ABXZ - LT_MIN_AB, ify - bdiv);
    const int8 lo = (int8)0, hi = (int8)(LT_INV_SIZE - 1);
    *r = CL_GATHER8(ig, clamp(CL_DESCALE8(cf[0] * x + cf[1] * y + cf[2] * z, 14), lo, hi));
    *g = CL_GATHER8(ig, clamp(CL_DESCALE8(cf[3] * x + cf[4] * y + cf[5] * z, 14), lo, hi));
    *bl = CL_GATHER8(ig, clamp(CL_DESCALE8(cf[6] * x + cf[7] * y + cf[8] * z, 14), lo, hi));
}

/* 8-bit levels of 8 values as cp_load8 gives them */
inline int8 cl_levels8(float8 v) {
#if WK_COL_INT
    return convert_int8(v);
#else
    return convert_int8(rint(v * 255.0f));
#endif
}

/* 8 pixels of the block at (xo, yo) (lanes past n repeat the last one) through the item's
 * CLAHE: v[c] as cp_load8 gives them, in and out; OpenCV's arithmetic lane by lane, in
 * vectors (the tables read lane by lane) */
inline void cp_clahe8(__global const X_T *S, int Ho, int Wo, int b, int xo, int yo, int n,
                      __global const float *op, __global const uchar *LUT, int max_tiles,
                      __global const int *T, float8 *v) {
#pragma OPENCL FP_CONTRACT OFF
    const int C = CH;
    const int gx = (int)op[4], gy = (int)op[5];
    const float inv_tw = op[10], inv_th = op[11];
    /* OpenCV's arithmetic, in float, unfused: the row's tiles and weight */
    const float tyf = (float)yo * inv_th - 0.5f;
    int ty1 = (int)floor(tyf), ty2 = ty1 + 1;
    const float ya = tyf - (float)ty1, ya1 = 1.0f - ya;
    ty1 = max(ty1, 0);
    ty2 = min(ty2, gy - 1);
    __global const uchar *l1 = LUT + ((long)b * max_tiles + ty1 * gx) * 256;
    __global const uchar *l2 = LUT + ((long)b * max_tiles + ty2 * gx) * 256;
    const int8 lane = (int8)(0, 1, 2, 3, 4, 5, 6, 7);
    const float8 x = convert_float8(xo + (lane < n ? lane : (int8)(n - 1)));
    const float8 txf = x * inv_tw - 0.5f;
    const float8 fl = floor(txf);
    const float8 xa = txf - fl, xa1 = 1.0f - xa;
    const int8 tx1 = convert_int8(fl);
    /* (vector bounds, not scalars: Oclgrind 21.10 misreads an integer vector's
     * clamp, min and max against scalars) */
    const int8 c1 = max(tx1, (int8)0) * 256, c2 = min(tx1 + 1, (int8)(gx - 1)) * 256;
    int8 L = cl_levels8(v[0]), A = 0, B = 0;
    if (C >= 3) cl_rgb_lab8(L, cl_levels8(v[1]), cl_levels8(v[2]), T, &L, &A, &B);
    const float8 p1 = convert_float8(CL_GATHER8(l1, c1 + L)) * xa1;
    const float8 p2 = convert_float8(CL_GATHER8(l1, c2 + L)) * xa;
    const float8 q1 = convert_float8(CL_GATHER8(l2, c1 + L)) * xa1;
    const float8 q2 = convert_float8(CL_GATHER8(l2, c2 + L)) * xa;
    const float8 r1 = (p1 + p2) * ya1, r2 = (q1 + q2) * ya;
    const int8 l = convert_int8(wk_clamp8(rint(r1 + r2), 0.0f, 255.0f));
    int8 o[3] = {l, l, l};
    if (C >= 3) cl_lab_rgb8(l, A, B, T, &o[0], &o[1], &o[2]);
    /* levels back (float images: level / 255) */
    WK_EACH_C(const float8 f = convert_float8(o[c < 3 ? c : 0]);
              v[c] = WK_COL_INT ? f : f / 255.0f);
}

/* 8 pixels (lanes past n repeat the last one) through the item's Equalize: v[c] as cp_load8
 * gives them, in and out; each of channels 0-2 through its own table, or Y of OpenCV's 8-bit
 * YCrCb through the one table and back (its Cr and Cb kept), as OpenCV's integer conversions */
inline void cp_equalize8(__global const float *op, __global const uchar *lut, float8 *v) {
    const int C = CH;
    const int8 lo = (int8)0, hi = (int8)255; /* (vector bounds: see cp_clahe8) */
    if (C >= 3 && op[2] == 0.0f) {
        const int8 r = cl_levels8(v[0]), g = cl_levels8(v[1]), bl = cl_levels8(v[2]);
        const int8 y = CL_DESCALE8(r * 4899 + g * 9617 + bl * 1868, 14);
        const int8 cr = clamp(CL_DESCALE8((r - y) * 11682 + (128 << 14), 14), lo, hi) - 128;
        const int8 cb = clamp(CL_DESCALE8((bl - y) * 9241 + (128 << 14), 14), lo, hi) - 128;
        const int8 e = CL_GATHER8(lut, y);
        const int8 o[3] = {clamp(e + CL_DESCALE8(cr * 22987, 14), lo, hi),
                           clamp(e + CL_DESCALE8(cb * -5636 + cr * -11698, 14), lo, hi),
                           clamp(e + CL_DESCALE8(cb * 29049, 14), lo, hi)};
        for (int c = 0; c < 3; c++) {
            const float8 f = convert_float8(o[c]);
            v[c] = WK_COL_INT ? f : f / 255.0f;
        }
        return;
    }
    const int each = op[1] >= 2.0f; /* AutoContrast, HistogramMatching: every channel */
    for (int c = 0; c < (each ? C : min(C, 3)); c++) {
        const float8 f = convert_float8(CL_GATHER8(lut + (each ? c : C >= 3 ? c : 0) * 256, cl_levels8(v[c])));
#if WK_COL_INT
        v[c] = f;
#else
        /* (HistogramMatching's blend of the matched level with the value: albucore's
         * add_weighted of two float32 images, fused as SimSIMD's wsum) */
        v[c] = op[1] == 4.0f ? wk_clamp8(fma((float8)op[3], f / 255.0f, (float8)op[4] * v[c]), 0.0f, 1.0f)
                             : f / 255.0f;
#endif
    }
}
#else
#define CLAHE_PARAM
#endif

#if GATHER
/* WK_COL_DOWNSCALE: each output pixel takes the pixel of the pass's image at the column and
 * row the host tabulated (IDX: per item, Wo source columns then Ho source rows: OpenCV's
 * nearest resize down and back up, composed), as 8-bit levels (float images as
 * rint(255 v) / 255, albumentations' uint8 round trip) */
#define GATHER_PARAM , __global const int *restrict IDX
inline void cp_gather8(__global const X_T *S, int Ho, int Wo, int b, int xo, int yo, int n,
                       __global const int *idx, float8 *v) {
    const int C = CH;
    const long row = ((long)b * Ho + idx[Wo + yo]) * Wo;
    float l[32];
    for (int k = 0; k < 8; k++) {
        const int x = idx[xo + (k < n ? k : n - 1)];
        for (int c = 0; c < C; c++) {
            const float f = cp_level1(S[(row + x) * C + c]);
            l[k * C + c] = WK_COL_INT ? f : rint(f * 255.0f);
        }
    }
    cp_from_levels8(l, v);
}
#else
#define GATHER_PARAM
#endif

#if RESCALE
/* WK_COL_DOWNSCALE with another interpolation pair than nearest both ways: OpenCV's cv2.resize
 * of the 8-bit levels down by the scale, then back up, as two real resamplings (the host's
 * engine/resize8.py makes each stage's taps per item in RT, as OpenCV makes them):
 *   colour_rescale  a work-group per item: each pixel of the small image, its rows' taps of
 *                   its columns' taps of the pass's image, rounded to a level as OpenCV
 *                   rounds that stage (CP_RS_*), into SM (per item Ho x Wo x CH floats, the
 *                   small image in its top left corner, rows Wo apart); then (a barrier) the
 *                   up stage's columns' taps of each small row into SR (likewise, hs rows
 *                   of Wo);
 *   colour_apply    the up stage's rows' taps of SR, rounded (cp_rescale8).
 * RT per item (RF floats): ws, hs, the two stages' taps a side (fd, fu), how each adds its
 * rows (CP_RS_*), 2 spare; then the small image's columns (Wo entries of 1 + fd: the first
 * tap's source index, which may lie before the image, and the weights; taps are read clamped
 * to the image, as OpenCV reads them), its rows (Ho entries), the output's columns and rows
 * (Wo, Ho entries of 1 + fu). Fixed-point weights are whole shorts of 2048 (OpenCV's
 * INTER_RESIZE_COEF_SCALE): a column sum is then a whole number, exact in float. Rows are
 * added from the last tap to the first (OpenCV's order where it matters: CP_RS_CUBIC). */
#define CP_RS_FIXED 0  /* (engine/resize8.ROUND_*, the same numbers) (sum + 2^21) >> 22, Lanczos */
#define CP_RS_LINEAR 1 /* OpenCV's VResizeLinearVec_32s8u: ((w (s >> 4)) >> 16 summed + 2) >> 2 */
#define CP_RS_CUBIC 2  /* its VResizeCubicVec_32s8u: float sum of s (w 2^-22) */
#define CP_RS_FLOAT 3  /* the float sum rounded half to even */
#define CP_RS_HALF 4   /* the float sum plus 0.5 floored: resizeAreaFast's 2 x 2 means, (sum +
                        * 2) >> 2, but of cells the image's edge cuts (a tap a side there: the
                        * mean of the pixels in it, rounded half to even) */
#define CP_RS_EXACT8 5 /* INTER_LINEAR_EXACT's: weights in shorts of 256, (sum + 2^15) >> 16 */
#define RESCALE_PARAM , __global const float *restrict RT, int RF, \
    __global float *restrict SM, __global float *restrict SR

/* whether an item's operation is such a downscale (words 4, 5: the pair's OpenCV codes) */
#define CP_RESCALES(op) ((int)(op)[0] == WK_COL_DOWNSCALE && ((op)[4] != 0.0f || (op)[5] != 0.0f))

/* a stage's rows for N values at once, by its kind: each row i (from the last) of weight w,
 * ROW(i) run first (it sets what VAL reads), its values h = VAL(q) (q < N) added to the
 * accumulators a, which become levels in l */
#define CP_RS_ADD(T, ADD, LEVEL, N, taps, wts, ROW, VAL) \
    do { \
        T a[N]; \
        for (int q = 0; q < (N); q++) a[q] = 0; \
        for (int i = (taps) - 1; i >= 0; i--) { \
            const float w = (wts)[i]; \
            if (w == 0.0f) continue; \
            ROW(i); \
            for (int q = 0; q < (N); q++) { \
                const float h = VAL(q); \
                ADD; \
            } \
        } \
        for (int q = 0; q < (N); q++) l[q] = LEVEL; \
    } while (0)
/* ... by each kind but CP_RS_HALF (the area's means always take colour_rescale's float path) */
#define CP_RS_STAGE(kind, N, taps, wts, ROW, VAL) \
    do { \
        if ((kind) == CP_RS_LINEAR) \
            CP_RS_ADD(int, a[q] += ((int)w * ((int)h >> 4)) >> 16, \
                      clamp((float)((a[q] + 2) >> 2), 0.0f, 255.0f), N, taps, wts, ROW, VAL); \
        else if ((kind) == CP_RS_FIXED) \
            CP_RS_ADD(long, a[q] += (long)(int)w * (long)(int)h, \
                      clamp((float)((a[q] + (1L << 21)) >> 22), 0.0f, 255.0f), N, taps, wts, \
                      ROW, VAL); \
        else if ((kind) == CP_RS_EXACT8) \
            CP_RS_ADD(int, a[q] += (int)w * (int)h, \
                      clamp((float)((a[q] + 32768) >> 16), 0.0f, 255.0f), N, taps, wts, ROW, \
                      VAL); \
        else if ((kind) == CP_RS_CUBIC) \
            CP_RS_ADD(float, a[q] += h * (w * 0x1.0p-22f), clamp(rint(a[q]), 0.0f, 255.0f), N, \
                      taps, wts, ROW, VAL); \
        else \
            CP_RS_ADD(float, a[q] += h * w, clamp(rint(a[q]), 0.0f, 255.0f), N, taps, wts, \
                      ROW, VAL); \
    } while (0)

#if !WK_ONE_KERNEL || defined(WK_KERNEL_colour_rescale)
/* row y0 + i of the pass's image summed over the small pixel's column taps, every channel at
 * once, into hc[] (phase 1's ROW: its VAL reads hc) */
#define CP_RS_COLS(i) cp_rs_cols(S, ((long)b * Ho + clamp(y0 + (i), 0, Ho - 1)) * Wo, x0, Wo, \
                                 fd, ex + 1, hc)
#define CP_RS_H(q) hc[q]
inline void cp_rs_cols(__global const X_T *S, long row, int x0, int Wo, int taps,
                       __global const float *w, float *h) {
    for (int c = 0; c < CH; c++) h[c] = 0.0f;
    for (int j = 0; j < taps; j++) {
        const float wj = w[j];
        if (wj == 0.0f) continue;
        __global const X_T *p = S + (row + clamp(x0 + j, 0, Wo - 1)) * CH;
        for (int c = 0; c < CH; c++) {
            const float f = cp_level1(p[c]);
            h[c] += (WK_COL_INT ? f : rint(f * 255.0f)) * wj;
        }
    }
}
/* small row ys's pixel x0 + i (phase 2's ROW and VAL) */
#define CP_RS_SMALL_AT(i) __global const float *p = SM + (((long)b * Ho + ys) * Wo \
                                                          + clamp(x0 + (i), 0, ws - 1)) * CH
#define CP_RS_P(q) p[q]

__kernel void colour_rescale(__global const X_T *restrict S, int Ho, int Wo,
                             __global const float *restrict COL, int ncol RESCALE_PARAM) {
    const int lid = (int)get_local_id(0), b = (int)get_global_id(2);
    if (!CP_RESCALES(WK_COL_OF(b))) return; /* (the whole work-group: one item) */
    __global const float *rt = RT + (long)b * RF;
    const int ws = (int)rt[0], hs = (int)rt[1], fd = (int)rt[2], fu = (int)rt[3];
    const int kind = (int)rt[4];
    if (kind == CP_RS_FLOAT || kind == CP_RS_HALF) {
        /* a float stage (the area's, cubic's in float, nearest's): its rows first, then its
         * columns (the same sum up to float rounding; the rows' as vectors of 8 values of
         * whole source rows), a small row a work-item: the rows' sums into SR's row ys (which
         * the second step overwrites after the barrier) */
        const int nv = (Wo * CH) >> 3;
        for (int ys = lid; ys < hs; ys += 64) {
            __global const float *ey = rt + 8 + (long)(Wo + ys) * (1 + fd);
            const int y0 = (int)ey[0];
            __global float *R = SR + ((long)b * Ho + ys) * Wo * CH;
            for (int k = 0; k < nv; k++) {
                float8 acc = 0.0f;
                for (int i = 0; i < fd; i++) {
                    const float w = ey[1 + i];
                    if (w == 0.0f) continue;
                    const float8 f = convert_float8(vload8(k, S + ((long)b * Ho + clamp(
                        y0 + i, 0, Ho - 1)) * Wo * CH));
                    acc += w * (WK_COL_INT ? f : rint(clamp(f, 0.0f, 1.0f) * 255.0f));
                }
                vstore8(acc, k, R);
            }
            for (int q = nv * 8; q < Wo * CH; q++) {
                float acc = 0.0f;
                for (int i = 0; i < fd; i++) {
                    const float w = ey[1 + i];
                    if (w == 0.0f) continue;
                    const float f = cp_level1(S[((long)b * Ho + clamp(y0 + i, 0, Ho - 1)) * Wo
                                                * CH + q]);
                    acc += w * (WK_COL_INT ? f : rint(f * 255.0f));
                }
                R[q] = acc;
            }
            for (int xs = 0; xs < ws; xs++) {
                __global const float *ex = rt + 8 + (long)xs * (1 + fd);
                const int x0 = (int)ex[0];
                /* (the area's cells cut by the edge have a tap a side there: rounded to even) */
                const int whole = kind == CP_RS_HALF && ex[2] != 0.0f && ey[2] != 0.0f;
                float acc[CH];
                for (int c = 0; c < CH; c++) acc[c] = 0.0f;
                for (int j = 0; j < fd; j++) {
                    const float w = ex[1 + j];
                    if (w == 0.0f) continue;
                    __global const float *p = R + clamp(x0 + j, 0, Wo - 1) * CH;
                    for (int c = 0; c < CH; c++) acc[c] += w * p[c];
                }
                for (int c = 0; c < CH; c++)
                    SM[(((long)b * Ho + ys) * Wo + xs) * CH + c] =
                        clamp(whole ? floor(acc[c] + 0.5f) : rint(acc[c]), 0.0f, 255.0f);
            }
        }
    } else
    for (int p = lid; p < ws * hs; p += 64) { /* the small image, fixed point: as OpenCV adds */
        const int ys = p / ws, xs = p - ys * ws;
        __global const float *ex = rt + 8 + (long)xs * (1 + fd);
        __global const float *ey = rt + 8 + (long)(Wo + ys) * (1 + fd);
        const int x0 = (int)ex[0], y0 = (int)ey[0];
        float l[CH], hc[CH];
        CP_RS_STAGE(kind, CH, fd, ey + 1, CP_RS_COLS, CP_RS_H);
        for (int c = 0; c < CH; c++) SM[(((long)b * Ho + ys) * Wo + xs) * CH + c] = l[c];
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    /* its rows at the output's width, a small row a work-item (its pixels' columns' taps,
     * each column's the same in every row: the columns outside, the rows inside) */
    for (int xo = 0; xo < Wo; xo++) {
        __global const float *ex = rt + 8 + (long)(Wo + Ho) * (1 + fd) + (long)xo * (1 + fu);
        const int x0 = (int)ex[0];
        for (int ys = lid; ys < hs; ys += 64) {
            float l[CH];
            /* (plain weighted sums: no rounding here, as OpenCV's horizontal step) */
            CP_RS_ADD(float, a[q] += h * w, a[q], CH, fu, ex + 1, CP_RS_SMALL_AT, CP_RS_P);
            for (int c = 0; c < CH; c++) SR[(((long)b * Ho + ys) * Wo + xo) * CH + c] = l[c];
        }
    }
}
#endif

/* colour_apply's part: pixels xo .. xo + n - 1 of row yo from SR's rows (the block's rows and
 * weights are its row's: read once; pixels past n repeat the last). A whole block's 8 CH
 * values are CH vectors of 8 (every value of a row has the row's weight, whatever its
 * channel): CP_RS_ADD8 adds them as vectors */
#define CP_RS_UP_AT(i) __global const float *p = r + (long)clamp(y0 + (i), 0, hs - 1) * Wo * CH
#define CP_RS_UP(q) p[(q) < m ? (q) : m - CH + (q) % CH]
#define CP_RS_ADD8(VT, ADD, LEVEL) \
    do { \
        VT a[CH]; \
        for (int k = 0; k < CH; k++) a[k] = (VT)(0); \
        for (int i = fu - 1; i >= 0; i--) { \
            const float w = ey[1 + i]; \
            if (w == 0.0f) continue; \
            CP_RS_UP_AT(i); \
            for (int k = 0; k < CH; k++) { \
                const float8 h = vload8(k, p); \
                ADD; \
            } \
        } \
        for (int k = 0; k < CH; k++) vstore8(LEVEL, k, l); \
    } while (0)
inline void cp_rescale8(__global const float *SR, __global const float *rt, int Ho, int Wo,
                        int b, int xo, int yo, int n, float8 *v) {
    const int hs = (int)rt[1], fd = (int)rt[2], fu = (int)rt[3], kind = (int)rt[5];
    __global const float *ey = rt + 8 + (long)(Wo + Ho) * (1 + fd) + (long)(Wo + yo) * (1 + fu);
    __global const float *r = SR + ((long)b * Ho * Wo + xo) * CH;
    const int y0 = (int)ey[0], m = n * CH;
    float l[32];
    if (n < 8)
        CP_RS_STAGE(kind, 8 * CH, fu, ey + 1, CP_RS_UP_AT, CP_RS_UP);
    else if (kind == CP_RS_LINEAR)
        CP_RS_ADD8(int8, a[k] += ((int)w * (convert_int8(h) >> 4)) >> 16,
                   clamp(convert_float8((a[k] + 2) >> 2), 0.0f, 255.0f));
    else if (kind == CP_RS_FIXED) /* (two int8 halves: no long8, whose calls change the ABI
                                    * without AVX-512: A += w (h >> 11), B += w (h & 2047); the
                                    * sum A 2^11 + B, plus 2^21, >> 22 is (A + B >> 11 + 2^10)
                                    * >> 11 exactly) */
        CP_RS_ADD8(int16, const int8 hi = convert_int8(h); a[k] += (int)w * (int16)(hi >> 11,
                                                                                   hi & 2047),
                   clamp(convert_float8((a[k].lo + (a[k].hi >> 11) + 1024) >> 11), 0.0f,
                         255.0f));
    else if (kind == CP_RS_EXACT8)
        CP_RS_ADD8(int8, a[k] += (int)w * convert_int8(h),
                   clamp(convert_float8((a[k] + 32768) >> 16), 0.0f, 255.0f));
    else if (kind == CP_RS_CUBIC)
        CP_RS_ADD8(float8, a[k] += h * (w * 0x1.0p-22f), clamp(rint(a[k]), 0.0f, 255.0f));
    else /* (the up stage is never the area's 2 x 2 means) */
        CP_RS_ADD8(float8, a[k] += h * w, clamp(rint(a[k]), 0.0f, 255.0f));
    cp_from_levels8(l, v);
}
#else
#define RESCALE_PARAM
#endif

#if FDA
/* albumentations' FDA (colour.h's WK_COL_FDA): fft2 of each channel, the amplitudes in the
 * window replaced by the reference's (its phases kept), ifft2's real part, clipped (an integer
 * image's truncated, as numpy's cast). The result is the image plus the real part of the
 * inverse DFT of the window's changes D(fy, fx) = (|R| - |I|) I / |I| (1 where I is 0), which
 * is separable, and each step halved by the symmetries of real data:
 *   colour_fda_rows   each row's DFT A(y, g) at the column frequencies g = 0 .. G - 1 (of a
 *                     real row, A(y, -g) is A(y, g)'s conjugate), columns x and Wo - x
 *                     taken together (their twiddles conjugate): into FA;
 *   colour_fda_coef   the window's coefficients I(fy, fx), a DFT of A's columns at the row
 *                     frequencies: a work-item per (2 a, 8 g), a, g >= 0, gives I(a, g) and
 *                     I(-a, g) from one pass over the column (I(a, -g), I(-a, -g) their
 *                     conjugates), and writes the changes D of the window's points among the
 *                     four: into FC;
 *   colour_fda_cols   each row's sums B(y, fx) = sum_fy D(fy, fx) e^(i fy y), rows y and
 *                     Ho - y together (their twiddles conjugate; 8 rows a work-item), folded into two reals a
 *                     column pair (g, -g), P = Re(B(y, g) + B(y, -g)), Q = Im(B(y, g) -
 *                     B(y, -g)): into FA again (its sums are spent);
 * and a pixel adds sum_g P cos(2 pi g x / Wo) - Q sin(2 pi g x / Wo) (cp_fda8). FT: (cos, sin)
 * of 2 pi m / Wo for m < Wo, then of 2 pi m / Ho; FA: (B, C, Ho, gmax) pairs; FC: (B, C,
 * nymax, nxmax). */

/* the reference's amplitude at the frequency (fy, fx) of channel c, from the call's table FR
 * (the operation's words 6 and 7: its place, 16-bit halves; rfft2's half, (C, Ho, Wo / 2 + 1):
 * a negative column frequency's amplitude is its negative's) */
inline float cp_fda_ref(__global const float *FR, __global const float *op, int c, int fy,
                        int fx, int Ho, int Wo) {
    const long at = (long)op[6] * 65536 + (long)op[7];
    int ry = fx < 0 ? -fy : fy;
    ry = ry < 0 ? ry + Ho : ry;
    return FR[at + ((long)c * Ho + ry) * (Wo / 2 + 1) + (fx < 0 ? -fx : fx)];
}

/* the twiddles (cos, sin) of 2 pi m / Wo for 8 indices m < Wo, from the table */
inline __attribute__((always_inline)) void cp_fda_twiddles(__global const float2 *FT, int8 m, float8 *cs, float8 *sn) {
    const float2 e0 = FT[m.s0], e1 = FT[m.s1], e2 = FT[m.s2], e3 = FT[m.s3],
                 e4 = FT[m.s4], e5 = FT[m.s5], e6 = FT[m.s6], e7 = FT[m.s7];
    *cs = (float8)(e0.x, e1.x, e2.x, e3.x, e4.x, e5.x, e6.x, e7.x);
    *sn = (float8)(e0.y, e1.y, e2.y, e3.y, e4.y, e5.y, e6.y, e7.y);
}

/* a work-item per row and block of 8 column frequencies (float8 lanes); each column's twiddles
 * from the last column's by one complex product, taken from the table again every 32 columns */
#if !WK_ONE_KERNEL || defined(WK_KERNEL_colour_fda_rows)
__kernel void colour_fda_rows(__global const X_T *restrict S, int Ho, int Wo,
                              __global const float *restrict COL, int ncol, int rows,
                              __global const float2 *restrict FT, __global float2 *restrict FA,
                              int gmax) {
    const int C = CH;
    const int lid = (int)get_local_id(0), y0 = (int)get_group_id(1) * rows, b = (int)get_global_id(2);
    __global const float *op = WK_COL_OF(b);
    if ((int)op[0] != WK_COL_FDA) return;
    const int G = (int)op[5], nb = (G + 7) >> 3, nr = Ho - y0 < rows ? Ho - y0 : rows;
    const int pairs = (Wo - 1) / 2; /* columns x and Wo - x, x = 1 .. pairs */
    for (int t = lid; t < nr * nb; t += 64) {
        const int y = y0 + t / nb, g0 = 8 * (t - (t / nb) * nb);
        const long row = ((long)b * Ho + y) * Wo;
        int8 g = (int8)(g0) + (int8)(0, 1, 2, 3, 4, 5, 6, 7);
        g = select(g, (int8)(0), g >= (int8)(G)); /* (lanes past G: not stored) */
        float8 re[4], im[4], c1, s1, cs, sn;
        cp_fda_twiddles(FT, g, &c1, &s1); /* the step (g < Wo) */
        /* g x mod Wo at every 32nd column, kept by adding 32 g mod Wo (no product wraps) */
        const int8 g32 = (g * 32) % (int8)(Wo);
        int8 m = (int8)(0);
        WK_EACH_C(re[c] = (float8)(cp_level1(S[row * C + c])); im[c] = (float8)(0.0f)); /* x = 0 */
        if (2 * pairs + 2 == Wo) { /* x = Wo / 2: the twiddle (-1)^g */
            const float8 sign = select((float8)(1.0f), (float8)(-1.0f), (g & 1) != (int8)(0));
            WK_EACH_C(re[c] += sign * cp_level1(S[(row + pairs + 1) * C + c]));
        }
        cs = (float8)(1.0f);
        sn = (float8)(0.0f);
        for (int x = 1; x <= pairs; x++) {
            if ((x & 31) == 0) {
                m += g32;
                m = select(m, m - (int8)(Wo), m >= (int8)(Wo));
                cp_fda_twiddles(FT, m, &cs, &sn);
            } else {
                const float8 c0 = cs;
                cs = c0 * c1 - sn * s1;
                sn = c0 * s1 + sn * c1;
            }
            WK_EACH_C(const float s1v = cp_level1(S[(row + x) * C + c]);
                      const float s2v = cp_level1(S[(row + Wo - x) * C + c]);
                      re[c] += (s1v + s2v) * cs; im[c] -= (s1v - s2v) * sn);
        }
        float lr[8], li[8];
        for (int c = 0; c < C; c++) {
            vstore8(re[c], 0, lr);
            vstore8(im[c], 0, li);
            for (int k = 0; k < 8 && g0 + k < G; k++)
                FA[(((long)b * C + c) * Ho + y) * gmax + g0 + k] = (float2)(lr[k], li[k]);
        }
    }
}
#endif

/* the change D = (|R| - amp) (ur, ui) / (Ho Wo) of the window's point (fy, fx), if it is one:
 * (ur, ui) the image's coefficient's unit (1 where it is 0: numpy's angle(0)), amp its size */
inline void cp_fda_put(__global const float *FR, __global const float *op, __global float2 *fc,
                       int nxmax, int c, int fy, int fx, float ur, float ui, float amp,
                       float scale, int Ho, int Wo) {
    const int iy = fy - (int)op[1], ix = fx - (int)op[3], ny = (int)op[2], nx = (int)op[4];
    if (iy < 0 || iy >= ny || ix < 0 || ix >= nx) return;
    fc[iy * nxmax + ix] = (float2)(ur, ui) * ((cp_fda_ref(FR, op, c, fy, fx, Ho, Wo) - amp) * scale);
}

/* the changes of the window's points among (+-a, +-g), g = g0 .. g0 + 7 < G, from the sums
 * of A's parts times cos and sin: I(a, g) = (xc + ys, yc - xs), I(-a, g) = (xc - ys, yc + xs)
 * (I(a, -g), I(-a, -g) their conjugates); their sizes and units as vectors (the squares far
 * inside float's range: |I| <= Ho Wo times the peak) */
inline void cp_fda_coef_put(__global const float *FR, __global const float *op,
                            __global float2 *fc, int nxmax, int c, int a, int g0, int G,
                            float8 xc, float8 ys, float8 yc, float8 xs, float scale, int Ho,
                            int Wo) {
    const float8 pr = xc + ys, pi = yc - xs, mr = xc - ys, mi = yc + xs;
    const float8 ap = sqrt(pr * pr + pi * pi), am = sqrt(mr * mr + mi * mi);
    const float8 rp = select((float8)(0.0f), (float8)(1.0f) / ap, ap > (float8)(0.0f));
    const float8 rm = select((float8)(0.0f), (float8)(1.0f) / am, am > (float8)(0.0f));
    float l[6][8];
    vstore8(select((float8)(1.0f), pr * rp, ap > (float8)(0.0f)), 0, l[0]);
    vstore8(pi * rp, 0, l[1]);
    vstore8(ap, 0, l[2]);
    vstore8(select((float8)(1.0f), mr * rm, am > (float8)(0.0f)), 0, l[3]);
    vstore8(mi * rm, 0, l[4]);
    vstore8(am, 0, l[5]);
    for (int k = 0; k < 8 && g0 + k < G; k++) {
        const int g = g0 + k;
        cp_fda_put(FR, op, fc, nxmax, c, a, g, l[0][k], l[1][k], l[2][k], scale, Ho, Wo);
        if (g > 0) cp_fda_put(FR, op, fc, nxmax, c, -a, -g, l[0][k], -l[1][k], l[2][k], scale, Ho, Wo);
        if (a > 0) {
            cp_fda_put(FR, op, fc, nxmax, c, -a, g, l[3][k], l[4][k], l[5][k], scale, Ho, Wo);
            if (g > 0) cp_fda_put(FR, op, fc, nxmax, c, a, -g, l[3][k], -l[4][k], l[5][k], scale, Ho, Wo);
        }
    }
}

/* a work-item per two row frequencies a, a + 1 (a even, >= 0) and block of 8 column
 * frequencies g (float8 lanes): each load of A serves both */
#if !WK_ONE_KERNEL || defined(WK_KERNEL_colour_fda_coef)
__kernel void colour_fda_coef(int Ho, int Wo, __global const float *restrict COL, int ncol,
                              __global const float2 *restrict FT, __global const float2 *restrict FA,
                              __global float2 *restrict FC, int gmax, int nymax, int nxmax,
                              __global const float *restrict FR) {
    const int C = CH;
    const int t = (int)get_global_id(0), c = (int)get_global_id(1), b = (int)get_global_id(2);
    __global const float *op = WK_COL_OF(b);
    if ((int)op[0] != WK_COL_FDA || c >= C) return;
    const int ylo = (int)op[1], ny = (int)op[2], G = (int)op[5], nb = (G + 7) >> 3;
    const int rows = ny > 0 ? max(-ylo, ylo + ny - 1) + 1 : 0; /* row frequencies a = 0 .. */
    const int pairs = (rows + 1) >> 1;
    if (nb == 0 || t >= pairs * nb) return;
    const int a = 2 * (t / nb), g0 = 8 * (t - (t / nb) * nb);
    __global const float2 *ty = FT + Wo;
    /* (g0 + 8 <= gmax: gmax is a multiple of 8) */
    __global const float *fa = (__global const float *)(FA + ((long)b * C + c) * Ho * gmax + g0);
    /* sums of A's parts times cos and sin, for a and a + 1 */
    float8 xc = (float8)(0.0f), ys = xc, yc = xc, xs = xc, xc1 = xc, ys1 = xc, yc1 = xc, xs1 = xc;
    int m = 0, m1 = 0; /* a y, (a + 1) y mod Ho */
    for (int y = 0; y < Ho; y++) {
        /* (two vloads of 8: a float16 changes PoCL's vector ABI without AVX-512) */
        const float8 lo = vload8(0, fa + (long)y * gmax * 2), hi = vload8(1, fa + (long)y * gmax * 2);
        const float8 re = (float8)(lo.even, hi.even), im = (float8)(lo.odd, hi.odd);
        const float2 e = ty[m], e1 = ty[m1];
        xc += re * e.x;
        ys += im * e.y;
        yc += im * e.x;
        xs += re * e.y;
        xc1 += re * e1.x;
        ys1 += im * e1.y;
        yc1 += im * e1.x;
        xs1 += re * e1.y;
        m += a;
        if (m >= Ho) m -= Ho;
        m1 += a + 1;
        if (m1 >= Ho) m1 -= Ho;
    }
    const float scale = 1.0f / ((float)Ho * (float)Wo);
    __global float2 *fc = FC + ((long)b * C + c) * nymax * nxmax;
    cp_fda_coef_put(FR, op, fc, nxmax, c, a, g0, G, xc, ys, yc, xs, scale, Ho, Wo);
    if (a + 1 < rows)
        cp_fda_coef_put(FR, op, fc, nxmax, c, a + 1, g0, G, xc1, ys1, yc1, xs1, scale, Ho, Wo);
}
#endif

/* a work-item per block of 8 rows y = 0 .. Ho / 2 (float8 lanes, each with Ho - y) and column
 * frequency g; each row frequency's twiddles from the last one's by one complex product (the
 * step: the row's own), from the table every 32 */
#if !WK_ONE_KERNEL || defined(WK_KERNEL_colour_fda_cols)
__kernel void colour_fda_cols(int Ho, int Wo, __global const float *restrict COL, int ncol,
                              __global const float2 *restrict FT, __global const float2 *restrict FC,
                              __global float2 *restrict FA, int gmax, int nymax, int nxmax) {
    const int C = CH;
    const int t = (int)get_global_id(0), c = (int)get_global_id(1), b = (int)get_global_id(2);
    __global const float *op = WK_COL_OF(b);
    if ((int)op[0] != WK_COL_FDA || c >= C) return;
    const int ylo = (int)op[1], ny = (int)op[2], xlo = (int)op[3], nx = (int)op[4], G = (int)op[5];
    const int hh = Ho / 2 + 1, nb = (hh + 7) >> 3; /* rows y = 0 .. Ho / 2, each with Ho - y */
    if (G == 0 || t >= nb * G) return;
    const int g = t / nb, y0 = 8 * (t - g * nb);
    const int ip = g - xlo, im = -g - xlo; /* the window's columns of g and -g */
    const int hp = ip >= 0 && ip < nx, hm = g > 0 && im >= 0 && im < nx;
    __global const float2 *ty = FT + Wo, *fc = FC + ((long)b * C + c) * nymax * nxmax;
    int8 y = (int8)(y0) + (int8)(0, 1, 2, 3, 4, 5, 6, 7);
    y = select(y, (int8)(0), y >= (int8)(hh)); /* (lanes past Ho / 2: not stored) */
    const long f0 = ylo < 0 ? ylo + Ho : ylo; /* the first row frequency mod Ho */
    const int8 y32 = (y * 32) % (int8)(Ho);
    int8 m = (int8)((int)(f0 * y.s0 % Ho), (int)(f0 * y.s1 % Ho), (int)(f0 * y.s2 % Ho),
                    (int)(f0 * y.s3 % Ho), (int)(f0 * y.s4 % Ho), (int)(f0 * y.s5 % Ho),
                    (int)(f0 * y.s6 % Ho), (int)(f0 * y.s7 % Ho)); /* fy y mod Ho */
    float8 c1, s1, cs, sn;
    cp_fda_twiddles(ty, y, &c1, &s1);
    cp_fda_twiddles(ty, m, &cs, &sn);
    /* sums of D's parts times cos and sin, for g (p) and -g (n) */
    float8 prc = (float8)(0.0f), pis = prc, prs = prc, pic = prc;
    float8 nrc = prc, nis = prc, nrs = prc, nic = prc;
    for (int iy = 0; iy < ny; iy++) {
        if (iy > 0 && (iy & 31) == 0) {
            m += y32;
            m = select(m, m - (int8)(Ho), m >= (int8)(Ho));
            cp_fda_twiddles(ty, m, &cs, &sn);
        } else if (iy > 0) {
            const float8 c0 = cs;
            cs = c0 * c1 - sn * s1;
            sn = c0 * s1 + sn * c1;
        }
        if (hp) {
            const float2 d = fc[iy * nxmax + ip];
            prc += d.x * cs; pis += d.y * sn; prs += d.x * sn; pic += d.y * cs;
        }
        if (hm) {
            const float2 d = fc[iy * nxmax + im];
            nrc += d.x * cs; nis += d.y * sn; nrs += d.x * sn; nic += d.y * cs;
        }
    }
    /* B(y) = sum D e^(i th) = (rc - is, rs + ic); B(Ho - y) = sum D e^(-i th) = (rc + is, ic - rs);
     * a column pair folded: P = Re(B(g) + B(-g)), Q = Im(B(g) - B(-g)) */
    float l[4][8];
    vstore8((prc - pis) + (nrc - nis), 0, l[0]);
    vstore8((prs + pic) - (nrs + nic), 0, l[1]);
    vstore8((prc + pis) + (nrc + nis), 0, l[2]);
    vstore8((pic - prs) - (nic - nrs), 0, l[3]);
    __global float2 *fa = FA + ((long)b * C + c) * Ho * gmax + g;
    for (int k = 0; k < 8 && y0 + k < hh; k++) {
        const int r = y0 + k;
        fa[(long)r * gmax] = (float2)(l[0][k], l[1][k]);
        if (r > 0 && 2 * r != Ho) fa[(long)(Ho - r) * gmax] = (float2)(l[2][k], l[3][k]);
    }
}
#endif

/* WK_COL_FDA's change added to the 8 pixels xo .. xo + 7 of a row (fa: the row's P, Q pairs
 * in channel 0, each channel's ``plane`` pairs after the last's; G pairs), then clipped as albumentations clips (an integer image's truncated) */
inline void cp_fda8(__global const float2 *fa, long plane, int G, __global const float2 *FT,
                    int Wo, int xo, float8 *v) {
    const int C = CH;
    int8 x = (int8)(xo) + (int8)(0, 1, 2, 3, 4, 5, 6, 7);
    x = select(x, (int8)(0), x >= (int8)(Wo)); /* (past the row: any column, not stored) */
    /* each frequency's twiddles from the last one's by one complex product (the step: x's
     * own), taken from the table again every 32 frequencies (g x mod Wo kept by adding x) */
    int8 m = (int8)(0);
    float8 acc[4] = {(float8)(0.0f), (float8)(0.0f), (float8)(0.0f), (float8)(0.0f)};
    float8 c1, s1, cs = (float8)(1.0f), sn = (float8)(0.0f);
    cp_fda_twiddles(FT, x, &c1, &s1);
    for (int g = 0; g < G; g++) {
        if (g > 0 && (g & 31) == 0) {
            cp_fda_twiddles(FT, m, &cs, &sn);
        } else if (g > 0) {
            const float8 c0 = cs;
            cs = c0 * c1 - sn * s1;
            sn = c0 * s1 + sn * c1;
        }
        WK_EACH_C(const float2 pq = fa[c * plane + g]; acc[c] += pq.x * cs - pq.y * sn);
        m += x;
        m = select(m, m - (int8)(Wo), m >= (int8)(Wo));
    }
#if WK_COL_INT
    WK_EACH_C(v[c] = wk_floor8(wk_clamp8(v[c] + acc[c], 0.0f, WK_PEAK)));
#else
    WK_EACH_C(v[c] = wk_clamp8(v[c] + acc[c], 0.0f, WK_PEAK));
#endif
}
#define FDA_PARAM , __global const float2 *restrict FT, __global const float2 *restrict FA, int gmax
#else
#define FDA_PARAM
#endif

#if JPEG
/* WK_COL_JPEG: albumentations' ImageCompression (OpenCV's cv2.imencode(".jpg") then
 * cv2.imdecode: libjpeg-turbo with its defaults) as integer arithmetic, the same levels:
 *   colour_jpeg_blocks  a work-item per 16 x 16 pixels (a 4:2:0 MCU) of an item whose pass
 *                       starts with the operation: the levels to YCbCr (OpenCV hands libjpeg
 *                       the channels as B, G, R), chroma averaged over 2 x 2 pixels, each
 *                       8 x 8 block through the forward DCT, quantised and dequantised at
 *                       the item's quality, the inverse DCT; the decoded planes into JPG;
 *   colour_apply        each pixel's Y and its chroma upsampled as libjpeg's decoder does
 *                       (its "fancy" triangle filter), back to the channels (cp_jpeg8).
 * One channel is a grayscale JPEG; two take a third channel of zeros (albumentations pads
 * them), four a grayscale JPEG of the fourth. Planes per item in JPG (uchar): Y (or gray)
 * Ho x Wo, Cb and Cr (Ho + 1) / 2 x (Wo + 1) / 2, the fourth channel's Ho x Wo. Edges as
 * libjpeg pads them: the last column and row repeated at full size before the chroma's
 * average, whole chroma rows repeated past the image's last row pair. */
#define JPEG_PARAM , __global const uchar *restrict JPG

/* libjpeg's islow DCTs: 13-bit constants, 2 extra bits between the passes */
#define CPJ_DESCALE(x, n) (((x) + (1 << ((n) - 1))) >> (n))
#define CPJ_0_298 2446
#define CPJ_0_390 3196
#define CPJ_0_541 4433
#define CPJ_0_765 6270
#define CPJ_0_899 7373
#define CPJ_1_175 9633
#define CPJ_1_501 12299
#define CPJ_1_847 15137
#define CPJ_1_961 16069
#define CPJ_2_053 16819
#define CPJ_2_562 20995
#define CPJ_3_072 25172

/* The DCTs on whole blocks at once: a block is 8 int8 vectors, and a 1-D transform combines
 * the 8 vectors lane by lane (each lane one row, or one column, of the block), transposing
 * between the passes: the 1-D transforms of 8 rows (or columns) side by side. */

/* libjpeg's forward DCT (pass 1: the rows, scaled up by 4; pass 2: the columns) of each lane
 * of d[0 .. 7], in place */
inline __attribute__((always_inline)) void cpj_fdct_v(int8 *d, int pass2) {
    const int8 t0 = d[0] + d[7], t7 = d[0] - d[7], t1 = d[1] + d[6], t6 = d[1] - d[6];
    const int8 t2 = d[2] + d[5], t5 = d[2] - d[5], t3 = d[3] + d[4], t4 = d[3] - d[4];
    const int8 t10 = t0 + t3, t13 = t0 - t3, t11 = t1 + t2, t12 = t1 - t2;
    const int n = pass2 ? 15 : 11;
    d[0] = pass2 ? CPJ_DESCALE(t10 + t11, 2) : (t10 + t11) * 4;
    d[4] = pass2 ? CPJ_DESCALE(t10 - t11, 2) : (t10 - t11) * 4;
    const int8 z1 = (t12 + t13) * CPJ_0_541;
    d[2] = CPJ_DESCALE(z1 + t13 * CPJ_0_765, n);
    d[6] = CPJ_DESCALE(z1 - t12 * CPJ_1_847, n);
    const int8 z5 = (t4 + t6 + t5 + t7) * CPJ_1_175;
    const int8 z3 = z5 - (t4 + t6) * CPJ_1_961, z4 = z5 - (t5 + t7) * CPJ_0_390;
    const int8 o1 = -(t4 + t7) * CPJ_0_899, o2 = -(t5 + t6) * CPJ_2_562;
    d[7] = CPJ_DESCALE(t4 * CPJ_0_298 + o1 + z3, n);
    d[5] = CPJ_DESCALE(t5 * CPJ_2_053 + o2 + z4, n);
    d[3] = CPJ_DESCALE(t6 * CPJ_3_072 + o2 + z3, n);
    d[1] = CPJ_DESCALE(t7 * CPJ_1_501 + o1 + z4, n);
}

/* libjpeg's inverse DCT (pass 1: the columns of dequantised values; pass 2: the rows, to
 * levels minus 128) of each lane of w[0 .. 7], in place */
inline __attribute__((always_inline)) void cpj_idct_v(int8 *w, int pass2) {
    const int8 z1 = (w[2] + w[6]) * CPJ_0_541;
    const int8 e2 = z1 - w[6] * CPJ_1_847, e3 = z1 + w[2] * CPJ_0_765;
    const int8 e0 = (w[0] + w[4]) * 8192, e1 = (w[0] - w[4]) * 8192;
    const int8 t10 = e0 + e3, t13 = e0 - e3, t11 = e1 + e2, t12 = e1 - e2;
    const int8 a3 = w[1], a2 = w[3], a1 = w[5], a0 = w[7];
    const int8 z5 = (a0 + a2 + a1 + a3) * CPJ_1_175;
    const int8 z4 = z5 - (a1 + a3) * CPJ_0_390, z3 = z5 - (a0 + a2) * CPJ_1_961;
    const int8 o1 = -(a0 + a3) * CPJ_0_899, o2 = -(a1 + a2) * CPJ_2_562;
    const int8 b3 = a3 * CPJ_1_501 + o1 + z4, b2 = a2 * CPJ_3_072 + o2 + z3;
    const int8 b1 = a1 * CPJ_2_053 + o2 + z4, b0 = a0 * CPJ_0_298 + o1 + z3;
    const int n = pass2 ? 18 : 11;
    w[0] = CPJ_DESCALE(t10 + b3, n);
    w[7] = CPJ_DESCALE(t10 - b3, n);
    w[1] = CPJ_DESCALE(t11 + b2, n);
    w[6] = CPJ_DESCALE(t11 - b2, n);
    w[2] = CPJ_DESCALE(t12 + b1, n);
    w[5] = CPJ_DESCALE(t12 - b1, n);
    w[3] = CPJ_DESCALE(t13 + b0, n);
    w[4] = CPJ_DESCALE(t13 - b0, n);
}

/* an 8 x 8 block's transpose: lane k of vector m to lane m of vector k */
#define CPJ_LANE(m, k) (int8)(m[0].s##k, m[1].s##k, m[2].s##k, m[3].s##k, m[4].s##k, m[5].s##k, m[6].s##k, m[7].s##k)
inline __attribute__((always_inline)) void cpj_transpose(int8 *m) {
    const int8 t0 = CPJ_LANE(m, 0), t1 = CPJ_LANE(m, 1), t2 = CPJ_LANE(m, 2), t3 = CPJ_LANE(m, 3);
    const int8 t4 = CPJ_LANE(m, 4), t5 = CPJ_LANE(m, 5), t6 = CPJ_LANE(m, 6), t7 = CPJ_LANE(m, 7);
    m[0] = t0;
    m[1] = t1;
    m[2] = t2;
    m[3] = t3;
    m[4] = t4;
    m[5] = t5;
    m[6] = t6;
    m[7] = t7;
}

/* a block of levels (b[m]: row m, 0-255) through the codec at the quantisation table q
 * (quantval, and libjpeg's reciprocal, correction and shift of 8 quantval: its rounded
 * division), in place */
inline __attribute__((always_inline)) void cpj_block(int8 *b, __global const int *q, __global const int *rc,
                      __global const int *corr, __global const int *sh) {
    _Pragma("unroll") for (int m = 0; m < 8; m++) b[m] -= 128;
    cpj_transpose(b); /* lanes: rows */
    cpj_fdct_v(b, 0);
    cpj_transpose(b); /* lanes: columns */
    cpj_fdct_v(b, 1); /* b[m]: row m of the coefficients */
    _Pragma("unroll") for (int m = 0; m < 8; m++) {
        const int8 t = b[m];
        const uint8 p = (abs(t) + convert_uint8(vload8(m, corr))) * convert_uint8(vload8(m, rc));
        const int8 a = convert_int8(p >> convert_uint8(vload8(m, sh)));
        b[m] = (t < 0 ? -a : a) * vload8(m, q);
    }
    cpj_idct_v(b, 0); /* lanes: columns */
    cpj_transpose(b); /* lanes: rows */
    cpj_idct_v(b, 1);
    cpj_transpose(b); /* lanes: columns again: b[m] is row m */
    /* libjpeg's SIMD packs saturate (vector bounds: Oclgrind 21.10 mishandles scalar ones) */
    _Pragma("unroll") for (int m = 0; m < 8; m++) b[m] = clamp(b[m] + 128, (int8)0, (int8)255);
}

/* a stored value's 8-bit level (float images as rint(255 v), albumentations' uint8 round trip,
 * clipped to [0, 1] first) */
inline __attribute__((always_inline)) int cpj_level(__global const X_T *S, long at) {
#if WK_COL_INT
    return (int)S[at];
#else
    return (int)rint(fmin(fmax((float)S[at], 0.0f), 1.0f) * 255.0f);
#endif
}

/* 16 stored values as cpj_level's levels (CP_VEC images: uint8 and float32). No builtin takes
 * or gives a 64-byte vector (float16, int16): clang warns of their ABI on CPUs without AVX-512,
 * and PoCL 3.0 then returns the program without kernels from its cache (programs.py's
 * _with_kernels); 8 lanes at a time instead */
#if CP_VEC
#if X_KIND == WK_INT
typedef uchar16 cpj_vec16;
#define CPJ_LEVELS16(x) CV(x, int16)
#else
typedef float16 cpj_vec16;
#define CPJ_LEVELS8(x) CV(rint(fmin(fmax(x, (float8)0.0f), (float8)1.0f) * 255.0f), int8)
#define CPJ_LEVELS16(x) ((int16)(CPJ_LEVELS8((x).lo), CPJ_LEVELS8((x).hi)))
#endif
#define CPJ_LOAD16(i, p) ((cpj_vec16)(vload8(2 * (i), p), vload8(2 * (i) + 1, p)))
#endif

/* row y of the MCU from column x0: 16 pixels' levels of channels 0-3 (l[c], c >= CH: 0, as
 * albumentations pads 2 channels with zeros), the last column and row repeated past the image.
 * 16 whole pixels (uint8 and float32 images): CH vector loads, split into channels by
 * swizzles */
inline __attribute__((always_inline)) void cpj_row16(__global const X_T *S, long item, int Ho, int Wo, int x0, int y, int16 *l) {
    const long row = item + (long)min(y, Ho - 1) * Wo;
#if CP_VEC
    if (x0 + 16 <= Wo) {
        __global const X_T *p = S + (row + x0) * CH;
        const cpj_vec16 q0 = CPJ_LOAD16(0, p);
        l[1] = l[2] = l[3] = 0;
#if CH == 1
        l[0] = CPJ_LEVELS16(q0);
#elif CH == 2
        const cpj_vec16 q1 = CPJ_LOAD16(1, p);
        l[0] = CPJ_LEVELS16(((cpj_vec16)(q0.even, q1.even)));
        l[1] = CPJ_LEVELS16(((cpj_vec16)(q0.odd, q1.odd)));
#elif CH == 3
        const cpj_vec16 q1 = CPJ_LOAD16(1, p), q2 = CPJ_LOAD16(2, p);
        l[0] = CPJ_LEVELS16(((cpj_vec16)(q0.s0369, q0.scf, q1.s258b, q1.se, q2.s147a, q2.sd)));
        l[1] = CPJ_LEVELS16(((cpj_vec16)(q0.s147a, q0.sd, q1.s0369, q1.scf, q2.s258b, q2.se)));
        l[2] = CPJ_LEVELS16(((cpj_vec16)(q0.s258b, q0.se, q1.s147a, q1.sd, q2.s0369, q2.scf)));
#else
        const cpj_vec16 q1 = CPJ_LOAD16(1, p), q2 = CPJ_LOAD16(2, p), q3 = CPJ_LOAD16(3, p);
        l[0] = CPJ_LEVELS16(((cpj_vec16)(q0.s048c, q1.s048c, q2.s048c, q3.s048c)));
        l[1] = CPJ_LEVELS16(((cpj_vec16)(q0.s159d, q1.s159d, q2.s159d, q3.s159d)));
        l[2] = CPJ_LEVELS16(((cpj_vec16)(q0.s26ae, q1.s26ae, q2.s26ae, q3.s26ae)));
        l[3] = CPJ_LEVELS16(((cpj_vec16)(q0.s37bf, q1.s37bf, q2.s37bf, q3.s37bf)));
#endif
        return;
    }
#endif
    int v[4][16];
    _Pragma("unroll") for (int k = 0; k < 16; k++) {
        const long at = (row + min(x0 + k, Wo - 1)) * CH;
        _Pragma("unroll") for (int c = 0; c < 4; c++) v[c][k] = c < CH ? cpj_level(S, at + c) : 0;
    }
    _Pragma("unroll") for (int c = 0; c < 4; c++) l[c] = (int16)(vload8(0, v[c]), vload8(1, v[c]));
}

/* a decoded block (b[m]: row m) into plane P (width w, height h) from (x0, y0), inside it
 * (every index a constant once unrolled: the block stays in registers) */
inline __attribute__((always_inline)) void cpj_store(const int8 *b, __global uchar *P, int w, int h, int x0, int y0) {
    const int whole = x0 + 8 <= w;
    _Pragma("unroll") for (int m = 0; m < 8; m++) {
        if (y0 + m < h) {
            __global uchar *row = P + (long)(y0 + m) * w + x0;
            const uchar8 u = convert_uchar8(b[m]);
            if (whole) {
                vstore8(u, 0, row);
            } else {
                const uchar l[8] = {u.s0, u.s1, u.s2, u.s3, u.s4, u.s5, u.s6, u.s7};
                _Pragma("unroll") for (int k = 0; k < 8; k++)
                    if (x0 + k < w) row[k] = l[k];
            }
        }
    }
}

/* NDRange (MCU columns rounded up to 64, MCU rows, items), work-groups of 64 along a row.
 * A work-item takes a 16 x 16 MCU: its pixels read once, row by row (levels to Y, Cb, Cr as
 * libjpeg's rgb_ycc, channel 2 as red; the chroma's 2 x 2 sums with libjpeg's alternating
 * bias, rows past the image's last pair repeating that pair's), then its 4 Y blocks (or the
 * gray channel's), 2 chroma blocks and, with 4 channels, the fourth's 4. */
#if !WK_ONE_KERNEL || defined(WK_KERNEL_colour_jpeg_blocks)
__kernel void colour_jpeg_blocks(__global const X_T *restrict S, int Ho, int Wo,
                                 __global uchar *restrict JPG, __global const float *restrict COL,
                                 int ncol, __global const int *restrict JQT) {
    const int b = (int)get_global_id(2);
    __global const float *op = WK_COL_OF(b);
    if ((int)op[0] != WK_COL_JPEG) return;
    /* the item's tables (engine/jpeg.py: 4 x 128 per quality, luminance then chrominance) */
    __global const int *q = JQT + (clamp((int)op[1], 1, 100) - 1) * 512;
    __global const int *rc = q + 128, *corr = q + 256, *sh = q + 384;
    const int mx = (int)get_global_id(0), my = (int)get_global_id(1);
    if (16 * mx >= Wo) return;
    const long item = (long)b * Ho * Wo;
    const int cw = (Wo + 1) >> 1, ch = (Ho + 1) >> 1;
    __global uchar *P0 = JPG + (long)b * (2 * (long)Ho * Wo + 2 * (long)cw * ch);
    __global uchar *P1 = P0 + (long)Ho * Wo, *P2 = P1 + (long)cw * ch, *P3 = P2 + (long)cw * ch;
    const int x0 = 16 * mx, y0 = 16 * my;
    int8 cb[8], cr[8]; /* the chroma block's rows */
    const int16 bias = (int16)(1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2);
    /* (no unroll pragma here: PoCL could not unroll it in some builds, and said so on stderr;
     * the kernel's time did not change without it) */
    for (int part = 0; part < 2; part++) {
        int8 lo[8], hi[8], alo[8], ahi[8]; /* the Y (or gray) blocks left and right; the 4th */
        int16 sb = 0, sr = 0; /* a row pair's chroma sums */
        _Pragma("unroll") for (int m = 0; m < 8; m++) {
            int16 l[4];
            cpj_row16(S, item, Ho, Wo, x0, y0 + 8 * part + m, l);
            const int16 B = l[0], G = l[1], R = l[2];
            const int16 Y = CH == 1 ? B : (19595 * R + 38470 * G + 7471 * B + 32768) >> 16;
            lo[m] = Y.lo;
            hi[m] = Y.hi;
            alo[m] = l[3].lo;
            ahi[m] = l[3].hi;
            if (CH > 1) {
                sb += (-11059 * R - 21709 * G + 32768 * B + (128 << 16) + 32767) >> 16;
                sr += (32768 * R - 27439 * G - 5329 * B + (128 << 16) + 32767) >> 16;
                if (m & 1) { /* the pair's row of chroma: the sums of column pairs */
                    const int r = 4 * part + (m >> 1);
                    cb[r] = (sb.even + sb.odd + bias.lo) >> 2;
                    cr[r] = (sr.even + sr.odd + bias.lo) >> 2;
                    sb = 0;
                    sr = 0;
                }
            }
        }
        const int yb = y0 + 8 * part;
        cpj_block(lo, q, rc, corr, sh);
        cpj_store(lo, P0, Wo, Ho, x0, yb);
        cpj_block(hi, q, rc, corr, sh);
        cpj_store(hi, P0, Wo, Ho, x0 + 8, yb);
        if (CH == 4) {
            cpj_block(alo, q, rc, corr, sh);
            cpj_store(alo, P3, Wo, Ho, x0, yb);
            cpj_block(ahi, q, rc, corr, sh);
            cpj_store(ahi, P3, Wo, Ho, x0 + 8, yb);
        }
    }
    if (CH > 1) {
        /* chroma rows past the image's last pair repeat it (libjpeg pads the downsampled rows) */
        const int last = ch - 1 - 8 * my;
        _Pragma("unroll") for (int r = 1; r < 8; r++)
            if (r > last) {
                cb[r] = cb[r - 1];
                cr[r] = cr[r - 1];
            }
        cpj_block(cb, q + 64, rc + 64, corr + 64, sh + 64);
        cpj_store(cb, P1, cw, ch, 8 * mx, 8 * my);
        cpj_block(cr, q + 64, rc + 64, corr + 64, sh + 64);
        cpj_store(cr, P2, cw, ch, 8 * mx, 8 * my);
    }
}
#endif

/* 8 chroma values of output pixels xo .. xo + 7 (xo even) of row y as libjpeg's decoder
 * upsamples them: its "fancy" triangle filter, over the nearest sample (weight 3 x 3) and its
 * neighbours across the pixel's sides in x and in y (the edges repeated); planes 2 samples wide
 * or less are repeated instead (libjpeg's choice there) */
inline int8 cpj_up8(__global const uchar *P, int cw, int ch, int xo, int y) {
    const int i = y >> 1, j0 = xo >> 1;
    const long r0 = (long)i * cw;
    if (cw <= 2) {
        const int a = P[r0 + min(j0, cw - 1)], b2 = P[r0 + min(j0 + 1, cw - 1)];
        const int c2 = P[r0 + min(j0 + 2, cw - 1)], d = P[r0 + min(j0 + 3, cw - 1)];
        return (int8)(a, a, b2, b2, c2, c2, d, d);
    }
    const long r1 = (long)((y & 1) ? min(i + 1, ch - 1) : max(i - 1, 0)) * cw;
    int cs[6]; /* the column sums of samples j0 - 1 .. j0 + 4, edges repeated */
    for (int m = 0; m < 6; m++) {
        const int j = clamp(j0 - 1 + m, 0, cw - 1);
        cs[m] = 3 * P[r0 + j] + P[r1 + j];
    }
    const int4 mid = (int4)(cs[1], cs[2], cs[3], cs[4]);
    const int4 even = (3 * mid + (int4)(cs[0], cs[1], cs[2], cs[3]) + 8) >> 4;
    const int4 odd = (3 * mid + (int4)(cs[2], cs[3], cs[4], cs[5]) + 7) >> 4;
    return (int8)(even.s0, odd.s0, even.s1, odd.s1, even.s2, odd.s2, even.s3, odd.s3);
}

/* 8 pixels from (xo, yo) of the decoded planes (n inside the row; the rest repeat the last):
 * libjpeg's ycc_rgb, its channel order B, G, R as OpenCV's */
inline void cp_jpeg8(__global const uchar *JPG, int Ho, int Wo, int b, int xo, int yo, int n,
                     float8 *v) {
    const int C = CH;
    const int cw = (Wo + 1) >> 1, ch = (Ho + 1) >> 1;
    __global const uchar *P0 = JPG + (long)b * (2 * (long)Ho * Wo + 2 * (long)cw * ch);
    __global const uchar *P1 = P0 + (long)Ho * Wo, *P2 = P1 + (long)cw * ch, *P3 = P2 + (long)cw * ch;
    const long at = (long)yo * Wo + xo;
    const int8 k = min((int8)(0, 1, 2, 3, 4, 5, 6, 7), (int8)(n - 1));
    int8 Y, A = 0;
    if (n == 8) {
        Y = convert_int8(vload8(0, P0 + at));
        if (C > 3) A = convert_int8(vload8(0, P3 + at));
    } else {
        Y = (int8)(P0[at + k.s0], P0[at + k.s1], P0[at + k.s2], P0[at + k.s3], P0[at + k.s4],
                   P0[at + k.s5], P0[at + k.s6], P0[at + k.s7]);
        if (C > 3)
            A = (int8)(P3[at + k.s0], P3[at + k.s1], P3[at + k.s2], P3[at + k.s3], P3[at + k.s4],
                       P3[at + k.s5], P3[at + k.s6], P3[at + k.s7]);
    }
    float8 l[4];
    l[0] = convert_float8(Y);
    if (C > 1) {
        const int8 cb = cpj_up8(P1, cw, ch, xo, yo) - 128, cr = cpj_up8(P2, cw, ch, xo, yo) - 128;
        /* (lanes past n, outside the row, are never stored: their samples are read clamped
         * inside the planes) */
        /* (vector bounds: Oclgrind 21.10 mishandles an integer vector's clamp by scalars) */
        const int8 lo = (int8)0, hi = (int8)255;
        const int8 B = clamp(Y + ((116130 * cb + 32768) >> 16), lo, hi);
        const int8 G = clamp(Y + ((-22554 * cb + 32768 - 46802 * cr) >> 16), lo, hi);
        const int8 R = clamp(Y + ((91881 * cr + 32768) >> 16), lo, hi);
        l[0] = convert_float8(B);
        l[1] = convert_float8(G);
        l[2] = convert_float8(R);
        l[3] = convert_float8(A);
    }
    WK_EACH_C(v[c] = WK_COL_INT ? l[c] : l[c] / 255.0f);
}
#else
#define JPEG_PARAM
#endif

#if !WK_ONE_KERNEL || defined(WK_KERNEL_colour_mean)
__kernel void colour_mean(__global const X_T *restrict S, int Ho, int Wo,
                          __global float *restrict P, __global const float *restrict COL,
                          int ncol) {
    const int C = CH;
    const int lid = (int)get_local_id(0), g = (int)get_group_id(1), G = (int)get_num_groups(1);
    const int b = (int)get_global_id(2);
    if (!cp_wants_mean(WK_COL_OF(b))) return; /* the whole work-group: one item */
    /* ISONoise's statistics instead: L = (max + min) / 2 of channels 0-2 in [0, 1], and L^2
     * times C (colour_apply divides the second sum by the values, C a pixel) */
    const int iso = (int)WK_COL_OF(b)[0] == WK_COL_ISO;
    __local float2 part[64];
    const int R = (Ho + G - 1) / G, end = (g + 1) * R < Ho ? (g + 1) * R : Ho;
#if PCA
    if ((int)WK_COL_OF(b)[0] == WK_COL_PCA) {
        cp_pca_sums(S, Ho, Wo, b, lid, g * R, end, part, P + CP_PW * ((long)b * G + g));
        return;
    }
#endif
    float8 gray = 0.0f, all = 0.0f;
#if WK_COL_HEAVY & WK_COLG_PLASMA
    /* PlasmaBrightnessContrast's mean after its brightness: x (in [0, 1]) plus the pattern's
     * share, clipped, summed (colour.h's wk_plasma8) */
    __global const float *pop = WK_COL_OF(b);
    const int plasma = (int)pop[0] == WK_COL_PLASMA_MEAN;
#endif
    /* work-group g: the band of rows [g R, (g + 1) R); each work-item reads whole rows, left to
     * right (the hardware prefetcher follows them: work-items side by side on a row, each
     * reading 8 pixels of row after row, left colour_mean waiting on memory) */
    for (int y = g * R + lid; y < end; y += 64) {
        for (int x = 0; x < Wo; x += 8) {
            const int n = Wo - x < 8 ? Wo - x : 8;
            float8 v[4];
            cp_load8(S, ((long)b * Ho + y) * Wo, x, n, v);
            const int8 live = (int8)(0, 1, 2, 3, 4, 5, 6, 7) < n;
            if (iso) {
                const int c1 = C >= 3 ? 1 : 0, c2 = C >= 3 ? 2 : 0;
                const float8 l = (fmax(fmax(v[0], v[c1]), v[c2]) + fmin(fmin(v[0], v[c1]), v[c2]))
                                 * (0.5f / WK_PEAK);
                gray += live ? l : 0.0f;
                all += live ? l * l * (float)C : 0.0f;
                continue;
            }
#if WK_COL_HEAVY & WK_COLG_PLASMA
            if (plasma) {
                const float8 add = wk_clamp8(wk_plasma_at8(pop, (int2)(x, y)) * pop[6], 0.0f, 1.0f);
#if WK_COL_INT
                WK_EACH_C(all += live ? wk_fmin8(wk_over8(v[c], WK_PEAK) + add, (float8)1.0f) : 0.0f);
#else
                WK_EACH_C(all += live ? wk_fmin8(v[c] + add, (float8)1.0f) : 0.0f);
#endif
                continue;
            }
#endif
            gray += live ? (C >= 3 ? wk_gray8(v) : v[0]) : 0.0f;
            WK_EACH_C(all += live ? v[c] : 0.0f);
        }
    }
    const float2 total = cp_sum64(part, lid, (float2)(cp_hsum8(gray), cp_hsum8(all)));
    if (lid == 0) vstore2(total, 0, P + CP_PW * ((long)b * G + g));
}
#endif

/* A work-group takes `rows` rows of an item (the host's choice: a few on CPU devices, where
 * each work-group costs a pass of the work-item loop, its means' sum and its barrier: a
 * work-group a row, 64 items of 224x224 took 14336 of them, 28 of each one's 64 work-items
 * with pixels; one on GPUs, for parallelism); its work-items share the tile's blocks of 8
 * pixels (every work-item busy). A block's result does not depend on the tiling. */
#if GLASS
/* WK_COL_GLASS: one iteration of albumentations' GlassBlur swaps in its "fast" mode, numpy's
 *     x[h, w], x[h + dy, w + dx] = x[h + dy, w + dx], x[h, w]
 * over the grid of pixels (h, w), h = Ho - md .. md + 1 and w = Wo - md .. md + 1 going down,
 * in the order n = j nh + i (i = Ho - md - h, j = Wo - md - w, nh = Ho - 2 md, nw = Wo - 2 md),
 * displacements dy, dx in [-md, md) (the operation's w[1] = md): every grid pixel p first takes
 * the value at p + d(p); then each pixel q some grid pixel's p + d(p) lands on takes the value
 * p had, the last such p (the largest n) winning, as numpy's assignment leaves it. Both from
 * the pass's input. The displacements come from the generator (colour.h's wk_philox8, the key
 * in w[3 .. 5]): the block of counter (n, iteration w[2], 0x474C53) gives dy from its word 0,
 * dx from its word 1, as floor(word 2 md / 2^32) - md.
 *   colour_glass_clear    WIN = 0 for the items whose pass starts with the operation;
 *   colour_glass_scatter  each grid pixel p: WIN[p + d(p)] = max(WIN[p + d(p)], n + 1);
 *   colour_apply          each pixel q: the value at the grid pixel WIN[q] - 1 names, else
 *                         (a grid pixel) at q + d(q), else at q.
 * NDRange of the first two: (Wo / 8 rounded up to 64, Ho, B), blocks of 8 pixels of a row.
 *
 * Its "exact" mode (w[6] = 1) takes one pair after another, in the order k = i nw + j (h
 * going down, then w going down within each h), pair k with the displacements of counter k.
 * albumentations' loop writes the same tuple swap on single pixels, x[h, w] a view of the
 * pixel's channels where the image has more than one: the first assignment copies p + d(p)
 * into p and the second writes it back to itself, so pixel p takes p + d(p)'s value and its
 * partner keeps its own. One channel (OpenCV's blur returns an (H, W) array) makes the
 * elements scalars, and the tuple swaps them:
 *   colour_glass_clear    WIN[q] = q + 1 (each pixel's source, from 1);
 *   colour_glass_exact    a work-item per item, in that order: WIN[p] = WIN[p + d(p)] (and
 *                         WIN[p + d(p)] = the old WIN[p] for one channel);
 *   colour_apply          each pixel q: the value at pixel WIN[q] - 1.
 * NDRange of colour_glass_exact: (B rounded up to 64, 1, 1). */
#define GLASS_PARAM , __global const int *restrict WIN

/* the displacements of 8 grid pixels of orders n in iteration it under key */
inline void cp_glass_d8(uint8 n, int it, uint2 key, int md, int8 *dy, int8 *dx) {
    uint8 o[4];
    wk_philox8(n, (uint8)(uint)it, (uint8)0x474C53u, key.x, key.y, o);
    const uint span = 2u * (uint)md;
    *dy = as_int8(wk_mul_hi8(o[0], span)) - md;
    *dx = as_int8(wk_mul_hi8(o[1], span)) - md;
}

/* the orders of the 8 pixels from column xo of row y, and which of them lie in the grid */
inline uint8 cp_glass_n8(int xo, int y, int Ho, int Wo, int md, int8 *grid) {
    const int nh = Ho - 2 * md, nw = Wo - 2 * md, i = Ho - md - y;
    const int8 j = (int8)(Wo - md - xo) - (int8)(0, 1, 2, 3, 4, 5, 6, 7);
    *grid = (j >= 0) & (j < (int8)nw) & (int8)(-(nh > 0 && i >= 0 && i < nh));
    return as_uint8(j * (int8)nh + (int8)i);
}

#if !WK_ONE_KERNEL || defined(WK_KERNEL_colour_glass_clear)
__kernel void colour_glass_clear(int Ho, int Wo, __global const float *restrict COL, int ncol,
                                 __global int *restrict WIN) {
    const int b = (int)get_global_id(2), y = (int)get_global_id(1), xo = 8 * (int)get_global_id(0);
    __global const float *op = WK_COL_OF(b);
    if (xo >= Wo || (int)op[0] != WK_COL_GLASS) return;
    __global int *w = WIN + ((long)b * Ho + y) * Wo;
    const int exact = op[6] != 0.0f;
    for (int x = xo; x < min(xo + 8, Wo); x++) w[x] = exact ? y * Wo + x + 1 : 0;
}
#endif

#if !WK_ONE_KERNEL || defined(WK_KERNEL_colour_glass_scatter)
__kernel void colour_glass_scatter(int Ho, int Wo, __global const float *restrict COL, int ncol,
                                   __global int *restrict WIN) {
    const int b = (int)get_global_id(2), y = (int)get_global_id(1), xo = 8 * (int)get_global_id(0);
    __global const float *op = WK_COL_OF(b);
    if (xo >= Wo || (int)op[0] != WK_COL_GLASS || op[6] != 0.0f) return;
    const int md = (int)op[1];
    int8 grid, dy, dx;
    const uint8 n = cp_glass_n8(xo, y, Ho, Wo, md, &grid);
    if (!any(grid)) return;
    cp_glass_d8(n, (int)op[2], wk_key(op + 3), md, &dy, &dx);
    int l_in[8], l_dy[8], l_dx[8];
    uint l_n[8];
    vstore8(grid, 0, l_in);
    vstore8(dy, 0, l_dy);
    vstore8(dx, 0, l_dx);
    vstore8(n, 0, l_n);
    for (int l = 0; l < 8; l++)
        if (l_in[l])
            atomic_max((volatile __global int *)WIN + ((long)b * Ho + y + l_dy[l]) * Wo + xo + l + l_dx[l],
                       (int)l_n[l] + 1);
}
#endif

#if !WK_ONE_KERNEL || defined(WK_KERNEL_colour_glass_exact)
__kernel void colour_glass_exact(int Ho, int Wo, __global const float *restrict COL, int ncol,
                                 __global int *restrict WIN, int B) {
    const int b = (int)get_global_id(0);
    if (b >= B) return;
    __global const float *op = WK_COL_OF(b);
    if ((int)op[0] != WK_COL_GLASS || op[6] == 0.0f) return;
    const int md = (int)op[1], nh = Ho - 2 * md, nw = Wo - 2 * md;
    if (nh <= 0 || nw <= 0) return;
    const uint2 key = wk_key(op + 3);
    __global int *w = WIN + (long)b * Ho * Wo;
    const int n = nh * nw;
    int y = Ho - md, x = Wo - md; /* pair k's pixel, moved along with k */
    for (int k0 = 0; k0 < n; k0 += 8) { /* 8 pairs' displacements at a time, then the pairs */
        int8 dy, dx;
        cp_glass_d8((uint8)(uint)k0 + (uint8)(0, 1, 2, 3, 4, 5, 6, 7), (int)op[2], key, md, &dy, &dx);
        int l_dy[8], l_dx[8];
        vstore8(dy, 0, l_dy);
        vstore8(dx, 0, l_dx);
        for (int l = 0; l < 8 && k0 + l < n; l++) {
            const int p = y * Wo + x, q = (y + l_dy[l]) * Wo + x + l_dx[l];
            if (--x == md) {
                x = Wo - md;
                y--;
            }
            const int t = w[p];
            w[p] = w[q];
            if (CH == 1) w[q] = t; /* (see above: a swap of one channel only) */
        }
    }
}
#endif

/* WK_COL_GLASS on the 8 pixels from column xo of row yo (n of them in the image): each from
 * where colour_glass_scatter's winner or its own displacement says, channel c in v[c] */
inline void cp_glass8(__global const X_T *S, int Ho, int Wo, int b, int xo, int yo, int n,
                      __global const float *op, __global const int *WIN, float8 *v) {
    const int C = CH, md = (int)op[1], nh = Ho - 2 * md;
    int8 grid, dy = (int8)0, dx = (int8)0;
    const uint8 order = cp_glass_n8(xo, yo, Ho, Wo, md, &grid);
    if (any(grid)) cp_glass_d8(order, (int)op[2], wk_key(op + 3), md, &dy, &dx);
    int l_in[8], l_dy[8], l_dx[8];
    vstore8(grid, 0, l_in);
    vstore8(dy, 0, l_dy);
    vstore8(dx, 0, l_dx);
    __global const int *win = WIN + ((long)b * Ho + yo) * Wo;
    const int exact = op[6] != 0.0f;
    float l[32];
    for (int k = 0; k < 8; k++) {
        const int x = xo + (k < n ? k : n - 1);
        const int w = win[x];
        int sx = x, sy = yo;
        if (exact) { /* the pixel the swaps brought here */
            sy = (w - 1) / Wo;
            sx = w - 1 - sy * Wo;
        } else if (w > 0) { /* the last grid pixel whose swap lands here */
            const int m = w - 1, j = m / nh;
            sx = Wo - md - j;
            sy = Ho - md - (m - j * nh);
        } else if (l_in[k]) {
            sx = x + l_dx[k];
            sy = yo + l_dy[k];
        }
        const long at = (((long)b * Ho + sy) * Wo + sx) * C;
        for (int c = 0; c < C; c++) l[k * C + c] = cp_level1(S[at + c]);
    }
    for (int c = 0; c < C; c++)
        v[c] = (float8)(l[c], l[C + c], l[2 * C + c], l[3 * C + c], l[4 * C + c], l[5 * C + c],
                        l[6 * C + c], l[7 * C + c]);
}
#else
#define GLASS_PARAM
#endif

#if !WK_ONE_KERNEL || defined(WK_KERNEL_colour_apply)
__kernel void colour_apply(__global const X_T *restrict S, int Ho, int Wo,
                           __global const float *restrict P, int G, __global Y_PTR_T *restrict Y,
                           float4 yscale, float4 ybias, __global const float *restrict COL,
                           int ncol, int rows BLUR_PARAM UNSHARP_PARAM CLAHE_PARAM GATHER_PARAM ZOOM_PARAM JPEG_PARAM PCA_PARAM
                           GLASS_PARAM RESCALE_PARAM FDA_PARAM) {
    const int C = CH;
    const int lid = (int)get_local_id(0), y0 = (int)get_group_id(1) * rows, b = (int)get_global_id(2);
    /* the item's means, summed once per work-group (a sum per work-item costs more than the
     * operations on CPUs: the work-item loop keeps it) */
    __global const float *op = WK_COL_OF(b);
    __local float2 total;
#if PCA
    const int pca = (int)op[0] == WK_COL_PCA;
#if CH == 3
    const int pca_gray = pca && (int)op[5] == 1; /* (ToGray's) */
#else
    const int pca_gray = 0;
#endif
    __global const float *pm = PM + (long)b * CP_PM; /* its matrix and means (colour_pca) */
#endif
#if BLUR
    __local float K[2 * CP_RMAX + 1]; /* a blur's weights, offsets -r .. r */
#if UNSHARP /* (not `UNSHARP && ...`: clang warns of a constant operand, on stderr) */
    const int unsharp = (int)op[0] == WK_COL_UNSHARP;
    const int blur = (int)op[0] == WK_COL_BLUR || unsharp, r = blur ? (int)op[1] : 0;
#else
    const int blur = (int)op[0] == WK_COL_BLUR, r = blur ? (int)op[1] : 0;
#endif
#endif
    if (lid == 0) {
        float2 sum = 0.0f;
        if (cp_wants_mean(op)) /* (P holds no sums for the others) */
            for (int g = 0; g < G; g++) sum += vload2(0, P + CP_PW * ((long)b * G + g));
        total = sum;
#if BLUR
        if (blur) cp_weights(op, K, 0);
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const float np = (float)Ho * (float)Wo;
    const float2 mean = total / (float2)(np, np * (float)C);
#if Y_NORM
    const float ys[4] = {yscale.s0, yscale.s1, yscale.s2, yscale.s3};
    const float yb[4] = {ybias.s0, ybias.s1, ybias.s2, ybias.s3};
#endif
    /* the tile's blocks, in row order: on CPU devices (rows > 1) each work-item takes a run
     * of them, so that PoCL's work-item loop reads the tile from start to end (blocks in turn
     * made the hardware prefetcher's lines arrive late); on GPUs neighbours take neighbours */
    const int nbx = (Wo + 7) >> 3, nr = Ho - y0 < rows ? Ho - y0 : rows, blocks = nr * nbx;
    const int per = (blocks + 63) >> 6, run = rows > 1;
    for (int j = 0; j < per; j++) {
        const int i = run ? lid * per + j : lid + 64 * j;
        if (i >= blocks) break;
        const int yo = y0 + i / nbx, bx = i - (yo - y0) * nbx;
        const int xo = 8 * bx;
        const int n = Wo - xo < 8 ? Wo - xo : 8;
        const long row = ((long)b * Ho + yo) * Wo;
        float8 v[4];
#if BLUR
#if UNSHARP
        if (unsharp) {
            cp_load8(S, row, xo, n, v);
            cp_unsharp8(M, T, Wp, Ho, b, xo, yo, r, K + r, op[2], v);
        } else
#endif
        if (blur)
            cp_blur_cols(T, Wp, Ho, b, xo, yo, r, K + r, v);
        else
#endif
#if MOTION
        if ((int)op[0] == WK_COL_MOTION)
            cp_motion8(S, Ho, Wo, b, xo, yo, op, v);
        else if ((int)op[0] == WK_COL_TAPS)
            cp_taps8(S, Ho, Wo, b, xo, yo, op, v);
        else if ((int)op[0] == WK_COL_CONV)
            cp_conv8(S, Ho, Wo, b, xo, yo, op, v);
        else
#endif
#if MEDIAN
        if ((int)op[0] == WK_COL_MEDIAN)
            cp_median8(S, Ho, Wo, b, xo, yo, (int)op[1], v);
        else
#endif
#if MORPH
        if ((int)op[0] == WK_COL_MORPH)
            cp_morph8(S, Ho, Wo, b, xo, yo, op, v);
        else
#endif
#if GLASS
        if ((int)op[0] == WK_COL_GLASS)
            cp_glass8(S, Ho, Wo, b, xo, yo, n, op, WIN, v);
        else
#endif
#if RESCALE
        if (CP_RESCALES(op))
            cp_rescale8(SR, RT + (long)b * RF, Ho, Wo, b, xo, yo, n, v);
        else
#endif
#if GATHER
        if ((int)op[0] == WK_COL_DOWNSCALE)
            cp_gather8(S, Ho, Wo, b, xo, yo, n, IDX + (long)b * (Wo + Ho), v);
        else
#endif
#if ZOOM
        if ((int)op[0] == WK_COL_ZOOM) {
            cp_load8(S, row, xo, n, v);
            cp_zoom8(S, Ho, Wo, b, xo, yo, n, (int)op[1], ZT + (long)b * ZF * 3 * (Wo + Ho), v);
        } else
#endif
#if JPEG
        if ((int)op[0] == WK_COL_JPEG)
            cp_jpeg8(JPG, Ho, Wo, b, xo, yo, n, v);
        else
#endif
#if CHROMA
        if ((int)op[0] == WK_COL_CHROMA) {
            cp_load8(S, row, xo, n, v);
            cp_chroma8(S, Ho, Wo, b, xo, yo, op, v);
        } else
#endif
#if FDA
        if ((int)op[0] == WK_COL_FDA) {
            cp_load8(S, row, xo, n, v);
            cp_fda8(FA + ((long)b * C * Ho + yo) * gmax, (long)Ho * gmax, (int)op[5], FT, Wo, xo, v);
        } else
#endif
#if CLAHE
        if ((int)op[0] == WK_COL_CLAHE) {
            cp_load8(S, row, xo, n, v);
            cp_clahe8(S, Ho, Wo, b, xo, yo, n, op, LUT, max_tiles, LABT, v);
        } else if ((int)op[0] == WK_COL_EQUALIZE) {
            cp_load8(S, row, xo, n, v);
            cp_equalize8(op, LUT + (long)b * max_tiles * 256, v);
        } else
#endif
            cp_load8(S, row, xo, n, v);
#if PCA
        if (pca) {
            if (pca_gray) cp_gray_pca8(v, pm);
            else cp_pca8(v, pm);
        }
#endif
        /* (levels already, as wk_colour8 would make them: cp_load8 and the filters give them) */
        wk_colour8_ops(v, C, op, ncol, mean, (int2)(xo, yo), (int2)(Wo, Ho));
#if Y_NORM
#if Y_CHW && !Y_HALF
        if (n == 8) { /* a plane's 8 neighbours */
            WK_EACH_C(WK_STORE8(float8, Y_CLAMP(v[c]) * ys[c] + yb[c], Y + Y_AT(b, c, yo, xo, C)));
        } else
#endif
        {
            WK_EACH_C(float l[8]; WK_STORE8(float8, Y_CLAMP(v[c]) * ys[c] + yb[c], l);
                      for (int k = 0; k < n; k++) Y_STORE1(Y_AT(b, c, yo, xo + k, C), l[k]));
        }
#else
#if CP_VEC
        if (n == 8) { /* 8 whole pixels: their values interleaved again, C vector stores */
            float8 q[4];
            CP_MERGE(v, q);
            WK_EACH_C(CP_STORE8(Y + (row + xo) * C, c, CP_STORED8(q[c])));
        } else
#endif
        {
            WK_EACH_C(float l[8]; WK_STORE8(float8, v[c], l);
                      for (int k = 0; k < n; k++) STORE_PIX(Y, (row + xo + k) * C + c, (acc_t)l[k]));
        }
#endif
    }
}
#endif

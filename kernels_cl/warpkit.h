/* warpkit shared kernel helpers: storage types, loads/stores, and small math helpers.
 *
 * PoCL does not inline OpenCL builtins such as floor/clamp/rint/fabs in hot loops (each call stops its
 * work-item loop optimisation), so the helpers here use casts, comparisons and ?: instead. Each helper
 * states the input range it is exact for; callers clamp coordinates first.
 *
 * Type macros (each with a default, so the header compiles alone):
 *   X_KIND   storage kind of the sampled tensor: WK_F16, WK_BF16, WK_F32, WK_F64, WK_INT, WK_BOOL
 *   X_T      its OpenCL storage type (ushort for F16/BF16 storage, uchar for bool)
 *   X_MIN, X_MAX   saturation limits for WK_INT (OpenCL limit macros, e.g. INT_MIN/INT_MAX)
 *   G_KIND   storage kind of coordinates (grid / theta / rois): WK_F16, WK_BF16, WK_F32, WK_F64
 *   COORD_DOUBLE   coordinates computed in double (1) or float (0)
 *   ACC_DOUBLE     values accumulated in double (1) or float (0)
 */
#pragma OPENCL FP_CONTRACT OFF

/* WK_ONE_KERNEL: the program holds only the kernel whose WK_KERNEL_<name> is defined (the host
 * builds a program per kernel it launches: a source's other kernels, compiled and never run,
 * took a third of warp.cl's build, the colour operations inlined into both of its kernels) */
#ifndef WK_ONE_KERNEL
#define WK_ONE_KERNEL 0
#endif
#define WK_F16 1
#define WK_BF16 2
#define WK_F32 3
#define WK_F64 4
#define WK_INT 5
#define WK_BOOL 6

#ifndef X_KIND
#define X_KIND WK_F32
#endif
#ifndef X_T
#define X_T float
#endif
#ifndef G_KIND
#define G_KIND WK_F32
#endif
#ifndef COORD_DOUBLE
#define COORD_DOUBLE 0
#endif
#ifndef ACC_DOUBLE
#define ACC_DOUBLE 0
#endif
#ifndef X_MIN
#define X_MIN 0
#endif
#ifndef X_MAX
#define X_MAX 0
#endif

#if COORD_DOUBLE || ACC_DOUBLE || X_KIND == WK_F64 || G_KIND == WK_F64 || PCA_DOUBLE || HM_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#if COORD_DOUBLE
typedef double coord_t;
#define WK_ROUND_MAGIC 4503599627370496.0 /* 2^52 */
#else
typedef float coord_t;
#define WK_ROUND_MAGIC 8388608.0f /* 2^23 */
#endif

#if ACC_DOUBLE
typedef double acc_t;
#else
typedef float acc_t;
#endif

/* index p of a signal of n reflected into it (OpenCV's BORDER_REFLECT_101, for any p; the
 * indices inside first, without the remainder's division): snow.cl's and flare.cl's blurs */
inline int wk_reflect101(int p, int n) {
    if ((uint)p < (uint)n) return p;
    if (n == 1) return 0;
    const int m = 2 * n - 2;
    p %= m;
    p = p < 0 ? p + m : p;
    return p < n ? p : m - p;
}

/* ---- storage loads and stores ------------------------------------------------------------- */

/* vloadn / vstoren as element accesses: PoCL 3.0 calls its vload2, vload4 and vload8 out of
 * line, and a call spills every live vector register around it (the field kernel had 528 such
 * calls). The compiler merges the elements into one vector access. */
#define WK_LOAD2(p) ((float2)((p)[0], (p)[1]))
#define WK_LOAD8(p) ((float8)((p)[0], (p)[1], (p)[2], (p)[3], (p)[4], (p)[5], (p)[6], (p)[7]))
#define WK_STORE8(T, v, p) /* the 8 lanes of v (a T) to p[0..7] */                         \
    {                                                                                         \
        const T v_ = (v);                                                                     \
        (p)[0] = v_.s0; (p)[1] = v_.s1; (p)[2] = v_.s2; (p)[3] = v_.s3;                       \
        (p)[4] = v_.s4; (p)[5] = v_.s5; (p)[6] = v_.s6; (p)[7] = v_.s7;                       \
    }

/* half <-> float from their bits, as vload_half and vstore_half_rte give them (PoCL 3.0 calls
 * those out of line, a spill of every live vector register each). Every half is a float; a
 * float rounds to the nearest half, ties to even, overflows to infinity, and NaN stays NaN
 * (quiet, its payload's top bits kept, as x86's F16C and ARM convert). */
inline float wk_half_to_float(ushort h) {
    const uint s = (uint)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0) /* zero and subnormals: m 2^-24, exact */
        return as_float(s | as_uint((float)m * 5.9604644775390625e-8f));
    return as_float(s | (e == 31 ? 0x7f800000u : (e + 112) << 23) | (m << 13));
}
/* name(v): the half bits of float (FT) v, in a UT of as many lanes; one recipe for one value
 * (STORE_X, STORE_G) and for 8 (the warp's float16 model input):
 * - below 2^-14 (half subnormals and zero): adding 0.5 rounds to a multiple of 2^-24, the
 *   subnormals' step, in the float add itself;
 * - normal: the exponent rebiased (-112 << 23), the dropped 13 bits rounded to even; a carry
 *   out of the mantissa raises the exponent, to infinity from 65520 up. */
#define WK_HALF_BITS_FN(name, FT, UT)                                                         \
    inline UT name(FT v) {                                                                    \
        const UT b = as_##UT(v), a = b & 0x7fffffffu;                                         \
        const UT sub = as_##UT(as_##FT(a) + 0.5f) - 0x3f000000u;                              \
        const UT nor = (a + 0xc8000fffu + ((a >> 13) & 1u)) >> 13;                            \
        UT h = a < 0x38800000u ? sub : nor;                                                   \
        h = a >= 0x47800000u ? (UT)0x7c00u : h;                        /* 65536 and up */     \
        h = a > 0x7f800000u ? (UT)(0x7e00u | ((a >> 13) & 0x3ffu)) : h; /* NaN */             \
        return ((b >> 16) & 0x8000u) | h;                                                     \
    }
WK_HALF_BITS_FN(wk_half_bits, float, uint)
WK_HALF_BITS_FN(wk_half_bits8, float8, uint8)
/* element i of half data at p as a float; v stored there as half (a float: doubles keep
 * vstore_half_rte, which rounds them once) */
#define WK_LOAD_HALF(p, i) wk_half_to_float(((__global const ushort *)(p))[i])
#define WK_STORE_HALF(p, i, v) (((__global ushort *)(p))[i] = (ushort)wk_half_bits((float)(v)))

/* a pointer type for X storage: half for F16 (read and written as its bits, above: no
 * cl_khr_fp16) */
#if X_KIND == WK_F16
#define X_PTR_T half
#else
#define X_PTR_T X_T
#endif

#if G_KIND == WK_F16
#define G_PTR_T half
#elif G_KIND == WK_BF16
#define G_PTR_T ushort
#elif G_KIND == WK_F64
#define G_PTR_T double
#else
#define G_PTR_T float
#endif

inline float wk_bf16_to_float(ushort b) { return as_float(((uint)b) << 16); }

inline ushort wk_float_to_bf16(float v) {
    uint b = as_uint(v);
    /* NaN stays NaN (quiet bit set); everything else rounds to nearest even */
    return (v != v) ? (ushort)((b >> 16) | 0x40u) : (ushort)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}

/* load element i of X as acc_t */
#if X_KIND == WK_F16
#define LOAD_X(p, i) ((acc_t)WK_LOAD_HALF(p, i))
#elif X_KIND == WK_BF16
#define LOAD_X(p, i) ((acc_t)wk_bf16_to_float((p)[i]))
#elif X_KIND == WK_BOOL
#define LOAD_X(p, i) ((acc_t)((p)[i] != 0))
#else
#define LOAD_X(p, i) ((acc_t)(p)[i])
#endif

/* store acc_t v to element i of Y; integers truncate toward zero and saturate, NaN -> 0 (ONNX Cast) */
#if X_KIND == WK_F16
#if ACC_DOUBLE
#define STORE_X(p, i, v) vstore_half_rte((v), (i), (p)) /* a double rounded once */
#else
#define STORE_X(p, i, v) WK_STORE_HALF(p, i, v)
#endif
#elif X_KIND == WK_BF16
#define STORE_X(p, i, v) ((p)[i] = wk_float_to_bf16((float)(v)))
#elif X_KIND == WK_BOOL
#define STORE_X(p, i, v) ((p)[i] = (uchar)(((v) == (v)) && ((v) != (acc_t)0)))
#elif X_KIND == WK_INT
#define STORE_X(p, i, v)                                                               \
    ((p)[i] = ((v) != (v))              ? (X_T)0                                       \
              : ((v) <= (acc_t)(X_MIN)) ? (X_T)(X_MIN)                                 \
              : ((v) >= (acc_t)(X_MAX)) ? (X_T)(X_MAX)                                 \
                                        : (X_T)(v))
#else
#define STORE_X(p, i, v) ((p)[i] = (X_T)(v))
#endif

/* the raw storage value a NaN coordinate produces: NaN for floats, 0 for integers and bool */
#if X_KIND == WK_F16
#define X_NAN_RAW ((ushort)0x7e00)
#elif X_KIND == WK_BF16
#define X_NAN_RAW ((ushort)0x7fc0)
#elif X_KIND == WK_F32
#define X_NAN_RAW NAN
#elif X_KIND == WK_F64
#define X_NAN_RAW ((double)NAN)
#else
#define X_NAN_RAW ((X_T)0)
#endif

/* load element i of a coordinate tensor as coord_t */
#if G_KIND == WK_F16
#define LOAD_G(p, i) ((coord_t)WK_LOAD_HALF(p, i))
#elif G_KIND == WK_BF16
#define LOAD_G(p, i) ((coord_t)wk_bf16_to_float((p)[i]))
#else
#define LOAD_G(p, i) ((coord_t)(p)[i])
#endif

/* store coord_t v as element i of a coordinate-typed output */
#if G_KIND == WK_F16
#if COORD_DOUBLE
#define STORE_G(p, i, v) vstore_half_rte((v), (i), (p)) /* a double rounded once */
#else
#define STORE_G(p, i, v) WK_STORE_HALF(p, i, v)
#endif
#elif G_KIND == WK_BF16
#define STORE_G(p, i, v) ((p)[i] = wk_float_to_bf16((float)(v)))
#else
#define STORE_G(p, i, v) ((p)[i] = (v))
#endif

/* ---- interpolation modes (grid_sample.cl, warp.cl) ------------------------------------------- */

/* MODE_NEAREST, MODE_LINEAR, MODE_CUBIC: numbered by warpkit/_options.py, which every build
 * passes as -D defines (Runtime.program) */
#ifndef MODE_NEAREST
#error "build through warpkit's Runtime.program, which defines the option numbers"
#endif
#ifndef MODE
#define MODE MODE_LINEAR
#endif
/* WK_BUILTINS 1: the compiler turns clang's target builtins (prefetch, non-temporal stores, x86
 * fences) into native code. Decided on the host (Runtime.llvm_builtins): PoCL's CPU device. Other
 * implementations may reject them while building (Mesa's rusticl translates to SPIR-V, which has
 * no prefetch, and its failed build ends the process): never assumed. */
#ifndef WK_BUILTINS
#define WK_BUILTINS 0
#endif

/* taps per axis */
#if MODE == MODE_NEAREST
#define TAPS 1
#elif MODE == MODE_LINEAR
#define TAPS 2
#else
#define TAPS 4
#endif

/* Keys cubic convolution weights (A = -0.75, as ONNX, PyTorch and OpenCV) of the 4 taps
 * x0-1 .. x0+2 for the fraction t = x - x0; S is the scalar type, t and w[] may be vectors */
#define WK_KEYS_WEIGHTS(S, t, w)                                                            \
    do {                                                                                    \
        const S A_ = (S)-0.75;                                                              \
        const __typeof__(t) t1_ = (t) + 1, s_ = 1 - (t), s1_ = 2 - (t);                     \
        (w)[0] = ((A_ * t1_ - 5 * A_) * t1_ + 8 * A_) * t1_ - 4 * A_;                       \
        (w)[1] = ((A_ + 2) * (t) - (A_ + 3)) * (t) * (t) + 1;                               \
        (w)[2] = ((A_ + 2) * s_ - (A_ + 3)) * s_ * s_ + 1;                                  \
        (w)[3] = ((A_ * s1_ - 5 * A_) * s1_ + 8 * A_) * s1_ - 4 * A_;                       \
    } while (0)

/* ---- math helpers without builtin calls ----------------------------------------------------- */

inline coord_t wk_minc(coord_t a, coord_t b) { return a < b ? a : b; }
inline coord_t wk_maxc(coord_t a, coord_t b) { return a > b ? a : b; }
inline int wk_mini(int a, int b) { return a < b ? a : b; }
inline int wk_maxi(int a, int b) { return a > b ? a : b; }
inline int wk_clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

/* floor(x) as int, exact for |x| < 2^31 */
inline int wk_floori(coord_t x) {
    int i = (int)x;
    return i - (x < (coord_t)i);
}

/* round half to even (rint), exact for every finite x and the identity on inf/NaN:
 * adding and removing 2^23 (2^52 for double) rounds in the default round-to-nearest-even mode;
 * larger magnitudes are integers already. FP_CONTRACT is off, so the pair is not folded. */
inline coord_t wk_rint(coord_t x) {
    coord_t m = WK_ROUND_MAGIC;
    coord_t r = x >= 0 ? (x + m) - m : (x - m) + m;
    return (x < m && x > -m) ? r : x;
}

/* wk_rint for 8 floats (the 8-wide kernels compute coordinates in float). On PoCL (WK_BUILTINS)
 * clang's elementwise roundeven where it has it: one instruction (x86's roundps) for the sum's
 * six, the same value for every x but the sign of a zero (-0.3 gives -0, the sum +0), which no
 * caller keeps: each turns the result into an integer or clamps it at 0. rint itself is a call
 * in PoCL's library (see WK_ELEMENTWISE) */
#define WK_ROUNDEVEN 0
#if WK_BUILTINS && defined(__has_builtin)
#if __has_builtin(__builtin_elementwise_roundeven)
#undef WK_ROUNDEVEN
#define WK_ROUNDEVEN 1
#endif
#endif
inline __attribute__((always_inline)) float8 wk_rint_f8(float8 x) {
#if WK_BUILTINS && WK_ROUNDEVEN
    return __builtin_elementwise_roundeven(x);
#else
    const float8 m = (float8)8388608.0f; /* 2^23 */
    float8 r = x >= 0 ? (x + m) - m : (x - m) + m;
    return (x < m && x > -m) ? r : x;
#endif
}

/* x is finite: NaN fails x == x, +-inf gives inf - inf = NaN */
inline int wk_isfinite(coord_t x) { return (x - x) == (x - x); }

/* element-wise conversion between vector types of the same length: clang's frontend builtin
 * (inline, no library call: PoCL does not inline convert_*), else OpenCL's convert_<type>, the
 * same rounding (toward zero from float to int) */
#if defined(__clang__)
#define CV(v, t) __builtin_convertvector(v, t)
#else
#define CV(v, t) convert_##t(v)
#endif

/* whether all 8 lanes of a mask are true */
inline __attribute__((always_inline)) int wk_all8(int8 m) {
    const int4 a = m.lo & m.hi;
    const int2 b = a.lo & a.hi;
    return (b.x & b.y) != 0;
}

/* any(m) for 8 lanes of masks (0 or -1) */
inline __attribute__((always_inline)) int wk_any8(int8 m) {
    const int4 a = m.lo | m.hi;
    const int2 b = a.lo | a.hi;
    return (b.x | b.y) != 0;
}

/* PoCL's CPU device calls its library's floor, clamp, rint, trunc, fmax, fmin, min, max, mul_hi,
 * select and any as functions (it does not inline them into kernels as large as the warp with
 * its colour operations), and each call spills every vector the caller holds (all of them are
 * caller-saved): OpenCV's 8-bit HSV round trip cost ~5 ns a pixel on 2 cores, most of it in the
 * calls. On PoCL (WK_BUILTINS) the per-pixel arithmetic of colour and Mosaic's cells takes
 * clang's elementwise builtins (single instructions, which Oclgrind cannot run), comparisons in
 * place of clamp, min, max and select (the same values for the finite values they see; NaN
 * gives clamp's lower bound, as fmax does), the 2^23 sum for rint and 64-bit products for
 * mul_hi. Every other device keeps the library's functions. */
#define WK_ELEMENTWISE 0
#if WK_BUILTINS && defined(__has_builtin) /* (a compiler without __has_builtin never reads it) */
#if __has_builtin(__builtin_elementwise_floor) && __has_builtin(__builtin_elementwise_trunc) && \
    __has_builtin(__builtin_elementwise_max) && __has_builtin(__builtin_elementwise_min)
#undef WK_ELEMENTWISE
#define WK_ELEMENTWISE 1
#endif
#endif
#if WK_BUILTINS && WK_ELEMENTWISE
#define wk_floor8(x) __builtin_elementwise_floor(x)
#define wk_trunc8(x) __builtin_elementwise_trunc(x)
#define wk_fmax8(a, b) __builtin_elementwise_max(a, b)
#define wk_fmin8(a, b) __builtin_elementwise_min(a, b)
#else
#define wk_floor8(x) floor(x)
#define wk_trunc8(x) trunc(x)
#define wk_fmax8(a, b) fmax(a, b)
#define wk_fmin8(a, b) fmin(a, b)
#endif
#if WK_BUILTINS /* rint: halves to even; PoCL's clang has no elementwise rint: wk_rint_f8 */
#define wk_rint8(x) wk_rint_f8(x)
#else
#define wk_rint8(x) rint(x)
#endif
/* clamp(v, lo, hi) = fmin(fmax(v, lo), hi) */
inline __attribute__((always_inline)) float8 wk_clamp8(float8 v, float lo, float hi) {
#if WK_BUILTINS
    return v > lo ? (v < hi ? v : (float8)hi) : (float8)lo;
#else
    return clamp(v, lo, hi);
#endif
}
/* fma(a, b, c) of 8 lanes, one rounding: on PoCL clang's scalar builtin per lane, which its
 * vectoriser joins into one instruction (its library's vector fma stayed a call, and the
 * call spilled every vector the caller held) */
inline __attribute__((always_inline)) float8 wk_fma8(float8 a, float8 b, float8 c) {
#if WK_BUILTINS
    return (float8)(__builtin_fmaf(a.s0, b.s0, c.s0), __builtin_fmaf(a.s1, b.s1, c.s1),
                    __builtin_fmaf(a.s2, b.s2, c.s2), __builtin_fmaf(a.s3, b.s3, c.s3),
                    __builtin_fmaf(a.s4, b.s4, c.s4), __builtin_fmaf(a.s5, b.s5, c.s5),
                    __builtin_fmaf(a.s6, b.s6, c.s6), __builtin_fmaf(a.s7, b.s7, c.s7));
#else
    return fma(a, b, c);
#endif
}
/* sqrt of 8 lanes (PoCL: per lane, joined into one instruction as wk_fma8) */
inline __attribute__((always_inline)) float8 wk_sqrt8(float8 x) {
#if WK_BUILTINS
    return (float8)(__builtin_sqrtf(x.s0), __builtin_sqrtf(x.s1), __builtin_sqrtf(x.s2), __builtin_sqrtf(x.s3),
                    __builtin_sqrtf(x.s4), __builtin_sqrtf(x.s5), __builtin_sqrtf(x.s6), __builtin_sqrtf(x.s7));
#else
    return sqrt(x);
#endif
}
/* the high word of the 32-bit product a * k (Philox). On PoCL in halves: a call with a ulong8
 * (64 bytes) crosses an ABI that differs with AVX-512, and clang warns of it on CPUs without;
 * PoCL 3.0 then returns programs without kernels from its cache (every build after a process's
 * first cold one) */
inline __attribute__((always_inline)) uint8 wk_mul_hi8(uint8 a, uint k) {
#if WK_BUILTINS
    const ulong4 lo = convert_ulong4(a.lo) * (ulong4)k, hi = convert_ulong4(a.hi) * (ulong4)k;
    return (uint8)(convert_uint4(lo >> 32), convert_uint4(hi >> 32));
#else
    return mul_hi(a, (uint8)k);
#endif
}
/* max, min and select(a, b, m) of vectors as comparisons on PoCL; the builtins elsewhere
 * (Oclgrind 21.10 mis-evaluates ?: on integer vectors, and on a mask combined with ^) */
#if WK_BUILTINS
#define WK_MAX(a, b) ((a) > (b) ? (a) : (b))
#define WK_MIN(a, b) ((a) < (b) ? (a) : (b))
#define WK_SELECT(a, b, m) ((m) ? (b) : (a))
#else
#define WK_MAX(a, b) max(a, b)
#define WK_MIN(a, b) min(a, b)
#define WK_SELECT(a, b, m) select((a), (b), (m))
#endif

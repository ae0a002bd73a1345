/* Fused image warps: every output pixel computes its source position from a 3x3 matrix
 * (src_from_dst, pixel centres at integers, x right, y down), with the perspective divide, and
 * samples there. No grid is materialized.
 *
 * Images are (B, H, W, C) with C channels innermost (up to 4; more with WK_WIDE; any strides for the source; the output is
 * contiguous). Storage type X_T / X_KIND (warpkit.h): uchar, ushort, int or float. Integer outputs
 * round to nearest and saturate (images want that; ONNX's cast truncates instead).
 *
 * Specialised on MODE (nearest / linear / cubic); padding, fill and the supersampling factor are
 * arguments. NDRange: (W_out, H_out, B).
 */
#include "warpkit.h"
#include "sampling.h"
#include "colour.h"
#include "store.h"

/* pad: sampling.h's modes, WK_PAD_ZEROS being the constant fill */
#define PAD_CONSTANT WK_PAD_ZEROS
#define PAD_BORDER WK_PAD_BORDER
#define WP_REFLECTING(pad) ((pad) >= WK_PAD_REFLECT)

#ifndef WK_CPU
#define WK_CPU 0
#endif
#ifndef WK_U8
#define WK_U8 0 /* 1: X_T is uchar (32-bit words read a pixel's channels 4 at a time) */
#endif

/* WK_WIDE: the channel count of an image of more than 4 channels (multispectral bands, RGB and
 * depth; build time), else 0. Its per-channel values do not fit the vector arguments (fill,
 * ifill, yscale, ybias, then unused): WIDE holds fill[C], yscale[C] and ybias[C] as floats,
 * IWIDE the integer images' fills[C]. Every channel takes the same positions, taps and weights
 * in the one launch. */
#ifndef WK_WIDE
#define WK_WIDE 0
#endif
#if WK_WIDE
#define WK_NCH WK_WIDE /* the per-channel arrays' length */
/* (not restrict: inlined functions take them too, and Oclgrind cannot run the noalias scopes
 * that LLVM makes of a restrict parameter when it inlines) */
#define WK_WIDE_PARAM , __global const float *WIDE, __global const int *IWIDE
#define WK_WIDE_ARG , WIDE, IWIDE
/* arr[c] = the per-channel value k (0 fill, 1 yscale, 2 ybias) of channel c; _I: the integer
 * fills */
#define WK_PER_CHANNEL(arr, T, vec, k)                                                        \
    for (int c_ = 0; c_ < WK_WIDE; c_++) arr[c_] = (T)WIDE[(k) * WK_WIDE + c_]
#define WK_PER_CHANNEL_I(arr, T, vec) for (int c_ = 0; c_ < WK_WIDE; c_++) arr[c_] = (T)IWIDE[c_]
#else
#define WK_NCH 4
#define WK_WIDE_PARAM
#define WK_WIDE_ARG
#define WK_PER_CHANNEL(arr, T, vec, k)                                                        \
    arr[0] = (T)(vec).s0;                                                                     \
    arr[1] = (T)(vec).s1;                                                                     \
    arr[2] = (T)(vec).s2;                                                                     \
    arr[3] = (T)(vec).s3
#define WK_PER_CHANNEL_I(arr, T, vec) WK_PER_CHANNEL(arr, T, vec, 0)
#endif


/* RAGGED 1: the items are images of different sizes packed in one buffer (a ragged batch in one
 * launch): item b's image starts at element rag[4b] (after x_off), is rag[4b+1] rows of rag[4b+2]
 * pixels, rows rag[4b+3] elements apart, channels packed (validated on the host). The kernels'
 * H, W and sxy arguments are then unused; WK_ITEM sets this item's base, H, W and sxy. */
#ifndef RAGGED
#define RAGGED 0
#endif
#if RAGGED
#define WK_RAG_PARAM , __global const long *restrict rag
#define WK_ITEM(base)                                                                         \
    const long4 rg_ = (long4)(rag[4 * b], rag[4 * b + 1], rag[4 * b + 2], rag[4 * b + 3]);   \
    const long base = x_off + rg_.s0;                                                         \
    const int H = (int)rg_.s1, W = (int)rg_.s2;                                               \
    const long sxy = rg_.s3
#else
#define WK_RAG_PARAM
/* item b reads image src_index[b] (crops of many boxes) or image b */
#define WK_ITEM(base)                                                                         \
    const long base = x_off + (indexed ? (long)src_index[b] : (long)b) * sxb;                 \
    const int H = H_, W = W_;                                                                 \
    const long sxy = sxy_
#endif

/* COORD: where each output pixel's source position comes from.
 *  COORD_MATRIX: M, a 3x3 src_from_dst map per item (or one for all), with the perspective divide.
 *  COORD_MAP: absolute source positions per output pixel (OpenCV's remap): MX and MY, planes
 *    of Ho * Wo floats (map_xy 0), or MX one (Ho, Wo, 2) array of (x, y) (map_xy 1), starting
 *    mx_off / my_off elements in; item b's start map_item * b elements further (0: one map for
 *    every item). NaN or infinite: no source (the fill).
 *  COORD_FIELD: a chain of nf non-linear stages between nf + 1 projective maps: per item,
 *    q = M_0 p, then for each stage k: q = S_k(q), q = M_{k+1} q (with the perspective divide
 *    at each map). The host folds each stage's frame into the maps around it. FI holds (offset
 *    into FLD in floats, kind, a, b) per item and stage; the kinds (STAGE_*) come from the
 *    host's option table:
 *    - STAGE_FIELD: a coarse displacement field, q += D(q), D an (Hf = b, Wf = a, 2) grid of
 *      displacements in grid units, sampled at grid coordinates q, clamped to the grid's border,
 *      bilinearly (smooth fields come resampled to a grid fine enough for that:
 *      augment/_fields.py, smooth_field);
 *    - STAGE_AXES: a field per axis, q.x += Dx(q.x), q.y += Dy(q.y): a points of Dx, then
 *      b of Dy, in grid units, clamped and linear between points (GridDistortion);
 *    - STAGE_LENS: a lens, q = distort(q) in normalised camera coordinates: OpenCV's model with
 *      (k1, k2, p1, p2, k3, k4, k5, k6, s1, s2, s3, s4) from FLD; b says which parts apply;
 *    - STAGE_CELLS: a rectangles, each with an affine map and a clamp (wk_cells: Mosaic);
 *    - STAGE_QUADS: a painted regions, each with a projective map (wk_quads: GridElasticDeform);
 *    - STAGE_BLEND: a points blended by inverse squared distance (wk_blend: albumentations'
 *      PiecewiseAffine).
 *    The maps and FI are per item, or one chain for every item (per_image 0). The
 *    full-resolution map is never made.
 *  COORD_AXES: a map whose x depends on the output column only and y on the row only (a chain
 *    of axis-aligned maps and per-axis fields, evaluated on the host): AX holds per item Wo
 *    source x positions, then Ho source y positions, ax_item floats apart per item (0: one
 *    for all); finite and within 1e30 (checked on the host). */
#ifndef WV_BLOCKS
#define WV_BLOCKS 1 /* warp_v: blocks of 8 output pixels per work-item, side by side on a row */
#endif
/* warp_v: rows per work-item, one block each (> 1: the host's axis-aligned affine maps, linear,
 * uint8, matrices: every row of a block reads the same columns with the same weights, and
 * consecutive rows share source rows, whose mixes along x are kept; see warp_v) */
#ifndef WV_ROWS
#define WV_ROWS 1
#endif
#if !defined(COORD_MATRIX) || !defined(STAGE_LENS) || !defined(STAGE_CELLS) || !defined(STAGE_QUADS) || \
    !defined(STAGE_BLEND)
#error "the coordinate sources and stage kinds come from warpkit's option table (-D defines)"
#endif
#ifndef COORD
#define COORD COORD_MATRIX
#endif
/* 3x3 maps in M per item: a chain's nf + 1 around its stages, else one */
#if COORD == COORD_FIELD
#define WK_MAPS_PER_ITEM (nf + 1)
#else
#define WK_MAPS_PER_ITEM 1
#endif
#if COORD == COORD_MAP
#define WK_COORD_PARAM                                                                       \
    , __global const float *restrict MX, __global const float *restrict MY, long mx_off, long my_off, \
        long map_item, int map_xy
#define WK_SOURCE(px, py, b, m)                                                               \
    wk_map_source((int)(px), (int)(py), MX + mx_off + (b) * map_item, MY + my_off + (b) * map_item, Wo, map_xy)
/* the source position of output pixel (xo, yo) */
inline float2 wk_map_source(int xo, int yo, __global const float *mx, __global const float *my, int Wo,
                            int map_xy) {
    const long i = (long)yo * Wo + xo;
    return map_xy ? WK_LOAD2(mx + 2 * i) : (float2)(mx[i], my[i]);
}
#elif COORD == COORD_AXES
#define WK_COORD_PARAM , __global const float *restrict AX, long ax_item
#define WK_SOURCE(px, py, b, m) wk_axes_source((int)(px), (int)(py), AX + (b) * ax_item, Wo)
inline float2 wk_axes_source(int xo, int yo, __global const float *ax, int Wo) {
    return (float2)(ax[xo], ax[Wo + yo]);
}
#elif COORD == COORD_FIELD
#define WK_COORD_PARAM , __global const float *restrict FLD, __global const int *restrict FI, int nf
#define WK_SOURCE(px, py, b, m) wk_field_source((px), (py), (m), FLD, FI + (per_image ? (b) : 0) * nf * 4, nf)
inline float2 wk_project(__global const float *m, float2 q) {
    const float den = m[6] * q.x + (m[7] * q.y + m[8]);
    return (float2)(m[0] * q.x + (m[1] * q.y + m[2]), m[3] * q.x + (m[4] * q.y + m[5])) / den;
}
/* g clamped to [0, hi] (NaN: 0, so an index made from it stays in range) */
inline float wk_clamp_grid(float g, float hi) { return g > 0 ? (g < hi ? g : hi) : 0; }
/* the displacement of field f (wf x hf grid of (dx, dy)) at grid point g, clamped to the grid */
inline float2 wk_field_at(__global const float *f, int wf, int hf, float2 g) {
    const float gx = wk_clamp_grid(g.x, (float)(wf - 1)), gy = wk_clamp_grid(g.y, (float)(hf - 1));
    const int x0 = wk_mini((int)gx, wf - 2), y0 = wk_mini((int)gy, hf - 2);
    const float tx = gx - (float)x0, ty = gy - (float)y0;
    __global const float *r0 = f + 2 * ((long)y0 * wf + x0), *r1 = r0 + 2 * wf;
    const float2 a = WK_LOAD2(r0), b2 = WK_LOAD2(r0 + 2), c = WK_LOAD2(r1), d = WK_LOAD2(r1 + 2);
    return (a + (b2 - a) * tx) + ((c + (d - c) * tx) - (a + (b2 - a) * tx)) * ty;
}
/* a per-axis field's (dx, dy) at grid point g: wf points of dx, then hf of dy */
inline float2 wk_axis_at(__global const float *f, int wf, int hf, float2 g) {
    const float gx = wk_clamp_grid(g.x, (float)(wf - 1)), gy = wk_clamp_grid(g.y, (float)(hf - 1));
    const int x0 = wk_mini((int)gx, wf - 2), y0 = wk_mini((int)gy, hf - 2);
    __global const float *fy = f + wf;
    return (float2)(f[x0] + (f[x0 + 1] - f[x0]) * (gx - (float)x0),
                    fy[y0] + (fy[y0 + 1] - fy[y0]) * (gy - (float)y0));
}
/* the lens (c: OpenCV's 12 coefficients) at normalised camera coordinates q */
inline float2 wk_lens(__global const float *c, float2 q) {
    const float x = q.x, y = q.y, r2 = x * x + y * y, xy = x * y;
    const float kr = (1 + ((c[4] * r2 + c[1]) * r2 + c[0]) * r2) / (1 + ((c[7] * r2 + c[6]) * r2 + c[5]) * r2);
    return (float2)(x * kr + (2 * c[2] * xy + c[3] * (r2 + 2 * x * x) + (c[8] + c[9] * r2) * r2),
                    y * kr + (c[2] * (r2 + 2 * y * y) + 2 * c[3] * xy + (c[10] + c[11] * r2) * r2));
}
/* STAGE_CELLS: a cells of CELL_WORDS floats each, (x0, y0, x1, y1, a, b, c, d, e, f, lx, ly, hx, hy):
 * a point q inside [x0, x1) x [y0, y1) goes to (a qx + b qy + c, d qx + e qy + f) clamped to
 * [lx, hx] x [ly, hy] (the first such cell); a point in none has no source (NaN: the fill).
 * Mosaic: each cell of the canvas reads its own image, all packed in one atlas. */
#define CELL_WORDS 14
inline float2 wk_cells(__global const float *f, int n, float2 q) {
    for (int k = 0; k < n; k++, f += CELL_WORDS) {
        if (q.x >= f[0] && q.x < f[2] && q.y >= f[1] && q.y < f[3]) {
            const float x = f[4] * q.x + (f[5] * q.y + f[6]), y = f[7] * q.x + (f[8] * q.y + f[9]);
            return (float2)(fmin(fmax(x, f[10]), f[12]), fmin(fmax(y, f[11]), f[13]));
        }
    }
    return (float2)(NAN, NAN);
}
/* STAGE_QUADS: (W - 1, H - 1, R, K), then H rows of K candidates (entry numbers, last painted
 * first, -1 after the last), then a entries of 10 + 2 R floats each: a projective map (9,
 * row-major), the first row r0, and R rows of (lo, hi) columns (lo > hi: none), whole numbers.
 * A point q takes the map of the last entry that holds the pixel nearest it (q clamped to the
 * frame first: beyond it the edge pixels' maps go on); a pixel in none has no source (NaN: the
 * fill). GridElasticDeform: its cells as cv2.fillConvexPoly paints them, in order, each warped
 * by its own homography. */
#define WK_QUAD_ENTRIES(f) ((f) + 4 + (int)(f)[1] * (int)(f)[3] + (int)(f)[3])
/* the entry that owns pixel (xi, yi) of the frame, -1 for none */
inline int wk_quad_entry(__global const float *f, int xi, int yi) {
    const int R = (int)f[2], K = (int)f[3];
    __global const float *cand = f + 4 + yi * K, *ent = WK_QUAD_ENTRIES(f);
    const float x = (float)xi;
    for (int j = 0; j < K; j++) {
        const int e = (int)cand[j];
        if (e < 0) break;
        __global const float *E = ent + e * (10 + 2 * R);
        const int r = yi - (int)E[9];
        if (x >= E[10 + 2 * r] && x <= E[11 + 2 * r]) return e;
    }
    return -1;
}
/* the frame's pixel nearest q along one axis (hi: its last), NaN: 0 */
inline int wk_quad_px(float v, float hi) { return (int)(fmin(fmax(v, 0.0f), hi) + 0.5f); }
inline float2 wk_quads(__global const float *f, int n, float2 q) {
    const int e = wk_quad_entry(f, wk_quad_px(q.x, f[0]), wk_quad_px(q.y, f[1]));
    if (e < 0) return (float2)(NAN, NAN);
    return wk_project(WK_QUAD_ENTRIES(f) + e * (10 + 2 * (int)f[2]), q);
}
/* STAGE_BLEND: (W - 1, H - 1), then n points (cx, cy, mx, my): q reads from the mean of the m
 * weighted by 1 / (|q - c|^2 + 1e-8), clamped to [0, W - 1] x [0, H - 1] (NaN stays NaN: no
 * source), as albumentations' PiecewiseAffine makes its map (create_piecewise_affine_maps: every
 * control point c of the regular grid pulls toward its moved point m; products and sums rounded
 * one by one, as numpy's float32, not fused) */
inline float2 wk_blend(__global const float *f, int n, float2 q) {
#pragma OPENCL FP_CONTRACT OFF
    float s = 0.0f, sx = 0.0f, sy = 0.0f;
    for (int k = 0; k < n; k++) {
        __global const float *c = f + 2 + 4 * k;
        const float dx = q.x - c[0], dy = q.y - c[1];
        const float w = 1.0f / ((dx * dx + dy * dy) + 1e-8f);
        s += w;
        sx += w * c[2];
        sy += w * c[3];
    }
    const float x = sx / s, y = sy / s;
    return (float2)(x < 0.0f ? 0.0f : (x > f[0] ? f[0] : x), y < 0.0f ? 0.0f : (y > f[1] ? f[1] : y));
}
/* the source position of output point (px, py) through the chain (m: the item's nf + 1 maps) */
inline float2 wk_field_source(float px, float py, __global const float *m, __global const float *fld,
                              __global const int *fi, int nf) {
    float2 q = wk_project(m, (float2)(px, py));
    for (int k = 0; k < nf; k++) {
        __global const float *f = fld + fi[4 * k];
        const int kind = fi[4 * k + 1], a = fi[4 * k + 2], b = fi[4 * k + 3];
        if (kind == STAGE_LENS)
            q = wk_lens(f, q);
        else if (kind == STAGE_CELLS)
            q = wk_cells(f, a, q);
        else if (kind == STAGE_QUADS)
            q = wk_quads(f, a, q);
        else if (kind == STAGE_BLEND)
            q = wk_blend(f, a, q);
        else if (kind == STAGE_AXES)
            q += wk_axis_at(f, a, b, q);
        else
            q += wk_field_at(f, a, b, q);
        q = wk_project(m + 9 * (k + 1), q);
    }
    return q;
}
/* ---- the same, 8 output pixels at once (warp_v): vector arithmetic, gathered grid taps ---- */
inline __attribute__((always_inline)) void wk_project8(__global const float *m, float8 *qx, float8 *qy) {
    const float8 nx = m[0] * *qx + (m[1] * *qy + m[2]), ny = m[3] * *qx + (m[4] * *qy + m[5]);
    if (m[6] == 0 && m[7] == 0 && m[8] == 1) { /* affine: no division (x / 1 is exact) */
        *qx = nx;
        *qy = ny;
        return;
    }
    const float8 den = m[6] * *qx + (m[7] * *qy + m[8]);
    *qx = nx / den;
    *qy = ny / den;
}
/* the (dx, dy) of 8 grid points at float offsets off (each lane's pair) */
#define WK_GATHER2(f, off, vx, vy)                                                             \
    {                                                                                           \
        const float2 g0_ = WK_LOAD2((f) + (off).s0), g1_ = WK_LOAD2((f) + (off).s1);          \
        const float2 g2_ = WK_LOAD2((f) + (off).s2), g3_ = WK_LOAD2((f) + (off).s3);          \
        const float2 g4_ = WK_LOAD2((f) + (off).s4), g5_ = WK_LOAD2((f) + (off).s5);          \
        const float2 g6_ = WK_LOAD2((f) + (off).s6), g7_ = WK_LOAD2((f) + (off).s7);          \
        vx = (float8)(g0_.x, g1_.x, g2_.x, g3_.x, g4_.x, g5_.x, g6_.x, g7_.x);                  \
        vy = (float8)(g0_.y, g1_.y, g2_.y, g3_.y, g4_.y, g5_.y, g6_.y, g7_.y);                  \
    }
/* grid coordinates g of an axis of n points: each lane's cell (clamped to the grid; NaN: cell
 * 0) and its offset there, as wk_field_at takes them */
inline __attribute__((always_inline)) void wk_cell8(float8 g, int n, int8 *i0, float8 *t) {
    const float hi = (float)(n - 1);
    const float8 gc = g > 0 ? (g < hi ? g : (float8)hi) : (float8)0;
    const int8 i = CV(gc, int8);
    *i0 = i < n - 2 ? i : (int8)(n - 2);
    *t = gc - CV(*i0, float8);
}
/* q += D(q) for 8 lanes: wk_field_at's arithmetic in vectors (NaN lanes read grid point 0 and
 * stay NaN) */
inline __attribute__((always_inline)) void wk_field_add8(__global const float *f, int wf, int hf,
                                                         float8 *qx, float8 *qy) {
    int8 x0, y0;
    float8 tx, ty;
    wk_cell8(*qx, wf, &x0, &tx);
    wk_cell8(*qy, hf, &y0, &ty);
    float8 ax, ay, bx, by, cx, cy, ex, ey; /* the cell's corners: a b above, c e below */
    const int a = x0.s0 < x0.s7 ? x0.s0 : x0.s7; /* rows go left to right, or right to left */
    const int8 dxi = x0 - a;
    if (wk_all8((y0 == y0.s0) & (dxi >= 0) & (dxi <= 4))) {
        /* the common case: one grid row, at most 5 cells (grids 2 px apart and more): 12
         * loads for the block, then a choice per lane instead of 32 gathers */
        __global const float *r0 = f + ((long)y0.s0 * wf) * 2, *r1 = r0 + 2 * wf;
        float2 p[6], q[6];
#pragma unroll
        for (int k = 0; k < 6; k++) {
            const int c = a + k < wf ? a + k : wf - 1;
            p[k] = WK_LOAD2(r0 + 2 * c);
            q[k] = WK_LOAD2(r1 + 2 * c);
        }
        ax = (float8)p[0].x; ay = (float8)p[0].y; bx = (float8)p[1].x; by = (float8)p[1].y;
        cx = (float8)q[0].x; cy = (float8)q[0].y; ex = (float8)q[1].x; ey = (float8)q[1].y;
#pragma unroll
        for (int k = 1; k < 5; k++) {
            const int8 s = dxi == k;
            ax = s ? (float8)p[k].x : ax;
            ay = s ? (float8)p[k].y : ay;
            bx = s ? (float8)p[k + 1].x : bx;
            by = s ? (float8)p[k + 1].y : by;
            cx = s ? (float8)q[k].x : cx;
            cy = s ? (float8)q[k].y : cy;
            ex = s ? (float8)q[k + 1].x : ex;
            ey = s ? (float8)q[k + 1].y : ey;
        }
    } else {
        const int8 o = (y0 * wf + x0) * 2;
        WK_GATHER2(f, o, ax, ay);
        WK_GATHER2(f, o + 2, bx, by);
        WK_GATHER2(f, o + 2 * wf, cx, cy);
        WK_GATHER2(f, o + 2 * wf + 2, ex, ey);
    }
    const float8 top_x = ax + (bx - ax) * tx, top_y = ay + (by - ay) * tx;
    *qx += top_x + ((cx + (ex - cx) * tx) - top_x) * ty;
    *qy += top_y + ((cy + (ey - cy) * tx) - top_y) * ty;
}
/* 8 lanes' values f[i] of a table (the same cell in every lane, common: 1 load) */
inline __attribute__((always_inline)) float8 wk_take8(__global const float *f, int8 i) {
    if (wk_all8(i == i.s0)) return (float8)f[i.s0];
    return (float8)(f[i.s0], f[i.s1], f[i.s2], f[i.s3], f[i.s4], f[i.s5], f[i.s6], f[i.s7]);
}
/* q += D(q) for 8 lanes of a per-axis field (wk_axis_at) */
inline __attribute__((always_inline)) void wk_axis_add8(__global const float *f, int wf, int hf, float8 *qx,
                                                        float8 *qy) {
    int8 x0, y0;
    float8 tx, ty;
    wk_cell8(*qx, wf, &x0, &tx);
    wk_cell8(*qy, hf, &y0, &ty);
    __global const float *fy = f + wf;
    const float8 ax = wk_take8(f, x0), bx = wk_take8(f + 1, x0);
    const float8 ay = wk_take8(fy, y0), by = wk_take8(fy + 1, y0);
    *qx += ax + (bx - ax) * tx;
    *qy += ay + (by - ay) * ty;
}
/* q = distort(q) for 8 lanes (wk_lens; the rational part only where parts & 1, the tangential
 * and prism parts where parts & 2, as the host says where their coefficients are not all 0:
 * x / 1 and x + 0 are exact, so the result is wk_lens's) */
inline __attribute__((always_inline)) void wk_lens8(__global const float *c, int parts, float8 *qx,
                                                    float8 *qy) {
    const float8 x = *qx, y = *qy, r2 = x * x + y * y;
    float8 kr = 1 + ((c[4] * r2 + c[1]) * r2 + c[0]) * r2;
    if (parts & 1)
        kr /= 1 + ((c[7] * r2 + c[6]) * r2 + c[5]) * r2;
    *qx = x * kr;
    *qy = y * kr;
    if (parts & 2) {
        const float8 xy = x * y;
        *qx += 2 * c[2] * xy + c[3] * (r2 + 2 * x * x) + (c[8] + c[9] * r2) * r2;
        *qy += c[2] * (r2 + 2 * y * y) + 2 * c[3] * xy + (c[10] + c[11] * r2) * r2;
    }
}
/* wk_cells for 8 lanes (the lanes of one cell take its map; NaN lanes and lanes in no cell: NaN) */
inline __attribute__((always_inline)) void wk_cells8(__global const float *f, int n, float8 *qx, float8 *qy) {
    float8 rx = (float8)NAN, ry = (float8)NAN;
    for (int k = 0; k < n; k++, f += CELL_WORDS) {
        const int8 in = (*qx >= f[0]) & (*qx < f[2]) & (*qy >= f[1]) & (*qy < f[3]);
        if (!wk_any8(in)) continue;
        const float8 x = f[4] * *qx + (f[5] * *qy + f[6]), y = f[7] * *qx + (f[8] * *qy + f[9]);
        rx = in ? wk_clamp8(x, f[10], f[12]) : rx;
        ry = in ? wk_clamp8(y, f[11], f[13]) : ry;
    }
    *qx = rx;
    *qy = ry;
}
/* wk_quads for 8 lanes: each lane's entry (the candidates of their row at once where the
 * lanes share one, as they do without a rotation in the chain), then each entry's map for the
 * lanes it owns (one, mostly: a cell is wider than a block) */
inline __attribute__((always_inline)) void wk_quads8(__global const float *f, int n, float8 *qx, float8 *qy) {
    const float fx = f[0], fy = f[1];
    const int R = (int)f[2], K = (int)f[3], stride = 10 + 2 * R;
    __global const float *ent = WK_QUAD_ENTRIES(f);
    const float8 cx = fmin(fmax(*qx, (float8)0.0f), (float8)fx), cy = fmin(fmax(*qy, (float8)0.0f), (float8)fy);
    const int8 xi = CV(cx + 0.5f, int8), yi = CV(cy + 0.5f, int8);
    int8 own = (int8)(-1);
    if (wk_all8(yi == yi.s0)) {
        __global const float *cand = f + 4 + yi.s0 * K;
        const float8 x = CV(xi, float8);
        for (int j = 0; j < K; j++) {
            const int e = (int)cand[j];
            if (e < 0) break;
            __global const float *E = ent + e * stride;
            const int r = yi.s0 - (int)E[9];
            const int8 in = (x >= E[10 + 2 * r]) & (x <= E[11 + 2 * r]) & (own < 0);
            own = in ? (int8)e : own;
            if (wk_all8(own >= 0)) break;
        }
    } else {
        own = (int8)(wk_quad_entry(f, xi.s0, yi.s0), wk_quad_entry(f, xi.s1, yi.s1),
                     wk_quad_entry(f, xi.s2, yi.s2), wk_quad_entry(f, xi.s3, yi.s3),
                     wk_quad_entry(f, xi.s4, yi.s4), wk_quad_entry(f, xi.s5, yi.s5),
                     wk_quad_entry(f, xi.s6, yi.s6), wk_quad_entry(f, xi.s7, yi.s7));
    }
    float8 rx = (float8)NAN, ry = (float8)NAN;
    int8 todo = own >= 0;
    while (wk_any8(todo)) {
        const int8 m8 = todo ? own : (int8)(-1);
        const int e = max(max(max(m8.s0, m8.s1), max(m8.s2, m8.s3)), max(max(m8.s4, m8.s5), max(m8.s6, m8.s7)));
        __global const float *m = ent + e * stride;
        float8 px = *qx, py = *qy;
        const float8 den = m[6] * px + (m[7] * py + m[8]);
        const float8 nx = (m[0] * px + (m[1] * py + m[2])) / den, ny = (m[3] * px + (m[4] * py + m[5])) / den;
        const int8 mine = own == e;
        rx = mine ? nx : rx;
        ry = mine ? ny : ry;
        todo = todo & (own != e);
    }
    *qx = rx;
    *qy = ry;
}
/* wk_blend for 8 lanes */
inline __attribute__((always_inline)) void wk_blend8(__global const float *f, int n, float8 *qx, float8 *qy) {
#pragma OPENCL FP_CONTRACT OFF
    float8 s = 0.0f, sx = 0.0f, sy = 0.0f;
    for (int k = 0; k < n; k++) {
        __global const float *c = f + 2 + 4 * k;
        const float8 dx = *qx - c[0], dy = *qy - c[1];
        const float8 w = 1.0f / ((dx * dx + dy * dy) + 1e-8f);
        s += w;
        sx += w * c[2];
        sy += w * c[3];
    }
    const float8 x = sx / s, y = sy / s;
    *qx = x < 0.0f ? (float8)0.0f : (x > f[0] ? (float8)f[0] : x);
    *qy = y < 0.0f ? (float8)0.0f : (y > f[1] ? (float8)f[1] : y);
}
/* the source positions of WV_BLOCKS blocks of 8 output points (px[j], py) through the chain: the
 * blocks' stages are independent chains of dependent arithmetic, and taking them side by side
 * lets the core overlap them */
inline __attribute__((always_inline)) void wk_field_source8(const float8 *px, float py, __global const float *m,
                                                            __global const float *fld,
                                                            __global const int *fi, int nf, float8 *x,
                                                            float8 *y) {
    float8 qx[WV_BLOCKS], qy[WV_BLOCKS];
#pragma unroll
    for (int j = 0; j < WV_BLOCKS; j++) {
        qx[j] = px[j];
        qy[j] = (float8)py;
        wk_project8(m, &qx[j], &qy[j]);
    }
    for (int k = 0; k < nf; k++) {
        __global const float *f = fld + fi[4 * k];
        const int kind = fi[4 * k + 1], a = fi[4 * k + 2], b = fi[4 * k + 3];
        if (kind == STAGE_LENS) {
#pragma unroll
            for (int j = 0; j < WV_BLOCKS; j++) wk_lens8(f, b, &qx[j], &qy[j]);
        } else if (kind == STAGE_CELLS) {
#pragma unroll
            for (int j = 0; j < WV_BLOCKS; j++) wk_cells8(f, a, &qx[j], &qy[j]);
        } else if (kind == STAGE_QUADS) {
#pragma unroll
            for (int j = 0; j < WV_BLOCKS; j++) wk_quads8(f, a, &qx[j], &qy[j]);
        } else if (kind == STAGE_BLEND) {
#pragma unroll
            for (int j = 0; j < WV_BLOCKS; j++) wk_blend8(f, a, &qx[j], &qy[j]);
        } else if (kind == STAGE_AXES) {
#pragma unroll
            for (int j = 0; j < WV_BLOCKS; j++) wk_axis_add8(f, a, b, &qx[j], &qy[j]);
        } else {
#pragma unroll
            for (int j = 0; j < WV_BLOCKS; j++) wk_field_add8(f, a, b, &qx[j], &qy[j]);
        }
#pragma unroll
        for (int j = 0; j < WV_BLOCKS; j++) wk_project8(m + 9 * (k + 1), &qx[j], &qy[j]);
    }
#pragma unroll
    for (int j = 0; j < WV_BLOCKS; j++) {
        x[j] = qx[j];
        y[j] = qy[j];
    }
}
#else
#define WK_COORD_PARAM
#endif

/* ---- OpenCV's INTER_AREA (cv2.resize) for a map that keeps or swaps the axes ----------------
 * WK_AREA builds (the host's engine.coords.area_items) filter the items whose samples per axis
 * (ssv) are 0 so: the output pixel's square maps onto a source box [ax, ax + sw) x [ay, ay + sh)
 * (pixel i spanning [i, i + 1); sw = |m0| + |m1|, sh = |m3| + |m4| for an affine map without a
 * shear or turn but quarter turns, which the host checked). Where both sides are a pixel or
 * more (the map shrinks both ways, or keeps a side), each source pixel weighs the part of the
 * side it covers, over the side: the box's mean (cv2.resize's resizeArea). Else each axis takes
 * two taps, floor(a) and the next, the second weighted by the part of the side past
 * floor(a) + 1, over the side (cv2.resize's area_mode for a size that grows along either
 * axis: linear weights from the cells' overlap). Taps outside the image follow the padding, as
 * every mode's do. The other items of the launch sample as MODE does. */
#ifndef WK_AREA
#define WK_AREA 0
#endif
#if WK_AREA /* warp_v: each item's samples per axis (0: its footprints filtered by area) */
#define WV_AREA_PARAM , __global const int *restrict ssv
#else
#define WV_AREA_PARAM
#endif
#if WK_AREA
#if COORD != COORD_MATRIX
#error "the area filter takes matrices (the host filters no other map by area)"
#endif
inline float wk_absf(float v) { return v < 0 ? -v : v; }

/* a side's start a, on a whole pixel where float32 cannot tell it from one: a resize's
 * footprints start on whole pixels where OpenCV's double arithmetic puts them, and two taps'
 * weights jump there (the float32 position and matrix are off by a few units of their last
 * place: x the centre's position, t the matrix's translation) */
inline float wk_area_snap(float a, float x, float t) {
    const float r = wk_rint(a), tol = 5e-7f * (wk_absf(x) + wk_absf(t) + 2.0f);
    return wk_absf(a - r) <= tol ? r : a;
}

/* the weight of pixel i on an axis whose side is [a, a + s), i0 = floor(a) */
inline float wk_area_weight(int i, float a, float s, int box, int i0) {
    if (box) {
        const float lo = (float)i > a ? (float)i : a;
        const float hi = (float)(i + 1) < a + s ? (float)(i + 1) : a + s;
        return hi > lo ? (hi - lo) / s : 0.0f;
    }
    float f = (a + s - (float)(i0 + 1)) / s;
    f = f > 0 ? f : 0;
    return i == i0 ? 1 - f : f;
}

/* acc += the box's filtered value (x, y: the output pixel centre's source position) */
inline void wk_area_add(__global const X_T *xb, long sxy, long sxx, long sxc, int C, int W, int H,
                        int pad, float x, float y, __global const float *m, const acc_t *fills,
                        acc_t *acc) {
    const float sw = wk_absf(m[0]) + wk_absf(m[1]), sh = wk_absf(m[3]) + wk_absf(m[4]);
    const float ax = wk_area_snap(x - (0.5f * sw - 0.5f), x, m[2]); /* (as wv_area) */
    const float ay = wk_area_snap(y - (0.5f * sh - 0.5f), y, m[5]);
    const int box = sw >= 1.0f && sh >= 1.0f;
    const int x0 = wk_floori(ax), y0 = wk_floori(ay);
    const int nx = box ? wk_floori(ax + sw) + 1 - x0 : 2, ny = box ? wk_floori(ay + sh) + 1 - y0 : 2;
    acc_t v[WK_NCH], row[WK_NCH];
    for (int c = 0; c < C; c++) v[c] = 0;
    for (int j = 0; j < ny; j++) {
        const acc_t wy = (acc_t)wk_area_weight(y0 + j, ay, sh, box, y0);
        if (wy == 0) continue;
        int iny;
        const int iy = wk_pad_tap(y0 + j, H, pad, &iny);
        for (int c = 0; c < C; c++) row[c] = 0;
        for (int k = 0; k < nx; k++) {
            const acc_t wx = (acc_t)wk_area_weight(x0 + k, ax, sw, box, x0);
            if (wx == 0) continue;
            int inx;
            const int ix = wk_pad_tap(x0 + k, W, pad, &inx);
            const long o = (long)iy * sxy + (long)ix * sxx;
            for (int c = 0; c < C; c++)
                row[c] += wx * (inx && iny ? (acc_t)xb[o + c * sxc] : fills[c]);
        }
        for (int c = 0; c < C; c++) v[c] += wy * row[c];
    }
    for (int c = 0; c < C; c++) acc[c] += v[c];
}
#endif

/* M: B matrices of 9 floats (src_from_dst, row-major), or one for all (per_image = 0).
 * src_index: the source image of each output item when indexed (validated on the host).
 * fill: per-channel constant; ifill: the same, for integer images (rounded and saturated on the
 * host, exact where a float is not: int32 above 2^24). ssv: samples per axis (antialiasing by
 * supersampling; 1 = none), per matrix. */
#if !WK_ONE_KERNEL || defined(WK_KERNEL_warp)
__kernel void warp(__global const X_T *restrict X, long x_off, long sxb, long sxy_, long sxx, long sxc, int H_,
                   int W_, int C, __global const float *restrict M, int per_image,
                   __global const int *restrict src_index, int indexed,
                   __global Y_PTR_T *restrict Y, int Ho, int Wo, int pad, float4 fill, int4 ifill,
                   __global const int *restrict ssv, float4 yscale, float4 ybias WK_RAG_PARAM WK_COORD_PARAM
                   WK_COLOUR_PARAM WK_WIDE_PARAM) {
    const int xo = (int)get_global_id(0), yo = (int)get_global_id(1), b = (int)get_global_id(2);
    if (xo >= Wo || yo >= Ho) return;
    /* constant_edge: positions outside the image's pixels are the fill, taps past its edge
     * from inside repeat the edge (sampling.h) */
    const int edge_fill = pad == WK_PAD_CONSTANT_EDGE;
    if (edge_fill) pad = WK_PAD_BORDER;
    __global const float *m = M + (per_image ? b * WK_MAPS_PER_ITEM * 9 : 0);
    int ss = ssv[per_image ? b : 0];
    const int area = WK_AREA && ss == 0; /* this item's footprints filtered by area */
    ss = area ? 1 : ss;
    acc_t fills[WK_NCH];
#if X_KIND == WK_INT
    WK_PER_CHANNEL_I(fills, acc_t, ifill);
#else
    WK_PER_CHANNEL(fills, acc_t, fill, 0);
#endif
#if MODE == MODE_NEAREST && X_KIND == WK_INT
    /* without supersampling nearest copies the pixel itself: exact for every integer */
    int ifills[WK_NCH];
    WK_PER_CHANNEL_I(ifills, int, ifill);
    X_T raw[WK_NCH];
    for (int c = 0; c < WK_NCH; c++) raw[c] = 0;
#endif
    WK_ITEM(base);
    __global const X_T *xb = X + base;
    acc_t acc[WK_NCH];
    for (int c = 0; c < WK_NCH; c++) acc[c] = 0;
    const float inv_ss = 1.0f / (float)ss;
    for (int sy_ = 0; sy_ < ss; sy_++) {
        for (int sx_ = 0; sx_ < ss; sx_++) {
            /* sub-sample position inside the output pixel (its centre when ss == 1) */
            const float px = (float)xo + ((float)sx_ + 0.5f) * inv_ss - 0.5f;
            const float py = (float)yo + ((float)sy_ + 0.5f) * inv_ss - 0.5f;
#if COORD == COORD_MATRIX
            const float den = m[6] * px + m[7] * py + m[8];
            float x = (m[0] * px + m[1] * py + m[2]) / den;
            float y = (m[3] * px + m[4] * py + m[5]) / den;
#else
            const float2 src_ = WK_SOURCE(px, py, b, m);
            /* NaN and infinite positions have no source point (finite: the tap arithmetic) */
            const float den = src_.x > -1e30f && src_.x < 1e30f && src_.y > -1e30f && src_.y < 1e30f;
            float x = src_.x, y = src_.y;
#endif
            /* no source point (or, with constant_edge, none inside the image): the fill */
            if (!(x == x && y == y) || !(den != 0)
                || (edge_fill && !WK_ON_PIXELS(x, y, W, H))) {
                const int filled = pad == PAD_CONSTANT || edge_fill;
                for (int c = 0; c < C; c++) acc[c] += filled ? fills[c] : 0;
#if MODE == MODE_NEAREST && X_KIND == WK_INT
                for (int c = 0; c < C; c++) raw[c] = filled ? (X_T)ifills[c] : 0;
#endif
                continue;
            }
#if WK_AREA
            if (area) {
                wk_area_add(xb, sxy, sxx, sxc, C, W, H, pad, x, y, m, fills, acc);
                continue;
            }
#endif
            if (WP_REFLECTING(pad)) { /* reflections repeat: one period holds every tap */
                x = wk_fold(x, W, pad);
                y = wk_fold(y, H, pad);
            } else {
                /* far-away points give the same taps as these, and no int conversion overflows */
                x = x < -8 ? -8 : (x > (float)W + 8 ? (float)W + 8 : x);
                y = y < -8 ? -8 : (y > (float)H + 8 ? (float)H + 8 : y);
            }
            float tx, ty;
            const int x0 = wk_first_tap(x, &tx), y0 = wk_first_tap(y, &ty);
            /* weights in acc_t (double for int32 images where the device has fp64: 1 - t in
             * float is inexact for tiny t, which moves a value of 2^31 by 2) */
            acc_t wx[TAPS], wy[TAPS];
            wk_tap_weights((acc_t)tx, wx);
            wk_tap_weights((acc_t)ty, wy);
            int ix[TAPS], iy[TAPS], inx[TAPS], iny[TAPS];
            for (int k = 0; k < TAPS; k++) {
                ix[k] = wk_pad_tap(x0 + k, W, pad, &inx[k]);
                iy[k] = wk_pad_tap(y0 + k, H, pad, &iny[k]);
            }
            for (int c = 0; c < C; c++) {
                acc_t v = 0;
                for (int j = 0; j < TAPS; j++) {
                    acc_t row = 0;
                    for (int k = 0; k < TAPS; k++) {
                        const int inside = inx[k] && iny[j];
                        const long o = (long)iy[j] * sxy + (long)ix[k] * sxx + c * sxc;
                        const X_T px_ = xb[o];
#if MODE == MODE_NEAREST && X_KIND == WK_INT
                        raw[c] = inside ? px_ : (X_T)ifills[c];
#endif
                        row += wx[k] * (inside ? (acc_t)px_ : fills[c]);
                    }
                    v += wy[j] * row;
                }
                acc[c] += v;
            }
        }
    }
#if COLOUR
    {   /* the pixel's colour (the general kernel: supersampled, cubic, any dtype) */
        const acc_t n_ = (acc_t)1 / (acc_t)(ss * ss);
        float cv_[4];
        for (int c = 0; c < C; c++) cv_[c] = (float)(acc[c] * n_);
        wk_colour1(cv_, C, WK_COL_OF(b), ncol, (float2)0.0f, (int2)(xo, yo), (int2)(Wo, Ho));
        for (int c = 0; c < C; c++) acc[c] = (acc_t)cv_[c] * (acc_t)(ss * ss);
    }
#endif
#if Y_NORM
    {
        float ys[WK_NCH], yb[WK_NCH];
        WK_PER_CHANNEL(ys, float, yscale, 1);
        WK_PER_CHANNEL(yb, float, ybias, 2);
        const acc_t inv = (acc_t)1 / (acc_t)(ss * ss);
        for (int c = 0; c < C; c++) {
            const float v = (float)(acc[c] * inv);
            Y_STORE1(Y_AT(b, c, yo, xo, C), Y_CLAMP(v) * ys[c] + yb[c]);
        }
        return;
    }
#else
    __global X_T *yp = Y + (((long)b * Ho + yo) * Wo + xo) * C;
#endif
#if MODE == MODE_NEAREST && X_KIND == WK_INT && !Y_NORM && !COLOUR
    /* (a bitwise and: without the area filter `area` is a constant 0, and clang warns of a
     * logical and with a constant operand, which PoCL prints as "1 warning generated.") */
    if ((ss == 1) & !area) {
        for (int c = 0; c < C; c++) yp[c] = raw[c];
        return;
    }
#endif
#if !Y_NORM
    const acc_t norm = (acc_t)1 / (acc_t)(ss * ss);
    for (int c = 0; c < C; c++) STORE_PIX(yp, c, acc[c] * norm);
#endif
}
#endif

/* ---- the fast path: 8 output pixels per work-item, as vectors ---------------------------------
 * For uint8 and float32 images with CH (1-4, compile time) channels, every mode, no
 * supersampling. uint8 pixels of 2-4 channels are read as one 32-bit word per tap (clamped to stay
 * inside the buffer, then shifted), so a tap costs one load instead of CH.
 * NDRange: (64 per tile of blocks x rows (tw_log2), tile rows, B), work-groups of 64; each
 * work-item takes WV_BLOCKS blocks side by side on its row (their positions are computed
 * together, then each block is sampled: wv_sample). */
#if X_KIND == WK_F32 || (X_KIND == WK_INT && WK_U8)
#ifndef CH
#define CH 3
#endif
#if WK_CPU
typedef uint uint_u __attribute__((aligned(1)));
#define LOAD_WORD(p) (*(__global const uint_u *)(p))
#else
#define LOAD_WORD(p) ((uint)(p)[0] | ((uint)(p)[1] << 8) | ((uint)(p)[2] << 16) | ((uint)(p)[3] << 24))
#endif
/* the 32-bit words at p + o of the 8 lanes (o: their offsets, int8 or uint8) */
#define WV_WORDS8(p, o)                                                                       \
    ((uint8)(LOAD_WORD((p) + (o).s0), LOAD_WORD((p) + (o).s1), LOAD_WORD((p) + (o).s2),      \
             LOAD_WORD((p) + (o).s3), LOAD_WORD((p) + (o).s4), LOAD_WORD((p) + (o).s5),      \
             LOAD_WORD((p) + (o).s6), LOAD_WORD((p) + (o).s7)))

/* an item's colour operations (colour.h) through the 8-wide path */
#if COLOUR
#define WV_COL_PARAM , __global const float *col, int ncol
#define WV_COL_ARG , col, ncol
/* (a macro, in the caller's scope: through a function of its own that took the values by
 * pointer, noise in the store made a float32 CHW pipeline's warp 6x slower) */
#define WV_COLOUR_AT(v, row) wk_colour8(v, CH, col, ncol, (float2)0.0f, (int2)(xo0, row), (int2)(Wo, Ho))
#else
#define WV_COL_PARAM
#define WV_COL_ARG
#define WV_COLOUR_AT(v, row)
#endif
#define WV_COLOUR(v) WV_COLOUR_AT(v, yo)

/* channel c of packed uint8 pixels, as floats: from one word (WV_CH), or from a pixel's
 * WV_NG words of 4 channels each (WV_CHW) */
#define WV_CH(w, c) CV(((w) >> (uint)(8 * (c))) & 0xffu, float8)
#define WV_NG ((CH + 3) / 4)
#define WV_CHW(ws, c) WV_CH((ws)[(c) >> 2], (c) & 3)

#if WK_U8
/* the 32-bit words at xb + off of the 8 lanes, each read clamped to end inside the buffer
 * (last_rel: the last offset where a word fits) and shifted down to start at off */
inline __attribute__((always_inline)) uint8 wv_words(__global const uchar *xb, int8 off, int last_rel) {
    const int8 o4 = off < last_rel ? off : (int8)last_rel;
    return WV_WORDS8(xb, o4) >> CV((off - o4) * 8, uint8);
}

/* the levels q[c] of the 8 lanes' pixels at xb + off, each inside the image (nearest's copy):
 * one channel as bytes (no word to clamp: a word read, clamped and shifted made a nearest
 * mask's rows ~1.5x as slow), more as words clamped to end inside the buffer */
inline __attribute__((always_inline)) void wv_pixels(__global const uchar *xb, int8 off, int last_rel,
                                                     int8 *q) {
#if CH == 1
    q[0] = CV((uchar8)(xb[off.s0], xb[off.s1], xb[off.s2], xb[off.s3], xb[off.s4], xb[off.s5],
                       xb[off.s6], xb[off.s7]), int8);
#else
    uint8 wd[WV_NG];
#pragma unroll
    for (int g = 0; g < WV_NG; g++) wd[g] = wv_words(xb, off + 4 * g, last_rel);
#pragma unroll
    for (int c = 0; c < CH; c++) q[c] = CV((wd[c >> 2] >> (uint)(8 * (c & 3))) & 0xffu, int8);
#endif
}
#endif

/* a + (b - a) t, fused: the one linear mix of both 8-wide paths */
inline float8 wv_lerp(float8 a, float8 b, float8 t) {
#pragma OPENCL FP_CONTRACT ON
    return (b - a) * t + a;
}


#if WK_U8
/* a channel's uint8 levels from values: saturated to [0, 255], halves up (NaN cannot occur:
 * every value is a finite mix of pixels and fill values) */
inline __attribute__((always_inline)) int8 wv_level8(float8 v) {
    return CV((v < 0 ? (float8)0 : (v > 255 ? (float8)255 : v)) + 0.5f, int8);
}

/* 8 uint8 pixels of CH channels (values in [0, 255]) to yp: 8 * CH bytes, nothing beyond */
inline __attribute__((always_inline)) void wv_store8_u8(const int8 *q, __global uchar *yp) {
#if WK_CPU && CH == 3 && defined(__clang__)
    /* the 24 bytes packed by two byte shuffles of constant masks (clang's builtin: a register
     * shuffle each), then stored as 16 and 8: a store per pixel (below) cost an all-fill or
     * axis-aligned warp ~10% of its time */
    typedef uchar16 uchar16_us __attribute__((aligned(1)));
    typedef uchar8 uchar8_us __attribute__((aligned(1)));
    const uint8 px = CV(q[0] | (q[1] << 8) | (q[2] << 16), uint8);
    const uchar16 a = as_uchar16(px.lo), b = as_uchar16(px.hi); /* pixels 0-3 and 4-7 */
    *(__global uchar16_us *)yp = __builtin_shufflevector(a, b, 0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13,
                                                         14, 16, 17, 18, 20);
    *(__global uchar8_us *)(yp + 16) = __builtin_shufflevector(b, b, 5, 6, 8, 9, 10, 12, 13, 14);
#elif WK_CPU && CH == 3
    /* one 4-byte store per pixel in increasing order (each overwrites only the next pixel's
     * first byte, which that pixel's own store then writes); the last pixel byte by byte, so
     * nothing past this work-item's 24 bytes is touched */
    typedef uint uint_us __attribute__((aligned(1)));
    const uint8 px = CV(q[0] | (q[1] << 8) | (q[2] << 16), uint8);
    *(__global uint_us *)(yp + 0) = px.s0;
    *(__global uint_us *)(yp + 3) = px.s1;
    *(__global uint_us *)(yp + 6) = px.s2;
    *(__global uint_us *)(yp + 9) = px.s3;
    *(__global uint_us *)(yp + 12) = px.s4;
    *(__global uint_us *)(yp + 15) = px.s5;
    *(__global uint_us *)(yp + 18) = px.s6;
    yp[21] = (uchar)px.s7;
    yp[22] = (uchar)(px.s7 >> 8);
    yp[23] = (uchar)(px.s7 >> 16);
#elif WK_CPU && CH == 4
    typedef uint8 uint8_us __attribute__((aligned(1)));
    *(__global uint8_us *)yp = CV(q[0] | (q[1] << 8) | (q[2] << 16) | (q[3] << 24), uint8);
#elif WK_CPU && CH == 2
    typedef ushort8 ushort8_us __attribute__((aligned(1)));
    *(__global ushort8_us *)yp = CV(q[0] | (q[1] << 8), ushort8);
#elif WK_CPU && CH == 1
    typedef uchar8 uchar8_us __attribute__((aligned(1)));
    *(__global uchar8_us *)yp = CV(q[0], uchar8);
#else
#pragma unroll
    for (int c = 0; c < CH; c++) {
        const uchar8 u = CV(q[c], uchar8);
        yp[c] = u.s0; yp[CH + c] = u.s1; yp[2 * CH + c] = u.s2; yp[3 * CH + c] = u.s3;
        yp[4 * CH + c] = u.s4; yp[5 * CH + c] = u.s5; yp[6 * CH + c] = u.s6; yp[7 * CH + c] = u.s7;
    }
#endif
}

#endif

#if MODE == MODE_LINEAR && WK_U8
/* the two pixels at p + o and p + o + CH of every lane, as two 4-byte reads (one 8-byte read was
 * slower: LLVM loads it into a general register, then moves it twice); o is unsigned (interior
 * offsets), which x86 turns into addresses at no cost */
#define WV_PAIR(p, o, lo, hi)                                                                 \
    {                                                                                         \
        lo = WV_WORDS8(p, o);                                                                 \
        hi = WV_WORDS8((p) + CH, o);                                                          \
    }

/* whether the bilinear taps of all 8 lanes lie inside the image with a row below them (so the
 * 4-byte reads stay inside the buffer): x in [0, W - 1), y in [0, H - 2) (floats compare exactly:
 * W, H < 2^24, checked on the host; NaN fails). mono: the lanes come from an affine map, whose
 * coordinates are monotonic along the row, so lanes 0 and 7 decide. */
inline __attribute__((always_inline)) int wv_interior(float8 x, float8 y, int W, int H, int mono) {
    const float xm = (float)(W - 1), ym = (float)(H - 2);
    if (mono)
        return (x.s0 >= 0) & (x.s0 < xm) & (x.s7 >= 0) & (x.s7 < xm) & (y.s0 >= 0) & (y.s0 < ym) &
               (y.s7 >= 0) & (y.s7 < ym);
    return wk_all8((x >= 0) & (x < xm) & (y >= 0) & (y < ym));
}

/* the horizontal mixes h[c] of one source row: each lane's pixels at rp + uo and the next, by
 * tx (the interior's first step) */
inline __attribute__((always_inline)) void wv_row_mix(__global const uchar *rp, uint8 uo, float8 tx,
                                                      float8 *h) {
    uint8 a[WV_NG], b[WV_NG];
#if CH <= 2
    /* one word holds both pixels (their 2 CH bytes), and reads no further than the second
     * pixel's own word would */
    a[0] = WV_WORDS8(rp, uo);
    b[0] = a[0] >> (uint)(8 * CH);
#else
#pragma unroll
    for (int g = 0; g < WV_NG; g++) WV_PAIR(rp + 4 * g, uo, a[g], b[g]); /* channels 4g .. 4g + 3 */
#endif
#pragma unroll
    for (int c = 0; c < CH; c++) h[c] = wv_lerp(WV_CHW(a, c), WV_CHW(b, c), tx);
}

/* 8 output pixels whose taps are in the interior (wv_interior): no padding logic and no fills.
 * The result is the same as the general path's (same taps, weights and rounding). */
inline __attribute__((always_inline)) void wv_interior_linear_u8_values(__global const uchar *xb, float8 x,
                                                                        float8 y, int sxy, float8 *v) {
    const int8 x0 = CV(x, int8), y0 = CV(y, int8); /* floor: x, y >= 0 */
    const float8 tx = x - CV(x0, float8), ty = y - CV(y0, float8);
    const uint8 uo = as_uint8(x0 * CH + y0 * sxy);
    float8 h0[CH], h1[CH];
    wv_row_mix(xb, uo, tx, h0);
    wv_row_mix(xb + sxy, uo, tx, h1); /* the row below: same offsets, another base */
#pragma unroll
    for (int c = 0; c < CH; c++) v[c] = wv_lerp(h0[c], h1[c], ty);
}

#endif

#if WK_CPU && WK_BUILTINS
/* Prefetch the source pixel at (px, py) and, with rows 2, the one below it (a bilinear tap's
 * two rows). Prefetches never fault; the point is clamped into the image (NaN to 0) only so
 * that the offsets stay in range. */
inline __attribute__((always_inline)) void wv_prefetch_at(__global const uchar *xb, float px, float py, int W,
                                                          int H, long sxy, int rows) {
    const float wl = (float)(W - 1), hl = (float)(H - rows > 0 ? H - rows : 0);
    px = px > 0 ? (px < wl ? px : wl) : 0;
    py = py > 0 ? (py < hl ? py : hl) : 0;
    __global const uchar *q = xb + (long)(int)py * sxy + (int)px * CH;
    __builtin_prefetch(q);
    if (rows == 2) __builtin_prefetch(q + sxy);
}

/* Prefetch the two source rows under the ends of the block at output (xo, yo) of an affine map
 * (m): a row of output that drifts across source rows defeats the hardware prefetcher, and
 * asking for a later block's rows (in the order PoCL runs a work-group's items) hides the misses:
 * 1080p RGB at 15 degrees 4.6 -> 3.4 ms, a 64 x 224^2 batch 10.2 -> 7.6 ms. */
inline __attribute__((always_inline)) void wv_prefetch(__global const uchar *xb, __global const float *m,
                                                       float xo, float yo, int W, int H, int sxy) {
    const float ax = m[0] * xo + (m[1] * yo + m[2]), ay = m[3] * xo + (m[4] * yo + m[5]);
    wv_prefetch_at(xb, ax, ay, W, H, sxy, 2);
    wv_prefetch_at(xb, ax + 7.0f * m[0], ay + 7.0f * m[3], W, H, sxy, 2);
}
#endif

/* Positions from maps and fields (uint8): each work-item prefetches the source under its first
 * and last positions WV_AHEAD rows below. An output row on a curved map crosses source rows,
 * which defeats the hardware prefetcher as an affine map's drift does; the work-items WV_AHEAD
 * output rows below (two work-groups later where they are 4 rows tall, later in the same one
 * where 16: warp._warp's tw_log2) read about there, these maps' vertical scale being near 1.
 * 32 lenses of 512x384 RGB, kernel ms: k = -0.3 16.5 -> 12.5, k = 0 11.5 -> 12.1; a 1080p
 * remap 5.3 -> 4.4 (docs/performance.md, the uint8 warp kernel, has the rest and what was
 * not kept). Per-axis tables read straight rows, which the hardware prefetcher follows. */
#define WV_AHEAD 8.0f

#if Y_NORM
/* the nl (<= 8) pixels of a block as the model's input (see Y_NORM) */
inline __attribute__((always_inline)) void wv_store_norm(const float8 *v, __global Y_PTR_T *Y, int b, int yo,
                                                         int xo0, int nl, int Ho, int Wo, float4 yscale,
                                                         float4 ybias WK_WIDE_PARAM) {
    float ys[WK_NCH], yb[WK_NCH];
    WK_PER_CHANNEL(ys, float, yscale, 1);
    WK_PER_CHANNEL(yb, float, ybias, 2);
#pragma unroll
    for (int c = 0; c < CH; c++) {
        const float8 r = Y_CLAMP(v[c]) * ys[c] + yb[c];
#if Y_CHW
        if (nl == 8) {
            Y_STORE8(Y_AT(b, c, yo, xo0, CH), r); /* 8 neighbours of one plane */
            continue;
        }
#endif
        float lanes[8];
        WK_STORE8(float8, r, lanes);
        for (int k = 0; k < nl; k++) Y_STORE1(Y_AT(b, c, yo, xo0 + k, CH), lanes[k]);
    }
}
#endif

#if MODE == MODE_LINEAR && WK_U8
/* the whole block at (xo0, yo) of item b from its values v (in levels, after their colour
 * operations): the model's input or uint8 (halves up; saturated first with sat, as wv_sample's
 * store) */
inline __attribute__((always_inline)) void wv_put8(const float8 *v, int sat, __global Y_PTR_T *Y, int b,
                                                   int yo, int xo0, int Ho, int Wo, float4 yscale,
                                                   float4 ybias WK_WIDE_PARAM) {
#if Y_NORM
    wv_store_norm(v, Y, b, yo, xo0, 8, Ho, Wo, yscale, ybias WK_WIDE_ARG);
#else
    int8 q[CH];
#pragma unroll
    for (int c = 0; c < CH; c++)
        q[c] = sat ? wv_level8(v[c]) : CV(v[c] + 0.5f, int8);
    wv_store8_u8(q, Y + (((long)b * Ho + yo) * Wo + xo0) * CH);
#endif
}
#endif

/* the 8 lanes' pixels at offsets off (channel c at off + c * sxc), each channel a float8; the
 * fill where a lane's tap is not inside (uint8 of 2-4 channels: one 32-bit word per lane per 4
 * channels, clamped to end inside the buffer) */
inline __attribute__((always_inline)) void wv_gather(__global const X_T *xb, int8 off, int8 inside,
                                                     long sxc, int last_rel, const float *fills,
                                                     float8 *v) {
#if X_KIND == WK_INT && CH > 1
    uint8 wd[WV_NG];
#pragma unroll
    for (int g = 0; g < WV_NG; g++) wd[g] = wv_words(xb, off + 4 * g, last_rel);
#pragma unroll
    for (int c = 0; c < CH; c++) v[c] = inside ? WV_CHW(wd, c) : (float8)fills[c];
#else
#pragma unroll
    for (int c = 0; c < CH; c++) {
        const int8 oc = off + c * (int)sxc;
        const float8 val = (float8)((float)xb[oc.s0], (float)xb[oc.s1], (float)xb[oc.s2],
                                    (float)xb[oc.s3], (float)xb[oc.s4], (float)xb[oc.s5],
                                    (float)xb[oc.s6], (float)xb[oc.s7]);
        v[c] = inside ? val : (float8)fills[c];
    }
#endif
}

#if WK_AREA
inline __attribute__((always_inline)) float8 wv_absf8(float8 v) { return v < 0 ? -v : v; }

/* wk_area_snap for 8 lanes */
inline __attribute__((always_inline)) float8 wv_area_snap(float8 a, float8 x, float t) {
    const float8 r = wk_rint_f8(a), tol = 5e-7f * (wv_absf8(x) + (wk_absf(t) + 2.0f));
    return wv_absf8(a - r) <= tol ? r : a;
}

/* wv_area's columns whose weights and offsets it keeps at a time */
#define WV_AREA_CHUNK 8

/* the largest of 8 ints */
inline __attribute__((always_inline)) int wv_max8(int8 v) {
    return wk_maxi(wk_maxi(wk_maxi(v.s0, v.s1), wk_maxi(v.s2, v.s3)),
                   wk_maxi(wk_maxi(v.s4, v.s5), wk_maxi(v.s6, v.s7)));
}

/* wk_area_weight for 8 lanes: pixel i of each lane's side [a, a + s), i0 = floor(a) */
inline __attribute__((always_inline)) float8 wv_area_weight(int8 i, float8 a, float s, float inv_s, int box,
                                                            int8 i0) {
    const float8 fi = CV(i, float8);
    if (box) {
        const float8 lo = fi > a ? fi : a, hi = fi + 1.0f < a + s ? fi + 1.0f : a + s;
        return hi > lo ? (hi - lo) * inv_s : (float8)0;
    }
    float8 f = (a + (s - 1.0f) - CV(i0, float8)) * inv_s;
    f = f > 0 ? f : (float8)0;
    return i == i0 ? 1.0f - f : (i == i0 + 1 ? f : (float8)0);
}

/* the 8 lanes' area filter (wk_area_add's rules) into acc: x, y their centres' source positions
 * (finite, within the host's AREA_REACH); lanes not ok take the fill */
inline __attribute__((always_inline)) void wv_area(__global const X_T *xb, float8 x, float8 y, int8 ok,
                                                   int W, int H, long sxy, long sxx, long sxc,
                                                   int last_rel, int pad, __global const float *m,
                                                   const float *fills, float8 *acc) {
    const float sw = wk_absf(m[0]) + wk_absf(m[1]), sh = wk_absf(m[3]) + wk_absf(m[4]);
    const float8 ax = wv_area_snap(x - (0.5f * sw - 0.5f), x, m[2]);
    const float8 ay = wv_area_snap(y - (0.5f * sh - 0.5f), y, m[5]);
    const float inv_w = 1.0f / sw, inv_h = 1.0f / sh;
    const int box = sw >= 1.0f && sh >= 1.0f;
    int8 x0 = CV(ax, int8), y0 = CV(ay, int8);
    x0 += CV(ax < CV(x0, float8), int8);
    y0 += CV(ay < CV(y0, float8), int8);
    int nx = 2, ny = 2;
    if (box) { /* the most taps of a lane */
        int8 ex = CV(ax + sw, int8), ey = CV(ay + sh, int8);
        ex += CV(ax + sw < CV(ex, float8), int8);
        ey += CV(ay + sh < CV(ey, float8), int8);
        nx = wv_max8(ex + 1 - x0);
        ny = wv_max8(ey + 1 - y0);
    }
    /* every lane's taps inside the image: no padding arithmetic */
    const int inner = wk_all8(ok) && wk_all8((x0 >= 0) & (x0 + nx <= W) & (y0 >= 0) & (y0 + ny <= H));
    for (int c = 0; c < CH; c++) acc[c] = (float8)0;
    /* the columns' weights and offsets once for every row, WV_AREA_CHUNK columns at a time */
    for (int k0 = 0; k0 < nx; k0 += WV_AREA_CHUNK) {
        const int kn = nx - k0 < WV_AREA_CHUNK ? nx - k0 : WV_AREA_CHUNK;
        float8 wxs[WV_AREA_CHUNK];
        int8 oxs[WV_AREA_CHUNK], inxs[WV_AREA_CHUNK];
        for (int k = 0; k < kn; k++) {
            const int8 xi = x0 + (k0 + k);
            wxs[k] = wv_area_weight(xi, ax, sw, inv_w, box, x0);
            inxs[k] = (int8)-1;
            oxs[k] = (inner ? xi : wk_pad_tap8_any(xi, W, pad, &inxs[k])) * (int)sxx;
        }
        for (int j = 0; j < ny; j++) {
            const float8 wy = wv_area_weight(y0 + j, ay, sh, inv_h, box, y0);
            int8 iny = (int8)-1;
            const int8 row = (inner ? y0 + j : wk_pad_tap8_any(y0 + j, H, pad, &iny)) * (int)sxy;
            float8 r[CH];
            for (int c = 0; c < CH; c++) r[c] = (float8)0;
            for (int k = 0; k < kn; k++) {
                float8 px[CH];
                wv_gather(xb, row + oxs[k], inxs[k] & iny, sxc, last_rel, fills, px);
#pragma unroll
                for (int c = 0; c < CH; c++) r[c] += wxs[k] * px[c];
            }
#pragma unroll
            for (int c = 0; c < CH; c++) acc[c] += wy * r[c];
        }
    }
#pragma unroll
    for (int c = 0; c < CH; c++) acc[c] = ok ? acc[c] : (float8)fills[c];
}
#endif

/* the 8 output pixels of the block at (xo0, yo) of item b, from their source positions (x, y)
 * (ok: lanes with a source; area: the item's footprints filtered by area, wv_area) */
inline __attribute__((always_inline)) void wv_sample(
    __global const X_T *xb, float8 x, float8 y, int8 ok, int W, int H, long sxy, long sxx, long sxc,
    int last_rel, __global Y_PTR_T *Y, int b, int yo, int xo0, int Ho, int Wo, int pad, float4 fill,
    int affine, int interior_ok, int pf, __global const float *m, float py, float4 yscale,
    float4 ybias, int area WV_COL_PARAM WK_WIDE_PARAM) {
#define WV_INTERIOR(xb, x, y, sxy)                                                             \
    {                                                                                         \
        float8 v_[CH];                                                                        \
        wv_interior_linear_u8_values(xb, x, y, sxy, v_);                                      \
        WV_COLOUR(v_);                                                                        \
        wv_put8(v_, 0, Y, b, yo, xo0, Ho, Wo, yscale, ybias WK_WIDE_ARG);                      \
    }
#if !Y_NORM
    __global X_T *const yp = Y + (((long)b * Ho + yo) * Wo + xo0) * CH; /* this block's output */
#endif
    /* constant_edge: the fill outside the image's pixels, the edge repeated past it
     * (sampling.h); the fast paths' lanes are all inside them */
    const int edge_fill = pad == WK_PAD_CONSTANT_EDGE;
    if (edge_fill) pad = WK_PAD_BORDER;
#if MODE == MODE_NEAREST && WK_U8 && !Y_NORM && !COLOUR
    /* nearest, every lane's pixel inside the image: copy the pixels as 32-bit words (clamped
     * to end inside the buffer, then shifted), no padding and no float round trip */
    if (interior_ok && xo0 + 8 <= Wo && !area) {
        const float8 xc = x < -8 ? (float8)-8 : (x > (float)W + 8 ? (float8)((float)W + 8) : x);
        const float8 yc = y < -8 ? (float8)-8 : (y > (float)H + 8 ? (float8)((float)H + 8) : y);
        const int8 ix = CV(wk_rint_f8(xc), int8), iy = CV(wk_rint_f8(yc), int8);
        if (wk_all8(ok & (ix >= 0) & (ix < W) & (iy >= 0) & (iy < H))) {
#if WK_CPU && WK_BUILTINS
            if (pf) /* as the linear path's: a rotated row's source rows, pf blocks ahead */
                wv_prefetch((__global const uchar *)xb, m, (float)(xo0 + 8 * pf), py, W, H, (int)sxy);
#endif
            const int8 off = iy * (int)sxy + ix * CH;
            int8 q[CH];
            wv_pixels((__global const uchar *)xb, off, last_rel, q);
            wv_store8_u8(q, yp);
            return;
        }
    }
#endif
#if MODE == MODE_LINEAR && WK_U8
    const int whole = interior_ok && xo0 + 8 <= Wo && !area;
    /* the interior, tested before any padding arithmetic (NaN lanes fail the test) */
    if (whole && wv_interior(x, y, W, H, affine)) {
#if WK_CPU && WK_BUILTINS
        if (pf) /* affine maps only (host): the block pf blocks ahead on this row */
            wv_prefetch((__global const uchar *)xb, m, (float)(xo0 + 8 * pf), py, W, H, (int)sxy);
#endif
        WV_INTERIOR(xb, x, y, (int)sxy);
        return;
    }
#endif
    if (edge_fill)
        ok &= WK_ON_PIXELS(x, y, W, H);
    const int nl = Wo - xo0 < 8 ? Wo - xo0 : 8;
    float fills[WK_NCH];
    WK_PER_CHANNEL(fills, float, fill, 0);
    float8 acc[CH];
#if WK_AREA
    if (area) {
        wv_area(xb, x, y, ok, W, H, sxy, sxx, sxc, last_rel, pad, m, fills, acc);
    } else {
#endif
    x = ok ? x : (float8)-8;
    y = ok ? y : (float8)-8;
    if (WP_REFLECTING(pad)) { /* into one period [0, p): the taps are then in [-1, p + 2] */
        x = wk_fold8(x, W, pad);
        y = wk_fold8(y, H, pad);
#if MODE == MODE_LINEAR && WK_U8
        /* points outside that the period brings into the interior (mirrored borders) */
        if (whole && wk_all8(ok) && wv_interior(x, y, W, H, 0)) {
            WV_INTERIOR(xb, x, y, (int)sxy);
            return;
        }
#endif
    } else {
        x = x < -8 ? (float8)-8 : (x > (float)W + 8 ? (float8)((float)W + 8) : x);
        y = y < -8 ? (float8)-8 : (y > (float)H + 8 ? (float8)((float)H + 8) : y);
    }
#if MODE == MODE_NEAREST
    const int8 x0 = CV(wk_rint_f8(x), int8), y0 = CV(wk_rint_f8(y), int8);
#else
    int8 x0 = CV(x, int8), y0 = CV(y, int8);
    x0 += CV(x < CV(x0, float8), int8);
    y0 += CV(y < CV(y0, float8), int8);
    const float8 tx = x - CV(x0, float8), ty = y - CV(y0, float8);
#if MODE == MODE_CUBIC
    x0 -= 1; /* taps x0-1 .. x0+2 */
    y0 -= 1;
    float8 cwx[4], cwy[4];
    WK_KEYS_WEIGHTS(float, tx, cwx);
    WK_KEYS_WEIGHTS(float, ty, cwy);
#endif
#endif
    for (int c = 0; c < CH; c++) acc[c] = (float8)0;
    /* constant padding, and no lane has a tap inside the image (constant_edge: no lane's
     * position is on its pixels, ok's test: a nearest position at W - 0.5 of an even side
     * rounds to the tap W, outside, yet lies on the pixels' edge and takes the edge pixel,
     * as the general kernel gives it): all fill (common around a rotated or shrunk image) */
    const int8 out = edge_fill ? ~ok
                               : ~ok | (x0 < 1 - TAPS) | (x0 > W - 1) | (y0 < 1 - TAPS) | (y0 > H - 1);
    if ((pad == PAD_CONSTANT || edge_fill) && (out.s0 & out.s1 & out.s2 & out.s3 & out.s4 & out.s5 & out.s6 & out.s7)) {
        for (int c = 0; c < CH; c++) acc[c] = (float8)fills[c];
    } else {
    /* the column taps, once */
    int8 ixs[TAPS], inxs[TAPS];
    float8 wxs[TAPS];
#pragma unroll
    for (int k = 0; k < TAPS; k++) {
        ixs[k] = wk_pad_tap8(x0 + k, W, pad, &inxs[k]);
#if MODE == MODE_NEAREST
        wxs[k] = (float8)1;
#elif MODE == MODE_CUBIC
        wxs[k] = cwx[k];
#endif
    }
#if MODE == MODE_LINEAR
    float8 rowv[2][CH]; /* each row's horizontal mix */
#endif
#pragma unroll
    for (int j = 0; j < TAPS; j++) {
        int8 iny;
        const int8 iy = wk_pad_tap8(y0 + j, H, pad, &iny);
        const int8 row = iy * (int)sxy; /* in-image offsets fit an int (checked on the host) */
        float8 v[TAPS][CH]; /* this row's taps, fills substituted */
#pragma unroll
        for (int k = 0; k < TAPS; k++) {
            wv_gather(xb, row + ixs[k] * (int)sxx, iny & inxs[k] & ok, sxc, last_rel, fills, v[k]);
        }
#if MODE == MODE_LINEAR
        /* the same mixes as the interior path, so both give the same result */
#pragma unroll
        for (int c = 0; c < CH; c++) rowv[j][c] = wv_lerp(v[0][c], v[1][c], tx);
#else
#if MODE == MODE_NEAREST
        const float8 wy = (float8)1;
#else
        const float8 wy = cwy[j];
#endif
#pragma unroll
        for (int k = 0; k < TAPS; k++) {
            const float8 w = wy * wxs[k];
#pragma unroll
            for (int c = 0; c < CH; c++) acc[c] += w * v[k][c];
        }
#endif
    }
#if MODE == MODE_LINEAR
#pragma unroll
    for (int c = 0; c < CH; c++) acc[c] = wv_lerp(rowv[0][c], rowv[1][c], ty);
#endif
    } /* not all fill */
#if WK_AREA
    } /* not an area item */
#endif
    WV_COLOUR(acc);
#if Y_NORM
    wv_store_norm(acc, Y, b, yo, xo0, nl, Ho, Wo, yscale, ybias WK_WIDE_ARG);
    return;
#endif
#if !Y_NORM
#if X_KIND == WK_INT
    /* round to nearest (halves up) and saturate as vectors, then store (NaN cannot occur here:
     * every sample is a finite mix of pixels and fill values) */
    int8 q[CH];
#pragma unroll
    for (int c = 0; c < CH; c++)
        q[c] = wv_level8(acc[c]);
    if (nl == 8) {
        wv_store8_u8(q, yp);
        return;
    }
#define WST(p) _Pragma("unroll") for (int c = 0; c < CH; c++) yp[(p) * CH + c] = (uchar)q[c].s##p;
#else
#define WST(p) _Pragma("unroll") for (int c = 0; c < CH; c++) STORE_PIX(yp, (p) * CH + c, acc[c].s##p);
#endif
    if (nl == 8) {
        WST(0) WST(1) WST(2) WST(3) WST(4) WST(5) WST(6) WST(7)
    } else {
        if (nl > 0) { WST(0) }
        if (nl > 1) { WST(1) }
        if (nl > 2) { WST(2) }
        if (nl > 3) { WST(3) }
        if (nl > 4) { WST(4) }
        if (nl > 5) { WST(5) }
        if (nl > 6) { WST(6) }
    }
#undef WST
#endif /* !Y_NORM */
#undef WV_INTERIOR
}

#if !WK_ONE_KERNEL || defined(WK_KERNEL_warp_v)
__kernel void warp_v(__global const X_T *restrict X, long x_off, long sxb, long sxy_, long sxx,
                     long sxc, int H_, int W_, __global const float *restrict M, int per_image,
                     __global const int *restrict src_index, int indexed, long x_last_word,
                     __global Y_PTR_T *restrict Y, int Ho, int Wo, int pad, float4 fill,
                     int affine, int interior_ok, int tw_log2, int pf, float4 yscale,
                     float4 ybias WK_RAG_PARAM WK_COORD_PARAM WK_COLOUR_PARAM WK_WIDE_PARAM
                     WV_AREA_PARAM) {
    /* a work-group of 64 covers 2^tw_log2 x WV_BLOCKS blocks of 8 pixels x 2^(6 - tw_log2) x
     * WV_ROWS rows */
    const int lid = (int)get_local_id(0);
    const int xo0 = (((int)get_group_id(0) << tw_log2) + (lid & ((1 << tw_log2) - 1))) * (8 * WV_BLOCKS);
    const int yo = (((int)get_group_id(1) << (6 - tw_log2)) + (lid >> tw_log2)) * WV_ROWS;
    const int b = (int)get_global_id(2);
    if (xo0 >= Wo || yo >= Ho) return;
    __global const float *m = M + (per_image ? b * WK_MAPS_PER_ITEM * 9 : 0);
#if WK_AREA
    const int area = ssv[per_image ? b : 0] == 0; /* this item's footprints filtered by area */
#else
    const int area = 0;
#endif
#if COLOUR
    __global const float *col = WK_COL_OF(b);
#endif
    WK_ITEM(base);
    __global const X_T *xb = X + base;
    /* the last offset (from xb) where a 32-bit word read stays inside the buffer */
    const long lr = x_last_word - base;
    const int last_rel = lr > 2147483647L ? 2147483647 : (int)lr;
    const float py = (float)yo;
#if WV_ROWS > 1 && COORD == COORD_MATRIX && MODE == MODE_LINEAR && WK_U8 && WV_BLOCKS == 1
    {   /* WV_ROWS rows of one block, the map axis-aligned (its float32 m[1] and m[3] are 0) and
         * affine with finite entries (host): x is the same on every row (m[1] py + m[2] is
         * m[2] for every py) and y the same in every lane. So are what follows from x alone:
         * the lanes' columns, their weights and their halves of wv_interior's and the fill's
         * tests, made once. A row whose block is in the interior mixes its two source rows from
         * the mixes of the row before where they are the same source rows (a magnification
         * shares them): the same values from the same operations as
         * wv_interior_linear_u8_values, each mix made once. A whole block whose every tap is
         * outside the image with constant padding is wv_sample's fill, stored as wv_sample
         * stores it (its test there, on the positions alone: floor(x) < -1 or > W - 1, or the
         * same of y); other rows take wv_sample. */
        const float8 px = (float8)(0, 1, 2, 3, 4, 5, 6, 7) + (float)xo0;
        const float8 x = m[0] * px + (m[1] * (float)yo + m[2]);
        const float xm = (float)(W - 1);
        /* floor where x is in [0, W - 1] (the interior; elsewhere unused, kept in range) */
        const int8 x0 = CV(x < 0 ? (float8)0 : (x > xm ? (float8)xm : x), int8);
        const float8 tx = x - CV(x0, float8);
        const uint8 uo = as_uint8(x0 * CH);
        const int whole = interior_ok & (xo0 + 8 <= Wo) & !area & (x.s0 >= 0) & (x.s0 < xm) &
                          (x.s7 >= 0) & (x.s7 < xm); /* wv_interior's test of x */
        const int filled = (xo0 + 8 <= Wo) & ((pad == PAD_CONSTANT) | (pad == WK_PAD_CONSTANT_EDGE));
        const int x_out = wk_all8((x < -1.0f) | (x >= (float)W));
        float fills[WK_NCH];
        WK_PER_CHANNEL(fills, float, fill, 0);
        float8 h0[CH], h1[CH]; /* the mixes of source rows cy and cy + 1 */
        int cy = -2;           /* none yet */
#pragma unroll 1
        for (int r = 0; r < WV_ROWS; r++) {
            const int yr = yo + r;
            if (yr >= Ho) break;
            const float pyr = (float)yr;
            const float8 y = m[3] * px + (m[4] * pyr + m[5]);
            const float ys = y.s0;
            if (filled & (x_out | (ys < -1.0f) | (ys >= (float)H))) {
                float8 v[CH];
#pragma unroll
                for (int c = 0; c < CH; c++) v[c] = (float8)fills[c];
                WV_COLOUR_AT(v, yr);
                wv_put8(v, 1, Y, b, yr, xo0, Ho, Wo, yscale, ybias WK_WIDE_ARG);
                continue;
            }
            if (!(whole & (ys >= 0) & (ys < (float)(H - 2)))) { /* (wv_interior's test of y) */
                wv_sample(xb, x, y, (int8)-1, W, H, sxy, sxx, sxc, last_rel, Y, b, yr, xo0, Ho, Wo,
                          pad, fill, affine, interior_ok, pf, m, pyr, yscale, ybias, area WV_COL_ARG
                          WK_WIDE_ARG);
                continue;
            }
            const int y0 = (int)ys; /* floor: y >= 0 */
            const float8 ty = y - (float)y0;
            if (y0 == cy + 1) { /* the row below the last: its upper row's mixes are kept */
#pragma unroll
                for (int c = 0; c < CH; c++) h0[c] = h1[c];
                wv_row_mix(xb + (y0 + 1) * (int)sxy, uo, tx, h1);
            } else if (y0 != cy) {
                wv_row_mix(xb + y0 * (int)sxy, uo, tx, h0);
                wv_row_mix(xb + (y0 + 1) * (int)sxy, uo, tx, h1);
            }
            cy = y0;
            float8 v[CH];
#pragma unroll
            for (int c = 0; c < CH; c++) v[c] = wv_lerp(h0[c], h1[c], ty);
            WV_COLOUR_AT(v, yr);
            wv_put8(v, 0, Y, b, yr, xo0, Ho, Wo, yscale, ybias WK_WIDE_ARG);
        }
        return;
    }
#elif WV_ROWS > 1 && COORD == COORD_MATRIX && MODE == MODE_NEAREST && WK_U8 && !Y_NORM && !COLOUR && \
    WV_BLOCKS == 1
    {   /* WV_ROWS rows of one block, nearest, the map axis-aligned and affine as above (masks):
         * the lanes' rounded columns and their test are made once, each row rounds one y. A
         * row whose pixels all lie in the image copies them as wv_sample's nearest path does
         * (the same reads, the same positions rounded the same way), and a row that rounds to
         * the same source row as the one before stores the same pixels again; other rows take
         * wv_sample. */
        const float8 px = (float8)(0, 1, 2, 3, 4, 5, 6, 7) + (float)xo0;
        const float8 x = m[0] * px + (m[1] * (float)yo + m[2]);
        const float8 xc = x < -8 ? (float8)-8 : (x > (float)W + 8 ? (float8)((float)W + 8) : x);
        const int8 ix = CV(wk_rint_f8(xc), int8);
        const int whole = interior_ok & (xo0 + 8 <= Wo) & !area & wk_all8((ix >= 0) & (ix < W));
        const int8 ox = ix * CH;
        /* constant padding: a whole block whose columns or row round outside the image is
         * wv_sample's fill, rounded and stored as it stores it */
        const int filled = (xo0 + 8 <= Wo) & (pad == PAD_CONSTANT);
        const int x_out = wk_all8((ix < 0) | (ix >= W));
        float fills[WK_NCH];
        WK_PER_CHANNEL(fills, float, fill, 0);
        int8 qf[CH];
#pragma unroll
        for (int c = 0; c < CH; c++) qf[c] = wv_level8((float8)fills[c]);
        int8 q[CH];
        int cy = -1; /* the source row in q (none yet) */
        const int end = yo + WV_ROWS < Ho ? yo + WV_ROWS : Ho;
#pragma unroll 1
        for (int yr = yo; yr < end; yr++) {
            const float8 y = m[3] * px + (m[4] * (float)yr + m[5]);
            const float8 yc = y < -8 ? (float8)-8 : (y > (float)H + 8 ? (float8)((float)H + 8) : y);
            const int iy = CV(wk_rint_f8(yc), int8).s0;
            if (filled & (x_out | (iy < 0) | (iy >= H))) {
                wv_store8_u8(qf, Y + (((long)b * Ho + yr) * Wo + xo0) * CH);
                continue;
            }
            if (!(whole & (iy >= 0) & (iy < H))) {
                wv_sample(xb, x, y, (int8)-1, W, H, sxy, sxx, sxc, last_rel, Y, b, yr, xo0, Ho, Wo,
                          pad, fill, affine, interior_ok, pf, m, (float)yr, yscale, ybias, area
                          WV_COL_ARG WK_WIDE_ARG);
                continue;
            }
            if (iy != cy) { /* (from the row's start: the lanes' offsets stay the same) */
                const int row = iy * (int)sxy;
                wv_pixels((__global const uchar *)xb + row, ox, last_rel - row, q);
                cy = iy;
            }
            wv_store8_u8(q, Y + (((long)b * Ho + yr) * Wo + xo0) * CH);
        }
        return;
    }
#elif WV_ROWS > 1
#error "WV_ROWS > 1 needs a rows path: engine.coords.rows_per_item asks for one only where there is"
#endif
    float8 xs[WV_BLOCKS], ys[WV_BLOCKS];
    int8 oks[WV_BLOCKS];
#if COORD == COORD_FIELD
    {   /* the last block's lanes past Wo repeat its last pixel */
        float8 pxs[WV_BLOCKS];
#pragma unroll
        for (int j = 0; j < WV_BLOCKS; j++) {
            const float8 px = (float8)(0, 1, 2, 3, 4, 5, 6, 7) + (float)(xo0 + 8 * j);
            pxs[j] = px < (float)(Wo - 1) ? px : (float8)(Wo - 1);
        }
        wk_field_source8(pxs, py, m, FLD, FI + (per_image ? b : 0) * nf * 4, nf, xs, ys);
#pragma unroll
        for (int j = 0; j < WV_BLOCKS; j++) /* finite: +-inf would pass the NaN test and
                                             * overflow the tap arithmetic */
            oks[j] = (xs[j] > -1e30f) & (xs[j] < 1e30f) & (ys[j] > -1e30f) & (ys[j] < 1e30f);
    }
#else
#pragma unroll
    for (int j = 0; j < WV_BLOCKS; j++) {
        const int xo = xo0 + 8 * j;
        const float8 px = (float8)(0, 1, 2, 3, 4, 5, 6, 7) + (float)xo;
        float8 x, y;
        int8 ok;
#if COORD == COORD_MAP
        {   /* 8 neighbours of the map's row (the last block's lanes past Wo repeat its last pixel) */
            const long i0 = (long)yo * Wo + xo;
            __global const float *mx = MX + mx_off + b * map_item, *my = MY + my_off + b * map_item;
            if (xo + 8 <= Wo) {
                if (map_xy) { /* two loads of 8: a float16 value is no AVX2 register */
                    const float8 lo = WK_LOAD8(mx + 2 * i0), hi = WK_LOAD8(mx + 2 * i0 + 8);
                    x = (float8)(lo.even, hi.even);
                    y = (float8)(lo.odd, hi.odd);
                } else {
                    x = WK_LOAD8(mx + i0);
                    y = WK_LOAD8(my + i0);
                }
            } else {
                float xl[8], yl[8];
                for (int k = 0; k < 8; k++) {
                    const float2 q = wk_map_source(xo + k < Wo ? xo + k : Wo - 1, yo, mx, my, Wo, map_xy);
                    xl[k] = q.x;
                    yl[k] = q.y;
                }
                x = WK_LOAD8(xl);
                y = WK_LOAD8(yl);
            }
            /* finite: +-inf would pass the NaN test and overflow the tap arithmetic */
            ok = (x > -1e30f) & (x < 1e30f) & (y > -1e30f) & (y < 1e30f);
        }
#elif COORD == COORD_AXES
        {   /* the last block's lanes past Wo repeat its last column */
            __global const float *ax = AX + b * ax_item;
            if (xo + 8 <= Wo) {
                x = WK_LOAD8(ax + xo);
            } else {
                float xl[8];
                for (int k = 0; k < 8; k++) xl[k] = ax[xo + k < Wo ? xo + k : Wo - 1];
                x = WK_LOAD8(xl);
            }
            y = (float8)ax[Wo + yo];
            ok = (int8)-1;
        }
#else
        if (affine) { /* every last row is (0, 0, 1) and the entries are finite and at most 1e30
                       * in size (checked on the host): no division, every coordinate finite */
            x = m[0] * px + (m[1] * py + m[2]);
            y = m[3] * px + (m[4] * py + m[5]);
            ok = (int8)-1;
        } else {
            const float8 den = m[6] * px + (m[7] * py + m[8]);
            x = (m[0] * px + (m[1] * py + m[2])) / den;
            y = (m[3] * px + (m[4] * py + m[5])) / den;
            ok = (x == x) & (y == y) & (den != 0);
        }
#endif
        xs[j] = x;
        ys[j] = y;
        oks[j] = ok;
    }
#endif
#if WK_CPU && WK_BUILTINS && WK_U8 && (COORD == COORD_FIELD || COORD == COORD_MAP)
    /* the source under this work-item's ends, WV_AHEAD rows below (see WV_AHEAD) */
    wv_prefetch_at((__global const uchar *)xb, xs[0].s0, ys[0].s0 + WV_AHEAD, W, H, sxy, 1);
    wv_prefetch_at((__global const uchar *)xb, xs[WV_BLOCKS - 1].s7, ys[WV_BLOCKS - 1].s7 + WV_AHEAD, W, H,
                   sxy, 1);
#endif
    /* one copy of the sampling code: unrolled, its 2-4 copies made every build that much longer
     * (Mesa rusticl's CI subset 6 -> 11 min) and the kernel no faster */
#pragma unroll 1
    for (int j = 0; j < WV_BLOCKS; j++) {
        if (j > 0 && xo0 + 8 * j >= Wo) break;
        wv_sample(xb, xs[j], ys[j], oks[j], W, H, sxy, sxx, sxc, last_rel, Y, b, yo, xo0 + 8 * j, Ho,
                  Wo, pad, fill, affine, interior_ok, pf, m, py, yscale, ybias, area WV_COL_ARG
                  WK_WIDE_ARG);
    }
}
#endif
#endif

/* The flare layer of RandomSunFlare's physics-based method (colour.h's WK_COL_FLARE_PB), made
 * once per item and operation before the operations run.
 *
 * albumentations' add_sun_flare_physics_based draws on a float32 layer of zeros: the sun as a
 * filled cv2.circle of src_radius in src_color, four spikes from the sun's centre (cv2.line,
 * 2 pixels wide, to the centre plus max(W, H) at 0, 45, 90 and 135 degrees) in src_color, then
 * each flare circle (cv2.circle, filled, of radius int(size ** 0.33)) in its colour, in turn.
 * The layer goes through cv2.GaussianBlur of sigma 15 (121 taps), is multiplied by a radial
 * fade, 1 - min(d / (0.7 max(W, H)), 1) at a distance d from the centre, and its channel 0
 * blurred again with sigma 3 (25 taps), its channel 2 with sigma 5 (41 taps); each blur
 * OpenCV's separable filter on float32, rows first, edges reflected without repeating the
 * edge pixel (BORDER_REFLECT_101), its taps cv2.getGaussianKernel's float32 ones (FL_K*).
 *
 * The sun and the spikes share a colour: they are drawn into a bit mask first, by OpenCV's
 * own raster (raster.h: the Circle's midpoint steps, ThickLine's quadrilateral in 16.16 fixed
 * point with its outline and round ends; the spikes' ends clipped on the host as OpenCV 5's
 * cv2.line clips a thick line); the circles, which paint over them in their colours, are
 * decided per pixel (cv2.circle's disc: dx^2 + dy^2 <= r^2). Blurs in float32 (OpenCV's too),
 * their sums in another order: the layer within a few units in its last place.
 *
 * The sigma-15 blur by linearity: channel c of the layer is src_color[c] M (M the mask's plane,
 * 1 where it is lit) but on the rows a circle reaches (flagged). So M is blurred once (rows,
 * then columns), and of each channel only the flagged rows: their rows' pass, and in the
 * columns' pass the flagged rows less src_color[c] times M's (the rest are zero), added to
 * src_color[c] times M's blur. A circle as large as the image flags every row: the three
 * channels' whole blur, as albumentations takes it (measured: 136 -> 60 ms a batch of 64
 * outputs of 224 x 224 at albumentations' defaults, docs/performance.md).
 *
 * The operation (its words: 1 the flare circles n, 3 the COL_DATA operations after it,
 * 5 + n) is followed by: the sun (words 1-8: the size it was drawn on w0 x h0, the centre
 * x, y and the radius in its pixels, src_color); the four spikes (words 1-6: ends x1, y1,
 * x2, y2, the half-width vector of ThickLine's quadrilateral in 16.16, computed on the host in
 * double as OpenCV does); the circles (words 1-6: centre x, y, radius, colour). All in whole
 * pixels of w0 x h0, scaled to the output where its size differs.
 *
 * The operation's area (its place in operations from it, w[9] 2^20 + w[10]; the host's
 * engine.core.flare_areas) holds the bit mask (Ho rows of WK_RAIN_MW(Wo) words), the rows' flags
 * (Ho ints) and, from float w[8], two grids A and B of four planes (the channels, then M) of
 * Ho rows of w[11] = P floats, a row's pixels from its float FL_PAD (the reflected edges
 * around them while the rows' passes read). The layer ends in A's channel planes: colour.h's
 * wk_flare_pb8 reads it there.
 *
 * FI[item * nf + r] is the place of the item's r-th such operation in its list (-1: none).
 * NDRange: (64, 1, B), work-groups of 64: each makes its item's layers in turn.
 */
#define COLOUR 1
#include "warpkit.h"
#include "colour.h"
#include "raster.h"

/* a row's pixels from this float of its grid row (the edges reflected before them) */
#define FL_PAD 64
/* n in whole blocks of 32 */
#define FL_PITCH32(n) (((n) + 31) / 32 * 32)

/* cv2.getGaussianKernel(121, 15), (25, 3) and (41, 5) in float32 from the middle tap out,
 * then zeros (the columns' pass takes tap |r - k| for k up to 7 past the radius) */
__constant float FL_K15[68] = {
    0.0265976097f, 0.0265385695f, 0.0263622347f, 0.0260709412f, 0.0256685317f, 0.0251602605f,
    0.024552688f, 0.0238535367f, 0.0230715238f, 0.0222161915f, 0.0212977007f, 0.0203266423f,
    0.019313829f, 0.0182700995f, 0.0172061324f, 0.0161322653f, 0.015058347f, 0.0139935864f,
    0.0129464464f, 0.0119245481f, 0.0109346043f, 0.00998237822f, 0.00907266326f, 0.00820928439f,
    0.00739512779f, 0.00663217297f, 0.00592155522f, 0.00526363263f, 0.00465806061f,
    0.00410387851f, 0.00359959505f, 0.00314327679f, 0.00273263361f, 0.00236510253f,
    0.00203792565f, 0.00174822181f, 0.00149305048f, 0.0012694695f, 0.0010745828f,
    0.000905580935f, 0.000759774062f, 0.000634616648f, 0.000527725671f, 0.000436892762f,
    0.00036009014f, 0.000295472768f, 0.000241375645f, 0.000196308567f, 0.000158947922f,
    0.000128126892f, 0.000102824233f, 8.21524445e-05f, 6.53454481e-05f, 5.17463777e-05f,
    4.07956977e-05f, 3.20197978e-05f, 2.50203066e-05f, 1.94641962e-05f, 1.50747492e-05f,
    1.16234087e-05f, 8.92250409e-06f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
__constant float FL_K3[20] = {
    0.132984534f, 0.125797987f, 0.106485695f, 0.0806592032f, 0.0546715781f, 0.0331599899f,
    0.0179974996f, 0.00874087773f, 0.00379877002f, 0.00147732475f, 0.000514107582f,
    0.000160094773f, 4.46113445e-05f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
__constant float FL_K5[28] = {
    0.0797916576f, 0.0782116726f, 0.0736569837f, 0.0666475967f, 0.0579406358f, 0.0483960845f,
    0.0388387702f, 0.0299466942f, 0.0221850574f, 0.0157906655f, 0.0107986266f, 0.00709520327f,
    0.00447908556f, 0.00271670287f, 0.00158315385f, 0.000886405236f, 0.00047683678f,
    0.00024645371f, 0.000122385289f, 5.83917281e-05f, 2.67671185e-05f, 0.0f, 0.0f, 0.0f, 0.0f,
    0.0f, 0.0f, 0.0f};

/* ``count`` rows of a grid (pixels from FL_PAD) given their edges: R reflected columns before
 * each row and after it up to the last block of 8 (with ``flags``, Ho flags of each plane's
 * rows, only the flagged rows) */
inline void fl_edges(__global float *rows, int count, int P, int Wo, int Ho, __global const int *flags,
                     int R, int lid) {
    const int end = (Wo + 7) / 8 * 8 + R;
    for (int t = lid; t < count; t += 64) {
        if (flags && !flags[t % Ho]) continue;
        __global float *row = rows + (long)t * P + FL_PAD;
        for (int x = -R; x < 0; x++) row[x] = row[wk_reflect101(x, Wo)];
        for (int x = Wo; x < end; x++) row[x] = row[wk_reflect101(x, Wo)];
    }
}

/* ``count`` rows of a grid from ``s`` filtered along x into ``d`` by the symmetric taps K of
 * radius R (their edges given), 8 columns a work-item; with ``rows`` (Ho flags, the rows of
 * each of the ``count`` / Ho planes), only the flagged rows */
inline void fl_rows(__global const float *s, __global float *d, int count, int P, int Wo, int Ho,
                    __global const int *rows, __constant const float *K, int R, int lid) {
    const int chunks = (Wo + 7) / 8;
    for (int t = lid; t < count * chunks; t += 64) {
        const int y = t / chunks;
        if (rows && !rows[y % Ho]) continue;
        const long at = (long)y * P + FL_PAD + 8 * (t - y * chunks);
        float8 acc = K[0] * WK_LOAD8(s + at);
        for (int k = 1; k <= R; k++) acc += K[k] * (WK_LOAD8(s + at - k) + WK_LOAD8(s + at + k));
        WK_STORE8(float8, acc, d + at);
    }
}

/* rows y0 .. y0 + 7 of a plane at columns x .. x + 7 filtered along y by the taps of radius R
 * (rows reflected), each row of the plane read once for the eight; KS[d] is tap |d| for d in
 * [-R - 7, R + 7] (a table both ways: an index |d| would be llvm.abs, which Oclgrind lacks).
 * The eight sums are eight variables: an array indexed in a loop lived in memory.
 *
 * Without ``flags``: the plane ``s``. With them (Ho flags): only the flagged rows, each as
 * s - k m (``m`` the sun's plane, ``k`` a colour), and to the sums k times ``base``'s rows
 * (the sun's plane filtered) is added. Each row then faded about the sun (``reach`` > 0: numpy's
 * max(W, H) * 0.7) and stored to its row of ``d`` (rows past Ho left) */
inline __attribute__((always_inline)) void fl_cols8(__global const float *s, __global const float *m,
                                                    __global const int *flags, float k,
                                                    __global const float *base, __global float *d,
                                                    int P, int Ho, int y0, long x,
                                                    __local const float *KS, int R, float8 dx,
                                                    float cy, float reach) {
    float8 a0 = (float8)0.0f, a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    for (int r = -R; r < R + 8; r++) {
        const int row = wk_reflect101(y0 + r, Ho);
        if (flags && !flags[row]) continue;
        float8 h = WK_LOAD8(s + (long)row * P + x);
        if (flags) h -= k * WK_LOAD8(m + (long)row * P + x);
        __local const float *t = KS + r;
        a0 += t[0] * h; a1 += t[-1] * h; a2 += t[-2] * h; a3 += t[-3] * h;
        a4 += t[-4] * h; a5 += t[-5] * h; a6 += t[-6] * h; a7 += t[-7] * h;
    }
#define FL_ROW(i, a)                                                                               \
    if (y0 + (i) < Ho) {                                                                           \
        float8 v = (a);                                                                            \
        if (flags) v += k * WK_LOAD8(base + (long)(y0 + (i)) * P + x);                             \
        if (reach > 0.0f) {                                                                        \
            const float dy = (float)(y0 + (i)) - cy;                                               \
            v *= 1.0f - fmin(sqrt(dx * dx + dy * dy) / reach, (float8)1.0f);                       \
        }                                                                                          \
        WK_STORE8(float8, v, d + (long)(y0 + (i)) * P + x);                                        \
    }
    FL_ROW(0, a0) FL_ROW(1, a1) FL_ROW(2, a2) FL_ROW(3, a3)
    FL_ROW(4, a4) FL_ROW(5, a5) FL_ROW(6, a6) FL_ROW(7, a7)
#undef FL_ROW
}

/* K's taps 0 .. n - 1 both ways from KS's middle, KS[n - 1 + d] = K[|d|] */
inline void fl_both_ways(__constant const float *K, __local float *KS, int n, int lid) {
    for (int t = lid; t < n; t += 64) {
        KS[n - 1 + t] = K[t];
        KS[n - 1 - t] = K[t];
    }
}

__kernel void flare_layer(__global float *COL, int ncol, __global const int *FI, int nf, int Ho,
                          int Wo) {
    const int item = get_group_id(2), lid = get_local_id(0);
    __global float *list = COL + (long)item * ncol * WK_COL_WORDS;
    const int W = Wo, H = Ho, mw = WK_RAIN_MW(Wo), chunks = (Wo + 7) / 8, octs = (Ho + 7) / 8;
    __local float S15[2 * 68 - 1], S3[2 * 20 - 1], S5[2 * 28 - 1];
    fl_both_ways(FL_K15, S15, 68, lid);
    fl_both_ways(FL_K3, S3, 20, lid);
    fl_both_ways(FL_K5, S5, 28, lid);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int r = 0; r < nf; r++) {
        const int j = FI[item * nf + r];
        if (j < 0) break;
        __global const float *op = list + (long)j * WK_COL_WORDS;
        __global float *area = WK_COL_AREA(list + (long)j * WK_COL_WORDS);
        const int P = (int)op[11], n = (int)op[1];
        const long plane = (long)Ho * P;
        volatile __global uint *bits = (volatile __global uint *)area;
        /* each row's flag: 1 where a circle reaches it (then the channels are filtered too) */
        __global int *rows = (__global int *)area + (long)op[8] - FL_PITCH32(Ho);
        __global float *A = area + (long)op[8], *B = A + 4 * plane, *M = A + 3 * plane, *BM = B + 3 * plane;
        __global const float *sun = op + WK_COL_WORDS + 1;
        const int w0 = (int)sun[0], h0 = (int)sun[1];
        const int cx = WK_FOG_PX(sun[2], w0, W), cy = WK_FOG_PX(sun[3], h0, H);
        for (int t = lid; t < Ho * mw; t += 64) bits[t] = 0u;
        for (int t = lid; t < Ho; t += 64) rows[t] = 0;
        barrier(CLK_GLOBAL_MEM_FENCE);
        /* the sun's disc and its four spikes into the mask, a work-item each; the circles' rows */
        if (lid == 0) {
            wk_rain_disc(bits, mw, W, H, cx, cy, WK_FOG_PX(sun[4], w0, W));
        } else if (lid <= 4) {
            __global const float *d = op + WK_COL_WORDS * (1 + lid) + 1;
            const float vx = d[4], vy = d[5];
            wk_rain_thick(bits, mw, W, H, WK_FOG_PX(d[0], w0, W), WK_FOG_PX(d[1], h0, H),
                          WK_FOG_PX(d[2], w0, W), WK_FOG_PX(d[3], h0, H),
                          W == w0 ? (int)vx : (int)rint(vx * (float)W / (float)w0),
                          H == h0 ? (int)vy : (int)rint(vy * (float)H / (float)h0), 2);
        }
        for (int k = lid; k < n; k += 64) {
            __global const float *d = op + WK_COL_WORDS * (6 + k) + 1;
            const int py = WK_FOG_PX(d[1], h0, H), rad = WK_FOG_PX(d[2], w0, W);
            for (int y = max(py - rad, 0); y <= min(py + rad, Ho - 1); y++) rows[y] = 1;
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
        /* the layer painted: the sun's plane M (1 where the mask is lit), and on the circles'
         * rows the three channels (the mask's pixels in src_color, then each circle's) */
        for (int t = lid; t < Ho * chunks; t += 64) {
            const int y = t / chunks, x0 = 8 * (t - y * chunks);
            const int8 X = (int8)(0, 1, 2, 3, 4, 5, 6, 7) + x0;
            __global const uint *row = (__global const uint *)bits + (long)y * mw + x0 / 32;
            const uint8 col = (uint8)(x0 & 31) + (uint8)(0, 1, 2, 3, 4, 5, 6, 7);
            const uint8 word = WK_SELECT((uint8)row[0], (uint8)row[1], col >= 32u);
            const int8 lit = as_int8(((word >> col) & 1u) * 0xFFFFFFFFu);
            WK_STORE8(float8, WK_SELECT((float8)0.0f, (float8)1.0f, lit), M + (long)y * P + FL_PAD + x0);
            if (!rows[y]) continue;
            float8 o[3];
            WK_FLARE_RGB(o[c] = WK_SELECT((float8)0.0f, (float8)sun[5 + c], lit));
            for (int k = 0; k < n; k++) {
                __global const float *d = op + WK_COL_WORDS * (6 + k) + 1;
                const int px = WK_FOG_PX(d[0], w0, W), py = WK_FOG_PX(d[1], h0, H);
                const int rad = WK_FOG_PX(d[2], w0, W);
                if (abs(y - py) > rad || px + rad < x0 || px - rad > x0 + 7) continue;
                const int8 in = WK_FLARE_IN(wk_flare_ax2(X, px), wk_flare_ay2(y, py), rad);
                WK_FLARE_RGB(o[c] = WK_SELECT(o[c], (float8)d[3 + c], in));
            }
            WK_FLARE_RGB(WK_STORE8(float8, o[c], A + c * plane + (long)y * P + FL_PAD + x0));
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
        /* GaussianBlur, sigma 15, by linearity: channel c is src_color[c] M where no circle
         * reaches a row, so the rows' pass filters M and the circles' rows of each channel */
        fl_edges(M, Ho, P, Wo, Ho, 0, 60, lid);
        fl_edges(A, 3 * Ho, P, Wo, Ho, rows, 60, lid);
        barrier(CLK_GLOBAL_MEM_FENCE);
        fl_rows(M, BM, Ho, P, Wo, Ho, 0, FL_K15, 60, lid);
        fl_rows(A, B, 3 * Ho, P, Wo, Ho, rows, FL_K15, 60, lid);
        barrier(CLK_GLOBAL_MEM_FENCE);
        /* ... the columns of M's rows (into M), then each channel's: src_color[c] times those
         * plus the columns of its circles' rows less src_color[c] M's, faded */
        for (int t = lid; t < octs * chunks; t += 64) {
            const int q = t / chunks, x0 = 8 * (t - q * chunks);
            fl_cols8(BM, 0, 0, 0.0f, 0, M, P, Ho, 8 * q, FL_PAD + x0, S15 + 67, 60, (float8)0.0f,
                     0.0f, 0.0f);
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
        /* (numpy's max(W, H) * 0.7 in double, rounded once) */
        const float reach = (float)((float)max(W, H) * 0.7f);
        for (int t = lid; t < 3 * octs * chunks; t += 64) {
            const int pq = t / chunks, x0 = 8 * (t - pq * chunks);
            const int c = pq / octs, y0 = 8 * (pq - c * octs);
            const float8 dx = convert_float8((int8)(0, 1, 2, 3, 4, 5, 6, 7) + (x0 - cx));
            fl_cols8(B + c * plane, BM, rows, sun[5 + c], M, A + c * plane, P, Ho, y0,
                     FL_PAD + x0, S15 + 67, 60, dx, (float)cy, reach);
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
        /* the chromatic aberration: channel 0 blurred with sigma 3, channel 2 with sigma 5 */
        fl_edges(A, Ho, P, Wo, Ho, 0, 12, lid);
        fl_edges(A + 2 * plane, Ho, P, Wo, Ho, 0, 20, lid);
        barrier(CLK_GLOBAL_MEM_FENCE);
        fl_rows(A, B, Ho, P, Wo, Ho, 0, FL_K3, 12, lid);
        fl_rows(A + 2 * plane, B + 2 * plane, Ho, P, Wo, Ho, 0, FL_K5, 20, lid);
        barrier(CLK_GLOBAL_MEM_FENCE);
        for (int t = lid; t < 2 * octs * chunks; t += 64) {
            const int pq = t / chunks, x0 = 8 * (t - pq * chunks);
            const int c = 2 * (pq / octs), y0 = 8 * (pq - (c / 2) * octs);
            if (c == 0)
                fl_cols8(B, 0, 0, 0.0f, 0, A, P, Ho, y0, FL_PAD + x0, S3 + 19, 12, (float8)0.0f,
                         0.0f, 0.0f);
            else
                fl_cols8(B + 2 * plane, 0, 0, 0.0f, 0, A + 2 * plane, P, Ho, y0, FL_PAD + x0,
                         S5 + 27, 20, (float8)0.0f, 0.0f, 0.0f);
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
}

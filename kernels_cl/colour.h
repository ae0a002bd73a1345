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
 *                     with w[4] 0; w[4] 1: (R + G + B) / 3, 2: max(R, G, B), 3: (max + min) / 2
 *                     (albumentations' average, max and desaturation: levels truncated);
 *                     4: L of OpenCV's 8-bit Lab (albumentations' from_lab; float values
 *                     through their levels rint(255 v) and back as L / 255) from the table in
 *                     the call's colour table at w[6] 65536 + w[7] (w[9], w[10] as
 *                     WK_COL_PASTE's): Y's three 12-bit coefficients, the 256 levels' 15-bit
 *                     linear values, then L of each Y 0 .. WK_LAB_YMAX (engine.lab.gray_table)
 *   WK_COL_SHUFFLE    channel c = channel w[1 + c]
 *   WK_COL_SOLARIZE   v >= w[1] ? peak - v : v
 *   WK_COL_POSTERIZE  level of channel c with its low bits cleared: keep w[1 + c] high bits of 8
 *   WK_COL_CONTRAST   v = w[1] v + (1 - w[1]) mean, mean: the image's gray mean as it enters the
 *                     operation (a whole-image value: never in the warp's own list; the host
 *                     starts a pass of colour_pass.cl at it); w[1] = 0: the mean rounded
 *   WK_COL_SATURATE   v = w[1] v + w[2] gray (w[2] = 1 - w[1]), rounded to the nearest level
 *                     (OpenCV's addWeighted); 3 channels or more
 *   WK_COL_HUE        the hue turned by w[1] turns through OpenCV's HSV: uint8 levels as its 8-bit
 *                     conversion (H in [0, 180), the shifted hue truncated as albumentations'
 *                     table), floats as its float conversion (degrees)
 *   WK_COL_HSV        albumentations' HueSaturationValue on 8-bit HSV: H + w[1] modulo 180
 *                     (truncated), S + w[2] (S = 0 stays), V + w[3], each clipped to a level
 *                     (float images as levels of 255, rounded in and out); 1 channel: V only
 *   WK_COL_AFFINE_MEAN channel c = clip(w[1 + c] * v + w[5 + c] * mean of every channel) (a
 *                     whole-image value, as WK_COL_CONTRAST's); w[9] = 1: albumentations'
 *                     ensure_safe_range, alpha = w[1] and beta = w[5] * mean (every channel's)
 *                     first narrowed so that [0, peak] maps into itself (wk_safe_affine)
 *   WK_COL_NOISE      v + n, n = w[5] + w[4] z, z a standard normal of the pixel (per channel, or
 *                     channel 0's for all where w[6] = 0), clipped; uint8 adds n truncated
 *                     toward zero, uint16 rounds v + n to nearest even (albumentations'). z
 *                     comes from Philox-4x32-10 keyed on the sample (w[1 .. 3]: 24 + 24 + 16
 *                     bits) and the pixel's position in
 *                     the output (wk_normal4): the same numbers alone, in any batch, on any
 *                     device. w[7], w[8] > 0: drawn on a coarser grid of w[7] x w[8] points and
 *                     resized linearly (OpenCV's INTER_LINEAR) onto the output. w[9] the kind of
 *                     z (albumentations' AdditiveNoise): 0 normal, 1 uniform in [0, 1), 2
 *                     standard Laplace, 3 Beta(w[10], w[11]) (wk_noise4); 4: no z, channel c
 *                     adds w[1 + c] (its "constant" mode); 5: z uniform in [0, 1) as kind 1's,
 *                     the value times n instead of plus n, clipped, integer images truncated to
 *                     a level (albumentations' MultiplicativeNoise with elementwise=True)
 *   WK_COL_HOLE       pixels of the rectangle [x1, x2) x [y1, y2) of the output, xk = round(w[k] *
 *                     Wo) (w[1 .. 4]: x1, y1, x2, y2 as fractions of the image they were drawn on;
 *                     Ho for y), take the fill w[5 + c] (w[9] = 0), or a uniform random level
 *                     per pixel and channel (w[9] = 1: Philox keyed on w[10], w[11] and the hole)
 *   WK_COL_HOLES      many holes (albumentations' GridDropout), filled as WK_COL_HOLE's (w[5 ..
 *                     11]; w[9] = 2: each hole's own fill), found in a few steps: w[1] bands
 *                     of rows, w[2] holes, in the w[3] WK_COL_DATA operations after it (skipped
 *                     with it): two bands an operation (words 1-4, 5-8: top, bottom as
 *                     fractions of the height, first hole, count; disjoint, top to bottom),
 *                     then one hole an operation (words 1-4: x1, y1, x2, y2 as WK_COL_HOLE's;
 *                     5: the largest x2 of its band's holes up to it; 6-9: its fill), each
 *                     band's holes in order of x1 (wk_holes8)
 *   WK_COL_BLUR       a separable symmetric filter of radius r = w[1] (albumentations'
 *                     GaussianBlur: OpenCV's sepFilter2D, edges reflected without repeating the
 *                     edge pixel), the weights of offsets 0 .. r in w[2 ..] and in words 1 .. 11
 *                     of the WK_COL_DATA operations after it. A whole-image operation: it starts
 *                     a pass of colour_pass.cl, which filters; here it is no operation
 *   WK_COL_DATA       values of the operation before it (no operation)
 *   WK_COL_MOTION     albumentations' MotionBlur: the mean of n = w[1] taps, each of weight w[2],
 *                     at offsets (dx, dy) from the pixel (the pairs from w[3], continued in the
 *                     WK_COL_DATA operations after it), edges reflected as WK_COL_BLUR's. A
 *                     whole-image operation as WK_COL_BLUR (colour_pass.cl's colour_apply)
 *   WK_COL_MEDIAN     albumentations' MedianBlur: each channel's median of the w[1] x w[1]
 *                     levels around the pixel (w[1] odd; OpenCV's medianBlur, the edge pixels
 *                     repeated). A whole-image operation as WK_COL_BLUR (colour_apply)
 *   WK_COL_CONV       a 3x3 filter, the weights of offsets (-1, -1) .. (1, 1) row by row in
 *                     w[1 .. 9] (albumentations' Sharpen and Emboss: OpenCV's filter2D, edges
 *                     reflected as WK_COL_BLUR's). A whole-image operation as WK_COL_MOTION
 *   WK_COL_TAPS       a filter with a kernel of weights: w[1] rows of it reaching w[2] columns
 *                     either side, in the w[3] WK_COL_DATA operations after it (skipped with
 *                     it): each row an operation (dy, its first dx, its count of weights), then
 *                     its weights, 8 an operation (words 1-8); summed row by row, left to right
 *                     (albumentations' AdvancedBlur, Defocus and RingingOvershoot: OpenCV's
 *                     filter2D with their kernels, edges reflected as WK_COL_BLUR's). A
 *                     whole-image operation as WK_COL_MOTION (colour_apply)
 *   WK_COL_CLAHE      albumentations' CLAHE: OpenCV's contrast-limited adaptive histogram
 *                     equalisation of 8-bit levels (of L in OpenCV's 8-bit Lab for 3 channels),
 *                     w[1] + w[2] + w[3] the clip limit (a double in three floats), w[4] x w[5]
 *                     tiles; w[6 ..] filled by the host for the output's size (colour_pass.cl's
 *                     colour_clahe_hist). A whole-image
 *                     operation: a pass of its own, whose tables colour_clahe_lut makes first
 *   WK_COL_DOWNSCALE  albumentations' Downscale (nearest down, nearest up): w[1] + w[2] + w[3]
 *                     the scale (a double in three floats); each pixel takes the one the host
 *                     tabulated for the output's size (colour_pass.cl's cp_gather8). A
 *                     whole-image operation
 *   WK_COL_MATRIX     channels 0-2 = level(clip((W v) w[10] + w[11])), W the 3x3 matrix w[1 .. 9]
 *                     row by row, v channels 0-2 (3 channels or more; others stay): uint8 as
 *                     OpenCV's transform (W in 2^-10, w[10] = 2^-10, w[11] = 1/2: exact in
 *                     float), floats w[10] = 1, w[11] = 0 (albumentations' ToSepia)
 *   WK_COL_CURVE      albumentations' RandomToneCurve on 8-bit levels: channel c's level l goes
 *                     to rint(255 B(l / 255)), B(t) = 3 (1 - t)^2 t lo + 3 (1 - t) t^2 hi + t^3,
 *                     lo = w[1 + c], hi = w[5 + c] (float images as levels of 255, rounded in
 *                     and out)
 *   WK_COL_PCA        albumentations' FancyPCA: v + M (v - mean), M = E diag(w[1 + k] l_k), the
 *                     eigenpairs (l_k, column k of E) of the channels' covariance (N - 1) in
 *                     descending order, each vector with LAPACK's sign (numpy's eigh; in
 *                     units of 1: l_k over the peak squared); 1 channel:
 *                     M = w[1] times the standard deviation (N) over the peak. Clipped, integer
 *                     images rounded to the nearest level. A whole-image operation as
 *                     WK_COL_CONTRAST (colour_pass.cl's colour_mean sums the channels and their
 *                     products; colour_pca makes M once per item). w[5] = 1 (3 channels):
 *                     albumentations' ToGray(method="pca") instead, every channel the pixel's
 *                     projection on the first principal component (OpenCV's PCA: its Jacobi
 *                     rotations' sign) scaled to [0, 1] by the image's least and largest
 *                     (colour_pass.cl's cp_gray_pca), levels rounded
 *   WK_COL_UNSHARP    albumentations' UnsharpMask: B the image filtered as by WK_COL_BLUR of
 *                     radius w[1] (the weights of offsets 0 .. r in w[4 ..] and the WK_COL_DATA
 *                     operations after it), in float, not rounded; the mask m = |v - B| 255 /
 *                     peak > w[3] per channel, filtered the same way (s); then
 *                     clip(v + w[2] (v - B)) s + v (1 - s), integer images rounded to the
 *                     nearest level. A whole-image operation as WK_COL_BLUR (colour_pass.cl's
 *                     colour_blur_rows, colour_unsharp_rows, then colour_apply)
 *   WK_COL_ZOOM       albumentations' ZoomBlur: the mean of the image and its w[1] central
 *                     zooms (1, 1 + s, 1 + 2 s, ...; s = w[2] + w[3] + w[4], a double in three
 *                     floats), each read by OpenCV's linear resize from the host's table of
 *                     source rows and columns for the output's size (colour_pass.cl's
 *                     cp_zoom8); clipped, integer images rounded to the nearest level. A
 *                     whole-image operation
 *   WK_COL_JPEG       albumentations' ImageCompression: a JPEG round trip at quality w[1]
 *                     (OpenCV's, libjpeg-turbo's integer codec: colour_pass.cl's
 *                     colour_jpeg_blocks). A whole-image operation: a pass of its own
 *   WK_COL_SALT       albumentations' SaltAndPepper: each pixel's uniform u (from the key
 *                     w[1 .. 3] and the pixel) below w[4] sets every channel to the peak (salt),
 *                     else below w[5] to 0 (pepper)
 *   WK_COL_PIXDROP    albumentations' PixelDropout: each pixel's uniform u (from the key w[1 .. 3]
 *                     and the pixel; a number per channel where w[5] is not 0, else one for
 *                     all) below w[4] sets its channel c to w[6 + c]
 *   WK_COL_SHOT       albumentations' ShotNoise: channel c's value x (in [0, 1]) goes to
 *                     clip(k s, 0, 1)^(1 / 2.2), k a Poisson count of mean (x^2.2 + s 1e-6) / s,
 *                     s = w[4] (by its distribution function, from uniform number c of the key
 *                     w[1 .. 3] and the pixel)
 *   WK_COL_ISO        albumentations' ISONoise on channels 0-2 (3 channels or more): OpenCV's
 *                     float RGB -> HLS, the hue plus a normal of w[4] degrees, the lightness
 *                     plus k w[5] (1 - L) (clipped to 1), k Poisson of mean w[5] times the
 *                     image's standard deviation of L, back to RGB, clipped; the numbers from
 *                     the key w[1 .. 3] and the pixel. A whole-image operation as
 *                     WK_COL_CONTRAST (colour_pass.cl's colour_mean: E[L], E[L^2])
 *   WK_COL_MORPH      albumentations' Morphological: each channel's largest (w[4] = 1:
 *                     dilation) or smallest (w[4] = 0: erosion) value under an elliptic
 *                     element of w[1] rows reaching w[2] columns either side, each row one of
 *                     the w[3] (= w[1]) WK_COL_DATA operations after it (skipped with it): dy,
 *                     its first dx, its count of columns (OpenCV's dilate and erode, edges
 *                     left out). A whole-image operation as WK_COL_MOTION (colour_apply)
 *   WK_COL_CHROMA     albumentations' ChromaticAberration: channels 0 and 2 read again, each
 *                     at OpenCV's undistortion map of the camera (Wo, Ho, Wo / 2, Ho / 2) with
 *                     radial coefficients w[1], w[2] (channel 0) and w[3], w[4] (channel 2),
 *                     by cv::remap's interpolation w[5] (0 nearest, 1 linear, 2 cubic, 4
 *                     Lanczos), the edges repeated (colour_pass.cl's cp_chroma8). A
 *                     whole-image operation
 *   WK_COL_SNOW       albumentations' RandomSnow ("bleach") on channels 0-2: the lightness
 *                     times w[2] below the threshold w[1] (in levels of 255), in OpenCV's
 *                     8-bit HLS on uint8 (wk_snow8)
 *   WK_COL_EQUALIZE   albumentations' Equalize on 8-bit levels: w[1] the mode (0: OpenCV's
 *                     equalizeHist, 1: albumentations' "pil" table), w[2] by channels (1: each
 *                     of channels 0-2 on its own histogram; 0: Y of OpenCV's 8-bit YCrCb, for 3
 *                     channels); w[8], w[9] filled by the host: the output's width and height.
 *                     A whole-image operation: a pass of its own, in CLAHE's kernels (its
 *                     histograms, then its tables: colour_pass.cl's colour_clahe_lut).
 *                     Modes 2 and 3 are albumentations' AutoContrast ("cdf", "pil"): every
 *                     channel on its own histogram, w[3] the level ignored (-1: none), w[4 .. 7]
 *                     the cutoff in percent as m 2^w[7], m's 53 bits in w[4 .. 6] (18, 18 and
 *                     17 bits, high first: colour_pass.cl's cl_ac_lut)
 *                     Modes 0 and 1 with a mask (Equalize's): w[11] its channels (1, or 3
 *                     one per channel), its bits (the output's pixels, row-major, channel
 *                     after channel, 16 a value) in the w[10] WK_COL_DATA operations after
 *                     it (skipped with it; colour_pass.cl's cl_eq_in): only the pixels it
 *                     holds are counted.
 *                     Mode 4 is albumentations' HistogramMatching: every channel on its own
 *                     histogram matched to a reference's, w[3] and w[4] the blend's weights
 *                     (float32 alpha of the match, beta of the image), the reference's
 *                     running counts (256 a channel, each as two values of 16 bits, high
 *                     first) in the w[10] WK_COL_DATA operations after it (skipped with it;
 *                     colour_pass.cl's cl_hm_lut)
 *   WK_COL_LIGHT      albumentations' Illumination: every channel times a pattern p of the
 *                     pixel's place (x, y) in the output, w[1] the mode: 0 linear, the
 *                     gradient g = w[2] + w[3] x / (Wo - 1) + w[4] y / (Ho - 1) (x / (Wo - 1)
 *                     read as 0 where Wo is 1), scaled to [0, 1] over the output where w[6] is
 *                     not 0 (0 where constant), turned to 1 - g for an intensity i = w[5] < 0,
 *                     p = 1 - |i| + 2 |i| g, integer images rounded to the nearest level (its
 *                     float round trip); 1 corner, p = 1 - w[4] d / D, d the distance from the
 *                     pixel (w[2] (Wo - 1), w[3] (Ho - 1)), D the diagonal sqrt(Wo^2 + Ho^2);
 *                     2 gaussian, p = 1 + w[4] exp(-d^2 / (2 s^2)), d the distance from (w[2]
 *                     Wo, w[3] Ho), s = w[5] max(Wo, Ho); modes 1 and 2 truncate uint8 to a
 *                     level (its clipped store), uint16 rounds (OpenCV's multiply). Clipped
 *   WK_COL_POLY       albumentations' RandomShadow: the pixels of a polygon of w[1] vertices, as
 *                     cv2.fillPoly sets them, take their levels times w[2], truncated (numpy's
 *                     store into uint8; floats as levels of 255, rounded first); w[4 .. 7] the
 *                     vertices' box (x, y least, then greatest). The vertices
 *                     (x, y as fractions of the image they were drawn on, times the output's
 *                     sides, halves up) five an operation in the w[3] WK_COL_DATA operations
 *                     after it (skipped with it), words 1-10. OpenCV's rule (wk_poly8): the
 *                     outline's 8-connected lines, and on each row the edges' crossings in 16.16
 *                     fixed point paired in order, each pair's columns from the first's ceiling
 *                     to the second's floor
 *   WK_COL_GRAVEL     albumentations' RandomGravel on channels 0-2: OpenCV's 8-bit HLS round
 *                     trip of every pixel (float images through levels of 255, rounded in and
 *                     out), the lightness level set to a rectangle's where one holds the pixel
 *                     (the last such). w[1] patches, w[2] rectangles, in the w[3] WK_COL_DATA
 *                     operations after it (skipped with it): a patch an operation (words 1-4:
 *                     the box that holds its rectangles, 5: its first rectangle, 6: their
 *                     count), then two rectangles an operation (words 1-5 and 6-10: x1, y1,
 *                     x2, y2 as WK_COL_HOLE's, the level), in their order (wk_gravel8)
 *   WK_COL_FLARE      albumentations' RandomSunFlare ("overlay") on channels 0-2 (RGB images):
 *                     on 8-bit levels (floats rounded to levels of 255 and back), w[1] flare
 *                     circles, then w[2] sun circles about (w[4] Wo, w[5] Ho) of colour
 *                     w[6 .. 8], in the w[3] WK_COL_DATA operations after it (skipped with
 *                     it): a flare circle an operation (words 1-3: its centre's x and y and
 *                     its radius, as fractions of the output's width, height and width;
 *                     4: its alpha; 5-7: its colour), then five sun circles an operation
 *                     (words 1-10: each one's radius as a fraction of the width, its alpha).
 *                     Each circle in turn paints its colour into an overlay where a pixel
 *                     lies within its radius (cv2.circle's filled disc: dx^2 + dy^2 <= r^2)
 *                     and blends the overlay into the image, rint(a o + (1 - a) v); the sun's
 *                     overlay starts as the image after the flare circles (wk_flare8)
 *   WK_COL_FLARE_PB   albumentations' RandomSunFlare ("physics_based") on channels 0-2 (RGB
 *                     images), on 8-bit levels (floats rounded to levels of 255 and back):
 *                     the screen blend 255 - (255 - v) (255 - F) / 255 in float32, clipped and
 *                     truncated to a level, F the pixel's flare layer, which flare.cl makes
 *                     before the launch from the w[3] WK_COL_DATA operations after it (skipped
 *                     with it: the sun, its four spikes, w[1] flare circles) into the area at
 *                     w[9] 2^20 + w[10] operations from the operation: three planes of Ho rows
 *                     of w[11] floats from float w[8], a row's pixels from its float 64
 *                     (wk_flare_pb8)
 *   WK_COL_FOG        albumentations' RandomFog's particles on channels 0-2 (RGB images), on
 *                     8-bit levels (floats rounded to levels of 255 and back): w[1] particles
 *                     in the w[3] WK_COL_DATA operations after it (skipped with it), three an
 *                     operation (words 1-9: each one's centre's x and y and its radius in
 *                     whole pixels of an image of w[5] x w[6], scaled to the output where its
 *                     size differs), in the order of their centres' rows; w[4] the largest
 *                     radius. A pixel within k of them
 *                     takes v = rint(255 a + (1 - a) v) k times, a = w[2] (wk_fog8). The
 *                     blur after it is a WK_COL_BLUR of its own
 *   WK_COL_RAIN       albumentations' RandomRain on channels 0-2 (RGB images), on 8-bit levels
 *                     (floats rounded to levels of 255 and back): w[1] drops in the w[3]
 *                     WK_COL_DATA operations after it (skipped with it), two an operation
 *                     (words 1-4 and 5-8: x1, y1, x2, y2 in whole pixels of an image of w[4] x
 *                     w[5], scaled to the output where its size differs), in any order;
 *                     w[6] the most rows a drop spans (y2 - y1). Each drop is
 *                     cv2.line's 4-connected line (LINE_4, one pixel wide, clipped to the
 *                     output as OpenCV clips it) of colour w[7 .. 9] into a layer of zeros
 *                     (drawn before the launch by rain.cl into a bit mask after the list,
 *                     its place in word 9 of the first WK_COL_DATA operation);
 *                     the layer goes through cv2.blur's w[2] x w[2] box (edges reflected
 *                     without repeating the edge pixel; its rounding: wk_rain_box8, w[10] =
 *                     float(1 / w[2]^2)) and is added to the pixel, saturated. Where w[11] is
 *                     1, 24 more WK_COL_DATA operations hold 256 levels (words 1-11 each): the
 *                     sum's level v becomes level v of them (cv2.multiply by the brightness)
 *   WK_COL_GLASS      one iteration w[2] of albumentations' GlassBlur swaps (its "fast" mode;
 *                     w[6] = 1: its "exact" mode, one swap after another), displacements up to
 *                     w[1], the generator's key in w[3 .. 5]. A whole-image operation
 *                     (colour_pass.cl's cp_glass8); here no operation
 *   WK_COL_PLASMA     albumentations' PlasmaShadow (w[5] = 1): v (1 - P w[6]), clipped, integer
 *                     images truncated to a level; or its PlasmaBrightnessContrast without the
 *                     contrast (w[5] = 0): x = v / peak (as its float conversion), x + clip(P w[6],
 *                     0, 1) clipped to [0, 1], integer images rounded back to a level. P the
 *                     pixel's plasma pattern in [0, 1] (plasma.cl makes it before the launch
 *                     from the key w[1 .. 3] and the roughness w[4], into the area at w[9] 2^20
 *                     + w[10] operations from the operation, w[11] floats a row)
 *   WK_COL_PLASMA_MEAN PlasmaBrightnessContrast with its contrast c = w[7]: after the
 *                     brightness, x = clip(x w) + m (1 - w) clipped, w = clip(P c, 0, 1) + 1, m
 *                     the mean of x over the image and its channels after the brightness (a
 *                     whole-image value: colour_pass.cl's colour_mean sums it). Every product
 *                     of P is clipped to [0, 1] as albumentations' (so that negative factors
 *                     change nothing)
 *   WK_COL_SNOW_TEX   albumentations' RandomSnow ("texture") on channels 0-2, in OpenCV's 8-bit
 *                     HSV (float images through levels of 255 and back, as its uint8_io): V
 *                     times w[4] (1 + coefficient x snow point) up to 255, then every channel
 *                     plus T w[5] (T the pixel's texture, w[5] = 255 x snow point), then
 *                     0.85 x + tint w[6] (tint 0.6, 0.75, 1; w[6] = 0.15 x snow point; its
 *                     cv2.addWeighted, fused), truncated and wrapped to a byte (numpy's
 *                     float32 -> uint8 on x86-64), back to RGB (cv::HSV2RGB_b, hues past 180
 *                     wrapped); sparkle pixels white. snow.cl makes T and the sparkles
 *                     before the launch from the key w[1 .. 3], into the area at w[9] 2^20 +
 *                     w[10] operations from the operation: the sparkles' bits first (a row
 *                     of w[11] / 32 words, bit x % 32 of word x / 32), T w[8] floats in
 *                     (rows of w[11] floats) (wk_snow_tex8)
 *   WK_COL_HESTAIN    albumentations' HEStain with a given stain matrix S (2 x 3) on R, G, B as
 *                     fractions of the peak x: optical densities d = -log(max(x, 1e-6)), the
 *                     stains' concentrations k = A d (A = (S S^T + 1e-6 I)^-1 S, 2 x 3, in
 *                     w[1 .. 6] row by row), where the pixel is tissue (luminosity 0.299 R +
 *                     0.587 G + 0.114 B below 0.85) or w[11] = 1: k = k s + t (s in w[7, 8], t
 *                     in w[9, 10]); then exp(-S^T k), clipped to [0, 1], back to the peak (S in
 *                     words 1 .. 6 of the WK_COL_DATA operation after it, row by row)
 *   WK_COL_FDA        albumentations' FDA (Fourier domain adaptation): the image's DFT
 *                     amplitudes in a window of w[2] row frequencies from w[1] and w[4] column
 *                     frequencies from w[3] (signed) replaced by a reference's, its phases
 *                     kept. A whole-image operation: it starts a pass (colour_pass.cl's FDA),
 *                     which adds each pixel's change; w[5] the column pairs the window touches
 *                     (engine.core.fda_folds); the reference's amplitudes in the call's
 *                     colour table from the place w[6] 65536 + w[7] (rfft2's half: channel,
 *                     row, column 0 .. Wo / 2); no data operations (w[10] 0)
 *   WK_COL_PASTE      albumentations' OverlayElements: the w[3] x w[4] pixels of the output
 *                     from column w[1], row w[2] whose bit is set take the element's values
 *                     (its pixels' C channels each, in the image's units), in the call's
 *                     colour table from the place w[6] 65536 + w[7]: first the bits, 16 a
 *                     value (the lowest first) row-major, then the pixels row-major, channels
 *                     interleaved. The engine puts the table after the items' lists (and the
 *                     areas the device fills) in the same buffer, w[9] 2^20 + w[10]
 *                     operations from the operation (wk_paste8)
 *   WK_COL_SPATTER    albumentations' Spatter on channels 0-2 (RGB), on values x in [0, 1]
 *                     (levels / 255 for uint8, rounded back): the layer m of the pixel (the
 *                     call's colour table from the place w[6] 65536 + w[7], row-major, one
 *                     value a pixel; w[9], w[10] as WK_COL_PASTE's) times w[2 + c]: w[1] = 0
 *                     (rain) x + m w[2 + c]; w[1] = 1 (mud, w[2 + c] the colour) x n + m c,
 *                     n = clip((c - m c) / c, 0, 1) (1 - m where c is 0); clipped (wk_spatter8)
 *   WK_COL_FRAME      the frame of an earlier image (a pipeline's step's input, Compose's
 *                     edges="each_step"): the pixel's place in it, q = (w[1] x + w[2] y + w[3],
 *                     w[4] x + w[5] y + w[6]) / (w[7] x + w[8] y + d), d = -1 where the data
 *                     operation's word 5 is negative, else 1 (a pixel where the divisor is
 *                     <= 0 is outside), and the part c of its
 *                     taps inside the image of w[9] x w[10] pixels (centres 0 .. w[9] - 1):
 *                     linear (w[11] = 0) clip(qx + 1) clip(w[9] - qx) clip(qy + 1)
 *                     clip(w[10] - qy), each clipped to [0, 1] (the weight that OpenCV's
 *                     bilinear gives the image's pixels, the rest going to the constant
 *                     border), nearest (w[11] = 1) 1 where qx in [-0.5, w[9] - 0.5) and qy
 *                     likewise, else 0; v = c v + (1 - c) f, f the fill (words 1-4) of the
 *                     WK_COL_DATA operation after it (skipped with it); integer images
 *                     rounded to a level, halves up (wk_frame8)
 *
 * The 8 pixels' position: row at.y, columns at.x .. at.x + 7 of an output of dims = (Wo, Ho).
 */
#ifndef COLOUR
#define COLOUR 0
#endif
#define WK_COL_WORDS 12
/* the place an operation's words 9 and 10 name, w[9] 2^20 + w[10] operations from it: its area
 * that the device fills after the items' lists, or the call's colour table after those
 * (engine.core's _place_words writes them) */
#define WK_COL_AREA(op) ((op) + ((long)(op)[9] * 1048576 + (long)(op)[10]) * WK_COL_WORDS)
/* the 8 values of d at the lanes' indices i (an int8) */
#define WK_AT8(d, i) ((float8)((d)[(i).s0], (d)[(i).s1], (d)[(i).s2], (d)[(i).s3], \
                               (d)[(i).s4], (d)[(i).s5], (d)[(i).s6], (d)[(i).s7]))
#define WK_COL_AFFINE 1
#define WK_COL_GAMMA 2
#define WK_COL_GRAY 3
#define WK_COL_SHUFFLE 4
#define WK_COL_SOLARIZE 5
#define WK_COL_POSTERIZE 6
#define WK_COL_CONTRAST 7
#define WK_COL_SATURATE 8
#define WK_COL_HUE 9
#define WK_COL_HSV 10
#define WK_COL_AFFINE_MEAN 11
#define WK_COL_NOISE 12
#define WK_COL_HOLE 13
#define WK_COL_BLUR 14
#define WK_COL_DATA 15
#define WK_COL_MOTION 16
#define WK_COL_MEDIAN 17
#define WK_COL_CONV 18
#define WK_COL_CLAHE 19
#define WK_COL_DOWNSCALE 20
#define WK_COL_MATRIX 21
#define WK_COL_CURVE 22
#define WK_COL_JPEG 23
#define WK_COL_EQUALIZE 24
#define WK_COL_ISO 25
#define WK_COL_SALT 26
#define WK_COL_HOLES 27
#define WK_COL_TAPS 28
#define WK_COL_PIXDROP 29
#define WK_COL_SHOT 30
#define WK_COL_PCA 31
#define WK_COL_UNSHARP 32
#define WK_COL_ZOOM 33
#define WK_COL_SNOW 34
#define WK_COL_CHROMA 35
#define WK_COL_LIGHT 36
#define WK_COL_GRAVEL 37
#define WK_COL_POLY 38
#define WK_COL_MORPH 39
#define WK_COL_FLARE 40
#define WK_COL_FOG 41
#define WK_COL_RAIN 42
#define WK_COL_GLASS 43
#define WK_COL_PLASMA 44
#define WK_COL_PLASMA_MEAN 45
#define WK_COL_SNOW_TEX 46
#define WK_COL_HESTAIN 47
#define WK_COL_FDA 48
#define WK_COL_FLARE_PB 49
#define WK_COL_PASTE 50
#define WK_COL_SPATTER 51
#define WK_COL_FRAME 52
/* WK_COL_HEAVY: which of the larger operations a build holds (the host's engine.core
 * colour_groups: the groups some item's list has, and every group that launch has had in the
 * process, so that a pipeline's builds settle on one); the others are compiled out. Each one
 * inlined into the warp costs registers and code whether an item uses it or not. PoCL, 64
 * photos to float32 224x224, one brightness operation per item, A/B runs of each build in
 * two phases of the host: the warp took 4.6-5.2 ms more than without colour with every
 * operation compiled in, 2.4-2.5 ms with these out (in a slower phase 9.7 -> 7.4 ms). The HSV
 * round trips were calls (noinline) for a time; since the channels stay in registers
 * (WK_EACH_C) they are inlined again: a hue 14.5 -> 9.5 ms, a brightness in a build with the
 * HSV group 4.0-4.5 -> 3.0-3.5 ms (docs/performance.md, 2026-11-28) */
#define WK_COLG_GAMMA 1
#define WK_COLG_HSV 2 /* WK_COL_HUE and WK_COL_HSV */
#define WK_COLG_NOISE 4 /* WK_COL_NOISE, WK_COL_SALT, WK_COL_PIXDROP and WK_COL_SHOT */
#define WK_COLG_HOLE 8 /* WK_COL_HOLE, WK_COL_HOLES and WK_COL_FRAME */
#define WK_COLG_POSTERIZE 16
/* WK_COL_MEDIAN's 5x5 and 7x7 selection networks (colour_pass.cl): without them those sizes
 * take the median's search, the same values more slowly; their code took rusticl a minute to
 * compile */
#define WK_COLG_MED5 32
#define WK_COLG_MED7 64
#define WK_COLG_TONE 128 /* WK_COL_MATRIX, WK_COL_CURVE and WK_COL_HESTAIN */
#define WK_COLG_ISO 256 /* WK_COL_ISO, WK_COL_SNOW and WK_COL_GRAVEL (OpenCV's HLS) */
#define WK_COLG_LIGHT 512 /* WK_COL_LIGHT */
#define WK_COLG_POLY 1024 /* WK_COL_POLY */
#define WK_COLG_FLARE 2048 /* WK_COL_FLARE */
#define WK_COLG_FOG 4096 /* WK_COL_FOG */
#define WK_COLG_RAIN 8192 /* WK_COL_RAIN */
#define WK_COLG_PLASMA 16384 /* WK_COL_PLASMA and WK_COL_PLASMA_MEAN */
#define WK_COLG_SNOW 32768 /* WK_COL_SNOW_TEX */
#define WK_COLG_FLARE_PB 65536 /* WK_COL_FLARE_PB */
#define WK_COLG_PASTE 131072 /* WK_COL_PASTE */
#define WK_COLG_SPATTER 262144 /* WK_COL_SPATTER */
/* WK_COL_GRAY's method 4 (OpenCV's Lab, wk_lab_gray8): its table lookups inlined into every
 * build made every warp with colour 5-9x slower on PoCL (GaussNoise 17 -> 86 ms, CoarseDropout
 * 13 -> 120 ms, ToGray's weighted average 11 -> 84 ms a batch of 64, Zen 4); out of line and
 * in a group of its own, none of them moves */
#define WK_COLG_LAB 524288
#ifndef WK_COL_HEAVY
#define WK_COL_HEAVY (2 * WK_COLG_LAB - 1) /* every group */
#endif
/* the largest Poisson count WK_COL_SHOT draws: its mean is at most 50 (engine.core refuses
 * scales below MIN_SHOT_SCALE); a count of 150 or more has a chance below 1e-25 */
#define WK_SHOT_MAX_COUNT 150
/* the largest Poisson count WK_COL_ISO draws (its mean is at most 5: engine.core refuses
 * intensities past MAX_ISO_INTENSITY; a count past 31 has a chance below 1e-12) */
#define WK_ISO_MAX_COUNT 32

#if COLOUR
#define WK_COLOUR_PARAM , __global const float *restrict COL, int ncol
#if X_KIND == WK_INT
#define WK_COL_INT 1
#define WK_PEAK ((float)(X_MAX))
/* a level: what a lookup table's entry holds (values are >= 0 here) */
#define WK_COL_LEVEL(v) wk_floor8(v)
#else
#define WK_COL_INT 0
#define WK_PEAK 1.0f
#define WK_COL_LEVEL(v) (v)
#endif

inline __attribute__((always_inline)) float8 wk_col_clip(float8 v) { return wk_clamp8(v, 0.0f, WK_PEAK); }

/* OpenCV's weighted gray (0.299 R + 0.587 G + 0.114 B): uint8 levels in its fixed point
 * (weights of 2^-14, rounded: exact in float), other integers rounded to a level */
inline __attribute__((always_inline)) float8 wk_gray8(const float8 *v) {
#if WK_COL_INT
    if (WK_PEAK == 255.0f)
        return wk_floor8((4899.0f * v[0] + 9617.0f * v[1] + 1868.0f * v[2] + 8192.0f) * (1.0f / 16384.0f));
    return wk_col_clip(wk_floor8(0.299f * v[0] + 0.587f * v[1] + 0.114f * v[2] + 0.5f));
#else
    return 0.299f * v[0] + 0.587f * v[1] + 0.114f * v[2];
#endif
}

/* OpenCV's HSV to RGB (cv::HSV2RGB_native) for h in sixths of a turn within [0, 6) (the
 * 8-bit hue's H / 30 always is), s and v in [0, 1]; r, g, b in v's units. OpenCV's gray case
 * (s == 0: v in every channel) needs no select: p, q and t are then v times exactly 1 */
inline __attribute__((always_inline)) void wk_hsv_rgb8_in(float8 h, float8 s, float8 v, float8 *r, float8 *g, float8 *b) {
    const float8 sec = wk_floor8(h), f = h - sec;
    const float8 p = v * (1.0f - s), q = v * (1.0f - s * f), t = v * (1.0f - s * (1.0f - f));
    const int8 k = convert_int8(sec);
    *r = (k == 0 || k == 5) ? v : (k == 1 ? q : (k == 4 ? t : p));
    *g = (k == 1 || k == 2) ? v : (k == 0 ? t : (k == 3 ? q : p));
    *b = (k == 3 || k == 4) ? v : (k == 2 ? t : (k == 5 ? q : p));
}

/* the same for any h in (-6, 12): brought into [0, 6) first */
inline __attribute__((always_inline)) void wk_hsv_rgb8(float8 h, float8 s, float8 v, float8 *r, float8 *g, float8 *b) {
    h = h < 0.0f ? h + 6.0f : h;
    h = h >= 6.0f ? h - 6.0f : h;
    wk_hsv_rgb8_in(h, s, v, r, g, b);
}

/* a / b for 0 <= a < 2^21 and 0 < b: the float quotient truncated, one more where it fell
 * below a whole quotient (vector integer division has no SIMD instruction on CPUs). Exact on
 * any device whose division is within OpenCL's 2.5 ulp: a quotient n + f with f > 0 has
 * f >= 1 / b, the error is below 2.5 * 2^-23 * a / b < 0.625 / b, so only a whole n can come
 * out as n - 1 */
inline __attribute__((always_inline)) int8 wk_idiv8(int8 a, int8 b) {
    const int8 q = convert_int8(convert_float8(a) / convert_float8(b));
#if WK_BUILTINS
    /* PoCL's CPU division is IEEE's, correctly rounded: the quotient n + r / b (r >= 1) lies
     * 1 / b or more below n + 1 and half an ulp of it is below a / (b 2^24) < 1 / b, so it
     * never rounds up to n + 1 and the truncation is n */
    return q;
#else
    return (q + 1) * b <= a ? q + 1 : q;
#endif
}

/* OpenCV's 8-bit RGB to HSV (cv::RGB2HSV_b, its fixed-point tables): levels in, H in [0, 180),
 * S and V levels */
inline __attribute__((always_inline)) void wk_rgb_hsv8_u8(float8 r_, float8 g_, float8 b_, float8 *H, float8 *S, float8 *V) {
    const int8 r = convert_int8(r_), g = convert_int8(g_), b = convert_int8(b_);
    const int8 v = WK_MAX(r, WK_MAX(g, b)), d = v - WK_MIN(r, WK_MIN(g, b));
    const int8 one = (int8)1;
    /* the tables: round((255 << 12) / v) and round((180 << 12) / (6 d)); OpenCV's 0 where v
     * or d is 0 need not be: they are multiplied by d = 0 there, and hp is 0 where d is */
    const int8 vs = WK_MAX(v, one), ds = WK_MAX(d, one);
    const int8 sdiv = wk_idiv8(2 * 1044480 + vs, 2 * vs);
    const int8 hdiv = wk_idiv8(2 * 122880 + ds, 2 * ds);
    const int8 hp = v == r ? g - b : (v == g ? b - r + 2 * d : r - g + 4 * d);
    /* (x + 2^11) >> 12, rounding down for negatives too */
    int8 h = ((hp * hdiv + 2048 + 1048576) >> 12) - 256;
    h = h < 0 ? h + 180 : h;
    *H = convert_float8(h);
    *S = convert_float8((d * sdiv + 2048) >> 12);
    *V = convert_float8(v);
}

/* 8-bit HSV back to RGB levels (cv::HSV2RGB_b: through floats, truncated, as OpenCV 5 does;
 * OpenCV 4 rounded, a level apart). H in [0, 180) gives h in [0, 6); S and V up to 255 give
 * s and v up to 1 (255 (1 / 255) rounds to 1), so every channel is v times a factor in [0, 1]
 * and its level lies in [0, 255] unclamped, as OpenCV's saturate finds it */
inline __attribute__((always_inline)) void wk_hsv_rgb8_u8(float8 H, float8 S, float8 V, float8 *r, float8 *g, float8 *b) {
    wk_hsv_rgb8_in(H * (6.0f / 180.0f), S * (1.0f / 255.0f), V * (1.0f / 255.0f), r, g, b);
    *r = wk_floor8(*r * 255.0f);
    *g = wk_floor8(*g * 255.0f);
    *b = wk_floor8(*b * 255.0f);
}

/* albumentations' HueSaturationValue on 8-bit HSV (its float images through levels of 255) */
inline __attribute__((always_inline)) void wk_hsv_shift8(float8 *v, int C, float dh, float ds, float dv) {
    const float k = 255.0f / WK_PEAK;
#if WK_COL_INT
#define WK_HSV_IN(x) ((x) * k)
#else
#define WK_HSV_IN(x) wk_clamp8(wk_rint8((x) * 255.0f), 0.0f, 255.0f)
#endif
    if (C < 3) { /* gray: through RGB and back, only the value moves */
        v[0] = wk_clamp8(WK_HSV_IN(v[0]) + dv, 0.0f, 255.0f) / k;
        return;
    }
    float8 H, S, V, r, g, b;
    wk_rgb_hsv8_u8(WK_HSV_IN(v[0]), WK_HSV_IN(v[1]), WK_HSV_IN(v[2]), &H, &S, &V);
#undef WK_HSV_IN
    float8 h = H + dh;
    h = wk_floor8(h - 180.0f * wk_floor8(h * (1.0f / 180.0f)));
    h = h >= 180.0f ? h - 180.0f : h;
    S = S == 0.0f ? S : wk_clamp8(S + ds, 0.0f, 255.0f);
    V = wk_clamp8(V + dv, 0.0f, 255.0f);
    wk_hsv_rgb8_u8(h, S, V, &r, &g, &b);
    v[0] = r / k;
    v[1] = g / k;
    v[2] = b / k;
}

/* the hue turned by `turn` of a turn (ColorJitter): integer images through OpenCV's 8-bit HSV,
 * as HueSaturationValue's hue shift (albumentations' table is the same), floats through its
 * float HSV (degrees) */
inline __attribute__((always_inline)) void wk_hue8(float8 *v, float turn) {
#if WK_COL_INT
    wk_hsv_shift8(v, 3, 180.0f * turn, 0.0f, 0.0f);
#else
    /* cv::RGB2HSV_f: degrees, with its FLT_EPSILON */
    const float8 r = v[0], g = v[1], b = v[2];
    const float8 mx = wk_fmax8(r, wk_fmax8(g, b)), d = mx - wk_fmin8(r, wk_fmin8(g, b));
    const float8 s = d / ((mx < 0.0f ? -mx : mx) + FLT_EPSILON), dd = 60.0f / (d + FLT_EPSILON);
    float8 h = mx == r ? (g - b) * dd : (mx == g ? (b - r) * dd + 120.0f : (r - g) * dd + 240.0f);
    h = h < 0.0f ? h + 360.0f : h;
    h = h + 360.0f * turn;
    h = h - 360.0f * wk_floor8(h * (1.0f / 360.0f));
    wk_hsv_rgb8(h * (1.0f / 60.0f), s, mx, &v[0], &v[1], &v[2]);
#endif
}

/* Philox-4x32-10 (Salmon et al., Random123) on 8 counters at once: the block of counter
 * (c0, c1, c2, 0) under key (k0, k1) in o[0 .. 3] */
inline void wk_philox8(uint8 c0, uint8 c1, uint8 c2, uint k0, uint k1, uint8 *o) {
    uint8 c3 = (uint8)0;
    for (int r = 0; r < 10; r++) {
        const uint8 hi0 = wk_mul_hi8(c0, 0xD2511F53u), hi1 = wk_mul_hi8(c2, 0xCD9E8D57u);
        const uint8 lo0 = (uint8)0xD2511F53u * c0, lo1 = (uint8)0xCD9E8D57u * c2;
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    o[0] = c0;
    o[1] = c1;
    o[2] = c2;
    o[3] = c3;
}

/* a uniform number in (0, 1] from a word's 24 high bits */
inline float8 wk_unit8(uint8 w) { return convert_float8((w >> 8) + 1u) * (1.0f / 16777216.0f); }

/* the sample's key from an operation's three words (exact integers below 2^24, 2^24, 2^16) */
inline uint2 wk_key(__global const float *w) {
    const uint a = (uint)w[0], b = (uint)w[1], c = (uint)w[2];
    return (uint2)(a | ((c & 0xFFu) << 24), b | ((c >> 8) << 24));
}

/* ln(u) for u in (0, 1], in basic arithmetic (the same on every device, unlike the built-in's
 * ulps, and cheaper): u = m 2^e, m in [0.75, 1.5), ln m = 2 atanh((m - 1) / (m + 1)) by its
 * series (|s| <= 0.2: 5 terms, below 2e-9) */
inline float8 wk_ln8(float8 u) {
    const int8 bits = as_int8(u);
    /* the mantissa in [sqrt(1/2), sqrt(2)): its top bit (m >= 1.5 is near enough: the series
     * converges on [0.75, 1.5) as well) moves it down an octave */
    const int8 big = (bits >> 22) & 1;
    const int8 e = ((bits >> 23) & 0xFF) - 127 + big;
    const float8 m = as_float8((bits & 0x7FFFFF) | ((0x7F - big) << 23));
    const float8 s = (m - 1.0f) / (m + 1.0f), s2 = s * s;
    const float8 series = s * (2.0f + s2 * (0.6666667f + s2 * (0.4f + s2 * (0.2857143f + s2 * 0.2222222f))));
    return convert_float8(e) * 0.69314718f + series;
}

/* x^e for x in [0, 1] as exp(e ln x) with wk_ln8 (0 at 0; within ~1e-7 of it relative):
 * PoCL's pow (a library call per lane) took ~90 ms per 64 outputs of 224 x 224 x 3, this ~17
 * (ShotNoise's two powers, RandomGamma's) */
inline float8 wk_pow01_8(float8 x, float e) {
    return WK_SELECT(exp(e * wk_ln8(x)), (float8)0.0f, x <= 0.0f);
}

/* cos and sin of a turn fraction u in [0, 1]: a quarter turn's quadrant, then Taylor series
 * about its middle (|x| <= pi/4: below 2e-9) */
inline void wk_cos_sin_turn8(float8 u, float8 *c, float8 *s) {
    const float8 q4 = wk_floor8(4.0f * u);
    const float8 x = (4.0f * u - q4 - 0.5f) * 1.5707963f, x2 = x * x;
    const float8 cx = 1.0f + x2 * (-0.5f + x2 * (0.041666668f + x2 * (-0.0013888889f + x2 * 2.4801587e-5f)));
    const float8 sx = x * (1.0f + x2 * (-0.16666667f + x2 * (0.008333334f + x2 * (-1.984127e-4f + x2 * 2.7557319e-6f))));
    /* the quadrant's middle is pi/4 past its start: rotate (cx, sx) by it, then by q quarters */
    const float8 C = (cx - sx) * 0.70710678f, S = (cx + sx) * 0.70710678f;
    const int8 q = convert_int8(q4) & 3;
    *c = WK_SELECT(WK_SELECT(WK_SELECT(C, -S, q == 1), -C, q == 2), S, q == 3);
    *s = WK_SELECT(WK_SELECT(WK_SELECT(S, C, q == 1), -S, q == 2), -C, q == 3);
}

/* four standard normals per point (x, y) under key (Box-Muller on one Philox block: words 0
 * and 1 give z[0], z[1], words 2 and 3 give z[2], z[3]) */
inline void wk_normal4(int8 x, int8 y, uint2 key, float8 *z) {
    uint8 o[4];
    wk_philox8(as_uint8(x), as_uint8(y), (uint8)0, key.x, key.y, o);
    for (int k = 0; k < 4; k += 2) {
        const float8 r = wk_sqrt8(-2.0f * wk_ln8(wk_unit8(o[k])));
        float8 c, s;
        wk_cos_sin_turn8(wk_unit8(o[k + 1]), &c, &s);
        z[k] = r * c;
        z[k + 1] = r * s;
    }
}

/* ln of a standard gamma variate of shape s > 0 per point (x, y) under key, by Marsaglia and
 * Tsang's method: of shape s' = s (s + 1 below 1), d = s' - 1/3, c = 1 / sqrt(9 d); a try takes
 * a normal x (Box-Muller on words 0 and 1 of a Philox block) and u (word 2), v = (1 + c x)^3,
 * and is accepted where v > 0 and ln u < x^2 / 2 + d - d v + d ln v: the variate is d v. Below
 * 1, times u'^(1/s) (u' word 3 of the first try): ln d v + ln u' / s, in logarithms so that
 * nothing underflows. The tries' blocks have counter (x, y, stream + try); a lane stops at its
 * first accepted try, all 8 at most 24 tries (each accepted with a chance above 0.95: a lane
 * that fails them all, a chance below 10^-31, takes d, the variate's mode and nearly its mean). */
inline float8 wk_ln_gamma8(int8 x, int8 y, uint stream, uint2 key, float s) {
    const float sp = s < 1.0f ? s + 1.0f : s;
    const float d = sp - 1.0f / 3.0f, c = 1.0f / sqrt(9.0f * d);
    float8 out = (float8)log(d), boost = (float8)0.0f;
    int8 done = (int8)0;
    for (int t = 0; t < 24; t++) {
        uint8 o[4];
        wk_philox8(as_uint8(x), as_uint8(y), (uint8)(stream + (uint)t), key.x, key.y, o);
        float8 cs, sn;
        wk_cos_sin_turn8(wk_unit8(o[1]), &cs, &sn);
        const float8 xn = wk_sqrt8(-2.0f * wk_ln8(wk_unit8(o[0]))) * cs;
        const float8 t1 = 1.0f + c * xn, v = t1 * t1 * t1;
        const float8 lv = wk_ln8(fmax(v, FLT_MIN));
        const int8 ok = (v > 0.0f) & (wk_ln8(wk_unit8(o[2])) < 0.5f * xn * xn + d - d * v + d * lv);
        if (t == 0 && s < 1.0f) boost = wk_ln8(wk_unit8(o[3])) / s;
        out = WK_SELECT(out, log(d) + lv, ok & (done == (int8)0));
        done = done | ok;
        if (all(done)) break;
    }
    return out + boost;
}

/* WK_COL_NOISE's numbers of kind 3: Beta(ab.x, ab.y) as X / (X + Y), X and Y standard gammas of
 * those shapes (wk_ln_gamma8: 1 / (1 + exp(ln Y - ln X))), number k's streams 1 + 64 k and 33
 * + 64 k */
inline float8 wk_beta8(int8 x, int8 y, uint2 key, int k, float2 ab) {
    const float8 lx = wk_ln_gamma8(x, y, 1u + 64u * (uint)k, key, ab.x);
    const float8 ly = wk_ln_gamma8(x, y, 33u + 64u * (uint)k, key, ab.y);
    return 1.0f / (1.0f + exp(ly - lx));
}

/* WK_COL_NOISE's first n of four numbers per point (x, y) under key, by kind: 0 standard
 * normals (wk_normal4), 1 uniform in [0, 1) (1 - a word's wk_unit8), 2 standard Laplace (a
 * word's low bit the sign, -ln of its wk_unit8 the size: an exponential), each from one Philox
 * block of counter (x, y, 0); 3 Beta(ab.x, ab.y) (wk_beta8) */
inline void wk_noise4(int8 x, int8 y, uint2 key, int kind, float2 ab, int n, float8 *z) {
    if (kind == 0) {
        wk_normal4(x, y, key, z);
        return;
    }
    if (kind == 3) {
        for (int k = 0; k < n; k++) z[k] = wk_beta8(x, y, key, k, ab);
        return;
    }
    uint8 o[4];
    wk_philox8(as_uint8(x), as_uint8(y), (uint8)0, key.x, key.y, o);
    for (int k = 0; k < 4; k++) {
        if (kind == 1) {
            z[k] = 1.0f - wk_unit8(o[k]);
        } else {
            const float8 e = -wk_ln8(wk_unit8(o[k]));
            z[k] = WK_SELECT(e, -e, (o[k] & (uint8)1u) != (uint8)0u);
        }
    }
}

/* WK_COL_NOISE's numbers at the 8 pixels (wk_noise4's: kind, ab, the first n of four): on the
 * output's grid, or on a coarse grid of g = (width, height) points resized linearly onto dims
 * (OpenCV's INTER_LINEAR: half-pixel centres, the edge points held) */
inline void wk_noise_z(int2 at, int2 dims, uint2 key, float2 g, int kind, float2 ab, int n,
                       float8 *z) {
    const int8 x = (int8)(0, 1, 2, 3, 4, 5, 6, 7) + at.x;
    if (g.x <= 0.0f) {
        wk_noise4(x, (int8)at.y, key, kind, ab, n, z);
        return;
    }
    const float8 fx = (convert_float8(x) + 0.5f) * (g.x / (float)dims.x) - 0.5f;
    const float fy = ((float)at.y + 0.5f) * (g.y / (float)dims.y) - 0.5f;
    const int gw = (int)g.x, gh = (int)g.y;
    const float8 fl = wk_floor8(fx);
    int8 x0 = convert_int8(fl);
    const int8 low = x0 < (int8)0, high = x0 >= (int8)(gw - 1);
    const float8 ax = WK_SELECT(fx - fl, (float8)0.0f, low | high);
    x0 = WK_SELECT(WK_SELECT(x0, (int8)0, low), (int8)(gw - 1), high);
    const int8 x1 = WK_SELECT(x0 + (int8)1, x0, x0 >= (int8)(gw - 1));
    int y0 = (int)floor(fy);
    float ay = fy - (float)y0;
    if (y0 < 0) { y0 = 0; ay = 0.0f; }
    if (y0 >= gh - 1) { y0 = gh - 1; ay = 0.0f; }
    const int y1 = y0 + 1 < gh - 1 ? y0 + 1 : gh - 1;
    float8 z00[4], z01[4], z10[4], z11[4];
    wk_noise4(x0, (int8)y0, key, kind, ab, n, z00);
    wk_noise4(x1, (int8)y0, key, kind, ab, n, z01);
    wk_noise4(x0, (int8)y1, key, kind, ab, n, z10);
    wk_noise4(x1, (int8)y1, key, kind, ab, n, z11);
    for (int k = 0; k < n; k++)
        z[k] = (z00[k] * (1.0f - ax) + z01[k] * ax) * (1.0f - ay) + (z10[k] * (1.0f - ax) + z11[k] * ax) * ay;
}

#if WK_COL_HEAVY & WK_COLG_ISO
/* OpenCV's float RGB -> HLS (cv::RGB2HLS_f) of r, g, b in [0, 1]: the hue in degrees */
inline void wk_rgb2hls8(float8 r, float8 g, float8 b, float8 *h, float8 *l, float8 *s) {
    const float8 vmax = fmax(fmax(r, g), b), vmin = fmin(fmin(r, g), b), diff = vmax - vmin;
    *l = (vmax + vmin) * 0.5f;
    const int8 chroma = diff > FLT_EPSILON;
    *s = WK_SELECT((float8)0.0f, WK_SELECT(diff / (2.0f - vmax - vmin), diff / (vmax + vmin), *l < 0.5f), chroma);
    const float8 d = 60.0f / WK_SELECT((float8)1.0f, diff, chroma);
    const float8 x = WK_SELECT(WK_SELECT((r - g) * d + 240.0f, (b - r) * d + 120.0f, vmax == g), (g - b) * d, vmax == r);
    *h = WK_SELECT((float8)0.0f, WK_SELECT(x, x + 360.0f, x < 0.0f), chroma);
}

/* and back (cv::HLS2RGB_f: OpenCV's sectors of 60 degrees), the hue times hscale in sixths of
 * a turn (6 / 360 for degrees, 6 / 180 for OpenCV's 8-bit hue), into v[0 .. 2] as levels of
 * WK_PEAK: clipped, integer images rounded to the nearest level */
inline void wk_hls2rgb8(float8 h, float8 l, float8 s, float hscale, float8 *v) {
    float8 out[3];
    const float8 p2 = WK_SELECT(l + s - l * s, l * (1.0f + s), l <= 0.5f), p1 = 2.0f * l - p2;
    float8 hh = h * hscale;
    hh -= 6.0f * wk_floor8(hh * (1.0f / 6.0f));
    hh = WK_SELECT(hh, hh - 6.0f, hh >= 6.0f);
    const float8 sec = wk_floor8(hh), f = hh - sec;
    const float8 t2 = p1 + (p2 - p1) * (1.0f - f), t3 = p1 + (p2 - p1) * f;
    const int8 gray = s == 0.0f;
    out[0] = WK_SELECT(WK_SELECT(WK_SELECT(WK_SELECT(p2, t3, sec == 4.0f), p1, sec == 2.0f || sec == 3.0f), t2, sec == 1.0f), l, gray);
    out[1] = WK_SELECT(WK_SELECT(WK_SELECT(WK_SELECT(p1, t2, sec == 3.0f), p2, sec == 1.0f || sec == 2.0f), t3, sec == 0.0f), l, gray);
    out[2] = WK_SELECT(WK_SELECT(WK_SELECT(WK_SELECT(t2, p2, sec == 3.0f || sec == 4.0f), t3, sec == 2.0f), p1, sec <= 1.0f), l, gray);
    for (int q = 0; q < 3; q++) {
        const float8 x = wk_clamp8(out[q], 0.0f, 1.0f) * WK_PEAK;
        v[q] = WK_COL_INT ? wk_rint8(x) : x;
    }
}

/* WK_COL_ISO on 8 pixels' channels 0-2 (levels of WK_PEAK; mean: the image's E[L], E[L^2] in
 * [0, 1] units), in OpenCV's float HLS (hue in degrees) */
inline void wk_iso8(float8 *v, __global const float *op, float2 mean, int2 at) {
    float8 h, l, s;
    wk_rgb2hls8(v[0] * (1.0f / WK_PEAK), v[1] * (1.0f / WK_PEAK), v[2] * (1.0f / WK_PEAK), &h, &l, &s);
    /* the pixel's numbers: a normal for the hue (Box-Muller), a uniform in [0, 1) for the
     * lightness's Poisson count (by its distribution function) */
    uint8 o[4];
    const uint2 key = wk_key(op + 1);
    wk_philox8(as_uint8((int8)(0, 1, 2, 3, 4, 5, 6, 7) + at.x), (uint8)at.y, (uint8)0x49534Fu, key.x, key.y, o);
    float8 c, sn;
    wk_cos_sin_turn8(wk_unit8(o[1]), &c, &sn);
    h += wk_sqrt8(-2.0f * wk_ln8(wk_unit8(o[0]))) * c * op[4];
    const float lam = op[5] * sqrt(fmax(mean.y - mean.x * mean.x, 0.0f));
    const float8 u = 1.0f - wk_unit8(o[2]);
    float p = exp(-lam), F = p;
    float8 k = 0.0f;
    for (int i = 1; i < WK_ISO_MAX_COUNT && any(u > (float8)F); i++) {
        k += WK_SELECT((float8)0.0f, (float8)1.0f, u > (float8)F);
        p *= lam / (float)i;
        F += p;
    }
    l = fmin(l + k * op[5] * (1.0f - l), 1.0f);
    wk_hls2rgb8(h, l, s, 6.0f / 360.0f, v);
}

/* WK_COL_SNOW on 8 pixels' channels 0-2 (levels of WK_PEAK): albumentations' RandomSnow
 * "bleach". On uint8, OpenCV's 8-bit HLS round trip (cv::RGB2HLS_b, cv::HLS2RGB_b: the float
 * conversions between levels of 255 and a hue of 180), the lightness level L times w[2] where
 * L < w[1], clipped to [0, 255] and truncated (numpy's store into uint8); other dtypes in
 * float HLS, without the 8-bit levels: the lightness l times w[2] where 255 l < w[1], clipped
 * to [0, 1] */
inline void wk_snow8(float8 *v, __global const float *op) {
    float8 h, l, s;
    wk_rgb2hls8(v[0] * (1.0f / WK_PEAK), v[1] * (1.0f / WK_PEAK), v[2] * (1.0f / WK_PEAK), &h, &l, &s);
#if X_KIND == WK_INT && X_MAX == UCHAR_MAX
    {
        const float8 hq = wk_clamp8(wk_rint8(h * 0.5f), 0.0f, 255.0f), sq = wk_clamp8(wk_rint8(s * 255.0f), 0.0f, 255.0f);
        float8 lq = wk_clamp8(wk_rint8(l * 255.0f), 0.0f, 255.0f);
        lq = wk_floor8(wk_clamp8(lq < (float8)op[1] ? lq * op[2] : lq, 0.0f, 255.0f));
        wk_hls2rgb8(hq, lq * (1.0f / 255.0f), sq * (1.0f / 255.0f), 6.0f / 180.0f, v);
    }
#else
    l = wk_clamp8(l * 255.0f < (float8)op[1] ? l * op[2] : l, 0.0f, 1.0f);
    wk_hls2rgb8(h, l, s, 6.0f / 360.0f, v);
#endif
}
#endif

#if WK_COL_HEAVY & WK_COLG_NOISE
/* WK_COL_SHOT on one channel of 8 pixels (levels of WK_PEAK), u their uniform numbers in
 * [0, 1): the count is the first k whose distribution function passes u (each lane stops
 * adding when its own has) */
inline float8 wk_shot8(float8 v, float s, float8 u) {
    const float8 lam = (wk_pow01_8(v * (1.0f / WK_PEAK), 2.2f) + s * 1e-6f) / s;
    float8 p = exp(-lam), F = p, k = (float8)0.0f;
    for (int i = 1; i < WK_SHOT_MAX_COUNT && any(u >= F); i++) {
        k += WK_SELECT((float8)0.0f, (float8)1.0f, u >= F);
        p *= lam * (1.0f / (float)i);
        F += p;
    }
    const float8 y = wk_pow01_8(wk_clamp8(k * s, 0.0f, 1.0f), 1.0f / 2.2f) * WK_PEAK;
    return WK_COL_INT ? wk_rint8(y) : y;
}
#endif

#if WK_COL_HEAVY & WK_COLG_TONE
/* WK_COL_HESTAIN on channels 0-2 of 8 pixels (levels of WK_PEAK) */
inline __attribute__((always_inline)) void wk_hestain8(__global const float *op, float8 *v) {
    __global const float *S = op + WK_COL_WORDS + 1;
    const float inv = 1.0f / WK_PEAK;
    const float8 r = v[0] * inv, g = v[1] * inv, b = v[2] * inv;
    const float8 dr = -log(fmax(r, 1e-6f)), dg = -log(fmax(g, 1e-6f)), db = -log(fmax(b, 1e-6f));
    float8 k0 = op[1] * dr + op[2] * dg + op[3] * db, k1 = op[4] * dr + op[5] * dg + op[6] * db;
    /* the luminosity as albumentations sums it, products first (no fused multiply-add: a pixel
     * at the threshold goes the same way) */
    const float8 lr = r * 0.299f, lg = g * 0.587f, lb = b * 0.114f;
    const float8 lum = (lr + lg) + lb;
    int8 tissue = lum < 0.85f;
    if (op[11] != 0.0f)
        tissue = (int8)(-1);
    k0 = tissue ? k0 * op[7] + op[9] : k0;
    k1 = tissue ? k1 * op[8] + op[10] : k1;
    const float8 y0 = wk_clamp8(exp(-(k0 * S[0] + k1 * S[3])), 0.0f, 1.0f) * WK_PEAK;
    const float8 y1 = wk_clamp8(exp(-(k0 * S[1] + k1 * S[4])), 0.0f, 1.0f) * WK_PEAK;
    const float8 y2 = wk_clamp8(exp(-(k0 * S[2] + k1 * S[5])), 0.0f, 1.0f) * WK_PEAK;
    v[0] = WK_COL_INT ? wk_rint8(y0) : y0;
    v[1] = WK_COL_INT ? wk_rint8(y1) : y1;
    v[2] = WK_COL_INT ? wk_rint8(y2) : y2;
}
#endif

/* `...` once for each channel c < C (<= 4), c a constant in each copy. The interpreter's
 * channel loops are written this way, not as loops: with C known after inlining (the warp's
 * CH) every v[c] is a fixed register, where PoCL left loops over v[c] as loops and so kept
 * the resampled pixels of every work-item in memory, read and written at each operation.
 * 64 photos to float32 224x224 on PoCL: an empty list cost the warp 6.9 ms, one brightness
 * 10.2 ms; as copies 2.5 and 3.6 ms (docs/performance.md, 2026-11-28) */
#define WK_AT_C(k, ...) if ((k) < C) { const int c = (k); __VA_ARGS__; }
#define WK_EACH_C(...) { WK_AT_C(0, __VA_ARGS__) WK_AT_C(1, __VA_ARGS__) WK_AT_C(2, __VA_ARGS__) WK_AT_C(3, __VA_ARGS__) }

/* albumentations' get_safe_brightness_contrast_params: (alpha, beta) of v * alpha + beta
 * narrowed so that values in [0, peak] stay there (beta in the image's units); where beta does
 * not read the image's mean the host narrows it when it draws (_colour.safe_alpha_beta) */
inline float2 wk_safe_affine(float a, float b) {
    if (a > 0.0f) {
        const float sb = fmin(fmax(b, 0.0f), WK_PEAK);
        return (float2)(fmin(a, (WK_PEAK - sb) / WK_PEAK), sb);
    }
    const float sb = fmin(b, WK_PEAK);
    return (float2)(fmax(a, -sb / WK_PEAK), sb);
}

#if WK_COL_HEAVY & WK_COLG_LIGHT
/* WK_COL_LIGHT on 8 pixels of row at.y from column at.x (an output of dims) */
inline __attribute__((always_inline)) void wk_light8(float8 *v, int C, __global const float *op, int2 at, int2 dims) {
    const float8 x = (float8)(0, 1, 2, 3, 4, 5, 6, 7) + (float)at.x, y = (float8)((float)at.y);
    const int mode = (int)op[1];
    float8 p;
    if (mode == 0) {
        const float ex = dims.x > 1 ? 1.0f : 0.0f, ey = dims.y > 1 ? 1.0f : 0.0f;
        float8 g = op[2] + op[3] * (x * (1.0f / (float)max(dims.x - 1, 1))) + op[4] * (y * (1.0f / (float)max(dims.y - 1, 1)));
        if (op[6] != 0.0f) { /* min-max scaled: the extremes of a plane are at its corners */
            const float a = op[2], b = op[2] + op[3] * ex, c = op[2] + op[4] * ey, d = op[2] + op[3] * ex + op[4] * ey;
            const float lo = fmin(fmin(a, b), fmin(c, d)), span = fmax(fmax(a, b), fmax(c, d)) - lo;
            g = span > 0.0f ? (g - lo) * (1.0f / span) : (float8)0.0f;
        }
        const float i = op[5];
        if (i < 0.0f) g = 1.0f - g;
        p = g * (2.0f * fabs(i)) + (1.0f - fabs(i));
    } else if (mode == 1) {
        const float8 dx = x - op[2] * (float)(dims.x - 1), dy = y - op[3] * (float)(dims.y - 1);
        const float diag = sqrt((float)dims.x * (float)dims.x + (float)dims.y * (float)dims.y);
        p = 1.0f - op[4] * (wk_sqrt8(dx * dx + dy * dy) * (1.0f / diag));
    } else {
        const float8 dx = x - op[2] * (float)dims.x, dy = y - op[3] * (float)dims.y;
        const float s = (float)max(dims.x, dims.y) * op[5];
        p = 1.0f + op[4] * exp((dx * dx + dy * dy) * (-1.0f / (2.0f * s * s)));
    }
#if WK_COL_INT && X_MAX == UCHAR_MAX
    if (mode == 0) {
        WK_EACH_C(v[c] = wk_col_clip(wk_rint8(v[c] * p)));
    } else {
        WK_EACH_C(v[c] = wk_floor8(wk_col_clip(v[c] * p)));
    }
#elif WK_COL_INT
    WK_EACH_C(v[c] = wk_col_clip(wk_rint8(v[c] * p)));
#else
    WK_EACH_C(v[c] = wk_col_clip(v[c] * p));
#endif
}
#endif

/* a hole's edges in output pixels: its fractions (x1, y1, x2, y2 of the image it was drawn on)
 * times the output's sides, halves up; the products rounded apart from the sums (never fused:
 * the host rounds as this). An edge before the image is 0 (no pixel lies before it either
 * way), so truncation is floor: one instruction, where PoCL's floor is a library call */
inline __attribute__((always_inline)) float4 wk_hole_edges(float4 frac, int2 dims) {
    const float4 e = frac * (float4)((float)dims.x, (float)dims.y, (float)dims.x, (float)dims.y);
    return convert_float4(convert_int4(fmax(e + 0.5f, 0.0f)));
}

/* the 8 pixels of row at.y from column at.x that lie in columns [r.x, r.z) of a hole whose rows
 * hold that row take the fill fills[c] (random == 0), or a uniform random level per pixel and
 * channel (Philox keyed on key[0], key[1] and the hole) */
inline __attribute__((always_inline)) void wk_hole_fill8(float8 *v, int C, float4 r, __global const float *fills,
                                                          int random, __global const float *key, int2 at) {
    const float8 px = (float8)(0, 1, 2, 3, 4, 5, 6, 7) + (float)at.x;
    const int8 in = px >= r.x && px < r.z;
    if (!random) {
        WK_EACH_C(v[c] = in ? (float8)wk_col_clip((float8)fills[c]) : v[c]);
        return;
    }
    uint8 o[4];
    /* in integers: a float sum past 2^32 has no defined conversion to uint */
    const uint tag = ((uint)r.x ^ ((uint)r.y << 16)) ^ (((uint)r.z ^ ((uint)r.w << 16)) * 0x9E3779B9u);
    wk_philox8(as_uint8(convert_int8(px)), (uint8)at.y, (uint8)tag, (uint)key[0], (uint)key[1], o);
    /* u in [0, 1) */
#if WK_COL_INT
    WK_EACH_C(v[c] = in ? wk_floor8(convert_float8(o[c] >> 8) * (1.0f / 16777216.0f) * (WK_PEAK + 1.0f)) : v[c]);
#else
    WK_EACH_C(v[c] = in ? convert_float8(o[c] >> 8) * (1.0f / 16777216.0f) * WK_PEAK : v[c]);
#endif
}

#if WK_COL_HEAVY & WK_COLG_HOLE
/* WK_COL_FRAME on the 8 pixels of row at.y from column at.x: the part of each pixel's taps in
 * the frame (op[1 .. 11]) keeps its value, the rest takes the fill (fills[c]) */
inline __attribute__((always_inline)) void wk_frame8(float8 *v, int C, __global const float *op,
                                                      __global const float *fills, int2 at) {
    const float8 x = (float8)(0, 1, 2, 3, 4, 5, 6, 7) + (float)at.x, y = (float8)((float)at.y);
    float8 qx = op[1] * x + op[2] * y + op[3], qy = op[4] * x + op[5] * y + op[6];
    const float d = fills[4] < 0.0f ? -1.0f : 1.0f;
    float8 w = (float8)d;
    if (op[7] != 0.0f || op[8] != 0.0f) { /* a perspective map (an affine one divides by 1) */
        w = op[7] * x + op[8] * y + d;
        qx /= w;
        qy /= w;
    }
    const float W = op[9], H = op[10];
    float8 in;
    if (op[11] != 0.0f) {
        in = convert_float8(-(qx >= -0.5f && qx < W - 0.5f && qy >= -0.5f && qy < H - 0.5f));
    } else {
        in = wk_clamp8(qx + 1.0f, 0.0f, 1.0f) * wk_clamp8(W - qx, 0.0f, 1.0f) *
             wk_clamp8(qy + 1.0f, 0.0f, 1.0f) * wk_clamp8(H - qy, 0.0f, 1.0f);
    }
    in = w > 0.0f ? in : (float8)0.0f; /* behind a perspective map's horizon: outside */
#if WK_COL_INT
    WK_EACH_C(v[c] = wk_col_clip(wk_floor8(in * v[c] + (1.0f - in) * fills[c] + 0.5f)));
#else
    WK_EACH_C(v[c] = wk_col_clip(in * v[c] + (1.0f - in) * fills[c]));
#endif
}
#endif

/* WK_COL_HOLES: the 8 pixels of row at.y from column at.x in any of the operation's holes take
 * their fill. Its band of rows found by bisection (bands are disjoint, in order), then the
 * band's first hole whose columns (or an earlier hole's) reach at.x by bisection on the running
 * maximum of x2, then holes in order of x1 until one starts past the 8 pixels: a few steps
 * whatever the count of holes (a step per operation cost ~10 cycles a block: 100 holes as
 * operations took 30 ms per 64 outputs of 224 x 224) */
#define WK_HOLE_BAND(b) (op + WK_COL_WORDS * (1 + ((b) >> 1)) + 1 + 4 * ((b) & 1))
#define WK_HOLE_AT(h) (op + WK_COL_WORDS * (1 + ((bands + 1) >> 1) + (h)) + 1)
inline __attribute__((always_inline)) int wk_edge(float frac, int side) {
    return convert_int(fmax(frac * (float)side + 0.5f, 0.0f)); /* wk_hole_edges' rounding */
}

inline __attribute__((always_inline)) void wk_holes8(float8 *v, int C, __global const float *op, int2 at, int2 dims) {
    const int bands = (int)op[1];
    int lo = 0, hi = bands;
    while (lo < hi) { /* the first band whose bottom is below this row */
        const int mid = (lo + hi) >> 1;
        if (wk_edge(WK_HOLE_BAND(mid)[1], dims.y) > at.y) hi = mid; else lo = mid + 1;
    }
    if (lo == bands || wk_edge(WK_HOLE_BAND(lo)[0], dims.y) > at.y) return;
    const int first = (int)WK_HOLE_BAND(lo)[2], end = first + (int)WK_HOLE_BAND(lo)[3];
    const int mode = (int)op[9];
    int h = first;
    hi = end;
    while (h < hi) { /* the first hole whose columns, or an earlier one's, reach at.x */
        const int mid = (h + hi) >> 1;
        if (wk_edge(WK_HOLE_AT(mid)[4], dims.x) > at.x) hi = mid; else h = mid + 1;
    }
    const float py = (float)at.y;
    for (; h < end; h++) {
        __global const float *q = WK_HOLE_AT(h);
        const float4 r = wk_hole_edges(vload4(0, q), dims);
        if (r.x >= (float)at.x + 8.0f) break;
        if (py >= r.y && py < r.w && r.z > (float)at.x)
            wk_hole_fill8(v, C, r, mode == 2 ? q + 5 : op + 5, mode == 1, op + 10, at);
    }
}

#if WK_COL_HEAVY & WK_COLG_ISO
/* WK_COL_GRAVEL on 8 pixels' channels 0-2 of row at.y from column at.x: OpenCV's 8-bit HLS
 * (as wk_snow8's), the lightness level of the last rectangle that holds a pixel, back to RGB
 * levels (float images: levels of 255 in and out, as albumentations' uint8 round trip). A
 * patch's box first: most rows meet no patch */
#define WK_GRAVEL_AT(q) (op + WK_COL_WORDS * (1 + patches + ((q) >> 1)) + 1 + 5 * ((q) & 1))
inline __attribute__((always_inline)) void wk_gravel8(float8 *v, __global const float *op, int2 at, int2 dims) {
    float8 h, l, s;
#if WK_COL_INT
    wk_rgb2hls8(v[0] * (1.0f / WK_PEAK), v[1] * (1.0f / WK_PEAK), v[2] * (1.0f / WK_PEAK), &h, &l, &s);
#else /* the image as uint8 levels first */
    wk_rgb2hls8(wk_rint8(wk_clamp8(v[0], 0.0f, 1.0f) * 255.0f) * (1.0f / 255.0f),
                wk_rint8(wk_clamp8(v[1], 0.0f, 1.0f) * 255.0f) * (1.0f / 255.0f),
                wk_rint8(wk_clamp8(v[2], 0.0f, 1.0f) * 255.0f) * (1.0f / 255.0f), &h, &l, &s);
#endif
    const float8 hq = wk_clamp8(wk_rint8(h * 0.5f), 0.0f, 255.0f), sq = wk_clamp8(wk_rint8(s * 255.0f), 0.0f, 255.0f);
    float8 lq = wk_clamp8(wk_rint8(l * 255.0f), 0.0f, 255.0f);
    const int patches = (int)op[1];
    const float8 px = (float8)(0, 1, 2, 3, 4, 5, 6, 7) + (float)at.x;
    const float py = (float)at.y, x0 = (float)at.x;
    for (int q = 0; q < patches; q++) {
        __global const float *pb = op + WK_COL_WORDS * (1 + q) + 1;
        const float4 b = wk_hole_edges(vload4(0, pb), dims);
        if (py < b.y || py >= b.w || b.x >= x0 + 8.0f || b.z <= x0) continue;
        const int first = (int)pb[4], end = first + (int)pb[5];
        for (int r = first; r < end; r++) {
            __global const float *g = WK_GRAVEL_AT(r);
            const float4 e = wk_hole_edges(vload4(0, g), dims);
            if (py >= e.y && py < e.w) lq = px >= e.x && px < e.z ? (float8)g[4] : lq;
        }
    }
    wk_hls2rgb8(hq, lq * (1.0f / 255.0f), sq * (1.0f / 255.0f), 6.0f / 180.0f, v);
#if !WK_COL_INT
    v[0] = wk_rint8(v[0] * 255.0f) * (1.0f / 255.0f);
    v[1] = wk_rint8(v[1] * 255.0f) * (1.0f / 255.0f);
    v[2] = wk_rint8(v[2] * 255.0f) * (1.0f / 255.0f);
#endif
}
#endif

#if WK_COL_HEAVY & WK_COLG_POLY
/* vertex k of a WK_COL_POLY operation in output pixels (wk_hole_edges' rounding) */
inline __attribute__((always_inline)) int2 wk_poly_vertex(__global const float *op, int k, int2 dims) {
    __global const float *q = op + WK_COL_WORDS * (1 + k / 5) + 1 + 2 * (k % 5);
    return (int2)(wk_edge(q[0], dims.x), wk_edge(q[1], dims.y));
}

/* WK_COL_POLY on 8 pixels of row at.y from column at.x. A pixel is set where it lies on an
 * edge's line (OpenCV's LineIterator, 8-connected, from the left end: after i steps along the
 * longer extent D the other has moved max(0, ceil((2 d i - D) / (2 D))), d the shorter), or
 * inside a pair of the row's crossings c: with L the crossings whose column c >> 16 lies left
 * of the pixel, the pixel is inside where L is odd, or where a crossing falls exactly on its
 * column (a pair [c0, c1] sets ceil(c0) .. floor(c1): the pixel x is in one iff c0 <= x 2^16
 * <= c1 for the sorted pairs). No sorting, no arrays: a few scalar steps an edge */
inline void wk_poly8(float8 *v, int C, __global const float *op, int2 at, int2 dims) {
    const int n = (int)op[1], y = at.y;
    /* the polygon's box (w[4 .. 7], rounded as its vertices): most blocks lie outside it */
    if (y < wk_edge(op[5], dims.y) || y > wk_edge(op[7], dims.y) || at.x > wk_edge(op[6], dims.x)
        || at.x + 7 < wk_edge(op[4], dims.x))
        return;
    const int8 X = (int8)(0, 1, 2, 3, 4, 5, 6, 7) + at.x;
    int8 odd = (int8)0, hit = (int8)0;
    int2 a = wk_poly_vertex(op, n - 1, dims);
    for (int k = 0; k < n; k++) {
        const int2 b = wk_poly_vertex(op, k, dims);
        const int2 p0 = a.x <= b.x ? a : b, p1 = a.x <= b.x ? b : a;
        const int dx = p1.x - p0.x, ady = abs(p1.y - p0.y), t = p1.y < p0.y ? p0.y - y : y - p0.y;
        if (t >= 0 && t <= ady && ady > dx) { /* steep: one pixel a row */
            /* max(0, ceil((2 dx t - ady) / (2 ady))) in 64 bits (2 dx t passes 2^31 on sides
             * past 2^15); the numerator plus 2 ady - 1 is >= 0, so truncation is the floor */
            const int off = (int)((2L * dx * t + ady - 1) / (2L * ady));
            hit |= X == (int8)(p0.x + off);
        } else if (t >= 0 && t <= ady) { /* shallow: the steps whose offset is t */
            const int lo = t == 0 ? 0 : (int)(((long)dx * (2 * t - 1)) / (2L * ady) + 1);
            const int hi = t == ady ? dx : (int)(((long)dx * (2 * t + 1)) / (2L * ady));
            hit |= X >= (int8)(p0.x + lo) && X <= (int8)(p0.x + hi);
        }
        if (a.y != b.y && y >= min(a.y, b.y) && y < max(a.y, b.y)) {
            /* C's division, toward zero, as OpenCV's */
            const long step = ((long)(b.x - a.x) << 16) / (long)(b.y - a.y);
            const long c = ((long)(a.y < b.y ? a.x : b.x) << 16) + (long)(y - min(a.y, b.y)) * step;
            const int col = (int)(c >> 16);
            odd ^= X > (int8)col;
            if ((c & 0xFFFF) == 0) hit |= X == (int8)col;
        }
        a = b;
    }
    const int8 in = hit | odd;
    const float f = op[2];
#if WK_COL_INT
    WK_EACH_C(v[c] = in ? wk_floor8(wk_col_clip(v[c] * f)) : v[c]);
#else
    WK_EACH_C(v[c] = in ? wk_floor8(wk_clamp8(wk_rint8(v[c] * 255.0f) * f, 0.0f, 255.0f)) * (1.0f / 255.0f) : v[c]);
#endif
}
#endif

#if WK_COL_HEAVY & (WK_COLG_FLARE | WK_COLG_FOG | WK_COLG_RAIN | WK_COLG_FLARE_PB)
/* a position or radius of a WK_COL_FLARE or WK_COL_FOG operation in output pixels: frac *
 * side, halves up (wk_edge's rounding, but a centre may lie left of or above the image). The
 * floor as a truncation and a step down below 0: PoCL's floor() is a call, and these are
 * taken per particle per block (the fog's kernel took 334 ms for 64 photos with it, 117
 * without) */
inline __attribute__((always_inline)) int wk_flare_px(float frac, int side) {
    const float t = frac * (float)side + 0.5f;
    const int i = (int)t;
    return i - ((float)i > t);
}

/* a pixel value of a WK_COL_FOG or WK_COL_RAIN operation (whole pixels of the size w0 it was drawn on) on
 * an output side of the same size as it is (no float floor: PoCL's is a call, and this is
 * taken per particle per block), else scaled as wk_flare_px scales */
#define WK_FOG_PX(v, w0, side) ((side) == (w0) ? (int)(v) : wk_flare_px((v) / (float)(w0), side))

/* whether each of 8 pixels at squared offsets (ax2, ay2) from a centre lies within radius r:
 * ax2 + ay2 <= r^2 in 32 unsigned bits, offsets and radius taken up to 65535 (a radius past it
 * holds every pixel of an image 32767 wide and high: flare circles' radii are cubes), never
 * summed (no 64-bit vectors: PoCL 3.0 passed them to builtins in another ABI) */
#define WK_FLARE_IN(ax2, ay2, r) wk_flare_in(ax2, ay2, (uint)min(r, 65535))
inline __attribute__((always_inline)) int8 wk_flare_in(uint8 ax2, uint ay2, uint r) {
    const uint rr = r * r;
    return (ax2 <= (uint8)rr) & ((uint8)ay2 <= (uint8)rr - ax2);
}
/* the squared offsets of 8 columns X from column x (each taken up to 65535) */
inline __attribute__((always_inline)) uint8 wk_flare_ax2(int8 X, int x) {
    const uint8 a = min(abs(X - (int8)x), (uint8)65535u);
    return a * a;
}
inline __attribute__((always_inline)) uint wk_flare_ay2(int y, int cy) {
    const uint a = min(abs(y - cy), 65535u);
    return a * a;
}
#endif

/* `...` for channels c = 0, 1, 2 as copies, not a loop (see WK_EACH_C) */
#define WK_FLARE_RGB(...) { { const int c = 0; __VA_ARGS__; } { const int c = 1; __VA_ARGS__; } { const int c = 2; __VA_ARGS__; } }
/* an integer value over d (a constant) as a float, correctly rounded (albumentations' float32
 * conversion: a table of float32(level) / 255, numpy's division for uint16): the product by
 * the reciprocal corrected once by its remainder, exact in a fused multiply-add */
inline __attribute__((always_inline)) float8 wk_over8(float8 v, float d) {
    const float8 q = v * (1.0f / d);
    return wk_fma8(wk_fma8(-q, (float8)d, v), (float8)(1.0f / d), q);
}

/* (macros: in every build, for the flare, the fog, the rain and the snow's texture) channels
 * 0-2 of v as 8-bit levels in q, and back: floats rounded to levels of 255 (and
 * clipped) as albumentations' uint8 round trip */
#if WK_COL_INT
#define WK_LEVELS_IN(q, v) WK_FLARE_RGB((q)[c] = (v)[c])
#define WK_LEVELS_OUT(v, q) WK_FLARE_RGB((v)[c] = (q)[c])
#else
#define WK_LEVELS_IN(q, v) WK_FLARE_RGB((q)[c] = wk_clamp8(wk_rint8((v)[c] * 255.0f), 0.0f, 255.0f))
#define WK_LEVELS_OUT(v, q) WK_FLARE_RGB((v)[c] = wk_over8((q)[c], 255.0f))
#endif

#if WK_COL_HEAVY & WK_COLG_FLARE
/* WK_COL_FLARE on 8 pixels of row at.y from column at.x: albumentations' add_sun_flare_overlay
 * per pixel. A blend changes a pixel only once an overlay holds a colour there (the overlay is
 * otherwise the pixel itself, and rint(a v + (1 - a) v) is v): a circle that holds none of
 * the 8 pixels, before any has been painted, is passed over */
inline void wk_flare8(float8 *v, __global const float *op, int2 at, int2 dims) {
    const int n = (int)op[1], m = (int)op[2];
    const int8 X = (int8)(0, 1, 2, 3, 4, 5, 6, 7) + at.x;
    float8 q[3], o[3];
    WK_LEVELS_IN(q, v);
    WK_FLARE_RGB(o[c] = q[c]);
    int8 painted = (int8)0;
    for (int j = 0; j < n; j++) {
        __global const float *d = op + WK_COL_WORDS * (1 + j);
        const int8 in = WK_FLARE_IN(wk_flare_ax2(X, wk_flare_px(d[1], dims.x)),
                                    wk_flare_ay2(at.y, wk_flare_px(d[2], dims.y)),
                                    wk_flare_px(d[3], dims.x));
        painted |= in;
        if (!any(painted)) continue;
        const float a = d[4], b = 1.0f - d[4];
        WK_FLARE_RGB(o[c] = in ? (float8)d[5 + c] : o[c]; q[c] = wk_rint8(o[c] * a + q[c] * b));
    }
    const uint8 sx2 = wk_flare_ax2(X, wk_flare_px(op[4], dims.x));
    const uint sy2 = wk_flare_ay2(at.y, wk_flare_px(op[5], dims.y));
    WK_FLARE_RGB(o[c] = q[c]);
    for (int i = 0; i < m; i++) {
        __global const float *s = op + WK_COL_WORDS * (1 + n + i / 5) + 1 + 2 * (i % 5);
        const int8 in = WK_FLARE_IN(sx2, sy2, wk_flare_px(s[0], dims.x));
        if (!any(in)) continue; /* (the radii grow: none painted yet) */
        const float a = s[1], b = 1.0f - s[1];
        WK_FLARE_RGB(o[c] = in ? (float8)op[6 + c] : o[c]; q[c] = wk_rint8(o[c] * a + q[c] * b));
    }
    WK_LEVELS_OUT(v, q);
}
#endif

#if WK_COL_HEAVY & WK_COLG_FLARE_PB
/* WK_COL_FLARE_PB on 8 pixels of row at.y from column at.x (any column: the general kernel
 * passes one pixel's, its other lanes unused): albumentations' screen blend of the pixel's
 * level q with the flare layer F, 255 - ((255 - q) (255 - F)) / 255 in float32 (its product
 * rounded, then the division correctly rounded), clipped, truncated by numpy's astype */
inline void wk_flare_pb8(float8 *v, __global const float *op, int2 at, int2 dims) {
    __global const float *area = WK_COL_AREA(op);
    const long P = (long)op[11], plane = (long)dims.y * P;
    __global const float *F = area + (long)op[8] + at.y * P + 64 + at.x;
    float8 q[3];
    WK_LEVELS_IN(q, v);
    WK_FLARE_RGB(const float8 prod = (255.0f - q[c]) * (255.0f - WK_LOAD8(F + c * plane));
                 q[c] = wk_floor8(wk_clamp8(255.0f - wk_over8(prod, 255.0f), 0.0f, 255.0f)));
    WK_LEVELS_OUT(v, q);
}
#endif

#if WK_COL_HEAVY & WK_COLG_FOG
/* particle k of a WK_COL_FOG operation: its centre's x and y and its radius, as fractions */
#define WK_FOG_PART(op, k) ((op) + WK_COL_WORDS * (1 + (k) / 3) + 1 + 3 * ((k) % 3))

/* WK_COL_FOG on 8 pixels of row at.y from column at.x: the particles whose rows can reach this
 * one (their centres' rows within the largest radius: a bisection, then a run), each counted
 * where it holds a pixel (wk_flare_in's disc); then each pixel's blends with white, as many
 * as it counted, each rounded to a level (albumentations blends particle after particle; the
 * blend is the same for each, so their order does not matter) */
inline void wk_fog8(float8 *v, __global const float *op, int2 at, int2 dims) {
    const int n = (int)op[1], w0 = (int)op[5], h0 = (int)op[6];
    const int top = WK_FOG_PX(op[4], w0, dims.x);
    const int8 X = (int8)(0, 1, 2, 3, 4, 5, 6, 7) + at.x;
    int lo = 0, hi = n; /* the first particle whose row is at least at.y - top */
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (WK_FOG_PX(WK_FOG_PART(op, mid)[1], h0, dims.y) < at.y - top) lo = mid + 1; else hi = mid;
    }
    /* (a count in floats: Oclgrind took int8 sums of comparisons' -1 for 255) */
    float8 count = (float8)0.0f;
    for (int k = lo; k < n; k++) {
        __global const float *d = WK_FOG_PART(op, k);
        const int cy = WK_FOG_PX(d[1], h0, dims.y);
        if (cy > at.y + top) break;
        const int r = WK_FOG_PX(d[2], w0, dims.x), cx = WK_FOG_PX(d[0], w0, dims.x);
        /* (most particles near the row lie left or right of these 8 columns) */
        if (abs(at.y - cy) > r || cx + r < at.x || cx - r > at.x + 7) continue;
        count += WK_FLARE_IN(wk_flare_ax2(X, cx), wk_flare_ay2(at.y, cy), r)
                 ? (float8)1.0f : (float8)0.0f;
    }
    float8 q[3];
    WK_LEVELS_IN(q, v);
    const float a = op[2], b = 1.0f - op[2], white = 255.0f * op[2];
    for (int i = 0; any(count > (float8)(float)i); i++) {
        const int8 more = count > (float8)(float)i;
        WK_FLARE_RGB(q[c] = more ? wk_rint8(white + q[c] * b) : q[c]);
    }
    WK_LEVELS_OUT(v, q);
}
#endif

/* the words of a row of a bit mask of an output Wo wide (raster.h's masks: rain.cl's drops,
 * flare.cl's sun): a word past the image, so that 32 columns from any of its columns lie in
 * the row */
#define WK_RAIN_MW(Wo) (((Wo) + 31) / 32 + 1)

#if WK_COL_HEAVY & WK_COLG_RAIN
/* the most rows and columns of WK_COL_RAIN's box (its window's rows are a mask of 32 columns
 * each: 8 pixels and the box's reach on either side) */
#define WK_RAIN_KMAX 25

/* OpenCV's BORDER_REFLECT_101 (the edge pixel not repeated), any distance */
inline int wk_rain_refl(int i, int n) {
    if (n == 1) return 0;
    while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
    return i;
}

/* cv2.blur's 8-bit result for a window sum s = n c of a box of d = k^2 pixels (measured
 * against OpenCV for every n <= d and level c, k = 1 .. 25, 31 .. 33, 40, 47 and 64; the
 * tests hold k = 2, 3, 4, 6, 7, 8, 13, 16, 20, 21 and 25): the exact quotient rounded half
 * up for k <= 16, OpenCV's 16-bit fixed point for powers of 2 there (halves and a little less
 * go up), float(s) float(1 / d) rounded to even beyond; k = 1: no blur (albumentations') */
inline float8 wk_rain_box8(int8 s, int k, float inv) {
    const int d = k * k;
    if (d == 1) return convert_float8(s);
    if (d <= 256) { /* (the powers of 2 by name: LLVM turns a bit test into a ctpop, which
                     * Oclgrind lacks) */
        if (k == 2 || k == 4 || k == 8 || k == 16)
            return convert_float8((s + (d / 2 + 1)) >> (int8)(k == 2 ? 2 : (k == 4 ? 4 : (k == 8 ? 6 : 8))));
        return convert_float8((2 * s + d) / (2 * d));
    }
    return wk_rint8(convert_float8(s) * inv);
}

/* WK_COL_RAIN on 8 pixels of row at.y from column at.x: albumentations' add_rain per pixel.
 * The window's rows (reflected) each take the 32 columns s0 .. s0 + 31 of the operation's bit
 * mask (rain.cl's rain_mask drew every drop into it before this launch; every column a pixel's
 * window reads, edges reflected, lies there). Then each pixel counts the lit pixels of its
 * window, the layer's level per channel is wk_rain_box8 of the count times the colour, the sum
 * saturates at 255, then the brightness's table */
inline void wk_rain8(float8 *v, __global const float *op, int2 at, int2 dims) {
    const int n = (int)op[1], k = (int)op[2];
    const int W = dims.x, H = dims.y, a = k / 2;
    const int s0 = max(at.x - a, 0);
    uint mask[WK_RAIN_KMAX];
    int lit = 0;
    if (n > 0) {
        __global const uint *m = (__global const uint *)(op + WK_COL_WORDS * (int)op[WK_COL_WORDS + 9])
                                 + (s0 >> 5);
        const int mw = WK_RAIN_MW(W), b = s0 & 31;
        /* the columns the 8 pixels' windows read, reflected or not, lie in s0 .. s0 + k + 6
         * (a reflection lands nearer the edge than the column it reflects): a block whose
         * windows hold no drop is left as it is */
        const uint keep = k + 7 >= 32 ? ~0u : (1u << (k + 7)) - 1u;
        for (int t = 0; t < k; t++) {
            __global const uint *row = m + (long)wk_rain_refl(at.y - a + t, H) * mw;
            const uint u = (b ? (row[0] >> b) | (row[1] << (32 - b)) : row[0]) & keep;
            mask[t] = u;
            lit |= u != 0u;
        }
    }
    float8 q[3];
    WK_LEVELS_IN(q, v);
    if (lit) {
        /* each of the 32 columns' lit pixels over the box's rows, then each pixel's box: the
         * sum of k columns from its own (reflected at the image's sides) */
        /* (in 8-wide vectors: PoCL 3.0 passes 16-wide ones to builtins in another ABI) */
        int8 c0 = (int8)0, c1 = (int8)0, c2 = (int8)0, c3 = (int8)0;
        const uint8 sh = (uint8)(0, 1, 2, 3, 4, 5, 6, 7);
        for (int t = 0; t < k; t++) { /* (the columns past s0 + k + 6 are not read) */
            const uint m = mask[t];
            if (m == 0u) continue;
            c0 += as_int8(((uint8)m >> sh) & (uint8)1u);
            c1 += as_int8(((uint8)(m >> 8) >> sh) & (uint8)1u);
            if (k > 9) c2 += as_int8(((uint8)(m >> 16) >> sh) & (uint8)1u);
            if (k > 17) c3 += as_int8(((uint8)(m >> 24) >> sh) & (uint8)1u);
        }
        int col[32];
        vstore8(c0, 0, col);
        vstore8(c1, 1, col);
        vstore8(c2, 2, col);
        vstore8(c3, 3, col);
        int8 count = (int8)0;
        if (at.x - a >= 0 && at.x + 7 + (k - 1 - a) <= W - 1) { /* s0 = at.x - a */
            for (int u = 0; u < k; u++) count += vload8(0, col + u);
        } else {
            int per[8];
            for (int l = 0; l < 8; l++) {
                const int x = min(at.x + l, W - 1);
                int sum = 0;
                for (int u = 0; u < k; u++) sum += col[wk_rain_refl(x - a + u, W) - s0];
                per[l] = sum;
            }
            count = vload8(0, per);
        }
        const float inv = op[10];
        WK_FLARE_RGB(q[c] = fmin(q[c] + wk_rain_box8(count * (int)op[7 + c], k, inv), 255.0f));
    }
    if (op[11] != 0.0f) { /* the brightness: a level's table */
        /* after the drops' operations (two drops or one wide drop an operation): the last 24
         * of the word 3 that follow the header */
        __global const float *table = op + WK_COL_WORDS * (1 + (int)op[3] - 24);
        WK_FLARE_RGB(
            float lv[8];
            vstore8(q[c], 0, lv);
            for (int l = 0; l < 8; l++) {
                const int level = (int)lv[l];
                lv[l] = table[WK_COL_WORDS * (level / 11) + 1 + level % 11];
            }
            q[c] = vload8(0, lv));
    }
    WK_LEVELS_OUT(v, q);
}
#endif

#if WK_COL_HEAVY & (WK_COLG_PLASMA | WK_COLG_SNOW)
/* 32 columns from column 32 m of a row stored, held as x[w].sL = column 32 m + 4 L + w (the
 * layout of Philox's words over 8 blocks: plasma.cl's and snow.cl's numbers), in vectors of 8
 * (a call with a float16 crosses an ABI that differs with AVX-512) */
inline __attribute__((always_inline)) void wk_store32(__global float *row, int m, const float8 *x) {
    const float8 a = x[0], b = x[1], c = x[2], d = x[3];
    vstore8((float8)(a.s0, b.s0, c.s0, d.s0, a.s1, b.s1, c.s1, d.s1), 0, row + 32 * m);
    vstore8((float8)(a.s2, b.s2, c.s2, d.s2, a.s3, b.s3, c.s3, d.s3), 1, row + 32 * m);
    vstore8((float8)(a.s4, b.s4, c.s4, d.s4, a.s5, b.s5, c.s5, d.s5), 2, row + 32 * m);
    vstore8((float8)(a.s6, b.s6, c.s6, d.s6, a.s7, b.s7, c.s7, d.s7), 3, row + 32 * m);
}
#endif

#if WK_COL_HEAVY & WK_COLG_SNOW
/* WK_COL_SNOW_TEX on 8 pixels' channels 0-2 of row at.y from column at.x (any column: the
 * general kernel passes one pixel's, its other lanes unused). albumentations' add_snow_texture
 * step by step in its float32 arithmetic, from OpenCV's 8-bit HSV of the pixel's levels */
inline void wk_snow_tex8(float8 *v, __global const float *op, int2 at) {
    __global const float *area = WK_COL_AREA(op);
    const int P = (int)op[11];
    const float8 T = vload8(0, area + (long)op[8] + (long)at.y * P + at.x);
    /* each lane's sparkle bit: column x's is bit x % 32 of its row's word x / 32 (the lanes
     * past a word's end read the next one; shifts take their count modulo 32) */
    __global const uint *bits = (__global const uint *)area + (long)at.y * (P / 32) + at.x / 32;
    const uint8 col = (uint8)(at.x & 31) + (uint8)(0, 1, 2, 3, 4, 5, 6, 7);
    const uint8 word = WK_SELECT((uint8)bits[0], (uint8)bits[1], col >= 32u);
    const int8 sparkle = as_int8(((word >> col) & 1u) * 0xFFFFFFFFu);
    float8 q[3], H, S, V;
    WK_LEVELS_IN(q, v);
    wk_rgb_hsv8_u8(q[0], q[1], q[2], &H, &S, &V);
    V = wk_fmin8(V * op[4], (float8)255.0f);
    const float8 layer = T * op[5];
    /* cv2.addWeighted(x, 0.85, tint, b, 0) on float32: fma(x, 0.85, tint b), then numpy's
     * astype(uint8): truncated, the low byte kept */
#define WK_SNOW_BYTE(x, tint) convert_float8(convert_int8(wk_fma8((x) + layer, (float8)0.85f, (float8)((tint) * op[6]))) & 255)
    H = WK_SNOW_BYTE(H, 0.6f);
    S = WK_SNOW_BYTE(S, 0.75f);
    V = WK_SNOW_BYTE(V, 1.0f);
#undef WK_SNOW_BYTE
    float8 r, g, b;
    wk_hsv_rgb8(H * (6.0f / 180.0f), S * (1.0f / 255.0f), V * (1.0f / 255.0f), &r, &g, &b);
    float8 o[3] = {wk_floor8(r * 255.0f), wk_floor8(g * 255.0f), wk_floor8(b * 255.0f)};
    for (int c = 0; c < 3; c++) {
        const float8 L = WK_SELECT(o[c], (float8)255.0f, sparkle);
#if WK_COL_INT
        v[c] = L;
#else   /* albumentations' float conversion: the level over 255, correctly rounded */
        v[c] = wk_over8(L, 255.0f);
#endif
    }
}
#endif

#if WK_COL_HEAVY & WK_COLG_PLASMA
/* the plasma pattern of a WK_COL_PLASMA or WK_COL_PLASMA_MEAN operation at 8 pixels of row
 * at.y from column at.x (plasma.cl's area, padded by 8 floats past its last row) */
inline __attribute__((always_inline)) float8 wk_plasma_at8(__global const float *op, int2 at) {
    __global const float *area = WK_COL_AREA(op);
    return vload8(0, area + (long)at.y * (long)op[11] + at.x);
}

/* WK_COL_PLASMA and WK_COL_PLASMA_MEAN on 8 pixels of row at.y from column at.x (mean: the
 * image's mean after the brightness, in [0, 1]; contrast: the operation has it) */
inline __attribute__((always_inline)) void wk_plasma8(float8 *v, int C, __global const float *op, float mean,
                                                       int2 at, int contrast) {
    const float8 P = wk_plasma_at8(op, at);
    if (op[5] != 0.0f) { /* the shadow: numpy's product, stored (truncated) */
        const float8 s = 1.0f - P * op[6];
#if WK_COL_INT
        WK_EACH_C(v[c] = wk_floor8(wk_col_clip(v[c] * s)));
#else
        WK_EACH_C(v[c] = wk_col_clip(v[c] * s));
#endif
        return;
    }
    const float8 add = wk_clamp8(P * op[6], 0.0f, 1.0f);
    const float8 w = contrast ? wk_clamp8(P * op[7], 0.0f, 1.0f) + 1.0f : (float8)1.0f;
    const float8 shift = mean * (1.0f - w);
#if WK_COL_INT
    WK_EACH_C(float8 x = wk_fmin8(wk_over8(v[c], WK_PEAK) + add, (float8)1.0f);
              if (contrast) x = wk_clamp8(wk_fmin8(x * w, (float8)1.0f) + shift, 0.0f, 1.0f);
              v[c] = wk_col_clip(wk_rint8(x * WK_PEAK)));
#else
    WK_EACH_C(float8 x = wk_fmin8(v[c] + add, (float8)1.0f);
              if (contrast) x = wk_clamp8(wk_fmin8(x * w, (float8)1.0f) + shift, 0.0f, 1.0f);
              v[c] = x);
#endif
}
#endif

#if WK_COL_HEAVY & WK_COLG_PASTE

/* WK_COL_PASTE on 8 pixels of row at.y from column at.x: the element's pixel replaces each
 * one its bit selects (lanes outside the element read its first column, unselected) */
inline __attribute__((always_inline)) void wk_paste8(float8 *v, int C, __global const float *op, int2 at) {
    const int x0 = (int)op[1], y = at.y - (int)op[2], w = (int)op[3], h = (int)op[4];
    if (y < 0 || y >= h || at.x + 7 < x0 || at.x >= x0 + w) return;
    __global const float *d = WK_COL_AREA(op)
                              + ((long)op[6] * 65536 + (long)op[7]);
    const int8 xs = (int8)(0, 1, 2, 3, 4, 5, 6, 7) + (at.x - x0);
    const int8 inside = (xs >= 0) & (xs < w);
    /* (not clamp(int8, int, int): Oclgrind gives every lane the same value) */
    const int8 idx = y * w + WK_MIN(WK_MAX(xs, (int8)0), (int8)(w - 1));
    const int8 bits = (convert_int8(WK_AT8(d, idx >> 4)) >> (idx & 15)) & 1;
    const int8 take = inside & (bits != 0);
    const int8 at0 = (int8)((w * h + 15) >> 4) + idx * C;
    WK_EACH_C(v[c] = WK_SELECT(v[c], WK_AT8(d, at0 + c), take));
}
#endif

#if WK_COL_HEAVY & WK_COLG_SPATTER
/* one channel of WK_COL_SPATTER: its value v, the layer m, its factor f (the mud's colour
 * for mud); albumentations' float32 arithmetic (levels / 255 rounded as its table's) */
inline __attribute__((always_inline)) float8 wk_spatter1(float8 v, float8 m, float f, int mud) {
    float8 x = WK_COL_INT ? wk_over8(v, 255.0f) : v;
    if (mud) {
        const float8 dirt = m * f;
        float8 keep;
        if (f > 0.0f)
            keep = wk_clamp8(wk_over8((float8)f - dirt, f), 0.0f, 1.0f);
        else
            keep = 1.0f - m;
        x = x * keep + dirt;
    } else {
        x = x + m * f;
    }
    x = wk_clamp8(x, 0.0f, 1.0f);
    return WK_COL_INT ? wk_rint8(x * 255.0f) : x;
}

/* WK_COL_SPATTER on 8 pixels of row at.y from column at.x (lanes past the row read its last
 * pixel's layer) */
inline __attribute__((always_inline)) void wk_spatter8(float8 *v, __global const float *op, int2 at, int2 dims) {
    __global const float *d = WK_COL_AREA(op)
                              + ((long)op[6] * 65536 + (long)op[7]) + (long)at.y * dims.x;
    const int8 xs = WK_MIN((int8)(0, 1, 2, 3, 4, 5, 6, 7) + at.x, (int8)(dims.x - 1));
    const float8 m = (float8)(d[xs.s0], d[xs.s1], d[xs.s2], d[xs.s3], d[xs.s4], d[xs.s5],
                              d[xs.s6], d[xs.s7]);
    const int mud = op[1] != 0.0f;
    v[0] = wk_spatter1(v[0], m, op[2], mud);
    v[1] = wk_spatter1(v[1], m, op[3], mud);
    v[2] = wk_spatter1(v[2], m, op[4], mud);
}
#endif

/* the largest Y of OpenCV's 8-bit RGB2Lab (255 levels' linear values, 2040, times the
 * coefficients' sum, 4096, over 4096): the last entry of WK_COL_GRAY's L table */
#define WK_LAB_YMAX 2040

#if WK_COL_HEAVY & WK_COLG_LAB
/* WK_COL_GRAY's w[4] = 4 on 8 pixels' R, G, B: L of OpenCV's 8-bit Lab (RGB2Lab_b: Y from the
 * levels' linear values, rounded from 12 bits, then its L from the table;
 * engine.lab.gray_table), as levels, or over 255 for float values (whose levels are
 * rint(255 v), clipped). Out of line (WK_COLG_LAB) */
__attribute__((noinline)) float8 wk_lab_gray8(float8 r, float8 g, float8 b, __global const float *op) {
    __global const float *T = WK_COL_AREA(op) + ((long)op[6] * 65536 + (long)op[7]);
#if WK_COL_INT
#define WK_LAB_Q(x) CV(wk_clamp8(x, 0.0f, 255.0f), int8)
#else
#define WK_LAB_Q(x) CV(wk_clamp8(wk_rint8((x) * 255.0f), 0.0f, 255.0f), int8)
#endif
    /* (sums below 2^24: exact in float) */
    const float8 y = T[0] * WK_AT8(T + 3, WK_LAB_Q(r)) + T[1] * WK_AT8(T + 3, WK_LAB_Q(g)) +
                     T[2] * WK_AT8(T + 3, WK_LAB_Q(b));
#undef WK_LAB_Q
    const int8 yi = CV(wk_clamp8(wk_floor8((y + 2048.0f) * (1.0f / 4096.0f)), 0.0f,
                                 (float)WK_LAB_YMAX), int8);
    const float8 l = WK_AT8(T + 3 + 256, yi);
    return WK_COL_INT ? l : wk_over8(l, 255.0f);
}
#endif

/* the C (<= 4) channels v[0 .. C - 1] of 8 pixels through the n operations at op (mean: the
 * image's gray mean and the mean of all its values, for the whole-image operations; at, dims:
 * where the pixels are, for the operations that depend on it) */
inline __attribute__((always_inline)) void wk_colour8_ops(float8 *v, int C, __global const float *op, int n,
                                                           float2 mean, int2 at, int2 dims) {
    for (int k = 0; k < n; k++, op += WK_COL_WORDS) {
        const int code = (int)op[0];
        if (code == 0) break;
        if (code == WK_COL_AFFINE) {
            WK_EACH_C(v[c] = WK_COL_LEVEL(wk_col_clip(op[1 + c] * v[c] + op[5 + c])));
        } else if ((WK_COL_HEAVY & WK_COLG_GAMMA) && code == WK_COL_GAMMA) {
            const float g = op[1];
            WK_EACH_C(v[c] = WK_COL_LEVEL(wk_pow01_8(v[c] * (1.0f / WK_PEAK), g) * WK_PEAK));
        } else if (code == WK_COL_GRAY) {
            if (C >= 3) {
                const int how = (int)op[4];
                float8 y;
#if WK_COL_HEAVY & WK_COLG_LAB
                if (how == 4) {
                    y = wk_lab_gray8(v[0], v[1], v[2], op);
                } else
#endif
                if (how == 0) {
                    y = op[1] * v[0] + op[2] * v[1] + op[3] * v[2];
#if WK_COL_INT
                    y = wk_floor8(y + 0.5f);
#endif
                    y = wk_col_clip(y);
                } else if (how == 1) {
                    /* levels: a sum below 2^18 times 1/3 in float32 floors to the whole
                     * quotient (the product's error is far below the 1/3 a remainder adds) */
                    y = (v[0] + v[1]) + v[2];
                    y = WK_COL_INT ? wk_floor8(y * (1.0f / 3.0f)) : y / 3.0f;
                } else {
                    y = wk_fmax8(v[0], wk_fmax8(v[1], v[2]));
                    if (how == 3) {
                        y = (y + wk_fmin8(v[0], wk_fmin8(v[1], v[2]))) * 0.5f;
#if WK_COL_INT
                        y = wk_floor8(y);
#endif
                    }
                }
                v[0] = y;
                v[1] = y;
                v[2] = y;
            }
        } else if (code == WK_COL_CONTRAST) {
            const float f = op[1];
#if WK_COL_INT
            const float8 m = (float8)(f == 0.0f ? floor(mean.x + 0.5f) : (1.0f - f) * mean.x);
#else
            const float8 m = (float8)((1.0f - f) * mean.x);
#endif
            WK_EACH_C(v[c] = WK_COL_LEVEL(wk_col_clip(f * v[c] + m)));
        } else if (code == WK_COL_SATURATE) {
            if (C >= 3) {
                /* OpenCV's addWeighted: v f + (y (1 - f)), one rounding for the sum */
                const float8 y = op[2] * wk_gray8(v), f = (float8)op[1];
#if WK_COL_INT
                v[0] = wk_col_clip(wk_rint8(wk_fma8(v[0], f, y)));
                v[1] = wk_col_clip(wk_rint8(wk_fma8(v[1], f, y)));
                v[2] = wk_col_clip(wk_rint8(wk_fma8(v[2], f, y)));
#else
                v[0] = wk_col_clip(wk_fma8(v[0], f, y));
                v[1] = wk_col_clip(wk_fma8(v[1], f, y));
                v[2] = wk_col_clip(wk_fma8(v[2], f, y));
#endif
            }
        } else if ((WK_COL_HEAVY & WK_COLG_HSV) && code == WK_COL_HUE) {
            if (C >= 3) wk_hue8(v, op[1]);
        } else if ((WK_COL_HEAVY & WK_COLG_HSV) && code == WK_COL_HSV) {
            wk_hsv_shift8(v, C, op[1], op[2], op[3]);
        } else if (code == WK_COL_AFFINE_MEAN) {
            if (op[9] != 0.0f) {
                const float2 ab = wk_safe_affine(op[1], op[5] * mean.y);
                WK_EACH_C(v[c] = WK_COL_LEVEL(wk_col_clip(ab.x * v[c] + ab.y)));
            } else {
                WK_EACH_C(v[c] = WK_COL_LEVEL(wk_col_clip(op[1 + c] * v[c] + op[5 + c] * mean.y)));
            }
        } else if ((WK_COL_HEAVY & WK_COLG_NOISE) && code == WK_COL_NOISE) {
            const int kind = (int)op[9], per_channel = op[6] != 0.0f;
            float8 z[4], n[4];
            if (kind == 4) { /* constant: a number per channel, w[1 + c] */
                WK_EACH_C(n[c] = (float8)op[1 + c]);
            } else {
                wk_noise_z(at, dims, wk_key(op + 1), (float2)(op[7], op[8]), kind == 5 ? 1 : kind,
                           (float2)(op[10], op[11]), per_channel ? C : 1, z);
                WK_EACH_C(n[c] = op[5] + op[4] * (per_channel ? z[c] : z[0]));
            }
            if (kind == 5) { /* a factor per pixel: the float32 product, integers truncated */
                WK_EACH_C(v[c] = wk_col_clip(v[c] * n[c]));
#if WK_COL_INT
                WK_EACH_C(v[c] = wk_trunc8(v[c]));
#endif
            } else {
#if WK_COL_INT /* uint8 adds the noise truncated toward zero (albumentations' table), uint16
                 * the sum rounded (OpenCV's add, to nearest even) */
                if (WK_PEAK == 255.0f) {
                    WK_EACH_C(v[c] = wk_col_clip(v[c] + wk_trunc8(n[c])));
                } else {
                    WK_EACH_C(v[c] = wk_col_clip(rint(v[c] + n[c])));
                }
#else
                WK_EACH_C(v[c] = wk_col_clip(v[c] + n[c]));
#endif
            }
        } else if ((WK_COL_HEAVY & WK_COLG_HOLE) && code == WK_COL_HOLE) {
            const float4 r = wk_hole_edges(vload4(0, op + 1), dims);
            if ((float)at.y >= r.y && (float)at.y < r.w)
                wk_hole_fill8(v, C, r, op + 5, op[9] != 0.0f, op + 10, at);
        } else if ((WK_COL_HEAVY & WK_COLG_POLY) && code == WK_COL_POLY) {
#if WK_COL_HEAVY & WK_COLG_POLY
            wk_poly8(v, C, op, at, dims);
#endif
            const int data = (int)op[3];
            k += data;
            op += data * WK_COL_WORDS;
        } else if ((WK_COL_HEAVY & (WK_COLG_FLARE | WK_COLG_FOG | WK_COLG_RAIN)) &&
                   (code == WK_COL_FLARE || code == WK_COL_FOG || code == WK_COL_RAIN)) {
            /* the weather, on channels 0-2 (RGB images); its data operations skipped */
#if WK_COL_HEAVY & WK_COLG_FLARE
            if (C >= 3 && code == WK_COL_FLARE) wk_flare8(v, op, at, dims);
#endif
#if WK_COL_HEAVY & WK_COLG_FOG
            if (C >= 3 && code == WK_COL_FOG) wk_fog8(v, op, at, dims);
#endif
#if WK_COL_HEAVY & WK_COLG_RAIN
            if (C >= 3 && code == WK_COL_RAIN) wk_rain8(v, op, at, dims);
#endif
            const int data = (int)op[3];
            k += data;
            op += data * WK_COL_WORDS;
        } else if (code == WK_COL_TAPS || code == WK_COL_MORPH) {
            /* a pass's filter (colour_pass.cl): its rows skipped */
            const int data = (int)op[3];
            k += data;
            op += data * WK_COL_WORDS;
        } else if (code == WK_COL_EQUALIZE) {
            /* (its pass's table, made by colour_pass.cl; HistogramMatching's reference counts
             * skipped: w[10] data operations) */
            const int data = (int)op[10];
            k += data;
            op += data * WK_COL_WORDS;
#if WK_COL_HEAVY & WK_COLG_PASTE
        } else if (code == WK_COL_PASTE) {
            wk_paste8(v, C, op, at);
#endif
#if WK_COL_HEAVY & WK_COLG_SPATTER
        } else if (code == WK_COL_SPATTER) {
            if (C >= 3) wk_spatter8(v, op, at, dims);
#endif
        } else if ((WK_COL_HEAVY & WK_COLG_HOLE) && code == WK_COL_FRAME) {
#if WK_COL_HEAVY & WK_COLG_HOLE
            wk_frame8(v, C, op, op + WK_COL_WORDS + 1, at);
#endif
            k++;
            op += WK_COL_WORDS;
        } else if ((WK_COL_HEAVY & WK_COLG_HOLE) && code == WK_COL_HOLES) {
            wk_holes8(v, C, op, at, dims);
            const int data = (int)op[3];
            k += data;
            op += data * WK_COL_WORDS;
        } else if (code == WK_COL_SHUFFLE) {
            /* selects, not an index into a copy (which would live in memory) */
            const float8 s0 = v[0], s1 = C > 1 ? v[1] : v[0], s2 = C > 2 ? v[2] : v[0], s3 = C > 3 ? v[3] : v[0];
            WK_EACH_C(const int from = (int)op[1 + c];
                      v[c] = from == 0 ? s0 : (from == 1 ? s1 : (from == 2 ? s2 : s3)));
        } else if (code == WK_COL_SOLARIZE) {
            const float t = op[1];
            WK_EACH_C(v[c] = v[c] >= t ? (float8)WK_PEAK - v[c] : v[c]);
        } else if ((WK_COL_HEAVY & WK_COLG_POSTERIZE) && code == WK_COL_POSTERIZE) {
            /* on 8-bit levels: the image's value as a level of 255 */
            const float8 scale = (float8)(255.0f / WK_PEAK);
            WK_EACH_C(const int8 lv = convert_int8(wk_floor8(v[c] * scale + (WK_COL_INT ? 0.0f : 0.5f)));
                      const int keep = (int)op[1 + c];
                      v[c] = convert_float8(lv & (int8)(~((1 << (8 - keep)) - 1) & 255)) / scale);
        } else if ((WK_COL_HEAVY & WK_COLG_TONE) && code == WK_COL_MATRIX) {
            if (C >= 3) {
                const float8 r = v[0], g = v[1], b = v[2];
                /* on uint8 every product and sum is a whole number below 2^24: exact */
                v[0] = WK_COL_LEVEL(wk_col_clip((op[1] * r + op[2] * g + op[3] * b) * op[10] + op[11]));
                v[1] = WK_COL_LEVEL(wk_col_clip((op[4] * r + op[5] * g + op[6] * b) * op[10] + op[11]));
                v[2] = WK_COL_LEVEL(wk_col_clip((op[7] * r + op[8] * g + op[9] * b) * op[10] + op[11]));
            }
#if WK_COL_HEAVY & WK_COLG_TONE
        } else if (code == WK_COL_HESTAIN) {
            if (C >= 3)
                wk_hestain8(op, v);
#endif
        } else if ((WK_COL_HEAVY & WK_COLG_NOISE) && code == WK_COL_SALT) {
            uint8 o[4];
            const uint2 key = wk_key(op + 1);
            wk_philox8(as_uint8((int8)(0, 1, 2, 3, 4, 5, 6, 7) + at.x), (uint8)at.y, (uint8)0x53414Cu,
                       key.x, key.y, o);
            const float8 u = 1.0f - wk_unit8(o[0]); /* in [0, 1) */
            const int8 salt = u < (float8)op[4], pepper = u < (float8)op[5];
            WK_EACH_C(v[c] = WK_SELECT(WK_SELECT(v[c], (float8)0.0f, pepper), (float8)WK_PEAK, salt));
#if WK_COL_HEAVY & WK_COLG_NOISE
        } else if (code == WK_COL_SHOT) {
            uint8 o[4];
            const uint2 key = wk_key(op + 1);
            wk_philox8(as_uint8((int8)(0, 1, 2, 3, 4, 5, 6, 7) + at.x), (uint8)at.y, (uint8)0x534854u,
                       key.x, key.y, o);
            WK_EACH_C(v[c] = wk_shot8(v[c], op[4], 1.0f - wk_unit8(o[c])));
#endif
        } else if ((WK_COL_HEAVY & WK_COLG_NOISE) && code == WK_COL_PIXDROP) {
            /* the host draws the same numbers (warpkit/augment/_philox.py) for the boxes */
            uint8 o[4];
            const uint2 key = wk_key(op + 1);
            wk_philox8(as_uint8((int8)(0, 1, 2, 3, 4, 5, 6, 7) + at.x), (uint8)at.y, (uint8)0x505844u,
                       key.x, key.y, o);
            const int per_channel = op[5] != 0.0f;
            const float8 p = (float8)op[4];
            WK_EACH_C(const int8 drop = (1.0f - wk_unit8(per_channel ? o[c] : o[0])) < p;
                      v[c] = WK_SELECT(v[c], (float8)op[6 + c], drop));
#if WK_COL_HEAVY & WK_COLG_ISO
        } else if (code == WK_COL_ISO) {
            if (C >= 3) wk_iso8(v, op, mean, at);
        } else if (code == WK_COL_SNOW) {
            if (C >= 3) wk_snow8(v, op);
        } else if (code == WK_COL_GRAVEL) {
            if (C >= 3) wk_gravel8(v, op, at, dims);
            const int data = (int)op[3];
            k += data;
            op += data * WK_COL_WORDS;
#endif
#if WK_COL_HEAVY & WK_COLG_LIGHT
        } else if (code == WK_COL_LIGHT) {
            wk_light8(v, C, op, at, dims);
#endif
#if WK_COL_HEAVY & WK_COLG_PLASMA
        } else if (code == WK_COL_PLASMA || code == WK_COL_PLASMA_MEAN) {
            wk_plasma8(v, C, op, mean.y, at, code == WK_COL_PLASMA_MEAN);
#endif
#if WK_COL_HEAVY & WK_COLG_SNOW
        } else if (code == WK_COL_SNOW_TEX) {
            if (C >= 3) wk_snow_tex8(v, op, at);
#endif
#if WK_COL_HEAVY & WK_COLG_FLARE_PB
        } else if (code == WK_COL_FLARE_PB) {
            if (C >= 3) wk_flare_pb8(v, op, at, dims);
            const int data = (int)op[3];
            k += data;
            op += data * WK_COL_WORDS;
#endif
        } else if ((WK_COL_HEAVY & WK_COLG_TONE) && code == WK_COL_CURVE) {
            /* 255 B(l / 255) = (3 (255 - l)^2 l lo + 3 (255 - l) l^2 hi + l^3) / 255^2: the
             * integer parts are exact in float (below 2^24); uint8 only (the host refuses
             * uint16) */
            WK_EACH_C(const float8 l = WK_COL_INT ? v[c] : wk_clamp8(wk_rint8(v[c] * 255.0f), 0.0f, 255.0f);
                      const float8 m = 255.0f - l;
                      const float8 y = wk_clamp8(wk_rint8((3.0f * m * m * l * op[1 + c] + 3.0f * m * l * l * op[5 + c]
                                                           + l * l * l) * (1.0f / 65025.0f)), 0.0f, 255.0f);
                      v[c] = WK_COL_INT ? y : y / 255.0f);
        }
    }
}

/* the resampled values as the operations take them (integer levels rounded, floats clipped to
 * [0, 1]), then through the operations (the warp's: colour_pass.cl reads levels already) */
inline __attribute__((always_inline)) void wk_colour8(float8 *v, int C, __global const float *op, int n,
                                                       float2 mean, int2 at, int2 dims) {
#if WK_COL_INT
    WK_EACH_C(v[c] = wk_floor8(wk_col_clip(v[c]) + 0.5f));
#else
    WK_EACH_C(v[c] = wk_col_clip(v[c]));
#endif
    wk_colour8_ops(v, C, op, n, mean, at, dims);
}

/* the same for one pixel (the general kernel): its channels in lane 0 */
inline void wk_colour1(float *v, int C, __global const float *op, int n, float2 mean, int2 at,
                       int2 dims) {
    float8 w[4];
    for (int c = 0; c < C; c++) w[c] = (float8)v[c];
    wk_colour8(w, C, op, n, mean, at, dims);
    for (int c = 0; c < C; c++) v[c] = w[c].s0;
}
#define WK_COL_OF(b) (COL + (long)(b) * ncol * WK_COL_WORDS)
#else
#define WK_COLOUR_PARAM
#endif

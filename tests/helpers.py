"""Comparison helpers with docs/semantics.md's per-dtype tolerances."""

from __future__ import annotations

import numpy as np

from warpkit._selfcheck import compare


def foreign_byte_order(a: np.ndarray) -> np.ndarray:
    """A copy of ``a`` in the byte order this machine does not use (big-endian on x86)."""
    return a.astype(a.dtype.newbyteorder(">" if np.little_endian else "<"))


def device_fp64(queue) -> bool:
    import warpkit

    return warpkit.runtime_for_queue(queue).fp64


def refused_without_fp64(queue, dtypes, call) -> bool:
    """On a device without fp64, a case with float64 data must be refused with the documented
    error: check that and return True (the test is done); else False (run the case)."""
    import pytest

    if all(np.dtype(d) != np.float64 for d in dtypes) or device_fp64(queue):
        return False
    with pytest.raises(TypeError, match=r"needs double precision, but device .* has no "
                                        r"cl_khr_fp64"):
        call()
    return True


def assert_close(y, ref, mode: str = "linear", what: str = "", int_tol: float = 1) -> None:
    """Compare a result to an oracle already in the result's dtype, with docs/semantics.md's
    tolerance: the rules ``warpkit check`` applies (``int_tol``: integer results, linear and
    cubic)."""
    y, ref = np.asarray(y), np.asarray(ref)
    assert y.shape == ref.shape, f"{what}: shape {y.shape} != {ref.shape}"
    assert y.dtype == ref.dtype, f"{what}: dtype {y.dtype} != {ref.dtype}"
    err, tol = compare(y, ref, mode, int_tol)
    assert err <= 1, f"{what}: {err:.3g} x the tolerance ({tol})"


#: address space a warpkit process with PoCL started needs beside its data (measured ~550 MiB
#: with two PoCL threads), and the most the memory tests let a case take beyond it
BASE_ADDRESS_SPACE = 1 << 30
SPARE_ADDRESS_SPACE = 768 << 20


def peak_address_space(code: str, cwd: str | None = None) -> int:
    """The peak address space (VmPeak, bytes) of Python ``code`` run as :func:`run_limited`
    runs it, without a limit: the baseline of a memory test on this machine."""
    r = run_limited(code + "\nprint('VmPeak', open('/proc/self/status').read()"
                           ".split('VmPeak:')[1].split()[0])\n", extra=16 << 30, cwd=cwd,
                    base=0)
    assert r.returncode == 0, r.stderr[-3000:]
    return int(r.stdout.split("VmPeak")[-1].split()[0]) * 1024


def run_limited(code: str, extra: int = SPARE_ADDRESS_SPACE, timeout: float = 120,
                cwd: str | None = None, base: int = BASE_ADDRESS_SPACE):
    """Run Python ``code`` in a subprocess whose address space is limited (RLIMIT_AS) to
    ``base`` (what warpkit needs) plus ``extra`` bytes: a case that allocates far more fails
    there with a MemoryError instead of swapping the machine. PoCL's threads (each with its stack and malloc
    arena) are capped, so that the limit does not depend on the CPU's core count."""
    import os
    import resource
    import subprocess
    import sys

    limit = base + extra

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = dict(os.environ, POCL_MAX_PTHREAD_COUNT="2", POCL_CPU_MAX_CU_NUM="2",
               MALLOC_ARENA_MAX="2", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=timeout, preexec_fn=cap, env=env, cwd=cwd)


def warp_with_rows(img: np.ndarray, rows: list, queue) -> np.ndarray:
    """``img`` through the engine's identity warp with the colour operations ``rows`` (each a
    list of up to COLOUR_WORDS words, zeros after them), for the engine's checks."""
    from warpkit.engine.core import COLOUR_WORDS, warp_by

    colour = np.zeros((1, COLOUR_WORDS * len(rows)), np.float32)
    for j, row in enumerate(rows):
        colour[0, j * COLOUR_WORDS:j * COLOUR_WORDS + len(row)] = row
    h, w = img.shape[:2]
    return warp_by(img, np.eye(3), (w, h), queue=queue, colour=colour)


def check_small_cases(img: np.ndarray, geo, cases: list, queue, **compose) -> None:
    """Each of ``cases`` (a list of colour steps) after ``geo`` (a geometric step giving a
    21 x 13 output), on ``img`` (uint8) and on it as float32, one of them linear and the other
    cubic (the 8-wide kernel and the one-pixel kernel), the pairing alternating from case to
    case: on ``queue`` (each device CI runs, Oclgrind) the reference device's numbers
    (conftest's reference_queue: PoCL's in CI's jobs on other implementations, else the default
    device's) within a level (1e-5 for floats), and the steps changed the image there.

    Each case meets both dtypes and both kernels, and two cases or more meet every pairing of
    them: every (case, dtype, kernel) would be twice the builds, and each is a compile of its
    own on every device CI runs (a minute and a half of PoCL's in test_blur alone).
    ``compose``: the pipelines' other arguments (``edges``)."""
    from conftest import reference_queue
    from warpkit import augment as W

    assert len(cases) >= 2, "two cases or more, so that every (dtype, kernel) pairing is met"
    images = {"uint8": img, "float32": img.astype(np.float32) / 255}
    bases: dict = {}
    for k, steps in enumerate(cases):
        for dt, interpolation in (("uint8", ("linear", "cubic")[k % 2]),
                                  ("float32", ("cubic", "linear")[k % 2])):
            im = images[dt]
            if (dt, interpolation) not in bases:
                bases[dt, interpolation] = W.Compose([geo], interpolation=interpolation,
                                                     **compose)(image=im, seed=3,
                                                                queue=queue)["image"]
            pipe = W.Compose([geo, *steps], interpolation=interpolation, **compose)
            out = pipe(image=im, seed=3, queue=queue)["image"]
            ref = pipe(image=im, seed=3, queue=reference_queue())["image"]
            tol = 1 if im.dtype == np.uint8 else 1e-5
            assert out.shape == (13, 21, 3)
            assert np.abs(out.astype(np.float64) - ref).max() <= tol, (steps, dt, interpolation)
            # it did something on this device
            assert (out != bases[dt, interpolation]).any(), (steps, dt, interpolation)


def same_levels(got: np.ndarray, want: np.ndarray) -> None:
    """The same levels as an 8-bit codec's (``want`` reshaped to ``got``; float32 images:
    level / 255 both, within float32's rounding)."""
    want = want.reshape(got.shape)
    assert got.dtype == want.dtype
    if got.dtype == np.uint8:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)


def small_rotated_cases(photo: np.ndarray, queue):
    """Outputs 1 to 19 pixels on a side after a rotation, 1 and 3 channels, uint8 and float32
    (each channel count and dtype is a build of its own: rusticl compiles them slowly): yields
    (the geometry, the image given, the device's geometric result clipped to the levels)."""
    from warpkit import augment as W

    cases = [(19, 13, 3, np.uint8), (1, 1, 3, np.uint8), (2, 9, 1, np.uint8),
             (17, 5, 3, np.float32)]
    for k, (w, h, c, dt) in enumerate(cases):
        geo = W.RandomAffine(degrees=30, size=(h, w))
        im = photo[..., :c].copy() if dt == np.uint8 else photo[..., :c].astype(np.float32) / 255
        base = W.Compose([geo])(image=im, seed=k, queue=queue)["image"]
        yield geo, k, im, np.clip(base, 0, 1) if base.dtype == np.float32 else base


def ragged_crops(photos: list, n: int, seed: int = 2) -> list:
    """n corners of the photos (taken in turn), each 20-89 pixels on a side."""
    rs = np.random.default_rng(seed)
    return [photos[k % len(photos)][:int(rs.integers(20, 90)), :int(rs.integers(20, 90))].copy()
            for k in range(n)]


def assert_batch_is_alone(pipe, imgs: list, seed: int, queue) -> None:
    """One call on the batch gives each sample's image as a call on it alone does."""
    batch = pipe(image=imgs, seed=seed, queue=queue)
    for i, img in enumerate(imgs):
        alone = pipe(image=img, seed=seed, index=i, queue=queue)["image"]
        np.testing.assert_array_equal(batch["image"][i], alone)


def assert_alone_and_replayed(pipe, imgs: list, got: dict, seed: int, queue) -> None:
    """``got`` (``pipe`` on the batch ``imgs`` with ``seed``): each sample's image as a call on
    it alone gives it, and as its recorded params replay it."""
    for k, img in enumerate(imgs):
        alone = pipe(image=img, seed=seed, index=k, queue=queue)
        np.testing.assert_array_equal(alone["image"], got["image"][k])
        again = pipe(image=img, params=got["params"][k], queue=queue)
        np.testing.assert_array_equal(again["image"], got["image"][k])


def assert_reference_batch(pipe, imgs: list, key: str, refs: list, amount: str,
                           bounds: tuple, seed: int, queue) -> dict:
    """A domain adaptation's batch (``pipe``: a geometric step, then the adaptation, which reads
    the call's list ``refs`` under ``key``): the list comes back in the result; the samples
    chose among the references (recorded, at least two) and drew ``amount`` within ``bounds``;
    each sample as alone and as replayed; Compose.sample draws a sample's parameters from the
    call's keywords; to_dict/from_dict. Returns the call's result."""
    with_refs = lambda **kw: pipe(**kw, **{key: refs})  # noqa: E731
    got = with_refs(image=imgs, seed=seed, queue=queue)
    assert got[key] is refs
    steps = [p["steps"][1] for p in got["params"]]
    chosen = {s["reference"] for s in steps if s["applied"]}
    assert len(chosen) >= 2 and chosen <= set(range(len(refs)))
    assert all(bounds[0] <= s[amount] <= bounds[1] for s in steps if s["applied"])
    assert_alone_and_replayed(with_refs, imgs, got, seed, queue)
    for k in (0, 4):
        assert pipe.sample(imgs[k].shape[:2], seed, index=k, **{key: refs}) == got["params"][k]
    same = type(pipe).from_dict(pipe.to_dict())
    assert same.to_dict() == pipe.to_dict()
    np.testing.assert_array_equal(
        same(image=imgs, seed=seed, queue=queue, **{key: refs})["image"], got["image"])
    return got


def albumentations_and_photos() -> tuple:
    """albumentations (its update check off, its import's warnings quiet) and three of
    scikit-image's photos by name (astronaut, coffee, chelsea): the colour tests' oracle and
    images."""
    import os
    import warnings

    os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import albumentations as A
        import skimage.data
    return A, {"astronaut": skimage.data.astronaut(), "coffee": skimage.data.coffee(),
               "chelsea": skimage.data.chelsea()}


def assert_oneof_batch(steps: list, photos: list, queue, after: tuple = ()) -> None:
    """``steps`` in a OneOf after RandomResizedCrop(48) (and ``after`` behind it), normalised
    to float CHW, on a ragged batch of ``photos``: the choice takes each step, and each
    sample is as alone and as its params replay it."""
    from warpkit import augment as W

    pipe = W.Compose([W.RandomResizedCrop(48), W.OneOf(steps), *after],
                     output_dtype="float32", mean=[0.5] * 3, std=[0.25] * 3, layout="CHW")
    got = pipe(image=photos, seed=1, queue=queue)
    assert {p["steps"][1]["choice"] for p in got["params"]} == set(range(len(steps)))
    assert_alone_and_replayed(pipe, photos, got, 1, queue)


def assert_ports(t, theirs) -> None:
    """``t`` back from its pipeline's to_dict, and albumentations' ``theirs`` (the same
    parameters) through from_albumentations: the same config and p."""
    import warnings

    from warpkit import augment as W

    back = W.Compose.from_dict(W.Compose([t]).to_dict()).transforms[0]
    assert back.config() == t.config() and back.p == t.p
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import albumentations as A

        ported = W.from_albumentations(A.Compose([theirs])).transforms[0]
    assert ported.config() == t.config() and ported.p == t.p


def assert_drawn_alone(t, imgs: list, seed: int, indices) -> None:
    """A one-step pipeline of ``t`` on the batch ``imgs`` draws for each sample of ``indices``
    what it draws on that sample alone (the batch's side-by-side draws, the same numbers)."""
    from warpkit import augment as W

    batch = W.Compose([t])(image=imgs, seed=seed)
    for k in indices:
        alone = W.Compose([t])(image=imgs[k], seed=seed, index=k)
        assert alone["params"]["steps"][0] == batch["params"][k]["steps"][0], k


def assert_sample_5_replays(pipe, img: np.ndarray, out: dict, queue) -> None:
    """``out`` (``pipe`` on ``img`` with seed 11, index 5) is sample 5 of a batch of 7 copies of
    ``img`` (sample 4 differs: its own numbers), and its recorded params replay it."""
    batch = pipe(image=np.stack([img] * 7), seed=11, queue=queue)["image"]
    np.testing.assert_array_equal(batch[5], out["image"])
    assert not np.array_equal(batch[4], batch[5])
    again = pipe(image=img, params=out["params"], queue=queue)["image"]
    np.testing.assert_array_equal(again, out["image"])


def check_dropout_targets(out: dict, theirs, img: np.ndarray, mask: np.ndarray,
                          boxes: np.ndarray, kps: np.ndarray, min_visibility: float) -> bool:
    """One dropout call's outputs (image, mask, 4 labelled boxes, keypoints, its first step's
    recorded holes) against albumentations' own dropout ``theirs`` of the same holes: image and
    mask pixel for pixel, boxes and labels as its filter, keypoints in a hole gone. Returns
    whether the holes moved or dropped a box."""
    from albumentations.augmentations.dropout import functional as AD

    holes = np.asarray(out["params"]["steps"][0]["holes"], np.int64).reshape(-1, 4)
    np.testing.assert_array_equal(out["image"], theirs.apply(img, holes=holes, seed=0))
    np.testing.assert_array_equal(out["mask"], theirs.apply_to_mask(mask, holes=holes, seed=0))
    labelled = np.concatenate([boxes, np.arange(len(boxes))[:, None]], 1).astype(np.float64)
    want = AD.filter_bboxes_by_holes(labelled, holes, img.shape[:2], 0, min_visibility)
    np.testing.assert_allclose(out["boxes"], want[:, :4])
    assert list(out["labels"]) == want[:, 4].astype(int).tolist()
    # keypoints: pixel centres at integers, so a hole's pixels span [x1 - 0.5, x2 - 0.5)
    inside = ((kps[:, None, 0] + 0.5 >= holes[:, 0]) & (kps[:, None, 0] + 0.5 < holes[:, 2])
              & (kps[:, None, 1] + 0.5 >= holes[:, 1]) & (kps[:, None, 1] + 0.5 < holes[:, 3]))
    np.testing.assert_allclose(out["keypoints"], kps[~inside.any(1)])
    return not np.array_equal(out["boxes"], boxes)


#: the boxes the dropout tests cut (pixels of the 512 x 512 astronaut)
DROPOUT_BOXES = np.array([[10, 10, 200, 200], [300, 300, 400, 480], [50, 250, 120, 300],
                          [220, 40, 236, 52]], np.float32)


def dropout_runs(make, dtype, queue, seeds, min_visibility: float,
                 boxes: np.ndarray = DROPOUT_BOXES) -> tuple[list[dict], int]:
    """A dropout on the astronaut (uint8, or float32 in [0, 1]) with a mask, 4 labelled
    ``boxes`` and 300 keypoints, one call per seed, each checked by
    :func:`check_dropout_targets` against albumentations' own: ``make(fill)`` gives (warpkit's
    transform, albumentations' one) for a fill of the dtype's levels. Returns the outputs and
    how many moved or dropped a box."""
    import skimage.data

    from warpkit import augment as W

    photo = skimage.data.astronaut()
    img = photo if dtype == np.uint8 else photo.astype(np.float32) / 255
    fill = (10, 20, 30) if dtype == np.uint8 else (0.1, 0.2, 0.3)
    mask = (photo[..., 0] > 128).astype(np.uint8)
    kps = np.random.default_rng(0).uniform(0, 511, (300, 2))
    ours, theirs = make(fill)
    pipe = W.Compose([ours], min_visibility=min_visibility)
    outs, cut = [], 0
    for seed in seeds:
        out = pipe(image=img, mask=mask, boxes=boxes, labels=list(range(len(boxes))),
                   keypoints=kps, seed=seed, queue=queue)
        cut += check_dropout_targets(out, theirs, img, mask, boxes, kps, min_visibility)
        outs.append(out)
    return outs, cut


def objects_mask(h: int, w: int, seed: int) -> np.ndarray:
    """A mask of a few values (1-4), each in several blobs (discs and rectangles, some
    touching): objects for MaskDropout and ConstrainedCoarseDropout's mask_indices."""
    rng = np.random.default_rng(seed)
    m = np.zeros((h, w), np.uint8)
    yy, xx = np.ogrid[:h, :w]
    for i in range(12):
        v = 1 + i % 4
        cy, cx = rng.integers(0, h), rng.integers(0, w)
        r = rng.integers(4, max(5, min(h, w) // 5))
        if i % 2:
            m[(yy - cy) ** 2 + (xx - cx) ** 2 < r * r] = v
        else:
            m[max(cy - r, 0):cy + r // 2, max(cx - r, 0):cx + r] = v
    return m


def batch_is_single_calls(pipe, imgs: np.ndarray, masks: np.ndarray, seed: int, queue
                          ) -> tuple[dict, list[dict]]:
    """``pipe`` on a batch with masks: each sample's image, mask and parameters are the single
    call's of its index, and replaying its parameters gives its image. (the batch's result,
    the single calls')."""
    batch = pipe(image=imgs, mask=masks, seed=seed, queue=queue)
    ones = []
    for k in range(len(imgs)):
        one = pipe(image=imgs[k], mask=masks[k], seed=seed, index=k, queue=queue)
        np.testing.assert_array_equal(batch["image"][k], one["image"])
        np.testing.assert_array_equal(batch["mask"][k], one["mask"])
        assert batch["params"][k] == one["params"]
        again = pipe(image=imgs[k], mask=masks[k], params=one["params"], queue=queue)
        np.testing.assert_array_equal(again["image"], one["image"])
        ones.append(one)
    return batch, ones

"""warpkit.augment's save, load, to_dict and from_dict: albumentations' serialisation functions
under their names and signatures, so that code that saves and loads its recipes ports with the
import. They write warpkit's pipeline data (JSON or YAML) and read it back, and read what
albumentations itself saved."""

from __future__ import annotations

import io
import warnings

import albumentations
import numpy as np
import pytest

import warpkit.augment as W

PHOTO = np.random.default_rng(5).integers(0, 256, (60, 80, 3), np.uint8)
BOXES = [[5, 8, 40, 50], [30, 20, 70, 55]]


def _recipe(A):
    """One recipe in either library's names: what a training script writes."""
    return A.Compose([A.RandomResizedCrop(size=(48, 64), scale=(0.5, 1.0)), A.HorizontalFlip(),
                      A.Affine(rotate=(-10, 10), p=0.7),
                      A.ColorJitter(0.3, 0.3, 0.3, 0.05, p=0.8), A.GaussianBlur(p=0.3),
                      A.CoarseDropout(p=0.5)],
                     bbox_params=A.BboxParams(format="pascal_voc", label_fields=["labels"],
                                              min_visibility=0.1))


def _quiet(f, *a, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*a, **kw)


def _same_results(a, b, queue) -> None:
    for seed in (0, 1, 2):
        x = a(image=PHOTO, bboxes=BOXES, labels=[1, 2], seed=seed, queue=queue)
        y = b(image=PHOTO, bboxes=BOXES, labels=[1, 2], seed=seed, queue=queue)
        assert np.array_equal(np.asarray(x["image"]), np.asarray(y["image"]))
        assert np.array_equal(np.asarray(x["bboxes"]), np.asarray(y["bboxes"]))
        assert x["labels"] == y["labels"]


@pytest.mark.parametrize("data_format", ["json", "yaml"])
def test_a_recipe_saves_and_loads_as_its_albumentations_code_does(queue, tmp_path, data_format):
    """The script's save and load, run with either import: albumentations' own round trip, and
    warpkit's (to a path and to a stream), which gives the pipeline back with the same results;
    each library's saved file read by warpkit's load is the same pipeline."""
    outs = {}
    for lib in (albumentations, W):
        aug = _quiet(_recipe, lib)
        path = tmp_path / f"{lib.__name__}.{data_format}"
        _quiet(lib.save, aug, str(path), data_format=data_format)
        back = _quiet(lib.load, str(path), data_format=data_format)
        assert type(back).__name__ == "Compose"
        outs[lib] = (aug, path, back)
    aug, path, back = outs[W]
    assert back.to_dict() == aug.to_dict() == W.to_dict(aug)
    _same_results(aug, back, queue)
    buf = io.StringIO()
    W.save(aug, buf, data_format=data_format)
    assert W.load(io.StringIO(buf.getvalue()), data_format=data_format).to_dict() == \
        aug.to_dict()
    assert W.load(path, data_format=data_format).to_dict() == aug.to_dict()  # (a Path)
    # albumentations' file, and its dict, are ported
    ported = W.from_albumentations(_quiet(_recipe, albumentations))
    theirs = outs[albumentations][1]
    assert W.load(theirs, data_format=data_format).to_dict() == ported.to_dict()
    assert W.from_dict(_quiet(albumentations.to_dict, _quiet(_recipe, albumentations))
                       ).to_dict() == ported.to_dict()
    assert W.from_dict(aug.to_dict()).to_dict() == aug.to_dict()
    _same_results(ported, W.load(theirs, data_format=data_format), queue)
    # a file is replaced whole: no temporary file is left beside it
    W.save(aug, path, data_format=data_format)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        f"{lib.__name__}.{data_format}" for lib in (albumentations, W))


def test_lambdas_come_back_through_nonserializable(tmp_path):
    def brighter(image, **kw):
        return np.clip(image.astype(np.int16) + 10, 0, 255).astype(np.uint8)

    step = W.Lambda(image=brighter, name="brighter")
    W.save(W.Compose([W.HorizontalFlip(), step]), tmp_path / "l.json")
    with pytest.raises(ValueError, match=r"Lambda 'brighter' is written without its functions: "
                                         r"pass nonserializable=\{'brighter': Lambda\(...\)\}"):
        W.load(tmp_path / "l.json")
    back = W.load(tmp_path / "l.json", nonserializable={"brighter": step})
    assert back.transforms[1] is step


def test_bad_arguments_and_files_say_what_is_wrong(tmp_path):
    aug = W.Compose([W.HorizontalFlip()])
    for f, kw in ((W.save, {"transform": aug, "filepath_or_buffer": io.StringIO()}),
                  (W.load, {"filepath_or_buffer": io.StringIO("{}")})):
        with pytest.raises(ValueError, match=r"data_format must be 'json' \(JSON\) or 'yaml' "
                                             r"\(YAML, with PyYAML\), got 'xml'"):
            f(**kw, data_format="xml")
    with pytest.raises(ValueError, match=r"on_not_implemented_error must be 'raise' \(raise the "
                                         r"error\) or 'warn' \(warn and give None\), got "
                                         r"'ignore'"):
        W.to_dict(aug, on_not_implemented_error="ignore")
    with pytest.raises(TypeError, match=r"to_dict takes a warpkit.augment transform, got "
                                        r"Compose \(an albumentations pipeline: "
                                        r"from_albumentations ports it\)"):
        W.to_dict(_quiet(albumentations.Compose, [albumentations.HorizontalFlip()]))
    W.save(aug, tmp_path / "a.yaml", data_format="yaml")
    with pytest.raises(ValueError, match=r"a.yaml: not valid JSON \(.*\); data_format='yaml' "
                                         r"reads YAML"):
        W.load(tmp_path / "a.yaml")
    with pytest.raises(ValueError, match=r"the stream: not valid YAML \(expected ',' or '\]', "
                                         r"but got '<stream end>' at line 2, column 1\)"):
        W.load(io.StringIO("a: [1, 2\n"), data_format="yaml")
    with pytest.raises(ValueError, match=r"a transform must be a dict with a 'type' among"):
        W.load(io.StringIO("[1, 2]"))


def test_a_transform_that_cannot_be_written_raises_or_warns():
    """albumentations' on_not_implemented_error: "warn" gives None with a warning."""
    class Unwritable(W.HorizontalFlip):
        def to_dict(self):
            raise NotImplementedError("no data for this one")

    with pytest.raises(NotImplementedError, match="no data for this one"):
        W.to_dict(Unwritable())
    with pytest.warns(UserWarning, match=r"Unwritable cannot be written: no data for this one"):
        assert W.to_dict(Unwritable(), on_not_implemented_error="warn") is None

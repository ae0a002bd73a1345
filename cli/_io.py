"""File handling for the CLI: input expansion, safe atomic writes, metadata kept."""

from __future__ import annotations

import glob
import json
import os
import tempfile
from pathlib import Path

from PIL import Image, ImageOps

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".webp", ".gif", ".ppm",
                  ".pgm", ".pbm", ".tga"}


class UserError(Exception):
    """A mistake in the command line: reported in one line, exit code 1."""


def expand_inputs(inputs: list[str]) -> list[Path]:
    """Files as given, images inside directories (sorted), and glob patterns."""
    out: list[Path] = []
    for item in inputs:
        p = Path(item)
        if p.is_dir():
            found = sorted(q for q in p.iterdir() if q.is_file() and q.suffix.lower() in IMAGE_SUFFIXES)
            if not found:
                raise UserError(f"no images in directory {item}")
            out.extend(found)
        elif p.exists():
            out.append(p)
        elif any(ch in item for ch in "*?["):
            found = sorted(Path(q) for q in glob.glob(item) if Path(q).is_file())
            if not found:
                raise UserError(f"no files match {item}")
            out.extend(found)
        else:
            raise UserError(f"input not found: {item}")
    seen, unique = set(), []
    for p in out:
        key = p.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(p)
    return unique


def open_image(path: Path) -> Image.Image:
    """Open an image with its EXIF orientation applied (the picture as viewers show it)."""
    with Image.open(path) as src:
        src.load()
        fmt = src.format
        info = dict(src.info)
        img = ImageOps.exif_transpose(src)
        if img is src:
            img = src.copy()
    img.format = fmt
    for k in ("icc_profile", "dpi"):
        if k in info:
            img.info[k] = info[k]
    if "exif" in img.info or "exif" in info:
        exif = img.getexif()  # exif_transpose reset the orientation tag in it
        img.info["exif"] = exif.tobytes()
    return img


def save_atomic(img: Image.Image, dest: Path, fmt: str | None, overwrite: bool,
                protected: set[Path]) -> None:
    """Write via a temporary file in the destination's directory, then rename: a crash never
    leaves a half-written file. Never writes over an input; an existing file only with overwrite."""
    dest_r = dest.resolve()
    if dest_r in protected:
        raise UserError(f"refusing to overwrite the input {dest}")
    if dest.exists() and not overwrite:
        raise UserError(f"{dest} exists (pass --overwrite to replace it)")
    kwargs = {}
    for k in ("icc_profile", "exif", "dpi"):
        if k in img.info:
            kwargs[k] = img.info[k]
    if fmt is None:
        # the common formats' plugins first: loading every plugin (registered_extensions) took
        # 48 ms, a tenth of a one-image warp
        ext = dest.suffix.lower()
        Image.preinit()
        fmt = Image.EXTENSION.get(ext) or Image.registered_extensions().get(ext)
    if fmt is None:
        raise UserError(f"cannot tell the image format of {dest} from its extension")
    if fmt.upper() in ("JPEG",) and img.mode not in ("L", "RGB", "CMYK"):
        img = img.convert("RGB")
        kwargs["quality"] = 95
    elif fmt.upper() == "JPEG":
        kwargs["quality"] = 95

    def write(tmp: str) -> None:
        try:
            img.save(tmp, format=fmt, **kwargs)
        except (OSError, ValueError, TypeError):
            kwargs.pop("exif", None)  # a format that cannot carry these: keep the pixels
            kwargs.pop("icc_profile", None)
            img.save(tmp, format=fmt, **kwargs)

    _replace_atomically(dest, write)


def _replace_atomically(dest: Path, write) -> None:
    """write(path) into a temporary file beside dest, then rename it over dest: a crash never
    leaves a half-written file."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    os.close(fd)
    try:
        write(tmp)
        # mkstemp makes the file 0600: give it the mode a plain open() would (or the old file's)
        if dest.exists():
            mode = dest.stat().st_mode & 0o777
        else:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, dest)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def save_json_atomic(data, dest: Path) -> None:
    """Write JSON atomically, as save_atomic writes images."""
    def write(tmp: str) -> None:
        with open(tmp, "w") as fh:
            json.dump(data, fh, indent=1)

    _replace_atomically(dest, write)


def parse_size(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    try:
        w, h = text.lower().split("x")
        size = int(w), int(h)
    except ValueError:
        raise UserError(f"--size must look like 640x480, got {text!r}") from None
    if min(size) < 1:
        raise UserError(f"--size must be at least 1x1, got {text!r}")
    return size

"""`make image`: the platform's one image (deploy/Containerfile) built with podman on this machine.

No container registry is needed: the Python base is Debian bookworm's own `python3`, made with mmdebstrap from
the machine's apt sources (the tarball cached under .data/images/) and imported as
localhost/debian-python:bookworm; uv is the binary of PyPI's uv wheel (the one the Makefile installs into
.tools), put into the one-file image localhost/uv:<version>. Both are build arguments of the Containerfile
(BASE_IMAGE, UV_IMAGE), whose defaults are the public python:3.11-slim and ghcr.io/astral-sh/uv images.
`--base`/`--uv-image` (make image BASE_IMAGE=... UV_IMAGE=...) build from others, made elsewhere.

Containers run with `podman --runtime runc` (crun refuses some kernels' cgroup layouts; PODMAN_RUNTIME
overrides it).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
IMAGE = "speed-platform:latest"
"""The tag the manifests run (deploy/k8s/base/kustomization.yaml `images`)."""
DEBIAN_SUITE = "bookworm"
BASE_IMAGE = f"localhost/debian-python:{DEBIAN_SUITE}"
UV_VERSION = "0.13.9"
"""The Makefile's UV_VERSION: the uv that syncs the image's environment."""
UV_IMAGE = f"localhost/uv:{UV_VERSION}"
UV_BINARY = REPO_ROOT / ".tools" / "bin" / "uv"
APT_SOURCES = (Path("/etc/apt/sources.list.d/debian.sources"), Path("/etc/apt/sources.list"))
"""The machine's own apt sources, mmdebstrap's mirror list (the first that exists); else Debian's mirror."""
CA_CERTIFICATES = Path("/etc/ssl/certs/ca-certificates.crt")
"""The machine's CA bundle, given to the build (secret `ca-certificates`) for uv's way to PyPI."""
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
INSTALL_HINT = "apt-get install -y podman runc mmdebstrap"


class ImageError(Exception):
    """The image cannot be built here; the message says why and what to install or run."""


def runtime() -> str:
    """The OCI runtime podman runs containers with (PODMAN_RUNTIME, default runc)."""
    return os.environ.get("PODMAN_RUNTIME", "runc")


def podman(*args: str, check: bool = True, capture: bool = True, env: dict[str, str] | None = None,
           timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    """Run `podman --runtime <runtime> <args>`; with `check`, raise ImageError carrying its stderr on failure."""
    result = subprocess.run(["podman", "--runtime", runtime(), *args], capture_output=capture, text=True,
                            env=env, timeout=timeout, check=False)
    if check and result.returncode != 0:
        raise ImageError(f"podman {' '.join(args[:3])} ... failed ({result.returncode}): "
                         f"{(result.stderr or '').strip()[-2000:]}")
    return result


def unavailable() -> str | None:
    """Why podman cannot run containers here (None: it can): not installed, or its runtime refuses."""
    if shutil.which("podman") is None:
        return f"podman is not installed (as root: {INSTALL_HINT})"
    if shutil.which(runtime()) is None:
        return f"podman's runtime {runtime()} is not installed (as root: {INSTALL_HINT})"
    result = podman("info", "--format", "{{.Host.OCIRuntime.Name}}", check=False)
    if result.returncode != 0:
        return f"podman does not work here: {result.stderr.strip()[-500:]}"
    return None


def image_exists(name: str) -> bool:
    return podman("image", "exists", name, check=False).returncode == 0


def ensure_base(data: Path, name: str = BASE_IMAGE) -> None:
    """Import Debian's python3 as `name` unless podman has it: from the tarball under `data`/images, made
    first with mmdebstrap when missing."""
    if image_exists(name):
        return
    tarball = data / "images" / f"debian-python-{DEBIAN_SUITE}.tar"
    if not tarball.exists():
        if shutil.which("mmdebstrap") is None:
            raise ImageError(f"mmdebstrap is not installed (as root: {INSTALL_HINT})")
        tarball.parent.mkdir(parents=True, exist_ok=True)
        mirror = next((str(path) for path in APT_SOURCES if path.exists()), "http://deb.debian.org/debian")
        partial = tarball.with_suffix(".partial.tar")
        result = subprocess.run(["mmdebstrap", "--quiet", "--variant=minbase", "--include=python3", DEBIAN_SUITE,
                                 str(partial), mirror], capture_output=True, text=True, check=False)
        if result.returncode != 0:
            partial.unlink(missing_ok=True)
            raise ImageError(f"mmdebstrap failed ({result.returncode}): {result.stderr.strip()[-2000:]}")
        partial.rename(tarball)
    # A tarball has no image configuration: give it what python:3.11-slim's has that the build relies on.
    podman("import", "--change", f"ENV PATH={DEFAULT_PATH}", "--change", "ENV LANG=C.UTF-8",
           "--change", 'CMD ["python3"]', str(tarball), name)


def ensure_uv(name: str = UV_IMAGE) -> None:
    """Build `name`, an image of the one file /uv (PyPI's uv binary from .tools), unless podman has it."""
    if image_exists(name):
        return
    if not UV_BINARY.exists():
        raise ImageError(f"{UV_BINARY} is missing: `make venv` installs uv {UV_VERSION} from PyPI")
    with tempfile.TemporaryDirectory(prefix="speed-uv-image-") as context:
        shutil.copy2(UV_BINARY, Path(context) / "uv")
        (Path(context) / "Containerfile").write_text("FROM scratch\nCOPY uv /uv\n")
        podman("build", "--quiet", "-t", name, context)


def build(image: str = IMAGE, base: str = BASE_IMAGE, uv: str = UV_IMAGE, echo: bool = False) -> float:
    """Build `image` from deploy/Containerfile with `base` and `uv` as its build arguments; return the seconds
    the build took (podman reuses every layer whose inputs did not change)."""
    began = time.monotonic()
    certificates = ("--secret", f"id=ca-certificates,src={CA_CERTIFICATES}") if CA_CERTIFICATES.exists() else ()
    result = podman("build", "--network", "host", *certificates, "-f", "deploy/Containerfile",
                    "--ignorefile", "deploy/Containerfile.dockerignore",
                    "--build-arg", f"BASE_IMAGE={base}", "--build-arg", f"UV_IMAGE={uv}", "-t", image,
                    str(REPO_ROOT), check=False, capture=not echo)
    if result.returncode != 0:
        raise ImageError(f"podman build failed ({result.returncode})" +
                         ("" if echo else f": {(result.stdout + result.stderr).strip()[-3000:]}"))
    return time.monotonic() - began


def size(image: str = IMAGE) -> int:
    """The image's size in bytes, as `podman images` counts it (all layers, uncompressed)."""
    return int(podman("image", "inspect", "--format", "{{.Size}}", image).stdout.strip())


def make(data: Path, image: str = IMAGE, base: str = BASE_IMAGE, uv: str = UV_IMAGE, echo: bool = False) -> float:
    """Everything `make image` does: the local base and uv images when they are the defaults and missing, then
    the build; return the build's seconds."""
    if reason := unavailable():
        raise ImageError(reason)
    if base == BASE_IMAGE:
        ensure_base(data, base)
    if uv == UV_IMAGE:
        ensure_uv(uv)
    return build(image, base, uv, echo=echo)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=REPO_ROOT / ".data")
    parser.add_argument("--image", default=os.environ.get("IMAGE") or IMAGE)
    parser.add_argument("--base", default=os.environ.get("BASE_IMAGE") or BASE_IMAGE,
                        help="the Python base image (a Debian with python3 3.11)")
    parser.add_argument("--uv-image", default=os.environ.get("UV_IMAGE") or UV_IMAGE,
                        help="an image with the uv binary at /uv")
    args = parser.parse_args()
    try:
        seconds = make(args.data.resolve(), args.image, args.base, args.uv_image, echo=True)
    except ImageError as error:
        sys.exit(f"make image: {error}")
    print(f"\n{args.image}: built in {seconds:.0f} s, {size(args.image) / 1e6:.0f} MB "
          f"(base {args.base}, uv from {args.uv_image})")


if __name__ == "__main__":
    main()

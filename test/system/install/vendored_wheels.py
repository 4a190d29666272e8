"""Wheels of the vendored jupyter-server-proxy 4.4.0 and simpervisor 1.0.0, for a test's own index.

PyPI is out of reach here, so the container image test gives pip a directory of wheels instead of
an index. These two are made from ../shared/vendor/python, unmodified, with the metadata their
releases declare (name, version, dependencies) and jupyter-server-proxy's config file in the
place its own wheel puts it (it enables the server extension). They exist only in the test's
temporary directory; no package of the project carries them.

    python3 vendored_wheels.py <vendor/python> <out-dir>    prints each wheel's path
"""

import base64
import hashlib
import sys
import zipfile
from pathlib import Path

PACKAGES = {
    "jupyter_server_proxy": {
        "name": "jupyter-server-proxy",
        "version": "4.4.0",
        "requires": [
            "aiohttp",
            "jupyter-server>=1.24",
            "simpervisor>=1.0.0",
            "tornado>=6.1.0",
            "traitlets>=5.1.0",
        ],
        "license": "jupyter-server-proxy-4.4.0-LICENSE",
        # The released wheel installs this file so that Jupyter Server loads the extension.
        "data": {
            "etc/jupyter_server_config.d/jupyter-server-proxy.json": (
                "data/etc/jupyter/jupyter_server_config.d/jupyter-server-proxy.json"
            )
        },
    },
    "simpervisor": {
        "name": "simpervisor",
        "version": "1.0.0",
        "requires": [],
        "license": "simpervisor-1.0.0-LICENSE",
        "data": {},
    },
}


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return f"{name},sha256={digest.decode()},{len(data)}"


def make_wheel(vendor: Path, package: str, out: Path) -> Path:
    meta = PACKAGES[package]
    dist = f"{meta['name'].replace('-', '_')}-{meta['version']}"
    wheel = out / f"{dist}-py3-none-any.whl"
    files: list[tuple[str, bytes]] = []
    root = vendor / package
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            relative = path.relative_to(root).as_posix()
            target = meta["data"].get(relative)
            name = f"{dist}.data/{target}" if target else f"{package}/{relative}"
            files.append((name, path.read_bytes()))
    metadata = "\n".join(
        ["Metadata-Version: 2.1", f"Name: {meta['name']}", f"Version: {meta['version']}"]
        + [f"Requires-Dist: {r}" for r in meta["requires"]]
    )
    files += [
        (f"{dist}.dist-info/METADATA", (metadata + "\n").encode()),
        (
            f"{dist}.dist-info/WHEEL",
            b"Wheel-Version: 1.0\nGenerator: vendored_wheels\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        ),
        (
            f"{dist}.dist-info/licenses/LICENSE",
            (vendor / "licenses" / meta["license"]).read_bytes(),
        ),
    ]
    record = [_record_line(name, data) for name, data in files]
    record.append(f"{dist}.dist-info/RECORD,,")
    files.append((f"{dist}.dist-info/RECORD", ("\n".join(record) + "\n").encode()))
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files:
            archive.writestr(name, data)
    return wheel


def main() -> None:
    vendor, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    for package in PACKAGES:
        print(make_wheel(vendor, package, out))


if __name__ == "__main__":
    main()

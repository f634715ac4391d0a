"""Generate the Python code for proto/solitaire/v1 into services/contract/solitaire/v1.

python scripts/gen_protos.py          # regenerate
python scripts/gen_protos.py --check  # exit 1 if the committed code is stale
"""

from __future__ import annotations

import argparse
import filecmp
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
OUT_ROOT = ROOT / "services" / "contract"
PACKAGE = Path("solitaire") / "v1"


def generate(out_root: Path) -> list[Path]:
    protos = sorted((PROTO_ROOT / PACKAGE).glob("*.proto"))
    include = str(resources.files("grpc_tools") / "_proto")
    bindir = Path(sys.executable).parent
    args = [
        "grpc_tools.protoc",
        f"--plugin=protoc-gen-mypy={bindir / 'protoc-gen-mypy'}",
        f"--plugin=protoc-gen-mypy_grpc={bindir / 'protoc-gen-mypy_grpc'}",
        f"-I{PROTO_ROOT}",
        f"-I{include}",
        f"--python_out={out_root}",
        f"--grpc_python_out={out_root}",
        f"--mypy_out={out_root}",
        f"--mypy_grpc_out={out_root}",
        *[str(p) for p in protos],
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    for package in (out_root / "solitaire", out_root / PACKAGE):
        (package / "__init__.py").touch()
    return sorted(p.relative_to(out_root) for p in (out_root / PACKAGE).iterdir() if p.is_file())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="fail if generated code is stale")
    check = parser.parse_args().check
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp)
        files = generate(fresh)
        target = OUT_ROOT / PACKAGE
        committed = (
            sorted(p.relative_to(OUT_ROOT) for p in target.glob("*") if p.is_file())
            if target.exists()
            else []
        )
        stale = [
            f
            for f in files
            if not (OUT_ROOT / f).exists()
            or not filecmp.cmp(fresh / f, OUT_ROOT / f, shallow=False)
        ]
        extra = [f for f in committed if f not in files]
        if check:
            if stale or extra:
                print("generated code is stale; run: python scripts/gen_protos.py", file=sys.stderr)
                for f in stale + extra:
                    print(f"  {f}", file=sys.stderr)
                return 1
            print(f"generated code is up to date ({len(files)} files)")
            return 0
        for f in extra:
            (OUT_ROOT / f).unlink()
        for f in files:
            (OUT_ROOT / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(fresh / f, OUT_ROOT / f)
        (OUT_ROOT / "solitaire" / "__init__.py").touch()
        print(f"wrote {len(files)} files to {OUT_ROOT / PACKAGE}")
        return 0


if __name__ == "__main__":
    raise SystemExit(main())

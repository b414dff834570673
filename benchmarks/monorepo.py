"""Assemble the monorepo benchmark: eight Django/Celery applications, each at
a pinned commit, under one root, as a monorepo holds its services.

    python benchmarks/monorepo.py --out /tmp/joblint-bench/monorepo
    python benchmarks/monorepo.py --out DIR --git 'https://github.com/{repo}'
    python benchmarks/monorepo.py --out DIR CHECKOUT...

The pinned applications come from the hunting grounds (never the excluded
projects). Each is fetched once, shallow, at its commit from `--git` (a URL
template; `{repo}` is owner/name, `{owner}` and `{name}` its parts;
$JOBLINT_BENCH_GIT overrides the default, e.g. a folder of local mirrors),
into `sources/` beside the output. Only what joblint and Ruff read is copied:
Python files and the project and settings files (pyproject.toml, setup.cfg,
tox.ini, pytest.ini, .flake8, .env files), under `apps/<name>/`; a root
`pyproject.toml` declares the workspace. Given CHECKOUT folders instead,
their files are copied the same way. The output is outside any git
repository, so no .gitignore of this one applies. Prints the Python file
count.
"""

from __future__ import annotations

import argparse
import fnmatch
import io
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

KEPT = ("*.py", "pyproject.toml", "setup.cfg", "tox.ini", "pytest.ini", ".flake8", ".env*")
SKIPPED = {".git", "node_modules", "__pycache__", ".venv", "venv"}
DEFAULT_GIT = "https://github.com/{repo}"
# Paths per `git archive` call: a command line, not the whole tree, at a time.
ARCHIVE_CHUNK = 400

# owner/name and the commit each application is measured at.
PINNED = (
    ("mayan-edms/Mayan-EDMS", "71788a5196547c61c1ee457ba386cfee98b77daf"),
    ("openedx/course-discovery", "e519c2834f2dcd89cda9b82656ac99369eb9ca1b"),
    ("DefectDojo/django-DefectDojo", "7cfa159a6767b0ac6e66f3b1597a997e607e7308"),
    ("kobotoolbox/kpi", "2e5efb0172e64fc8c8de222039f2aa02c6d6be8e"),
    ("CenterForOpenScience/osf.io", "d43a0f61a49f4e4bac3d78d3f02e9590e358b6ec"),
    ("nyaruka/rapidpro", "c4e8d4872a87290d348407c06e19293fa4a585c8"),
    ("taigaio/taiga-back", "3bea7114007afd83478a8d6f2a70afd70d94dc21"),
    ("wagtail/wagtail", "c2ae43b9265d085c95142cd1a1f8563ad2eb4de9"),
)


def python_files(root: Path) -> int:
    return sum(1 for _ in root.rglob("*.py"))


def kept(relative: str) -> bool:
    parts = relative.split("/")
    if SKIPPED & set(parts):
        return False
    return any(fnmatch.fnmatchcase(parts[-1], pattern) for pattern in KEPT)


def copy_application(source: Path, target: Path) -> int:
    copied = 0
    for path in sorted(source.rglob("*")):
        relative = path.relative_to(source).as_posix()
        if not path.is_file() or not kept(relative):
            continue
        destination = target / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, destination)
        copied += 1
    return copied


def _git(git_dir: Path, *arguments: str) -> bytes:
    command = ["git", f"--git-dir={git_dir}", *arguments]
    done = subprocess.run(command, capture_output=True, check=False)
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip().splitlines()
        raise SystemExit(f"{' '.join(command[:4])}: {message[-1] if message else 'failed'}")
    return done.stdout


def _has_commit(git_dir: Path, commit: str) -> bool:
    command = ["git", f"--git-dir={git_dir}", "cat-file", "-e", f"{commit}^{{commit}}"]
    return git_dir.is_dir() and subprocess.run(command, capture_output=True).returncode == 0


def repository_with(repo: str, commit: str, template: str, sources: Path) -> Path:
    """A git directory holding `commit`: the template's own, when it names a
    local one that has it; otherwise a shallow fetch of that one commit."""
    owner, name = repo.split("/")
    location = template.format(repo=repo, owner=owner, name=name)
    if _has_commit(Path(location), commit):
        return Path(location)
    fetched = sources / f"{owner}+{name}.git"
    if not _has_commit(fetched, commit):
        shutil.rmtree(fetched, ignore_errors=True)
        fetched.mkdir(parents=True)
        _git(fetched, "init", "--quiet", "--bare")
        _git(fetched, "fetch", "--quiet", "--depth", "1", location, commit)
    return fetched


def extract_application(git_dir: Path, commit: str, target: Path) -> int:
    """The kept files of `commit`, written under `target` (blobs of other
    files are never read, so a partial mirror serves)."""
    listed = _git(git_dir, "ls-tree", "-r", "-z", "--name-only", commit).decode()
    paths = [path for path in listed.split("\0") if path and kept(path)]
    for start in range(0, len(paths), ARCHIVE_CHUNK):
        chunk = paths[start : start + ARCHIVE_CHUNK]
        archive = _git(git_dir, "archive", "--format=tar", commit, "--", *chunk)
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(target, filter="data")
    return len(paths)


def pinned_applications(out: Path, template: str) -> list[tuple[str, int]]:
    sources = out.parent / "sources"
    copied = []
    for repo, commit in PINNED:
        name = repo.split("/")[1]
        git_dir = repository_with(repo, commit, template, sources)
        copied.append((name, extract_application(git_dir, commit, out / "apps" / name)))
    return copied


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs="*", type=Path, help="copy these instead")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--git", default=os.environ.get("JOBLINT_BENCH_GIT", DEFAULT_GIT))
    args = parser.parse_args(argv)
    if args.checkouts and len(args.checkouts) < 2:
        parser.error("give at least two checkouts, or none for the pinned applications")
    if args.out.exists():
        shutil.rmtree(args.out)
    (args.out / "apps").mkdir(parents=True)
    (args.out / "pyproject.toml").write_text(
        '[project]\nname = "monorepo"\nversion = "0"\n\n[tool.joblint]\n'
    )
    if args.checkouts:
        copied = [(c.name, copy_application(c, args.out / "apps" / c.name)) for c in args.checkouts]
    else:
        copied = pinned_applications(args.out, args.git)
    for name, count in copied:
        print(f"{name}: {count} files", file=sys.stderr)
    print(python_files(args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

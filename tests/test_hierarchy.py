"""Hierarchical configuration, as Ruff resolves it: each file's closest
configuration file, `extend` with paths relative to each file, command-line
settings over every file's, `--show-settings`, one lookup per directory."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import ENQUEUE_IN_ATOMIC, Run, write

from joblint import config as config_module
from joblint.api import lint_paths
from joblint.config import Config, ConfigError, Configs, load, load_file

MONOREPO = Path(__file__).resolve().parent / "data" / "monorepo"
MARK = re.compile(r"#\s*expect:\s*(JL\d{3})\b")
SUB_PROJECTS = ("shop", "billing")


@pytest.fixture
def monorepo(tmp_path: Path) -> Path:
    root = tmp_path / "monorepo"
    shutil.copytree(MONOREPO, root)
    return root


def _expected(root: Path, below: str = "") -> set[tuple[str, int, str]]:
    found = set()
    for path in sorted((root / below).rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            found.update((path.relative_to(root).as_posix(), number, c) for c in MARK.findall(line))
    return found


def _findings(run: Run, cwd: Path, root: Path, *args: str) -> set[tuple[str, int, str]]:
    """The run's findings as (path from the monorepo's root, line, code)."""
    result = run("check", "--no-cache", "--format", "json", *args, cwd=cwd)
    assert result.code in (0, 1), result.stderr
    return {
        ((cwd / f["path"]).resolve().relative_to(root.resolve()).as_posix(), f["line"], f["code"])
        for f in json.loads(result.stdout)
    }


def test_the_same_findings_from_the_root_and_from_each_sub_project(
    run: Run, monorepo: Path
) -> None:
    from_root = _findings(run, monorepo, monorepo, ".")
    assert from_root == _expected(monorepo)
    for project in SUB_PROJECTS:
        here = _findings(run, monorepo / project, monorepo, ".")
        assert here == _expected(monorepo, project), project
        assert here == {f for f in from_root if f[0].startswith(f"{project}/")}
    # Each configuration counted: the root's ignore holds in shop (inherited),
    # not in billing (its own), and the margins differ (JL501).
    assert ("billing/billing/commits.py", 6, "JL102") in from_root
    assert not any(f[0].startswith("shop/") and f[2] == "JL102" for f in from_root)
    assert {f[0] for f in from_root if f[2] == "JL501"} == {"shop/shop/celeryconf.py"}


def test_named_files_and_stdin_use_their_closest_configuration(run: Run, monorepo: Path) -> None:
    # shop/pyproject.toml's per-file ignore ("admin/*.py", relative to shop/).
    assert _findings(run, monorepo, monorepo, "shop/admin/tools.py") == set()
    assert _findings(run, monorepo, monorepo, "shop/shop/views.py") == {
        ("shop/shop/views.py", 9, "JL101")
    }
    source = (monorepo / "shop/admin/tools.py").read_text(encoding="utf-8")
    piped = run(
        "--format",
        "concise",
        "--stdin-filename",
        "shop/admin/tools.py",
        "-",
        cwd=monorepo,
        stdin=source,
    )
    assert (piped.code, piped.stdout) == (0, "")


def test_config_option_and_isolated_apply_one_configuration_to_every_file(
    run: Run, monorepo: Path
) -> None:
    found = _findings(run, monorepo, monorepo, "--config", "pyproject.toml", ".")
    assert ("shop/shop/locks.py", 7, "JL402") in found  # shop's ignore is not read
    assert ("shop/legacy/old.py", 9, "JL101") not in found  # the root's exclude still holds
    isolated = _findings(run, monorepo, monorepo, "--isolated", ".")
    assert ("legacy/old.py", 9, "JL101") in isolated


def test_command_line_settings_apply_over_every_file(run: Run, monorepo: Path) -> None:
    found = _findings(run, monorepo, monorepo, "--select", "JL402", ".")
    # --select replaces the selection of every file, the ignores included (Ruff's order).
    assert {f[0] for f in found} == {
        "locks.py",
        "shop/shop/locks.py",
        "billing/billing/locks.py",
    }
    extended = _findings(run, monorepo, monorepo, "--ignore", "JL101", ".")
    assert not any(code == "JL101" for _, _, code in extended)
    assert ("billing/billing/commits.py", 6, "JL102") in extended


def _settings(run: Run, cwd: Path, *args: str) -> dict[str, tuple[str, str]]:
    result = run("check", "--show-settings", *args, cwd=cwd)
    assert result.code == 0, result.stderr
    rows = {}
    for line in result.stdout.splitlines():
        if " = " in line and "  # " in line:
            setting, origin = line.rsplit("  # ", 1)
            key, value = setting.split(" = ", 1)
            rows[key] = (value.strip(), origin)
    return rows


def test_show_settings_says_which_file_set_each_key(run: Run, monorepo: Path) -> None:
    shop = _settings(run, monorepo, "shop/admin/tools.py")
    assert shop["ignore"] == ('["JL102", "JL402"]', "pyproject.toml, shop/pyproject.toml")
    assert shop["per-file-ignores"] == ('{"admin/*.py" = ["JL101"]}', "shop/pyproject.toml")
    assert shop["extend-exclude"] == ('["legacy"]', "pyproject.toml")
    assert shop["select"] == ('["ALL"]', "default")
    billing = _settings(run, monorepo / "billing", "--extend-select", "JL002", ".")
    assert billing["select"] == ('["JL1", "JL4", "JL5"]', "joblint.toml")
    assert billing["visibility-margin-seconds"] == ("10", "joblint.toml")
    assert billing["extend-select"] == ('["JL002"]', "command line")
    assert billing["ignore"] == ("[]", "default")
    result = run("check", "--show-settings", "shop/admin/tools.py", cwd=monorepo)
    assert "Configuration file: shop/pyproject.toml" in result.stdout
    assert "JL101" not in result.stdout.rsplit("Rules run on it:", 1)[1].splitlines()[0]
    missing = run("check", "--show-settings", "nope.py", cwd=monorepo)
    assert missing.code == 2 and "nope.py: no such file or directory" in missing.stderr


# --- extend ---


def test_extended_paths_stay_relative_to_the_file_that_sets_them(run: Run, tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "base/joblint.toml": (
                'extend-exclude = ["generated", "vendor/lib"]\n'
                '[per-file-ignores]\n"*_admin.py" = ["JL101"]\n"scripts/*.py" = ["JL101"]\n'
            ),
            "app/joblint.toml": 'extend = "../base/joblint.toml"\n',
            "app/generated/a.py": ENQUEUE_IN_ATOMIC,  # excluded: a name, at any depth
            "app/vendor/lib/b.py": ENQUEUE_IN_ATOMIC,  # not: `vendor/lib` is base/'s
            "app/shop_admin.py": ENQUEUE_IN_ATOMIC,  # ignored: a name pattern
            "app/scripts/c.py": ENQUEUE_IN_ATOMIC,  # not: `scripts/*.py` is base/'s
        },
    )
    found = {f[0] for f in _findings(run, tmp_path / "app", tmp_path, ".")}
    assert found == {"app/vendor/lib/b.py", "app/scripts/c.py"}
    config = load_file(tmp_path / "app" / "joblint.toml")
    assert config.root == (tmp_path / "app").resolve()
    assert (tmp_path / "base").resolve() in {root for root, _ in config.exclude_groups()}


def test_extend_layers_the_selection_as_ruff_does(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pyproject.toml": '[tool.joblint]\nselect = ["JL1"]\nignore = ["JL102"]\n',
            "a/joblint.toml": 'extend = "../pyproject.toml"\nignore = ["JL101"]\n',
            "b/joblint.toml": 'extend = "../pyproject.toml"\nselect = ["JL10"]\n',
            "c/joblint.toml": 'extend = "../a/joblint.toml"\nextend-select = ["JL102"]\n',
        },
    )

    def codes(name: str) -> set[str]:
        return set(load_file(tmp_path / name / "joblint.toml").selected_codes())

    assert {"JL101", "JL102"}.isdisjoint(codes("a"))  # the ignores add up
    assert {"JL101", "JL102", "JL103"} <= codes("b")  # a new select starts over
    assert "JL201" not in codes("b")
    assert "JL102" in codes("c") and "JL101" not in codes("c")  # each layer over the last


@pytest.mark.parametrize(
    ("extend", "message"),
    [
        ('"missing.toml"', "config file not found"),
        ("3", "'extend' must be the path of a configuration file"),
        ('"joblint.toml"', "makes a cycle"),
    ],
)
def test_bad_extend_is_a_one_line_error(
    run: Run, tmp_path: Path, extend: str, message: str
) -> None:
    write(tmp_path, {"joblint.toml": f"extend = {extend}\n", "a.py": ENQUEUE_IN_ATOMIC})
    result = run(".", cwd=tmp_path)
    assert result.code == 2
    assert message in result.stderr and len(result.stderr.splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_a_cycle_through_two_files_is_an_error(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "a/joblint.toml": 'extend = "../b/joblint.toml"\n',
            "b/joblint.toml": 'extend = "../a/joblint.toml"\n',
        },
    )
    with pytest.raises(ConfigError, match="makes a cycle"):
        load_file(tmp_path / "a" / "joblint.toml")


# --- per directory, not per file ---


def test_configuration_is_looked_up_once_per_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {f"pkg/m{i}.py": "x = 1\n" for i in range(30)}
    files.update({f"pkg/sub/n{i}.py": "x = 1\n" for i in range(30)})
    write(tmp_path, {**files, "pkg/sub/joblint.toml": 'ignore = ["JL101"]\n'})
    config = load(cwd=tmp_path)
    looked: list[Path] = []
    loaded: list[Path] = []
    real_lookup, real_load = config_module._config_file_in, config_module.load_file

    def lookup(directory: Path) -> Path | None:
        looked.append(directory)
        return real_lookup(directory)

    def load_one(path: Path) -> Config:
        loaded.append(path)
        return real_load(path)

    monkeypatch.setattr(config_module, "_config_file_in", lookup)
    monkeypatch.setattr(config_module, "load_file", load_one)
    monkeypatch.chdir(tmp_path)
    run = lint_paths([Path(".")], config)
    assert run.files_checked == 60
    assert len(looked) == len(set(looked))  # no directory twice
    assert {p.name for p in looked} >= {"pkg", "sub"}
    assert [p.name for p in loaded] == ["joblint.toml"]  # read once, for 30 files
    configs = Configs(load(cwd=tmp_path))
    sub = configs.for_path(tmp_path / "pkg" / "sub" / "n1.py")
    assert sub is configs.for_path(tmp_path / "pkg" / "sub" / "n2.py")
    assert "JL101" not in sub.selected_codes()
    assert configs.for_path(tmp_path / "pkg" / "m1.py") is configs.root

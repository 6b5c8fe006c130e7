"""Hostile output paths: every `--out` and output file is checked before any work, and no
symbolic link is ever written through (escoba.outputs.check_output, OutputFolder)."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from escoba.outputs import OutputError, OutputFolder, check_output, write_atomic

from .conftest import ONE_CASE, ROOT, run_escoba

CASE_FILE = ROOT / "conformance" / "cases" / "generated" / f"{ONE_CASE}.json"
SECRET = "the victim's file\n"


def _marker_engine(marker: Path) -> str:
    """An engine command that leaves a file when it is started (and does nothing else)."""
    return f"{sys.executable} -c \"open('{marker}', 'w')\""


def test_cases_generate_never_writes_through_a_link_planted_in_its_folder(work: Path, tmp_path: Path) -> None:
    """`cases generate --out DIR` with links planted in DIR (to ruleset.json, to a case's name)
    and a FIFO: the files they point to stay as they were, the cases are written, exit 0."""
    victim = tmp_path / "victim.txt"
    victim.write_text(SECRET)
    out = work / "doble"
    out.mkdir()
    (out / "ruleset.json").symlink_to(victim)
    (out / "base.game.2p.1.json").symlink_to(victim)
    os.mkfifo(out / "stale.json")
    ran = run_escoba("cases", "generate", "base", "--out", "doble", work=work, named=["doble"])
    ran.assert_clean()
    assert ran.code == 0 and ran.out.startswith("wrote "), ran.err
    assert victim.read_text() == SECRET
    assert not (out / "ruleset.json").is_symlink() and (out / "ruleset.json").read_text().startswith("{")
    assert stat.S_ISFIFO((out / "stale.json").lstat().st_mode)  # not generated: left alone, never opened


@pytest.mark.parametrize("command", ["cases", "explore", "identify", "shrink"])
@pytest.mark.parametrize("target", ["a-file", "/dev/null", "/proc/no-such-folder", "a-file/below"])
def test_an_out_folder_that_cannot_be_is_refused_before_any_work(work: Path, command: str, target: str) -> None:
    """--out naming an existing file, a device, a folder that cannot be made, or a path below a
    file: exit 2 in one line, before the engine starts or a case is generated."""
    (work / "a-file").write_text("mine\n")
    marker = work / "engine-started"
    argv = {
        "cases": ["cases", "generate", "base", "--out", target],
        "explore": ["explore", "--engine", _marker_engine(marker), "--games", "1", "--out", target],
        "identify": ["identify", "--engine", _marker_engine(marker), "--games", "1", "--out", target],
        "shrink": ["shrink", str(CASE_FILE), "--engine", _marker_engine(marker), "--out", target],
    }[command]
    ran = run_escoba(*argv, work=work)
    ran.assert_clean()
    assert ran.code == 2, ran.err
    assert ran.one_line_error().startswith(f"escoba {command}: --out: ")
    assert not marker.exists() and (work / "a-file").read_text() == "mine\n"


def test_explore_out_into_a_folder_that_cannot_exist_is_an_error_even_when_nothing_diverged(work: Path) -> None:
    """`explore --out /proc/x` on an engine that plays the rules exits 2, not 0."""
    ran = run_escoba("explore", "--games", "1", "--out", "/proc/found", work=work)
    assert ran.code == 2 and ran.one_line_error().startswith("escoba explore: --out: cannot write /proc/found")


@pytest.mark.parametrize("option", ["--junit", "--write-expectations"])
def test_an_output_file_that_is_a_symbolic_link_is_refused(work: Path, tmp_path: Path, option: str) -> None:
    """--junit and --write-expectations naming a symbolic link: exit 2 before the run, and the
    file it points to stays as it was."""
    victim = tmp_path / "victim.txt"
    victim.write_text(SECRET)
    (work / "report.xml").symlink_to(victim)
    ran = run_escoba("conformance", "--case", ONE_CASE, option, "report.xml", work=work)
    assert ran.code == 2 and ran.one_line_error() == (
        f"escoba conformance: {option}: report.xml is a symbolic link; a result is not written through one (name the file it points to)"
    )
    assert victim.read_text() == SECRET


def test_a_link_to_a_folder_planted_by_another_user_in_a_shared_folder_is_not_followed(tmp_path: Path) -> None:
    """In a folder anyone may write (as /tmp), a link another user made is refused as --out;
    the user's own link is followed."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    target = tmp_path / "elsewhere"
    target.mkdir()
    planted = shared / "doble"
    planted.symlink_to(target)
    os.lchown(planted, 4242, 4242)  # as another user would have made it (the tests may run as root)
    with pytest.raises(OutputError, match="is a symbolic link another user made in a folder others can write; not followed"):
        check_output(str(planted), "--out", folder=True)
    own = shared / "mine"
    own.symlink_to(target)
    assert check_output(str(own), "--out", folder=True) == own


def test_a_folder_of_results_writes_only_plain_names_inside_it(tmp_path: Path) -> None:
    """OutputFolder refuses a name with a separator or `..`, and replaces a link in the folder
    instead of writing through it."""
    victim = tmp_path / "victim.txt"
    victim.write_text(SECRET)
    with OutputFolder(str(tmp_path / "out"), "--out") as out:
        for bad in ("../escaped.json", "a/b.json", "..", "", "x\0y"):
            with pytest.raises(OutputError, match="is not a file name inside"):
                out.write(bad, "{}")
        out.write("first.json", "{}")
        (tmp_path / "out" / "linked.json").symlink_to(victim)
        out.write("linked.json", "{}\n")
    assert victim.read_text() == SECRET and (tmp_path / "out" / "linked.json").read_text() == "{}\n"
    assert not (tmp_path / "escaped.json").exists() and sorted(p.name for p in (tmp_path / "out").iterdir()) == ["first.json", "linked.json"]


def test_write_atomic_replaces_a_link_and_never_writes_through_it(tmp_path: Path) -> None:
    """A result file written over a symbolic link replaces the link; the file behind it stays."""
    victim = tmp_path / "victim.txt"
    victim.write_text(SECRET)
    (tmp_path / "result.txt").symlink_to(victim)
    write_atomic(tmp_path / "result.txt", "new\n")
    assert victim.read_text() == SECRET and (tmp_path / "result.txt").read_text() == "new\n"
    assert not (tmp_path / "result.txt").is_symlink()


def test_the_site_folder_follows_the_umask_and_its_pages_escape_a_hostile_title(work: Path) -> None:
    """The built site is a folder the umask allows others to read (not mkdtemp's 0700), and a
    ruleset title full of markup and escape sequences is text on its page."""
    (work / "evil.yaml").write_text(
        'dsl: 1\nid: evil\nkind: house\nextends: base\ntitle: "<script>alert(1)</script>\\e[2J\\a"\n', encoding="utf-8"
    )
    ran = run_escoba("site", "--out", "site", "--ruleset", "evil.yaml", "--quiet", work=work, named=["site"])
    ran.assert_clean(seconds=300)
    assert ran.code == 0, ran.err
    umask = os.umask(0)
    os.umask(umask)
    assert (work / "site").stat().st_mode & 0o777 == 0o777 & ~umask
    page = (work / "site" / "rulesets" / "evil.html").read_text(encoding="utf-8")
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;\\x1b[2J\\x07" in page
    assert "\x1b" not in page and "\x07" not in page

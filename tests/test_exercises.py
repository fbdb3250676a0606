"""Every paper chapter ends with at least two exercises, each followed by its worked solution: a code cell folded
under the exercise (Quarto's `code-fold`) that checks its answer with an assertion, so the solution runs, and can
fail, with the book (tests/test_notebooks.py executes every notebook under nbdev_test)."""
import json
import re
from pathlib import Path

import pytest

NBS = Path(__file__).resolve().parent.parent / "nbs"
PAPER_CHAPTERS = ["10_rmboost", "20_alpha_loss", "30_robust_trees", "40_mean_classifier", "50_archboost"]


def exercises(nb: str) -> list[tuple[int, str, str]]:
    "(number, statement, solution source) of each exercise of a chapter, in order."
    cells = json.loads((NBS / f"{nb}.ipynb").read_text())["cells"]
    out = []
    for i, c in enumerate(cells):
        src = "".join(c["source"])
        if c["cell_type"] != "markdown": continue
        for m in re.finditer(r"\*\*Exercise (\d+)\b[^*]*\*\*", src):
            nxt = cells[i + 1] if i + 1 < len(cells) else None
            out.append((int(m.group(1)), src[m.start():], "".join(nxt["source"]) if nxt and nxt["cell_type"] == "code" else ""))
    return out


@pytest.mark.parametrize("nb", PAPER_CHAPTERS)
def test_each_paper_chapter_has_two_exercises_with_folded_solutions_that_assert(nb):
    ex = exercises(nb)
    assert len(ex) >= 2, f"{nb}: {len(ex)} exercises; a paper chapter needs at least two"
    assert [n for n, _, _ in ex] == list(range(1, len(ex) + 1)), f"{nb}: exercises are not numbered 1, 2, ..."
    for n, statement, solution in ex:
        assert len(statement) > 150, f"{nb}: Exercise {n} states too little to be an exercise"
        assert solution, f"{nb}: Exercise {n} is not followed by its solution cell"
        opts = dict(re.findall(r"^#\|\s*([\w-]+):\s*(.*)$", solution, flags=re.M))
        assert opts.get("code-fold") == "true", f"{nb}: the solution of Exercise {n} is not folded (#| code-fold: true)"
        assert opts.get("code-summary", "").strip('"') == f"Solution to Exercise {n}", f"{nb}: Exercise {n}'s fold is not labelled"
        assert re.search(r"^[^#\n]*\bassert\b", solution, flags=re.M), f"{nb}: the solution of Exercise {n} checks nothing"
        assert re.search(r"^# ", solution, flags=re.M), f"{nb}: the solution of Exercise {n} has no worked reasoning (comments)"


def test_the_exercise_check_fails_on_a_chapter_without_exercises(tmp_path, monkeypatch):
    bare = {"cells": [{"cell_type": "markdown", "id": "a", "metadata": {}, "source": ["# A chapter\n"]}], "metadata": {},
            "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "x.ipynb").write_text(json.dumps(bare))
    monkeypatch.setattr(__import__(__name__), "NBS", tmp_path)
    with pytest.raises(AssertionError, match="0 exercises"):
        test_each_paper_chapter_has_two_exercises_with_folded_solutions_that_assert("x")

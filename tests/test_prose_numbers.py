"""No typed record numbers in prose: on every page that reads a result of record, a number in a markdown cell that
comes from a record, a CSV or a benchmark is rendered from the data (`Markdown(f"…")` in an `#| echo: false` cell),
never typed, so it cannot go stale when the record is refreshed.

The scanner flags every decimal literal (0.214, 21.4%, +0.5 pp) in the markdown cells of those pages, except inside
LaTeX math, inline code and code blocks, citations (`[@key, §6.2]`), locators (§2.6, Table 3.1, Appendix H.3) and
method labels (ARB-1.5). Integers are allowed: they are dataset sizes and protocol counts. The few decimals that are
protocol constants or numbers the paper printed in its text are listed in `ALLOWED`, each with its reason."""
import json
import re
from pathlib import Path

import pytest

NBS = Path(__file__).resolve().parents[1] / "nbs"

MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$", re.S)
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)
CITATION = re.compile(r"\[[^\[\]]*@[^\[\]]*\]")
LINK_TARGET = re.compile(r"\]\([^)]*\)")
LOCATOR = re.compile(r"(?:§\s*|\b(?:Sections?|Sec\.|Tables?|Figs?\.|Figures?|Eqs?\.|Equations?|Theorem|Lemma|Proposition|"
                     r"Corollary|Definition|Appendix|Algorithm|Example|Remark|Chapter|Step|Assumption)\s+[A-Z]?)"
                     r"\d+(?:\.\d+)+(?:\s*(?:–|-|,|and)\s*\d+(?:\.\d+)+)*")
LABEL = re.compile(r"\b[A-Za-z]+-\d+(?:\.\d+)?\b")                       # method labels such as ARB-1.5
DECIMAL = re.compile(r"(?<![\w.])[+\-−±]?\d*\.\d+(?!\w|\.\d)")


def decimal_literals(markdown: str) -> list[str]:
    "The decimal literals of a markdown cell outside math, code, citations, locators and method labels."
    for rx in (CODE, MATH, CITATION, LINK_TARGET, LOCATOR, LABEL): markdown = rx.sub(" ", markdown)
    return [d.lstrip("+-−±") for d in DECIMAL.findall(markdown)]


# (notebook, literal, reason): protocol constants and numbers the paper printed in its text, nothing from a record
ALLOWED = [
    ("82_reproduce_alpha_loss.ipynb", "0.99", "the headline claim's level for α = 2, a constant of its `level_claim`"),
    ("82_reproduce_alpha_loss.ipynb", "0.8", "the headline claim's ceiling for α ≤ 1, a constant of its `level_claim`"),
    ("84_reproduce_mean_classifier.ipynb", "98.74", "the full-mean accuracy on MNIST the paper prints in §8"),
    ("84_reproduce_mean_classifier.ipynb", "0.99", "the accuracy level of `sample_thresholds`, a constant of the check"),
    ("85_reproduce_archboost.ipynb", "0.8", "Real AdaBoost's and the truncated exponential's step, the paper's"),
    ("85_reproduce_archboost.ipynb", "0.45", "ARB-2's step, the paper's cross-validated value"),
    ("85_reproduce_archboost.ipynb", "0.78", "ARB-1.5's step, the paper's cross-validated value"),
    ("85_reproduce_archboost.ipynb", "0.1", "RobustBoost's fixed error goal, a setting of the grid files"),
    ("85_reproduce_archboost.ipynb", "54.5", "Sensorless drive's share of positives, the design of its surrogate"),
]


def record_pages() -> list[Path]:
    "The notebooks that read a result of record."
    return sorted(p for p in NBS.glob("*.ipynb") if re.search(r"record_or_live|load_record|Record\(", p.read_text()))


def offending(nb: Path) -> list[tuple[str, str]]:
    "(cell id, literal) of every decimal literal in the notebook's markdown cells that the allow-list does not cover."
    allowed = {lit for name, lit, _ in ALLOWED if name == nb.name}
    return [(c.get("id"), lit) for c in json.loads(nb.read_text())["cells"] if c["cell_type"] == "markdown"
            for lit in decimal_literals("".join(c["source"])) if lit not in allowed]


def test_the_scanner_flags_a_typed_number():
    assert decimal_literals("On the record the mean error 0.214 is the smallest.") == ["0.214"]
    assert decimal_literals("RMBoost's error grows by +0.64 pp; 21.4% of the cells; 0.5 points.") == ["0.64", "21.4", "0.5"]
    planted = {"cell_type": "markdown", "id": "planted0", "source": ["Measured: mean error 0.214 over the partitions."]}
    assert [lit for c in [planted] for lit in decimal_literals("".join(c["source"]))] == ["0.214"]


def test_the_scanner_passes_math_code_citations_locators_labels_and_integers():
    assert decimal_literals(r"The penalty is $\lambda = 0.01$, and $$\alpha \in \{0.5, 1\}$$.") == []
    assert decimal_literals("`lam = 0.01` and ```\nx = 0.3\n```") == []
    assert decimal_literals("as stated [@mazuelas2025rmboost, §6.2]; see Table 3.1, Appendix H.3 and §2.6.") == []
    assert decimal_literals("ARB-1.5 and ARB-1.3 against Real AdaBoost; 100 partitions, 10% noise, 36,000 tasks.") == []


def test_the_record_pages_are_found():
    names = {p.name for p in record_pages()}
    assert {"81_reproduce_rmboost.ipynb", "82_reproduce_alpha_loss.ipynb", "83_reproduce_robust_trees.ipynb",
            "84_reproduce_mean_classifier.ipynb", "85_reproduce_archboost.ipynb", "90_leaderboard.ipynb"} <= names


def test_every_allowed_literal_is_still_used():
    "An allow-list entry whose literal left the page is stale: remove it."
    for name, lit, reason in ALLOWED:
        assert reason, (name, lit)
        cells = json.loads((NBS / name).read_text())["cells"]
        assert any(lit in decimal_literals("".join(c["source"])) for c in cells if c["cell_type"] == "markdown"), (name, lit)


@pytest.mark.parametrize("nb", record_pages(), ids=lambda p: p.stem)
def test_no_typed_decimal_in_the_prose_of_a_record_page(nb):
    bad = offending(nb)
    assert not bad, (f"{nb.name}: decimal literals typed into markdown (render them from the data with Markdown(f'…') in an "
                     f"`#| echo: false` cell, or allow-list a protocol constant with its reason): {bad}")

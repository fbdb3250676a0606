"""`python tools/book all` (or `python -m book` with tools/ on the path): the command line of the book's builder."""
import sys
from pathlib import Path

if not __package__:  # run as a directory: import the package from tools/, not its modules from tools/book/
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from book.cli import main  # noqa: E402

main()

"""How every command-line tool reports bad input: one line on stderr, exit status 1, no traceback."""
from __future__ import annotations

import sys
from collections.abc import Callable

from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, VerifyException
from xdsl.utils.exceptions import ParseError as XdslParseError

from tinytf.errors import OpError


def one_line(err: BaseException) -> str:
    if isinstance(err, XdslParseError):
        where = err.span.get_location()
        return f"{where.file}:{where.line}:{where.col}: {err.msg}"
    text = str(err).strip()
    lines = [line for line in text.splitlines() if line.strip()]
    if isinstance(err, DiagnosticException | VerifyException) and lines:
        # xDSL prints the whole module around a verifier error; keep the message itself.
        marked = [line for line in lines if "does not verify" in line or line.lstrip().startswith("^")]
        text = (marked[-1] if marked else lines[-1]).lstrip("^ -").strip()
    elif lines:
        text = lines[0] if len(lines) == 1 else " ".join(line.strip() for line in lines)
    return text or type(err).__name__


def run_tool(name: str, body: Callable[[], int | None]) -> int:
    """Run ``body``; report tinytf and xDSL errors in one line and return 1 instead of raising."""
    try:
        return body() or 0
    except (OpError, XdslParseError, DiagnosticException, VerifyException, ArgSpecParseError, OSError,
            ValueError) as err:
        print(f"{name}: error: {one_line(err)}" if not _has_location(err) else one_line(err), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def _has_location(err: BaseException) -> bool:
    head = one_line(err).split(" ", 1)[0]
    return head.count(":") >= 3

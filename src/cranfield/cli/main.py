"""The ``cranfield`` command line: the parser, its grouped commands and the entry point.

Errors in the input print one line ``cranfield: error: path:line: what is wrong`` and exit
with status 2 (usage errors, invalid option values, unreadable or unwritable files alike, never
a traceback); warnings print ``cranfield: warning: ...`` on stderr and do not stop the run;
Ctrl-C prints ``cranfield: interrupted`` and exits with status 130.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Iterator, Sequence
from importlib import import_module

from cranfield._entry_points import may_declare
from cranfield._output import check_interrupted, interrupted, interruptible
from cranfield._version import __version__
from cranfield.errors import EvaluationWarning

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (docs/architecture.md#start-up)
if TYPE_CHECKING:
    from typing import NoReturn


class _Parser(argparse.ArgumentParser):
    """argparse whose usage errors are one line, ``cranfield: error: ...``, like every other
    error of cranfield (exit status 2); the subcommands' parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"cranfield: error: {message} (see `{self.prog} --help`)\n")


# The commands of `cranfield --help`, in groups; each module of cranfield.cli named here adds
# the parsers of its commands (add_parser). Only the module of the command that runs is imported.
COMMANDS = {
    "evaluate": ("eval", "example", "measures"),
    "nuggets": ("nuggets",),
    "meta": ("compare", "discpower", "correlate", "intuitiveness", "coverage"),
    "axioms": ("axioms",),
    "collection": ("collection", "dss"),
    "truncation": ("truncation",),
    "aspects": ("aspects",),
    "report": ("report",),
    "similarity": ("similarity", "repro"),
    "judges": ("judges",),
    "topicsize": ("topicsize",),
}
GROUPS = (
    ("evaluate runs", ("eval", "example", "measures", "report", "nuggets")),
    ("compare runs and measures", ("compare", "discpower", "correlate", "intuitiveness", "coverage", "axioms",
                                   "similarity", "repro")),
    ("judge the judgments and size a collection", ("judges", "topicsize")),
    ("study a collection", ("collection", "dss", "truncation", "aspects")),
)
# The one-line help of each command in `cranfield --help`, so that the listing imports no command's
# module (each module passes the same line to add_parser; tests/cli/test_startup.py checks both agree).
# A command missing here is listed from its module's parser, at the cost of importing it.
SUMMARIES = {
    "eval": "evaluate runs against qrels",
    "measures": "list the measures, their parameters and sources",
    "example": "evaluate the bundled TREC Web 2012 example",
    "nuggets": "nugget evaluation of generated (RAG) answers: V_strict, V, A, W, ...",
    "compare": "significance tests between runs: a results table with markers",
    "discpower": "discriminative power of measures, with the delta required and ASL curves",
    "correlate": "rank correlations (Kendall tau-b, tau_ap, Spearman rho) between measures",
    "intuitiveness": "intuitiveness of measures by agreement with gold-standard measures",
    "coverage": "Quality Aspect Coverage (UIR) of measures against reference measures",
    "axioms": "check formal properties of measures on every constructed ranking",
    "collection": "how diverse is each topic? (xi, d_max, d_mean, dd, smr)",
    "dss": "document selection sensitivity of measures (Golbus, Aslam & Clarke, Inf. Retr. 2013, §7)",
    "truncation": "where should each run have stopped? (optimal truncation analysis)",
    "aspects": "multi-aspect evaluation: TOMA, CAM, MM",
    "report": "a shareable report: one self-contained HTML page with tables and figures",
    "similarity": "how alike are the rankings of runs? (RBO, KTU, Jaccard per topic and mean)",
    "repro": "did the reproduction succeed? (KTU, RBO, RMSE, ER, ΔRI, p; Breuer et al. 2020)",
    "judges": "agreement between judges' qrels: labels (kappa, alpha), leaderboards, significance",
    "topicsize": "topic set size design: the topics needed for a t-test, ANOVA or CI",
}
OTHER_TOOLS = """\
other tools' formats (options of eval):
  --compat trec_eval   trec_eval -q's output, byte for byte
  --compat trec_eval10 trec_eval 10.0's output (rbp, unj; rounded recall levels)
  --compat ndeval      ndeval's CSV and 21 measures
  --compat gdeval      gdeval.pl's CSV (nDCG@k, ERR@k)
  --compat ntcireval   NTCIREVAL compute's 19 measures and its lines
"""


def _words(argv: Sequence[str]) -> Iterator[str]:
    """The words of a command line but the values of ``--plugin``."""
    words = iter(argv)
    for word in words:
        if word == "--plugin":
            next(words, None)
        else:
            yield word


def chosen_module(argv: Sequence[str] | None) -> str | None:
    """The module of :data:`COMMANDS` that adds the command of ``argv`` (its first word that is
    not an option or the value of ``--plugin``), or None (no command, or an unknown one)."""
    for word in _words(sys.argv[1:] if argv is None else argv):
        if not word.startswith("-"):
            return next((module for module, names in COMMANDS.items() if word in names), None)
    return None


def asks_version(argv: Sequence[str]) -> bool:
    """Whether argparse would act on ``--version`` first: it comes before any ``-h``/``--help``
    and before the command. ``cranfield --version`` then needs no command's parser, so it
    imports none of their modules."""
    for word in _words(argv):
        if word == "--version":
            return True
        if word in ("-h", "--help") or not word.startswith("-"):
            return False
    return False


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The ``cranfield`` parser with every command, listed by group in ``--help``; given the
    command line ``argv``, only the parsers of the module of its command (so only that module is
    imported: ``cranfield eval`` does not import the code of ``cranfield axioms``), or, without a
    command, every command as its name and :data:`SUMMARIES` line only (``cranfield --help``
    imports no command's module)."""
    chosen = chosen_module(argv) if argv is not None else None
    listing = argv is not None and chosen is None
    parser = _Parser(
        prog="cranfield", usage="%(prog)s [-h] [--version] [--plugin MODULE] COMMAND ...",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Exact, fast evaluation of search and recommendation rankings.",
    )
    parser.add_argument("--version", action="version", version=f"cranfield {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", help=argparse.SUPPRESS, prog="cranfield")
    listed: dict[str, str] = {}  # commands named by their SUMMARIES line only
    for module, names in COMMANDS.items() if chosen is None else [(chosen, COMMANDS[chosen])]:
        if listing and all(name in SUMMARIES for name in names):
            listed.update((name, SUMMARIES[name]) for name in names)
        else:
            import_module(f"cranfield.cli.{module}").add_parser(sub)
    if listed:  # one parser stands for them all: argparse only names them (--help, an unknown command),
        shared = sub.add_parser(next(iter(listed)))  # and each parser costs ~1 ms (gettext look-ups)
        for name in listed:
            sub._name_parser_map[name] = shared
    _add_plugin_option(parser)
    if chosen is not None:
        return parser
    helps = {**{action.dest: action.help or "" for action in sub._choices_actions}, **listed}
    parser.epilog = _grouped_commands(helps) + "\n" + OTHER_TOOLS + (
        "\nrun `cranfield COMMAND --help` for the options and examples of a command; "
        "`cranfield example` evaluates the bundled TREC Web 2012 example.")
    return parser


def _grouped_commands(helps: dict[str, str]) -> str:
    """The commands by group, each with its one-line help (``helps``: command → help)."""
    listed = {name for _, names in GROUPS for name in names}
    if set(helps) != listed:
        raise AssertionError(f"commands missing from GROUPS: {sorted(set(helps) ^ listed)}")
    width = max(map(len, helps)) + 2
    lines = []
    for title, names in GROUPS:
        lines.append(f"{title}:")
        lines += [f"  {name:<{width}} {helps[name]}" for name in names]
        lines.append("")
    return "\n".join(lines)


PLUGIN_HELP = ("import a module or .py file that registers measures (repeatable; docs/plugins.md); the installed "
               "packages' cranfield.measures entry points are loaded too")


def _add_plugin_option(parser: argparse.ArgumentParser, level: int = 0) -> None:
    """``--plugin MODULE`` on ``parser`` and on each of its (sub)commands, one dest per level,
    so that a subcommand's parse keeps the plugins given before its name."""
    parser.add_argument("--plugin", action="append", dest=f"plugins_{level}", default=argparse.SUPPRESS,
                        metavar="MODULE", help=PLUGIN_HELP)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                _add_plugin_option(child, level + 1)


def _load_plugins(args: argparse.Namespace) -> None:
    """The entry points of group ``cranfield.measures``, then every ``--plugin``, each once.
    With neither, the measure registry is not imported here: a command imports it when it runs
    (``cranfield eval`` only after it has started reading its runs)."""
    targets = [target for level in range(3) for target in getattr(args, f"plugins_{level}", ())]
    if not targets and not may_declare():
        return
    from cranfield.measures.plugins import load_entry_points, load_plugin

    load_entry_points()
    for target in targets:
        load_plugin(target)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
    prefix = "warning" if issubclass(category, EvaluationWarning) else category.__name__
    print(f"cranfield: {prefix}: {message}", file=sys.stderr)


def keep_freed_memory() -> None:
    """Ask glibc's allocator to keep freed memory for reuse (no-op elsewhere). A command frees
    and allocates arrays of a run's size for every run file it reads; by default glibc gives
    each such block back to the kernel and the next one is faulted in again page by page,
    which costs about a sixth of the time of ``eval`` over many large runs (system time)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return
    mallopt(-3, 1 << 28)  # M_MMAP_THRESHOLD: blocks below 256 MiB come from the heap, reused when freed
    mallopt(-1, 1 << 29)  # M_TRIM_THRESHOLD: the heap's free top is given back beyond 512 MiB only


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``cranfield`` console script. Ctrl-C, whatever it interrupts (reading,
    scoring, drawing, writing), ends the command with ``cranfield: interrupted``, exit status 130,
    and nothing written (:func:`cranfield._output.interruptible`). ``--version`` is answered
    first; for a command, the interrupt handler is set before anything else is done or imported,
    so that Ctrl-C at the command's first moment is said as at any other."""
    if asks_version(sys.argv[1:] if argv is None else argv):
        print(f"cranfield {__version__}")
        return 0
    with interruptible():
        try:
            status = _main(argv)
            check_interrupted()  # an interrupt that the work swallowed
            return status
        except BaseException as exc:  # an exception an interrupt caused (ImportError: initialization failed) too
            if not (isinstance(exc, KeyboardInterrupt) or interrupted()):
                raise
            print("cranfield: interrupted", file=sys.stderr)
            return 130


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    from cranfield.cli.options import check_inputs_kept, silence_stdout  # only when a command runs

    keep_freed_memory()
    try:
        with warnings.catch_warnings():  # every warning of this command is shown, each time
            warnings.simplefilter("always", EvaluationWarning)
            warnings.showwarning = _show_warning
            check_inputs_kept(args)
            _load_plugins(args)
            return int(args.handler(args))
    except BrokenPipeError:  # the reader of the output went away (| head): not an error of ours
        silence_stdout()
        return 1
    except OSError as exc:  # a file that cannot be read or written
        return _error(f"{exc.filename}: {exc.strerror}" if exc.filename and exc.strerror else str(exc))
    except ValueError as exc:  # CranfieldError and any other complaint about the input
        return _error(str(exc))


def _error(message: str) -> int:
    """Print ``cranfield: error: message`` as one line; the exit status 2 (an error that an
    interrupt caused is the interrupt: ``KeyboardInterrupt``)."""
    check_interrupted()
    print(f"cranfield: error: {' '.join(message.split())}", file=sys.stderr)
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

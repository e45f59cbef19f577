"""What ``nomic-cards bridge run`` and ``bridge prob`` do, without the command-line framework.

The Typer commands (:mod:`nomic_cards.cli.bridge`) and the launcher's fast path
(:mod:`nomic_cards.launch`, which starts these two commands, and ``nomic-dealer``, without
importing Typer) both call :func:`run_command` and :func:`prob_command`. ``bridge run``'s options
are declared once, as :class:`RunArgs`' fields; both command lines are built from them. A usage
problem (a bad option combination) raises :class:`UsageProblem` before anything is read or
written; the Typer commands turn it into their usage error (exit 2).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from nomic_cards.errors import InputError, with_input_context
from nomic_cards.inputs import read_file, read_limited

FORMATS = ("text", "pbn", "lin", "json")


class UsageProblem(Exception):
    """A bad option combination: ``hint`` names the option(s), ``message`` says what."""

    def __init__(self, hint: str, message: str) -> None:
        super().__init__(message)
        self.hint = hint
        self.message = message


class Option:
    """How one field of :class:`RunArgs` is spelt on the command line.

    ``names`` set the field (a flag sets it to ``True``; a value option reads ``metavar``),
    ``off`` names set a flag to ``False``; a whole number lies in ``low``..``high``; a word is
    one of ``choices``. The positional script has ``names`` empty. (A plain class: a dataclass
    would cost the fast start half a millisecond to create.)"""

    __slots__ = ("names", "help", "metavar", "kind", "low", "high", "choices", "off")

    def __init__(self, names: tuple[str, ...], help: str, *, metavar: str = "",
                 kind: str = "flag", low: int = 0, high: int = 0,
                 choices: tuple[str, ...] = (), off: tuple[str, ...] = ()) -> None:
        self.names = names
        self.help = help
        self.metavar = metavar
        self.kind = kind  # "flag", "int", "choice" or "argument"
        self.low = low
        self.high = high
        self.choices = choices
        self.off = off


def _option(default: Any, *names: str, help: str, **how: Any) -> Any:
    return field(default=default, metadata={"option": Option(names, help, **how)})


_STACK_HELP = ("Deal the seat with the rarest one-seat constraint (shape, lengths, points) "
               "straight from the hands that meet it, uniformly; the deals produced have the "
               "same distribution, far fewer are generated.")


@dataclass(frozen=True)
class RunArgs:
    """The options of ``bridge run`` and ``nomic-dealer`` (``None``: the script's value or
    dealer's default). The one declaration of them: the fast parser
    (:func:`parse_run_argv`) and the Typer command (:mod:`nomic_cards.cli.bridge`) are both
    built from each field's :class:`Option`."""

    script: str = _option("", help="A dealer script file ('-' reads standard input).",
                          kind="argument")
    produce: int | None = _option(
        None, "-p", "--produce", metavar="N", kind="int", high=2**63,
        help="Deals to produce (overrides the script's 'produce').")
    generate: int | None = _option(
        None, "-g", "--generate", metavar="N", kind="int", high=2**63,
        help="Deals to generate at most (overrides 'generate').")
    seed: int | None = _option(
        None, "-s", "--seed", metavar="SEED", kind="int", high=2**64 - 1,
        help="Seed; without it a fresh one is drawn and reported.")
    jobs: int = _option(1, "-j", "--jobs", metavar="N", kind="int", low=1, high=64,
                        help="Worker processes (results do not depend on it).")
    fmt: str = _option("text", "-f", "--format", kind="choice",
                       choices=FORMATS, help="text (the script's actions), pbn, lin or json.")
    dealer_compatible: bool = _option(
        False, "--dealer-compatible",
        help="Deal exactly as Debian dealer does for the same seed (glibc random).")
    swap2: bool = _option(False, "-2", help="With --dealer-compatible: 2-way swapping.")
    swap3: bool = _option(False, "-3", help="With --dealer-compatible: 3-way swapping.")
    no_swap: bool = _option(False, "-0", help="No swapping (the default).")
    toggle_verbose: bool = _option(False, "-v", help="Toggle the closing statistics.")
    strict: bool = _option(False, "--strict",
                           help="Refuse what dealer (and the online site's) refuses.")
    meter: bool | None = _option(
        None, "-m", "--progress", off=("-M", "--no-progress"),
        help="Progress bar on stderr (default: on when stderr is a terminal; never otherwise).")
    dd: bool = _option(False, "--dd", help="Add double-dummy tricks and par to pbn/json "
                                           "output (needs nomic-cards[dd]).")
    stack: bool = _option(False, "--stack", help=_STACK_HELP)
    exact_rate: bool = _option(
        False, "--exact", help="Also print the exact keep rate (when computable) beside the "
                               "sampled one.")


def run_options() -> list[tuple[str, Option, Any]]:
    """Each field of :class:`RunArgs` with its :class:`Option` and default, in order."""
    return [(f.name, f.metadata["option"], f.default) for f in fields(RunArgs)]


def parse_run_argv(argv: list[str]) -> RunArgs | None:
    """``bridge run``'s options given ``argv`` after ``bridge run`` (or after
    ``nomic-dealer``), or ``None`` when the command line is anything but plain and valid
    (``--help``, an unknown option, a value out of range, a bad combination: the Typer
    command then handles it, with its help and usage errors)."""
    flags: dict[str, tuple[str, bool]] = {}
    valued: dict[str, tuple[str, Option]] = {}
    for name, opt, _ in run_options():
        if opt.kind == "flag":
            flags.update((n, (name, True)) for n in opt.names)
            flags.update((n, (name, False)) for n in opt.off)
        else:
            valued.update((n, (name, opt)) for n in opt.names)
    values: dict[str, Any] = {}
    positional: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "--":
            positional.extend(argv[i:])
            break
        if arg == "-" or not arg.startswith("-"):
            positional.append(arg)
            continue
        if arg in flags:
            name, flag = flags[arg]
            values[name] = flag
            continue
        key, value = arg, None
        if arg.startswith("--") and "=" in arg:
            key, value = arg.split("=", 1)
        elif not arg.startswith("--") and len(arg) > 2:
            key, value = arg[:2], arg[2:]
        if key not in valued:
            return None
        if value is None:
            if i == len(argv):
                return None
            value = argv[i]
            i += 1
        name, opt = valued[key]
        if opt.kind == "int":
            # ASCII digits only (int() takes other scripts' too); anything else goes to Typer
            if not (value.isascii() and value.isdigit() and len(value) <= 30):
                return None
            number = int(value)
            if not opt.low <= number <= opt.high:
                return None
            values[name] = number
        elif value in opt.choices:
            values[name] = value
        else:
            return None
    if len(positional) != 1:
        return None
    args = RunArgs(positional[0], **values)
    try:
        check_usage(args)
    except UsageProblem:
        return None
    return args


def check_usage(args: RunArgs) -> None:
    """Raise :class:`UsageProblem` for option combinations that make no sense."""
    if args.fmt not in FORMATS:
        raise UsageProblem("--format", f"expected one of {', '.join(FORMATS)}")
    if (args.swap2 or args.swap3) and not args.dealer_compatible:
        raise UsageProblem("-2/-3", "swapping (-2, -3) needs --dealer-compatible")
    if args.stack and args.dealer_compatible:
        raise UsageProblem("--stack", "--stack deals differently from dealer; it cannot be "
                                      "used with --dealer-compatible")


def read_script(path: str) -> tuple[str, str]:
    """The script's text and the name it goes by (``-``: standard input)."""
    if path == "-":
        data = read_limited(sys.stdin.buffer, "the script on standard input")
        try:
            return data.decode("utf-8"), "-"
        except UnicodeDecodeError as exc:
            raise InputError(f"cannot read script -: not UTF-8 text (bad byte at offset "
                             f"{exc.start})") from None
    try:
        missing = not Path(path).exists()
    except (OSError, ValueError):
        missing = False  # read_file names the problem
    if missing:
        raise InputError(f"no such script file: {path}")
    return read_file(path, f"script {path}"), path


def _progress() -> tuple[Any, Any]:
    """A rich progress bar on stderr, or nothing when stderr is not a terminal."""
    if not sys.stderr.isatty():
        return None, None
    from rich.console import Console
    from rich.progress import Progress

    bar = Progress(console=Console(stderr=True), transient=True)
    task = bar.add_task("dealing", total=None)

    def update(done: float, total: float) -> None:
        bar.update(task, completed=done, total=total)
    return bar, update


def run_command(args: RunArgs) -> None:
    """Run a dealer script as ``bridge run`` does: deals and reports on stdout, notes on
    stderr. Raises :class:`UsageProblem` (before any input is read) or a project error."""
    check_usage(args)
    from nomic_cards.bridge.language.script import parse_script

    text, name = read_script(args.script)
    parsed = with_input_context(lambda: parse_script(text, strict=args.strict))
    if _run_fast(parsed, args):
        return
    from nomic_cards.bridge.run.loop import RunOptions, run

    swapping = 3 if args.swap3 else 2 if args.swap2 and not args.no_swap else 0
    opts = RunOptions(generate=args.generate, produce=args.produce, seed=args.seed,
                      jobs=args.jobs, fmt=args.fmt, dealer_compatible=args.dealer_compatible,
                      swapping=swapping, strict=args.strict, verbose=not args.toggle_verbose,
                      event_file=name, dd=args.dd, stacker=_stacker(parsed, args.stack))
    bar, update = _progress() if args.meter is not False else (None, None)
    out = sys.stdout
    try:
        if bar is not None:
            bar.start()
        summary = run(parsed, opts, out.write, report=sys.stderr.write, progress=update)
    finally:
        if bar is not None:
            bar.stop()
        out.flush()
    if args.fmt == "json":
        from nomic_cards.bridge.output.formats import json_document

        out.write(json_document(summary.pop("boards"), summary))
    elif args.fmt != "text" and not args.toggle_verbose:
        sys.stderr.write(f"Generated {summary['generated']} hands, produced "
                         f"{summary['produced']}, seed {summary['seed']}\n")
    if args.exact_rate:
        _report_exact(parsed, summary, args.stack)


def _run_fast(parsed: Any, args: RunArgs) -> bool:
    """Run on the compiled loop (:mod:`nomic_cards.bridge.run.fast`) when it is built and handles
    the script and options (text output); whether it did."""
    if args.fmt != "text" or args.dealer_compatible or args.dd or args.exact_rate:
        return False
    from nomic_cards.bridge.run import fast

    module = fast.extension()
    prog = None if module is None else fast.compile_script(parsed, module)
    if prog is None:
        return False
    stack = None
    if args.stack:
        stack = fast.stacker(parsed, module)
        _say_stacking(None if stack is None else (stack.seat, stack.probability))
    bar, update = _progress() if args.meter is not False else (None, None)
    out = sys.stdout
    try:
        if bar is not None:
            bar.start()
        fast.run(parsed, prog, module, out.write, generate=args.generate, produce=args.produce,
                 seed=args.seed, verbose=not args.toggle_verbose, stack=stack, jobs=args.jobs,
                 progress=update)
    finally:
        if bar is not None:
            bar.stop()
        out.flush()
    return True


def _say_stacking(chosen: tuple[int, tuple[int, int]] | None) -> None:
    """Tell on stderr which seat is stacked and how rare its constraint is."""
    from nomic_cards.bridge.deck import SEATS

    if chosen is None:
        sys.stderr.write("--stack: no one-seat constraint rare enough to stack; dealing "
                         "normally\n")
        return
    seat, (num, den) = chosen
    sys.stderr.write(f"stacking {SEATS[seat]}: its constraint holds with probability "
                     f"{num / den:.6g}\n")


def _stacker(parsed: Any, stack: bool) -> Any:
    """The run loop's stacker for ``--stack``, reported on stderr."""
    if not stack:
        return None
    from nomic_cards.bridge.exact.stack import stacker_for

    found = stacker_for(parsed)
    if found is None:
        _say_stacking(None)
        return None
    stacker, sampler = found
    p = sampler.probability
    _say_stacking((sampler.seat, (p.numerator, p.denominator)))
    return stacker


def _report_exact(parsed: Any, summary: dict[str, Any], stacked: bool) -> None:
    from nomic_cards.bridge.exact.probability import exact_keep_rate
    from nomic_cards.bridge.exact.stack import stacker_for

    rate = exact_keep_rate(parsed)
    generated, produced = summary["generated"], summary["produced"]
    sampled = f"{produced / generated:.6g}" if generated else "-"
    if rate is None:
        sys.stderr.write(f"keep rate: sampled {sampled}; exact not computable for this "
                         "script\n")
        return
    if stacked and (found := stacker_for(parsed)) is not None:
        rate = rate / found[1].probability
    sys.stderr.write(f"keep rate: sampled {sampled} ({produced}/{generated}), exact "
                     f"{float(rate):.6g}" + (" of stacked deals" if stacked else "") + "\n")


def _fraction_text(value: Any) -> str:
    """``0.1234567891  (p/q)``, or the integer itself."""
    exact = str(value)
    return f"{float(value):.10g}  ({exact})" if "/" in exact else exact


def prob_command(expr: str | None, script: str | None, *, as_json: bool = False) -> None:
    """``bridge prob``: the exact probability of a condition (given as ``expr`` or as the
    condition of the script file ``script``), deals per deal and each ``||`` type's share,
    on stdout. Raises :class:`UsageProblem` (before any input is read) or a project error."""
    if (expr is None) == (script is None):
        raise UsageProblem("EXPR", "give a condition or --script, not both")
    from nomic_cards.bridge.deal.tables import PointTables
    from nomic_cards.bridge.errors import ScriptError
    from nomic_cards.bridge.exact.probability import exact
    from nomic_cards.bridge.language.script import parse_script

    if script is not None:
        text, _ = read_script(script)
        parsed = with_input_context(lambda: parse_script(text))
        if any(parsed.predeal) or parsed.suit_lengths:
            raise InputError("exact probabilities do not handle predeal")
    else:
        assert expr is not None
        condition = expr
        prefix = "condition "

        def parse() -> Any:
            try:
                return parse_script(prefix + condition + "\n")
            except ScriptError as err:
                raise ScriptError(err.reason, condition, err.pos - len(prefix)) from None
        parsed = with_input_context(parse)
    result = exact(parsed.condition, tables=PointTables.for_script(parsed), text=parsed.text)
    if as_json:
        import json

        sys.stdout.write(json.dumps({
            "probability": str(result.probability),
            "probability_float": float(result.probability),
            "deals_per_deal": None if result.deals_per_deal is None
            else str(result.deals_per_deal),
            "types": [{"type": t.text, "probability": str(t.probability),
                       "share": str(t.share), "share_float": float(t.share)}
                      for t in result.types],
            "overlap": None if result.overlap is None else str(result.overlap),
        }, indent=2, ensure_ascii=False) + "\n")
        return
    lines = [f"probability     {_fraction_text(result.probability)}"]
    dpd = result.deals_per_deal
    lines.append(f"deals per deal  {'never produced' if dpd is None else _fraction_text(dpd)}")
    if result.types:
        lines.append("share of the produced deals, by || branch:")
        lines.extend(f"  {float(t.share):8.4%}  {t.text}" for t in result.types)
        if result.overlap:
            lines.append(f"  {float(result.overlap):8.4%}  (more than one branch)")
    sys.stdout.write("\n".join(lines) + "\n")

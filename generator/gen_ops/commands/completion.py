"""``gen-ops completion bash|zsh``: a shell completion script, generated
from gen-ops' own argument parsers, so it offers exactly the commands and
options that exist (docs/cli.md).

    eval "$(gen-ops completion bash)"     # in ~/.bashrc
    eval "$(gen-ops completion zsh)"      # in ~/.zshrc
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from gen_ops.commands import registry
from gen_ops.commands.base import Command, Exit, Parser

NAME = "completion"
SUMMARY = "print a bash or zsh completion script"
SHELLS = ("bash", "zsh")


def _options(parser: argparse.ArgumentParser) -> list[str]:
    return sorted(
        option
        for action in parser._actions  # argparse keeps no public list
        for option in action.option_strings
        if option.startswith("--")
    )


def command_options() -> dict[str, list[str]]:
    """Every command's long options (``registry.DEFAULT`` is the command
    of a line that names none)."""
    return {c.name: _options(c.parser()) for c in registry.commands()}


def bash_script() -> str:
    named = [name for name in registry.NAMES if name != registry.DEFAULT]
    cases = "\n".join(
        f'        {name}) opts="{" ".join(options)}" ;;'
        for name, options in command_options().items()
    )
    return f"""# gen-ops completion for bash (gen-ops completion bash)
_gen_ops() {{
    local cur command opts
    cur="${{COMP_WORDS[COMP_CWORD]}}"
    command={registry.DEFAULT}
    if [[ $COMP_CWORD -gt 1 ]]; then
        case "${{COMP_WORDS[1]}}" in
            {"|".join(named)}) command="${{COMP_WORDS[1]}}" ;;
        esac
    fi
    case "$command" in
{cases}
    esac
    if [[ $COMP_CWORD -eq 1 && "$cur" != -* ]]; then
        COMPREPLY=($(compgen -W "{" ".join(named)}" -- "$cur") $(compgen -f -- "$cur"))
    elif [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}}
complete -o filenames -F _gen_ops gen-ops
"""


def zsh_script() -> str:
    return (
        "# gen-ops completion for zsh (gen-ops completion zsh)\n"
        "autoload -U +X bashcompinit && bashcompinit\n" + bash_script()
    )


def parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="gen-ops completion",
        description='Print a completion script: eval "$(gen-ops completion bash)".',
    )
    parser.add_argument("shell", choices=SHELLS)
    return parser


def run(argv: Sequence[str]) -> int:
    args = parser().parse_args(argv)
    sys.stdout.write(bash_script() if args.shell == "bash" else zsh_script())
    return Exit.OK


COMMAND = Command(NAME, SUMMARY, parser, run)

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

SHELLS = ("bash", "zsh")


def _options(parser: argparse.ArgumentParser) -> list[str]:
    return sorted(
        option
        for action in parser._actions  # argparse keeps no public list
        for option in action.option_strings
        if option.startswith("--")
    )


def command_options() -> dict[str, list[str]]:
    """Every command's long options ("render" is the default command)."""
    from gen_ops import cli, package_cli
    from gen_ops.history import commands as history
    from gen_ops.importer import cli as import_cli
    from gen_ops.importer import roundtrip_cli

    parsers = {
        "render": cli._render_parser(),
        "validate": cli._validate_parser(),
        "new": cli._new_parser(),
        "schema": cli._schema_parser(),
        "import": import_cli.parser(),
        "roundtrip": roundtrip_cli.parser(),
        "release": history._release_parser(),
        "compat": history._compat_parser(),
        "changelog": history._changelog_parser(),
        "package": package_cli._parser(),
        "completion": _parser(),
    }
    return {name: _options(parser) for name, parser in parsers.items()}


def bash_script() -> str:
    from gen_ops.cli import COMMANDS

    cases = "\n".join(
        f'        {name}) opts="{" ".join(options)}" ;;'
        for name, options in command_options().items()
    )
    return f"""# gen-ops completion for bash (gen-ops completion bash)
_gen_ops() {{
    local cur command opts
    cur="${{COMP_WORDS[COMP_CWORD]}}"
    command=render
    if [[ $COMP_CWORD -gt 1 ]]; then
        case "${{COMP_WORDS[1]}}" in
            {"|".join(c for c in COMMANDS if c != "render")}) command="${{COMP_WORDS[1]}}" ;;
        esac
    fi
    case "$command" in
{cases}
    esac
    if [[ $COMP_CWORD -eq 1 && "$cur" != -* ]]; then
        COMPREPLY=($(compgen -W "{" ".join(COMMANDS[1:])}" -- "$cur") $(compgen -f -- "$cur"))
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


def _parser() -> argparse.ArgumentParser:
    from gen_ops.cli import _Parser

    parser = _Parser(
        prog="gen-ops completion",
        description='Print a completion script: eval "$(gen-ops completion bash)".',
    )
    parser.add_argument("shell", choices=SHELLS)
    return parser


def main(argv: Sequence[str]) -> int:
    args = _parser().parse_args(argv)
    sys.stdout.write(bash_script() if args.shell == "bash" else zsh_script())
    return 0

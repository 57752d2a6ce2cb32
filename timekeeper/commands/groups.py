"""The command groups' one behaviour beyond click's: a mistyped command name gets a suggestion."""

from __future__ import annotations

import click


class SuggestingGroup(click.Group):
    """A group that answers a mistyped command (`timekeeper cards`) with the closest ones it has
    ("did you mean 'card'?"), or with the list of its commands when none is close."""

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[str | None, click.Command | None, list[str]]:
        name = click.utils.make_str(args[0]) if args else ""
        if args and self.get_command(ctx, name) is None and not name.startswith("-"):
            import difflib

            known = self.list_commands(ctx)
            close = difflib.get_close_matches(name, known, n=2, cutoff=0.6)
            close += [command for command in known if command not in close and (command.startswith(name) or name.startswith(command))
                      and len(close) < 2]
            hint = (f"did you mean {' or '.join(repr(c) for c in close)}?" if close
                    else f"the commands are {', '.join(known)}")
            ctx.fail(f"no such command {name!r}; {hint}")
        return super().resolve_command(ctx, args)

"""`timekeeper serve`: the web and phone front end."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("serve")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="Port to listen on (0: any free port).")
@click.option("--lan", is_flag=True,
              help="Serve the local network too (phones at the table): prints a link and QR code that carry "
                   "a random access code; requests without it are refused.")
@click.option("--open", "open_browser", is_flag=True, help="Open the page in the default browser.")
@click.option("--scenarios", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              metavar="DIR", help="Also offer the scenario files in this folder (and below it).")
@click.option("--music", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              metavar="DIR", help="Offer the audio files in this folder as background music.")
@click.option("--state", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Where games and tracks made in the page are kept "
                   "(default: $XDG_STATE_HOME/timekeeper/serve).")
@click.option("--log", "log_file", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="The ship's log the page records missions in (default: the one `timekeeper log` uses).")
@click.option("--sound-cache", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Where the sound files the page plays are kept, one per mix; servers may share one "
                   "(default: serve-sound in $XDG_CACHE_HOME/timekeeper).")
@click.option("--sound-cache-mb", type=click.IntRange(10, 1_000_000), default=None, metavar="MB",
              help="Megabytes of sound files kept there (default 500; a 10-minute mission takes 3.6 MB); "
                   "the least recently played go first.")
@click.pass_context
def serve_command(ctx: click.Context, port: int, lan: bool, open_browser: bool, scenarios: Path | None,
                  music: Path | None, state: Path | None, log_file: Path | None, sound_cache: Path | None,
                  sound_cache_mb: int | None) -> None:
    """Play missions from any browser or phone: choose or generate a track, set up the
    voice and crew, and play it with a large spoiler-free screen, captions, a prompter
    for a human timekeeper, and more phones joined as second screens.

    By default only this machine can open the page. With --lan, phones on the same
    network scan the QR code printed here. Ctrl-C stops the server (the mission state
    is kept: start it again and the page picks up where it was).

    \b
    Examples:
      timekeeper serve --open
      timekeeper serve --lan --scenarios my-missions/
      timekeeper serve --port 0 --state /tmp/tk-state
      timekeeper serve --sound-cache /srv/timekeeper/sound --sound-cache-mb 2000
    """
    from timekeeper.serve.app import run
    from timekeeper.serve.network import lan_addresses
    from timekeeper.serve.state import ServeConfig, default_state_dir, new_token

    token = new_token() if lan else None
    addresses = tuple(lan_addresses()) if lan else ()
    cache_mb = {} if sound_cache_mb is None else {"sound_cache_mb": sound_cache_mb}
    config = ServeConfig(host="0.0.0.0" if lan else "127.0.0.1", port=port, scenarios=scenarios, music=music,
                         state=state or default_state_dir(), token=token, lan_addresses=addresses, log=log_file,
                         debug=bool((ctx.find_root().params or {}).get("debug")), sound_cache=sound_cache,
                         **cache_mb)

    def ready(bound_port: int) -> None:
        local = f"http://127.0.0.1:{bound_port}/"
        click.echo(f"timekeeper serves at {local}" + (f"?token={token}" if token else ""))
        if lan:
            import segno

            urls = [f"http://{address}:{bound_port}/?token={token}" for address in addresses]
            for url in urls:
                click.echo(f"On phones on this network: {url}")
            if urls:
                segno.make(urls[0], error="m").terminal(compact=True)
            else:
                click.echo("No network address found; phones cannot reach this machine.", err=True)
        click.echo("Ctrl-C stops it.")
        if open_browser:
            import webbrowser

            webbrowser.open(local + (f"?token={token}" if token else ""))

    run(config, ready)

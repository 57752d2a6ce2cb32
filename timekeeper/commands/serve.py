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
@click.option("--public", is_flag=True,
              help="Hosted mode for many crews behind a reverse proxy with TLS: rooms that expire, each crew's "
                   "own tracks and ship's log, per-client limits; nothing of this machine is offered "
                   "(docs/serve.md#hosted-mode, docs/hosting.md).")
@click.option("--bind", "bind", default=None, metavar="ADDRESS",
              help="With --public: the address to listen on (default 127.0.0.1: the proxy is on this machine).")
@click.option("--trust-proxy", "trust_proxy", multiple=True, metavar="ADDRESS",
              help="With --public: the reverse proxy's address (repeatable); only its X-Forwarded-For and "
                   "X-Forwarded-Proto are believed, so per-client limits count real clients.")
@click.option("--room-idle", "room_idle", type=click.FloatRange(0.5, 30 * 24 * 3600), default=7200.0,
              show_default=True, metavar="SECONDS",
              help="With --public: a room with no screen connected and no request for this long is forgotten.")
@click.option("--public-url", "public_url", default=None, metavar="URL",
              help="With --public: the address crews use (https://tk.example.org), carried by links and QR "
                   "codes (default: the host each browser asked for).")
@click.option("--redis", "redis_url", default=None, metavar="URL",
              help="Keep games, clocks and joined screens in this Redis server and pass commands between "
                   "workers over its pub/sub, so several `serve` processes (on one machine or many) serve the "
                   "same games behind a proxy (docs/hosting.md). Example: --redis redis://127.0.0.1:6379/0")
@click.option("--renders", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Where soundtrack downloads (mp3, ogg) are made and kept; the workers of one deployment name "
                   "the same folder, as they do with --sound-cache (default: serve-renders in "
                   "$XDG_CACHE_HOME/timekeeper).")
@click.option("--behind-proxy", is_flag=True,
              help="Requests come through a reverse proxy on this machine (deploy/nginx.conf): its X-Forwarded-For "
                   "and X-Forwarded-Proto are believed from 127.0.0.1 and ::1 (as --trust-proxy does with "
                   "--public), host names are its to check, and it limits connections per client.")
@click.option("--max-screens", type=click.IntRange(1, 100_000), default=None, metavar="N",
              help="WebSockets (joined screens) this process holds at once (default: 200; 5,000 with --public).")
@click.option("--drain", "drain_s", type=click.FloatRange(0, 600), default=None, metavar="SECONDS",
              help="With --redis: on SIGTERM, move this worker's screens to the other workers spread over this "
                   "many seconds (default 10), finish the requests in flight and exit 0 (a rolling restart, "
                   "docs/hosting.md). Example: --drain 20")
@click.pass_context
def serve_command(ctx: click.Context, port: int, lan: bool, open_browser: bool, scenarios: Path | None,
                  music: Path | None, state: Path | None, log_file: Path | None, sound_cache: Path | None,
                  sound_cache_mb: int | None, public: bool, bind: str | None, trust_proxy: tuple[str, ...],
                  room_idle: float, public_url: str | None, redis_url: str | None, renders: Path | None,
                  behind_proxy: bool, max_screens: int | None, drain_s: float | None) -> None:
    """Play missions from any browser or phone: choose or generate a track, set up the
    voice and crew, and play it with a large spoiler-free screen, captions, a prompter
    for a human timekeeper, and more phones joined as second screens.

    By default only this machine can open the page. With --lan, phones on the same
    network scan the QR code printed here. Ctrl-C stops the server (the mission state
    is kept: start it again and the page picks up where it was). SIGTERM stops it
    gracefully: with --redis its screens move to the other workers first (--drain).

    With --public it hosts many crews (a club, a game cafe, a fan site) behind a
    reverse proxy such as nginx that adds TLS: every crew opens the page, starts a
    room and shares its link, QR code or short code.

    \b
    Examples:
      timekeeper serve --open
      timekeeper serve --lan --scenarios my-missions/
      timekeeper serve --port 0 --state /tmp/tk-state
      timekeeper serve --sound-cache /srv/timekeeper/sound --sound-cache-mb 2000
      timekeeper serve --public --port 8765 --trust-proxy 127.0.0.1 --public-url https://tk.example.org
      timekeeper serve --port 8801 --redis redis://127.0.0.1:6379/0 --behind-proxy --sound-cache /srv/tk/sound
      timekeeper serve --port 8802 --redis redis://127.0.0.1:6379/0 --behind-proxy --drain 20
    """
    from timekeeper.serve.games.redis_store import checked_url
    from timekeeper.serve.server import ServeConfig, default_state_dir, new_token
    from timekeeper.serve.sound.cache import DEFAULT_LIMIT_MB
    from timekeeper.serve.web.app import run
    from timekeeper.serve.web.network import lan_addresses

    host = _check_public(public, lan=lan, scenarios=scenarios, music=music, log_file=log_file, open_browser=open_browser,
                         bind=bind, trust_proxy=trust_proxy, room_idle=room_idle, public_url=public_url,
                         source=ctx.get_parameter_source)
    token = new_token() if lan else None
    addresses = tuple(lan_addresses()) if lan else ()
    trusted = tuple(_address(a, "--trust-proxy") for a in trust_proxy) + (LOOPBACK if behind_proxy else ())
    config = ServeConfig(host=host or ("0.0.0.0" if lan else "127.0.0.1"), port=port, scenarios=scenarios, music=music,
                         state=state or default_state_dir(), token=token, lan_addresses=addresses, log=log_file,
                         debug=bool((ctx.find_root().params or {}).get("debug")), sound_cache=sound_cache,
                         sound_cache_mb=DEFAULT_LIMIT_MB if sound_cache_mb is None else sound_cache_mb,
                         public=public, trusted_proxies=trusted, room_idle_s=room_idle,
                         public_url=public_url.rstrip("/") if public_url else None,
                         redis=checked_url(redis_url) if redis_url else None, renders=renders, behind_proxy=behind_proxy,
                         max_screens=max_screens, drain_s=ServeConfig.drain_s if drain_s is None else drain_s)

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
        if public:
            click.echo(f"Hosted mode (--public): put a reverse proxy with TLS in front of {host}:{bound_port} "
                       "(docs/hosting.md); rooms idle for " + f"{room_idle:g} s are forgotten.")
        click.echo("Ctrl-C stops it.")
        if open_browser:
            page = local + (f"?token={token}" if token else "")
            problem = open_page(page)
            if problem:
                click.echo(f"Warning: --open: {problem}; open {page} in a browser yourself.", err=True)

    from timekeeper.environment import current, process_wide

    with process_wide(current()):  # the server's worker threads see this command's environment
        run(config, ready)


LOOPBACK = ("127.0.0.1", "::1")  # where a proxy on this machine connects from (--behind-proxy)
TEXT_BROWSERS = frozenset({"www-browser", "links", "elinks", "lynx", "w3m"})  # would take over the server's terminal


def open_page(url: str) -> str | None:
    """Show `url` in the machine's web browser; what went wrong, if it could not (no browser, only
    a text browser, which would take over the terminal the server reports to, or one that failed)."""
    import webbrowser

    try:
        browser = webbrowser.get()
    except webbrowser.Error:
        return "no web browser found"
    if type(browser) is webbrowser.GenericBrowser and Path(browser.name).name in TEXT_BROWSERS:
        return f"only a text browser ({browser.name}) found, which would take over this terminal"
    if not browser.open(url):
        return f"the browser {browser.name!r} did not start"
    return None


def _address(text: str, option: str) -> str:
    import ipaddress

    try:
        return str(ipaddress.ip_address(text.strip()))
    except ValueError:
        raise click.UsageError(f"{option} {text!r}: expected an IP address such as 127.0.0.1") from None


def _check_public(public: bool, *, lan: bool, scenarios, music, log_file, open_browser: bool, bind: str | None,
                  trust_proxy: tuple[str, ...], room_idle: float, public_url: str | None, source) -> str | None:
    """The address hosted mode listens on; a UsageError for options that do not go with --public
    (the machine's folders and log) or that need it."""
    import re

    from click.core import ParameterSource

    if public:
        clashing = [name for name, given in (("--lan", lan), ("--scenarios", scenarios), ("--music", music),
                                             ("--log", log_file), ("--open", open_browser)) if given]
        if clashing:
            raise click.UsageError(f"--public serves many crews and offers nothing of this machine: it does not "
                                   f"take {', '.join(clashing)} (crews upload or generate their own tracks, and "
                                   "each keeps its own ship's log)")
        if public_url is not None and not re.fullmatch(r"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?/?", public_url):
            raise click.UsageError(f"--public-url {public_url!r}: expected an address such as https://tk.example.org")
        return _address(bind, "--bind") if bind else "127.0.0.1"
    needing = [name for name, given in (("--bind", bind is not None), ("--trust-proxy", bool(trust_proxy)),
                                        ("--room-idle", source("room_idle") == ParameterSource.COMMANDLINE),
                                        ("--public-url", public_url is not None)) if given]
    if needing:
        raise click.UsageError(f"{', '.join(needing)} {'goes' if len(needing) == 1 else 'go'} only with --public (hosted mode)")
    return None

"""Everything one running server knows: its settings, tracks, games, mixes, downloads and the
screens joined to each game. Handlers (serve/web/routes.py) only translate HTTP to calls on this."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from timekeeper.errors import OutputError, ScenarioError, TimekeeperError
from timekeeper.grammar.phrases import LANGUAGES
from timekeeper.grammar.script import Timeline
from timekeeper.serve.games.game import ENDED, GAME_SETTINGS, PLAYING, Game, new_game_id
from timekeeper.serve.games.speakers import SpeakerWatch
from timekeeper.serve.guards.crews import Crews
from timekeeper.serve.guards.limits import MAX_SCREENS, ScreenCount
from timekeeper.serve.guards.rates import ClientRates
from timekeeper.serve.guards.work_queues import (
    CLIENT_OWNER,
    MIX_THREADS,
    MIXES_WAITING,
    RENDER_THREADS,
    RENDERS_WAITING,
    SLOW_THREADS,
    SLOW_WAITING,
    WorkQueue,
)
from timekeeper.serve.refusal import Refused
from timekeeper.serve.sound.cache import DEFAULT_LIMIT_MB, SoundCache, SoundFile
from timekeeper.serve.sound.encoder_child import ChildSoundCache
from timekeeper.serve.sound.mixes import FORMATS, MixCache, RenderJob
from timekeeper.serve.sound.once import claim_render, mirror_render, note_left, once, render_seen
from timekeeper.serve.sound.render_child import render_in_child, stop_children
from timekeeper.serve.tracks.library import Library, LoadedTrack, files_below
from timekeeper.serve.tracks.voice_installs import VoiceInstallJob, run_voice_install
from timekeeper.soundtrack.mix import MixSettings, PreparedMix
from timekeeper.voice.reference import PACK_PREFIX, TTS_PREFIX

if TYPE_CHECKING:
    from timekeeper.serve.guards.redis_rates import RedisRates
    from timekeeper.serve.sound.maker_lock import SoundLocks

MUSIC_SUFFIXES = (".mp3", ".ogg", ".wav", ".flac", ".m4a")
MAX_MUSIC_FILES = 200
KEPT_DESCRIBED = 500  # timelines and sound files kept (small: cues and words), so describing a game rarely prepares a mix
KEPT_RENDERS = 20  # soundtracks kept in the render cache by this server (the oldest go first)
PUBLIC_ROOMS = 5000  # hosted mode: games (rooms) kept at once; idle ones expire (serve/web/rooms.py)
PUBLIC_SCREENS = 5000  # hosted mode: WebSockets open at once in one process
PUBLIC_CONNECTIONS = 8000  # hosted mode: connections open at once (fewer when the open-files limit is low)
PER_CREW_WORK = 2  # hosted mode: jobs one crew (and one client address) may have in each queue of slow work
WAITING_OWNER = "waited:"  # the owner of the mixes one client address waits for (Play), apart from those prepared ahead


def default_state_dir() -> Path:
    """$TIMEKEEPER_STATE, else $XDG_STATE_HOME/timekeeper/serve, else ~/.local/state/timekeeper/serve (environment.py)."""
    from timekeeper.environment import current

    return current().state


def default_sound_cache() -> Path:
    """The page's sound files: the serve-sound folder of the render cache (timekeeper.audio.clipcache)."""
    from timekeeper.audio.clipcache import cache_dir

    return cache_dir() / "serve-sound"


@dataclass(frozen=True)
class ServeConfig:
    """How `timekeeper serve` was started. `token` is set in LAN mode: every request must carry it."""

    host: str = "127.0.0.1"
    port: int = 8765
    scenarios: Path | None = None
    music: Path | None = None
    state: Path = field(default_factory=default_state_dir)
    token: str | None = None
    lan_addresses: tuple[str, ...] = ()  # where phones reach this machine (LAN mode)
    log: Path | None = None  # the ship's log (None: the default one, see timekeeper.logbook)
    debug: bool = False
    public: bool = False  # hosted mode (serve/web/hosted.py): crews, rooms that expire, per-client limits
    trusted_proxies: tuple[str, ...] = ()  # addresses whose X-Forwarded-For and -Proto are believed
    room_idle_s: float = 7200.0  # hosted mode: a room nobody uses for this long is forgotten
    public_url: str | None = None  # hosted mode: the address links and QR codes carry (else as asked)
    sound_cache: Path | None = None  # the page's sound files (None: default_sound_cache()); workers may share one
    sound_cache_mb: int = DEFAULT_LIMIT_MB  # complete sound files kept there, least recently served deleted first
    redis: str | None = None  # games, clocks and screens in this Redis (several workers); None: this process
    renders: Path | None = None  # soundtrack downloads, shared by every worker (None: the cache folder's)
    behind_proxy: bool = False  # requests come through a reverse proxy on this machine (trusted: loopback)
    max_screens: int | None = None  # WebSockets this process holds at once (None: PUBLIC_SCREENS or MAX_SCREENS)
    encode_in_child: bool = True  # the page's sound files encoded by a child process (serve/sound/encoder_child.py), else threads here
    drain_s: float = 10.0  # with --redis: on SIGTERM the screens move to the other workers over this window (serve/web/drain.py)

    @property
    def lan(self) -> bool:
        return self.token is not None


class SettingsError(Refused):
    """Sound settings the page sent that this server does not offer."""


class ServerState:
    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.library = Library(config.scenarios, config.state)
        self.store = make_store(config)
        self.screens = self.store.screens  # game id -> this process's open WebSockets
        self.watch = SpeakerWatch()  # the speakers whose screens this process holds (serve/games/speakers.py)
        self.closing = False  # the server stops: its screens' sockets close, their speakers are not lost
        self.crews = Crews(config.state, self.library) if config.public else None  # hosted mode: each crew's own
        self.rates = make_rates(config, self.store)  # hosted mode: per-client limits
        self.mixes = MixCache()
        sound_cache = ChildSoundCache if config.encode_in_child else SoundCache  # (a child: no answer waits on encoding)
        self.sounds = sound_cache(config.sound_cache or default_sound_cache(), config.sound_cache_mb * 1_000_000,
                                  sound_locks(config))
        self.jobs: dict[str, RenderJob] = {}
        self.voice_installs: dict[str, VoiceInstallJob] = {}  # language -> its recommended voice's download
        self.sockets = ScreenCount(screens_allowed(config))
        per_owner = PER_CREW_WORK if config.public else None  # one crew cannot fill a queue
        self.rendering = WorkQueue("render", RENDER_THREADS, RENDERS_WAITING, per_owner=per_owner)
        self.mixing = WorkQueue("mix", MIX_THREADS, MIXES_WAITING, per_owner=per_owner and 2 * per_owner)
        self.slow = WorkQueue("slow", SLOW_THREADS, SLOW_WAITING, per_owner=per_owner)  # generating missions, PDFs
        self._preparing: dict[str, asyncio.Future[PreparedMix]] = {}  # mix key -> its preparation under way
        self.described: OrderedDict[str, tuple[Timeline, SoundFile]] = OrderedDict()  # mix key -> ..., newest last
        self.renders: dict[str, asyncio.Future] = {}  # job id -> its unfinished render in the queue
        self.stopping = False  # SIGTERM came (serve/web/drain.py): no new render starts here, answers close their connection

    # --- what the page may choose --------------------------------------------------------------
    @cached_property
    def voices(self) -> list[dict]:
        """The voices offered: the built-in one, each pack, each installed TTS voice by language.
        `name` is a pack's own name (None for the others: see `voices_in`)."""
        from timekeeper.voice.catalog import found_packs, installed_by_language

        offered: list[dict] = [{"id": "", "name": None, "language": None}]
        for pack in found_packs():
            offered.append({"id": PACK_PREFIX + pack.folder.name, "name": pack.name, "language": pack.language})
        try:
            _engine, by_language = installed_by_language()
        except TimekeeperError:
            by_language = {}
        for language, ids in sorted(by_language.items()):
            offered += [{"id": TTS_PREFIX + voice, "name": None, "language": language} for voice in ids[:30]]
        return offered

    def voices_in(self, ui: str) -> list[dict]:
        """The voices offered, each with a human name in the page's language `ui` ("English (Caribbean)"
        for tts:en-029); the ids stay as they are."""
        from timekeeper.i18n import translate
        from timekeeper.voice.names import tts_voice_name

        def name(voice: dict) -> str:
            if voice["id"].startswith(PACK_PREFIX):
                return translate(ui, "voice.pack", name=voice["name"])
            if voice["id"].startswith(TTS_PREFIX):
                return tts_voice_name(voice["id"].removeprefix(TTS_PREFIX), ui)
            return translate(ui, "voice.builtin")

        return [{**voice, "name": name(voice)} for voice in self.voices]

    @property
    def languages(self) -> list[str]:
        """The shipped languages, then those only an installed voice pack speaks (Greek, Japanese ...)."""
        spoken_by_packs = {v["language"] for v in self.voices if v["id"].startswith(PACK_PREFIX) and v["language"]}
        return [*LANGUAGES, *sorted(spoken_by_packs - set(LANGUAGES))]

    def music_files(self) -> dict[str, Path]:
        folder = self.config.music
        return {} if folder is None else files_below(folder, MUSIC_SUFFIXES, MAX_MUSIC_FILES)

    def voice_spec(self, voice_id: str) -> str | None:
        """The voice an id of the page's list names, as --voice names it (None: the built-in voice)."""
        if voice_id not in {v["id"] for v in self.voices}:
            raise SettingsError(f"voice {voice_id!r} is not offered here; pick one from the list", field="voice")
        from timekeeper.voice.reference import parse_voice

        return parse_voice(voice_id).spec if voice_id else None

    def mix_settings(self, raw: dict, scenario_language: str | None) -> dict:
        """Check the page's game settings as the command line's are (timekeeper/soundtrack/settings.py):
        the JSON-safe fields of MixSettings, and the training pace (a number from 1 to 2 that
        stretches the whole mission, timekeeper/grammar/pace.py); the voice, music and language must be
        ones this server offers. The game's own settings (GAME_SETTINGS: a crew apart, the pause
        when nobody hears the sound) come checked by the route's schema and are kept as they are."""
        from timekeeper.soundtrack.settings import SettingProblem, sound_settings

        if raw.get("language"):
            self._offered_language(raw["language"])
        voice = self.voice_spec(str(raw.get("voice") or ""))
        music_name = raw.get("music") or ""
        music = None
        if music_name:
            music = self.music_files().get(music_name)
            if music is None:
                raise SettingsError(f"music {music_name!r} is not offered here; pick one from the list", field="music")
        try:
            checked = sound_settings({**raw, "voice": voice, "music": music}, scenario_language)
        except SettingProblem as problem:
            raise SettingsError(str(problem), field=problem.field) from None
        settings = {**checked.as_json(), **{key: raw[key] for key in GAME_SETTINGS if key in raw}}
        self._offered_language(settings["language"])
        if voice is None:  # the built-in voice: an installed recommended Piper voice, else espeak-ng
            from timekeeper.voice.select import default_voice

            settings["voice"] = default_voice(settings["language"])
        return settings

    def _offered_language(self, language: str) -> None:
        if language not in self.languages:
            raise SettingsError(f"language {language!r}: expected one of {', '.join(self.languages)}", field="language")

    # --- crews (hosted mode: serve/guards/crews.py) ------------------------------------------------------
    def library_for(self, crew: str) -> Library:
        """The tracks a crew sees: without --public the server's; in hosted mode the built-in ones
        and the crew's own."""
        if self.crews is None:
            return self.library
        if not crew:
            raise ScenarioError("no such track; pick one from the list", missing=True)
        return self.crews.library(crew)

    def claim_crew(self, crew: str) -> None:
        """A crew is about to store something (a track, a mission in its log): its folder."""
        if self.crews is not None:
            self.crews.claim(crew)

    def log_for(self, crew: str) -> Path | None:
        """The ship's log of a crew: without --public the machine's (--log, else the default one)."""
        if self.crews is None:
            return self.config.log
        if not crew:
            raise ScenarioError("no such ship's log", missing=True)
        return self.crews.log_path(crew)

    def owners(self, crew: str, client: str, *, waited: bool = False) -> tuple[str, ...]:
        """Whose shares of a queue of slow work a job takes (hosted mode; none otherwise): the
        crew's and the client address's, so that neither a crew nor one address holding many crews
        can fill a queue. A mix a screen `waited` for (Play) takes a place of the address's own for
        such mixes, apart from the mixes its crews prepare ahead, so that quick set-up changes
        never refuse a Play."""
        if not self.config.public:
            return ()
        if waited:
            return (f"{WAITING_OWNER}{client}",)
        return tuple(owner for owner in (crew and f"crew:{crew}", client and f"{CLIENT_OWNER}{client}") if owner)

    # --- games ---------------------------------------------------------------------------------
    async def new_game(self, loaded: LoadedTrack, raw_settings: dict, *, mode: str = "sound", mixed: bool = True,
                       crew: str = "", client: str = "") -> Game:
        """A new game; its mix prepared first unless `mixed` is False (a lobby prepares it in the background)."""
        settings = self.mix_settings(raw_settings, loaded.scenario.language)
        game = Game(new_game_id(), loaded.track.id, loaded.track.title, loaded.yaml_text, settings, mode=mode, crew=crew)
        if await self.store.count() >= self.store.max_games:
            raise Refused(f"{self.store.max_games} games are kept and in use; end one first", status=503,
                          code="too_busy", retry_after_s=60)
        if mixed:
            game.duration_ms = (await self.timeline(game, client)).duration_ms
        with self.unsaved_refused():
            return await self.store.add(game)

    def kept_games(self) -> list[Game]:
        """The games this process keeps and forgets when idle (hosted mode looks for idle rooms
        among them; with Redis, a room expires there when nobody changed it or joined it)."""
        return self.store.kept_games()

    def forget_games(self, game_ids: list[str]) -> None:
        """Forget games (expired rooms of hosted mode): their saved files, codes and joined screens."""
        self.store.forget_games(game_ids)

    def game(self, game_id: str) -> Game:
        """The game as last read from the store (a request's game is read before its handler runs)."""
        game = self.store.get(game_id)
        if game is None:
            raise ScenarioError("no such game (it may have been forgotten); start a new one", path=f"game {game_id}",
                                missing=True)
        return game

    async def mix(self, game: Game, client: str = "", *, ahead: bool = False) -> PreparedMix:
        """The game's prepared mix: a kept one at once, else prepared (synthesizing phrases the
        first time) in the mixing queue, off the event loop; one preparation per key in this process
        and, with Redis, one phrase synthesis across workers. In hosted mode a mix prepared `ahead`
        (the lobby's, while the crew sets up) takes one of its crew's and its `client` address's few
        places; one a screen waits for, a place of the address's own (see `owners`)."""
        key = game.mix_key
        mix = self.mixes.kept(key)
        if mix is None:
            pending = self._preparing.get(key)
            if pending is None:  # one preparation per key in this process, however many ask
                owners = self.owners(game.crew, client, waited=not ahead)
                pending = self._preparing[key] = asyncio.ensure_future(self._prepare_once(game, owners))
                pending.add_done_callback(lambda _done: self._preparing.pop(key, None))
            mix = await asyncio.shield(pending)
        self._keep_described(key, mix)
        if game.mode != "quiet":
            self.sounds.start(game.mix_key, mix)  # its sound file made in the background, once
        return mix

    async def _prepare_once(self, game: Game, owners: tuple[str, ...]) -> PreparedMix:
        async with once(self.store, "mix:" + game.mix_key):  # other workers wait, then read the clip cache
            return await self.mixing.run(game.mix_key, lambda: self._prepare(game), owners)

    async def described_mix(self, game: Game, client: str = "") -> tuple[Timeline, SoundFile]:
        """The game's timeline (what the page shows) and its sound file: kept for many more games
        than their mixes, so describing a game rarely prepares one."""
        kept = self.described.get(game.mix_key)
        if kept is not None:
            self.described.move_to_end(game.mix_key)
            return kept
        mix = await self.mix(game, client)
        return mix.timeline, self.sounds.file(game.mix_key, mix)

    async def timeline(self, game: Game, client: str = "") -> Timeline:
        return (await self.described_mix(game, client))[0]

    def _prepare(self, game: Game) -> PreparedMix:
        """The game's mix, prepared now unless kept."""
        return self.mixes.get(game.mix_key, game.scenario, mix_settings_of(game))

    def _keep_described(self, key: str, mix: PreparedMix) -> None:
        self.described[key] = (mix.timeline, self.sounds.file(key, mix))
        self.described.move_to_end(key)
        while len(self.described) > KEPT_DESCRIBED:
            self.described.popitem(last=False)

    async def save(self, game: Game) -> None:
        """Save the whole game (its track or settings changed); Refused (503) when it cannot be."""
        with self.unsaved_refused():
            await self.store.save(game)

    async def update(self, game: Game, change, *, tell=None, skip=None) -> object:
        """Carry out `change` on the game as stored now, save it and tell every screen (see
        Store.update); Refused (503) when it cannot be saved, and then nothing is changed."""
        with self.unsaved_refused():
            return await self.store.update(game, change, tell=tell, skip=skip)

    @staticmethod
    @contextlib.contextmanager
    def unsaved_refused():
        try:
            yield
        except OutputError as error:  # the state folder cannot be written
            from timekeeper.serve.quiet import say

            say(f"state_unwritable: {error.message}", kind="state-unwritable")  # (where: the operator's to know)
            raise Refused(f"the change cannot be saved, so it is not made: {error.detail}", status=503,
                          code="state_unwritable") from error

    async def settle_all(self) -> list[Game]:
        """Games that have just run past their end (now ended), to announce to their screens."""
        ended = []
        for game in self.store.local_games():
            if game.playback.status != PLAYING or game.playback.now_ms() < game.duration_ms:
                continue
            with contextlib.suppress(TimekeeperError):  # the end is told all the same; saved at the next change
                if await self.store.update(game, _settle) is None:
                    continue  # another worker ended it (and told everyone)
            if game.playback.status == ENDED:
                ended.append(game)
        return ended

    # --- downloads -----------------------------------------------------------------------------
    def renders_dir(self) -> Path:
        """Where soundtrack downloads are kept: `--renders DIR`, which every worker of a deployment
        shares, else the cache folder's serve-renders."""
        from timekeeper.audio.clipcache import cache_dir

        return self.config.renders or cache_dir() / "serve-renders"

    async def start_render(self, game: Game, fmt: str, crew: str = "", client: str = "") -> RenderJob:
        """A download of the game's soundtrack in `fmt`, rendered once (here or by another worker);
        in hosted mode it takes a place of the asking `crew` and `client` address."""
        if fmt not in FORMATS:
            raise SettingsError(f"format {fmt!r}: expected one of {', '.join(FORMATS)}", field="format")
        job_id = f"{game.mix_key}-{fmt}"
        job = self.jobs.get(job_id)
        if job is not None and (not job.finished or job.error is None) and (not job.finished or job.path.is_file()):
            return job
        job = RenderJob(job_id, self.renders_dir() / f"{game.mix_key}.{fmt}", game_id=game.id)
        if job.path.is_file():
            job.finished = True
            self.jobs[job_id] = job
            self._forget_old_renders()
            return job
        if self.stopping and self.store.shared:  # left at once: the page's next look at it reaches a worker that renders it
            job.left = True
            await note_left(self.store, job)
            return job
        token = await claim_render(self.store, job_id)
        if token is None:  # another worker renders it into the shared folder: its progress
            return await render_seen(self.store, job_id, job) or job
        source = game.track_id.partition(":")[2] or game.title
        settings = mix_settings_of(game)
        try:  # in a child process, so the encode delays no answer of this one (serve/sound/render_child.py)
            future = self.rendering.start(job_id, lambda: render_in_child(job, game.scenario, settings, source),
                                          self.owners(crew, client))
        except Refused:
            await self.store.release("render:" + job_id, token)
            raise
        self.jobs[job_id] = job  # only once queued: a refused download leaves nothing behind
        self.renders[job_id] = future
        future.add_done_callback(lambda _done: self.renders.pop(job_id, None))
        if self.store.shared:
            _keep_task(asyncio.get_running_loop().create_task(mirror_render(self.store, job, future, token)))
        self._forget_old_renders()
        return job

    async def find_job(self, job_id: str) -> RenderJob | None:
        """A download's job: this worker's, else one another worker runs (with --redis); one that a
        stopping worker left unfinished is rendered here from now on."""
        job = self.jobs.get(job_id)
        if (job is not None and not job.left) or not self.store.shared:
            return job
        key, _, fmt = job_id.rpartition("-")
        seen = await render_seen(self.store, job_id, RenderJob(job_id, self.renders_dir() / f"{key}.{fmt}"))
        if seen is None or not seen.left or self.stopping:
            return seen
        game = await self.store.refresh(seen.game_id) if seen.game_id else None
        if game is None or game.mix_key != key:
            return None  # its game is gone or changed: the page starts it again
        self.jobs.pop(job_id, None)
        return await self.start_render(game, fmt)

    def leave_renders(self, *, running: bool) -> int:
        """SIGTERM (serve/web/drain.py): the downloads still waiting in the queue are left to the next
        worker the page asks (their locks released, marked left); with `running`, those being
        rendered too (their render children stopped). How many were left now."""
        self.stopping = True
        if not self.store.shared:
            return 0
        left = 0
        stopped = set()
        for job_id, future in list(self.renders.items()):
            job = self.jobs.get(job_id)
            if job is None or job.finished or job.left:
                continue
            if self.rendering.position(job_id) > 0:  # still waiting: it never starts here
                future.cancel()
            elif running:
                stopped.add(job_id)
            else:
                continue
            job.left = True
            left += 1
        if stopped:
            stop_children(stopped)
        return left

    async def renders_settled(self, timeout_s: float) -> None:
        """Wait (at most `timeout_s`) until the renders left or stopped have told the other workers
        (their notes written, their locks released)."""
        waiting = [*self.renders.values(), *_TASKS]
        if waiting:
            await asyncio.wait(waiting, timeout=timeout_s)

    def _forget_old_renders(self) -> None:
        """Keep the KEPT_RENDERS most recent soundtracks (files and jobs); unfinished ones stay."""
        finished = [job for job in self.jobs.values() if job.finished]
        for job in finished[: max(0, len(finished) - KEPT_RENDERS)]:
            del self.jobs[job.id]
            with contextlib.suppress(OSError):
                job.path.unlink(missing_ok=True)

    def job_json(self, job: RenderJob) -> dict:
        """A download's progress, with its place in the queue (0: being rendered)."""
        return {**job.as_json(), "position": self.rendering.position(job.id)}

    def start_voice_install(self, language: str) -> VoiceInstallJob:
        """Download `language`'s recommended voice in a worker thread (one download per language)."""
        from timekeeper.voice.recommended import recommended

        if language not in LANGUAGES:
            raise SettingsError(f"language {language!r}: expected one of {', '.join(LANGUAGES)}")
        job = self.voice_installs.get(language)
        if job is not None and not job.finished:
            return job
        job = VoiceInstallJob(language, recommended(language).name)
        self.voice_installs[language] = job
        threading.Thread(target=run_voice_install, args=(job, self._forget_voices), name=f"install-{language}", daemon=True).start()
        return job

    def _forget_voices(self) -> None:
        self.__dict__.pop("voices", None)  # listed again at the next request

    def join_url(self, game: Game, base: str) -> str:
        url = f"{base.rstrip('/')}/g/{game.id}"
        return f"{url}?token={self.config.token}" if self.config.token else url


_TASKS: set[asyncio.Task] = set()  # background tasks (kept so they are not collected)


def _keep_task(task: asyncio.Task) -> None:
    _TASKS.add(task)
    task.add_done_callback(_TASKS.discard)


def mix_settings_of(game: Game) -> MixSettings:
    """The game's sound settings as the mix takes them (its music a path)."""
    settings = game.mix_settings
    return settings if settings.music is None else replace(settings, music=Path(settings.music))


def _settle(game: Game) -> bool | None:
    """A change: a playing mission that has run past its end has ended (None: it had not)."""
    before = game.playback.status
    return True if before == PLAYING and game.settled().status == ENDED else None


def make_store(config: ServeConfig):
    """The store `config` asks for: Redis (`--redis URL`) or this process's state folder. In hosted
    mode many more games are kept, and (with Redis) a room expires after its idle time."""
    if config.redis:
        from timekeeper.serve.games.redis_store import GAME_TTL_S, RedisStore

        return RedisStore(config.redis, config.room_idle_s if config.public else GAME_TTL_S)
    from timekeeper.serve.games.store import LocalStore

    return LocalStore(config.state, PUBLIC_ROOMS if config.public else None)


def make_rates(config: ServeConfig, store) -> ClientRates | RedisRates | None:
    """Hosted mode's per-client limits: counted in Redis with `--redis` (they hold across every
    worker), else in this process; None outside hosted mode."""
    if not config.public:
        return None
    if config.redis:
        from timekeeper.serve.guards.redis_rates import RedisRates

        return RedisRates(store)
    return ClientRates()


def sound_locks(config: ServeConfig) -> SoundLocks | None:
    """With `--redis`, who makes each sound file is decided in Redis as well (workers on several
    machines, where flock may not exclude); else flock alone."""
    if not config.redis:
        return None
    from timekeeper.serve.sound.maker_lock import SoundLocks

    return SoundLocks(config.redis)


def screens_allowed(config: ServeConfig) -> int:
    """WebSockets one process holds at once: --max-screens, else PUBLIC_SCREENS in hosted mode or MAX_SCREENS."""
    return config.max_screens or (PUBLIC_SCREENS if config.public else MAX_SCREENS)


def new_token() -> str:
    return secrets.token_urlsafe(18)


"""`timekeeper voices` and `timekeeper voice export`."""

from __future__ import annotations

from pathlib import Path

import click

from timekeeper.commands.groups import SuggestingGroup
from timekeeper.grammar.phrases import LANGUAGES


@click.command("voices")
def voices_command() -> None:
    """List the built-in voices, the installed TTS voices per language and the voice packs found.

    Use a name or a folder from this list with --voice.

    \b
    Examples:
      timekeeper voices
      timekeeper render mission-1 --voice en-gb-x-rp -o m1.mp3
      timekeeper render mission-1 --lang de --voice my-pack -o m1.mp3
      timekeeper render mission-1 --voice piper:en_US-joe-medium -o m1.mp3
    """
    from timekeeper.voice.catalog import found_packs, installed_by_language
    from timekeeper.voice.select import default_voice, packs_dir
    from timekeeper.voice.tts import TtsSettings

    click.echo("Built-in voices (the default voice per language; the synthesized voice and its rate):")
    for language in LANGUAGES:
        settings = TtsSettings.default(language)
        spoken = f"{settings.voice} at {settings.rate_wpm} words/min"
        default = default_voice(language)
        click.echo(f"  {language}  {default} (else {spoken})" if default else f"  {language}  {spoken}")
    engine_name, by_language = installed_by_language()
    click.echo(f"Installed TTS voices ({engine_name}):")
    for language in LANGUAGES:
        names = ", ".join(v for v in by_language.get(language, []) if not v.startswith("piper:")) or "(none)"
        click.echo(f"  {language}  {names}")
    from timekeeper.voice.neural import installed_models, piper_dir
    from timekeeper.voice.recommended import RECOMMENDED
    from timekeeper.voice.select import default_voice

    models = installed_models()
    click.echo(f"Piper neural voices (use --voice piper:NAME; install more into {piper_dir()}):" + ("" if models else " (none)"))
    for model in models:
        click.echo(f"  {model.language}  piper:{model.name}  {model.path}")
    click.echo("Recommended natural voices (the default of their language once installed; espeak-ng otherwise):")
    for language in LANGUAGES:
        chosen = RECOMMENDED[language]
        state = "installed, the default" if default_voice(language) else f"timekeeper voice install --lang {language}"
        click.echo(f"  {language}  {chosen.summary}  {state}")
    packs = found_packs()
    click.echo(f"Voice packs in {packs_dir()}:" + ("" if packs else " (none)"))
    for pack in packs:
        click.echo(f"  {pack.name}  {pack.language or '?'}  {pack.clips} clips  {pack.folder}")


@click.group("voice", cls=SuggestingGroup)
def voice_group() -> None:
    """Work with voice packs.

    \b
    Examples:
      timekeeper voice export --lang de ~/.local/share/timekeeper/voices/my-de
      timekeeper voice install de_DE-thorsten-medium
    """


@voice_group.command("export")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option("--lang", "language", type=click.Choice(LANGUAGES, case_sensitive=False), default="en", show_default=True, help="Language of the pack.")
@click.option("--voice", default=None, help="TTS voice to export (default: the language's built-in voice).")
@click.option("--format", "fmt", type=click.Choice(("wav", "mp3"), case_sensitive=False), default="wav", show_default=True, help="Clip file format.")
def export_command(folder: Path, language: str, voice: str | None, fmt: str) -> None:
    """Write a complete voice pack (one clip per community name) from the synthesized voice.

    Replace any clip with your own recording under the same name; clips you remove are
    spoken by the synthesized voice again (with a warning).

    \b
    Examples:
      timekeeper voice export --lang de my-pack
      timekeeper render mission-1 --lang de --voice my-pack -o mission-1-de.mp3
    """
    from timekeeper.voice.export import export_pack
    from timekeeper.voice.select import language_mismatch

    warning = language_mismatch(language, voice)
    if warning:
        click.echo(f"Warning: {warning}", err=True)
    written = export_pack(language, folder, fmt, voice)
    click.echo(f"Wrote {len(written)} files to {folder}")


@voice_group.command("install")
@click.argument("name", required=False)
@click.option("--lang", "language", type=click.Choice(LANGUAGES), default=None, help="Install the recommended voice of this language.")
@click.option("--from", "base", default=None, metavar="URL", help="Another copy of the Piper voice repository (default: $TIMEKEEPER_PIPER_URL, else Hugging Face).")
def install_command(name: str | None, language: str | None, base: str | None) -> None:
    """Download the Piper neural voice NAME into timekeeper's data folder (needs a network).

    --lang installs the recommended voice of a language (`timekeeper voices` lists them with size
    and licence), which then speaks that language by default, with espeak-ng as the fallback
    (Piper comes with timekeeper). NAME is any Piper voice name, used with --voice piper:NAME.
    A second install of an intact voice downloads nothing.

    \b
    Examples:
      timekeeper voice install --lang de
      timekeeper voice install de_DE-thorsten-medium
      timekeeper render mission-1 --lang de -o m1-de.mp3
    """
    from timekeeper.commands.options import ProgressBar
    from timekeeper.voice.install import install
    from timekeeper.voice.recommended import recommended

    if (name is None) == (language is None):
        raise click.UsageError("give a voice NAME or --lang (not both)")
    if language is not None:
        chosen = recommended(language)
        click.echo(f"Recommended {language} voice: {chosen.summary}")
    voice_name = name or recommended(str(language)).name
    bar = ProgressBar(f"Downloading {voice_name}")
    try:
        done = install(voice_name, base, bar, bundled_will_do=language is not None)  # --lang: any copy speaks
    finally:
        bar.close()
    model = done.model
    if not done.downloaded:
        click.echo(f"piper:{model.name} is already installed in {model.path.parent} (nothing downloaded)")
        return
    size_mb = done.size_bytes / 1e6
    click.echo(f"Installed piper:{model.name} ({model.language}, {size_mb:.0f} MB, licence: {done.licence or 'unknown'}) "
               f"in {model.path.parent}; sha256 {done.sha256}")
    click.echo(f"Use it with: timekeeper render mission-1 --lang {model.language} --voice piper:{model.name} -o mission-1.mp3")

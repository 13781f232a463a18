"""The one channel matcher: what people type (id, slug or name) to the channel they mean.

Pure and dependency-free, so the CLI, publishing, reports and `Warehouse` all resolve
`--channel`/`channel=` the same way: trimmed, case-insensitive, an id before a slug before
a name; an unknown reference lists the nearest names, an ambiguous one its candidates.

    channels = [ChannelName("chan_1", "all-hands", "All hands")]
    match_channel(" ALL HANDS ", channels).id      # 'chan_1'
    match_channel("all-hnds", channels)            # InvalidParameterError: ... did you mean
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from channelkit._suggest import choices_text
from channelkit.errors import InvalidParameterError


class NamedChannel(Protocol):
    """Anything with a channel's id, slug and name (a `Channel` model, a row, ...)."""

    @property
    def id(self) -> str: ...

    @property
    def slug(self) -> str: ...

    @property
    def name(self) -> str: ...


C = TypeVar("C", bound=NamedChannel)


@dataclass(frozen=True)
class ChannelName:
    """The three ways to name a channel, for callers holding plain rows."""

    id: str
    slug: str
    name: str


_LEVELS = ("id", "slug", "name")  # the order in which a reference is tried


def _fold(text: str | None) -> str:
    return " ".join((text or "").split()).casefold()


def channel_candidates(ref: str, channels: Iterable[C]) -> list[C]:
    """The channels `ref` names at the strongest level that matches: id, then slug, then name.

    Several results mean the reference is ambiguous (two channels named "News").
    """
    return ChannelLookup(channels).candidates(ref)


def match_channel(
    ref: str, channels: Iterable[C], *, param: str = "channel", seen_by: str = ""
) -> C:
    """The one channel `ref` names, or `InvalidParameterError(param, ...)` saying why not.

    `seen_by` says whose view `channels` is ("this API key"): a channel missing from it
    may exist but be hidden.

    >>> match_channel("general", [ChannelName("chan_1", "general", "General")]).id
    'chan_1'
    """
    return ChannelLookup(channels).match(ref, param=param, seen_by=seen_by)


class ChannelLookup(Generic[C]):
    """The one matcher: channels folded once into one dict per level (id, slug, name), so
    that many references against the same channels (a spreadsheet's rows) cost a lookup
    each. `match_channel` and `channel_candidates` are its one-reference forms.

    >>> ChannelLookup([ChannelName("chan_1", "general", "General")]).match(" GENERAL ").id
    'chan_1'
    """

    def __init__(self, channels: Iterable[C]) -> None:
        self.channels = tuple(channels)
        self._levels: tuple[dict[str, list[C]], ...] = tuple({} for _ in _LEVELS)
        for channel in self.channels:
            for by_key, field in zip(self._levels, _LEVELS, strict=True):
                key = _fold(getattr(channel, field))
                if key:  # an empty field names nothing, as in `channel_candidates`
                    by_key.setdefault(key, []).append(channel)

    def candidates(self, ref: str) -> list[C]:
        """The channels `ref` names at the strongest level that matches."""
        wanted = _fold(ref)
        if wanted:
            for by_key in self._levels:
                found = by_key.get(wanted)
                if found:
                    return list(found)
        return []

    def match(self, ref: str, *, param: str = "channel", seen_by: str = "") -> C:
        """The one channel `ref` names, or `InvalidParameterError(param, ...)` saying why."""
        found = self.candidates(ref)
        if len(found) == 1:
            return found[0]
        if found:
            raise InvalidParameterError(param, ambiguous_message(ref, found))
        raise InvalidParameterError(param, unknown_message(ref, self.channels, seen_by=seen_by))


def unknown_message(ref: str, channels: Sequence[NamedChannel], *, seen_by: str = "") -> str:
    """The message for a reference naming no channel: the nearest slugs first."""
    visible = f" visible to {seen_by}" if seen_by else ""
    text = f"no channel {ref.strip()!r} (id, slug or name){visible}"
    if not channels:
        return f"{text}: there are no channels (is the warehouse synced, can the key see any?)"
    names = sorted({c.slug or c.id for c in channels}, key=str.casefold)
    return f"{text}; {choices_text(ref, names)}"


def ambiguous_message(ref: str, candidates: Sequence[NamedChannel]) -> str:
    listed = ", ".join(f"{c.name} [{c.id}, slug {c.slug}]" for c in candidates)
    return f"{ref.strip()!r} names {len(candidates)} channels: {listed}; use the id or the slug"

"""Conversation history and trip state in the KV store, so any replica can serve any user.

Each stored turn carries ``seq``, its place in the conversation (0, 1, 2, ...): it never changes, so a
client pages backwards with it (``page``), however many turns are added or trimmed meanwhile. An answer
and its question share an ``id``, so ``id`` cannot be the cursor. Histories stored before ``seq``
existed are numbered by position when read, and that numbering is stored with their next turn.

A history is two keys: ``history`` holds its turns up to some point, ``recent`` the turns after it
(RECENT_TURNS at most). A turn is written to ``recent`` alone, a few kilobytes, instead of rewriting the
whole history (up to HISTORY_LIMIT turns with their sources and results, tens of kilobytes) twice a
message; once ``recent`` is full, or a turn changes what ``history`` holds, or ``history`` was last
written more than SETTLE_AFTER of the keeping time ago, the turns are written to ``history``, but for a
question still waiting for its answer and what follows it, which start ``recent`` again. ``recent``
expires with ``history``, so a conversation expires whole. ``history`` is written first: a write stopped
between the two leaves turns in both, and each is read once (by ``seq``). Histories stored before
``recent`` existed are read as they are.

A question (``ask``) keeps the number after its own for its answer (``answer``), so one user's messages
at once (two tabs, two replicas, several POSTs) read as each question followed by its own answer, however
their answers finish; until then the history skips that number.

A user has several conversations, each with its own history and trip, stored under its key
(``conversation_key``); ``MAIN`` is the one of clients that name none, stored under the user id alone as
before conversations existed. The user's list of them (``started``, ``conversations``) is written only
when one starts: its title (its first message) and when; when each was last written is its history's.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import time
import uuid
import weakref
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from rag.chat.memory import Parsed, Remembered
from rag.dialogue.trip import TripState
from rag.errors import KVUnavailableError
from rag.kv.base import KVStore

HISTORY_LIMIT = 50
RECENT_TURNS = 8  # turns kept in a history's ``recent`` key before they join its ``history`` key
# Of the keeping time: ``history`` is rewritten at least this often while in use (daily for 30 days),
# so a conversation is kept at least 29/30 of the keeping time after its last message.
SETTLE_AFTER = 1 / 30
# A history's writer holds its lock this long at most; others wait up to LOCK_WAIT for it.
LOCK_TTL = 10.0
LOCK_WAIT = 15.0
PAGE_TURNS = 20  # what GET /v1/sessions/{user_id} shows when it is not asked for more or fewer
# In a stored question: the seq its answer is to take (SessionStore.ask); never shown.
_KEPT = "answer_seq"
# Characters of histories and trips a single-process store keeps in memory (Remembered).
REMEMBERED_CHARS = 16_000_000
# Characters of histories kept parsed (Parsed): parsed, a history takes several times its text's memory.
PARSED_CHARS = 2_000_000
MAIN = "main"  # the conversation of clients that name none
# Between a user id and a conversation id in a key: a control character, which no user id contains.
SEP = "\x1f"
MAX_CONVERSATIONS = 50  # per user; a new one beyond it forgets the one written longest ago
# A user's list of conversations is written only when one starts, so it is kept this many times as long
# as a conversation: one kept alive by its messages stays listed (one let expire is left out when listed).
INDEX_LIFETIMES = 12
TITLE_CHARS = 80


@dataclass(frozen=True)
class Page:
    """Some consecutive turns, oldest first, and where the ones before them start."""

    turns: list[dict[str, Any]]
    more: bool  # earlier turns exist
    before: int | None  # then: the ``before`` that asks for them (the first turn's seq)


def numbered(turns: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``turns`` each with its ``seq``: the stored one, or for a turn stored without one (or with one out
    of order), one past the turn before it, so numbers only grow and a history stored before them reads
    as 0, 1, 2, ..."""
    out, last = [], -1
    for turn in turns:
        seq = turn.get("seq")
        if not isinstance(seq, int) or isinstance(seq, bool) or seq <= last:
            seq = last + 1
        out.append({**turn, "seq": seq})
        last = seq
    return out


def page(turns: Sequence[dict[str, Any]], before: int | None = None, limit: int = PAGE_TURNS) -> Page:
    """The last ``limit`` turns before the one numbered ``before`` (the latest without it). Pure."""
    if limit < 1:
        raise ValueError("limit is at least 1")
    older = [t for t in numbered(turns) if before is None or t["seq"] < before]
    kept = older[-limit:]
    more = len(older) > len(kept)
    return Page(kept, more, kept[0]["seq"] if more else None)


def trimmed(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The turns a history keeps: its first (it usually sets the trip up) and the latest ones."""
    return turns if len(turns) <= HISTORY_LIMIT else turns[:1] + turns[-(HISTORY_LIMIT - 1) :]


@dataclass(frozen=True)
class Stored:
    """A history as stored: every turn (``numbered``, with the places questions keep for their answers),
    how many of them its ``history`` key holds, and when that key was written (None: unknown)."""

    turns: list[dict[str, Any]]
    settled: int
    since: float | None


def conversation_key(user_id: str, conversation: str | None = None) -> str:
    """Where ``user_id``'s ``conversation`` is stored: the main one (or none named) under the user id."""
    return user_id if conversation in (None, MAIN) else f"{user_id}{SEP}{conversation}"


def title(text: str) -> str:
    """A conversation's title: its first message on one line, cut to TITLE_CHARS characters."""
    line = " ".join(text.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"


@dataclass(frozen=True)
class Conversation:
    """One of a user's conversations: whose, which, and where it is stored (``key``)."""

    user: str
    conversation: str = MAIN

    @property
    def key(self) -> str:
        return conversation_key(self.user, self.conversation)


@dataclass(frozen=True)
class Listed:
    """One of a user's conversations: its id, title and when it started and was last written (UTC)."""

    id: str
    title: str
    started: str
    updated: str


def _turn(role: str, text: str, extra: dict[str, Any]) -> dict[str, Any]:
    return {"role": role, "text": text, "at": dt.datetime.now(dt.UTC).isoformat(), **extra}


class SessionStore:
    """Histories and trips in the KV store. When this process is the store's only user (SQLite: not
    ``replicated``), what it last read or wrote is remembered (``Remembered``), and a message reads its
    conversation from memory rather than from the store: three of a message's six store operations.
    Writes go to the store first, then to memory. Replicas (Redis) always read the store."""

    def __init__(
        self,
        kv: KVStore,
        ttl: float | None = 30 * 86400,
        *,
        remembered_chars: int = REMEMBERED_CHARS,
        recent_turns: int = RECENT_TURNS,
    ) -> None:
        self._kv = kv
        self._ttl = ttl
        self._recent_turns = recent_turns
        # One writer per user in this process; the KV lock orders writers across replicas.
        self._local: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        self.remembered = None if kv.replicated else Remembered(remembered_chars)
        self._parsed = Parsed(PARSED_CHARS)
        self._changes = 0  # writes begun and ended

    async def _get(self, key: str) -> str | None:
        if self.remembered is None:
            return await self._kv.get(key)
        known, value = self.remembered.get(key)
        if not known:
            changes = self._changes
            value = await self._kv.get(key)
            if changes == self._changes:  # no write began or ended meanwhile: what was read is current
                self.remembered.put(key, value, self._ttl)
        return value

    async def _set(self, key: str, value: str, lifetimes: float = 1) -> None:
        """Write ``key`` for ``lifetimes`` times the store's keeping time."""
        ttl = None if self._ttl is None else self._ttl * lifetimes
        async with self._changing(key):
            await self._kv.set(key, value, ttl)
            if self.remembered is not None:
                self.remembered.put(key, value, ttl)

    async def _delete(self, key: str) -> bool:
        async with self._changing(key):
            return await self._kv.delete(key)

    @asynccontextmanager
    async def _changing(self, key: str) -> AsyncIterator[None]:
        """A write of ``key``: forgotten first, so a write cancelled after the store took it cannot leave
        the old value remembered; reads that overlap it do not remember what they read."""
        self._changes += 1
        if self.remembered is not None:
            self.remembered.forget(key)
        try:
            yield
        finally:
            self._changes += 1

    async def history(self, user_id: str) -> list[dict[str, Any]]:
        """Every kept turn, oldest first, each with its ``seq``."""
        return [{k: v for k, v in t.items() if k != _KEPT} for t in await self._stored(user_id)]

    async def _stored(self, user_id: str) -> list[dict[str, Any]]:
        """The turns kept (``trimmed``), with the places questions keep for their answers."""
        return trimmed((await self._read(user_id)).turns)

    async def _read(self, user_id: str) -> Stored:
        raw = await self._get(f"session:{user_id}:history")
        raw_recent = await self._get(f"session:{user_id}:recent")
        if not raw and not raw_recent:  # a new conversation starts in ``recent``
            return Stored([], 0, time.time())
        settled = numbered(self._parsed.loads(user_id, raw)) if raw else []
        recent = json.loads(raw_recent) if raw_recent else {}
        last = settled[-1]["seq"] if settled else -1
        # A turn both keys hold (a write stopped between them) is read once: ``recent`` follows
        # ``history``, so what it holds at or before the history's last turn is there already.
        newer = [t for t in recent.get("turns", []) if isinstance(t.get("seq"), int) and t["seq"] > last]
        since = recent.get("since")
        return Stored(settled + newer, len(settled), since if isinstance(since, int | float) else None)

    async def page(self, user_id: str, before: int | None = None, limit: int = PAGE_TURNS) -> Page:
        """A page of ``user_id``'s history: see ``page``."""
        return page(await self.history(user_id), before, limit)

    async def append(self, user_id: str, role: str, text: str, **extra: Any) -> int:
        """Add a turn after every other; returns its ``seq``. Two messages of one user at once (two tabs,
        two replicas) both keep theirs."""
        return await self._add(user_id, _turn(role, text, extra))

    async def ask(self, user_id: str, text: str, **extra: Any) -> int:
        """Add a question and keep the place after it for its answer, whatever is added meanwhile;
        returns that place, for ``answer``."""
        return await self._add(user_id, _turn("user", text, extra), keep=True) + 1

    async def answer(self, user_id: str, seq: int, text: str, **extra: Any) -> None:
        """Add an answer at the place its question kept (``seq``, from ``ask``), right after it."""
        await self._add(user_id, _turn("assistant", text, extra), seq=seq)

    async def _add(
        self, user_id: str, turn: dict[str, Any], *, keep: bool = False, seq: int | None = None
    ) -> int:
        """Store ``turn`` at ``seq`` if a question kept it, else after every turn and kept place."""
        async with self._writer(user_id):
            stored = await self._read(user_id)
            turns = stored.turns
            kept = {t[_KEPT] for t in turns if isinstance(t.get(_KEPT), int)}
            if seq is None or seq not in kept:
                seq = max([-1, *(t["seq"] for t in turns), *kept]) + 1
            changed = len(turns)  # the first turn this write changes
            for i, t in enumerate(turns):
                if t.get(_KEPT) == seq:
                    del t[_KEPT]  # the place is taken now
                    changed = min(changed, i)
            turn = {**turn, "seq": seq}
            if keep:
                turn[_KEPT] = seq + 1
            place = next((i for i, t in enumerate(turns) if t["seq"] > seq), len(turns))
            turns.insert(place, turn)
            changed = min(changed, place)
            await self._write(user_id, stored, changed)
            return seq

    async def _write(self, user_id: str, stored: Stored, changed: int) -> None:
        """``stored.turns`` after a change from the ``changed``-th turn on: into ``recent`` alone when the
        turns ``history`` holds are unchanged, ``recent`` has room and ``history`` is fresh; else the
        turns (``trimmed``) into ``history`` up to the first question still waiting for its answer, which
        is about to change again, and the rest into ``recent`` (all into ``history`` if the rest would
        not fit: a question whose answer never came)."""
        now, since = time.time(), stored.since
        recent = stored.turns[stored.settled :]
        if (
            since is not None
            and (self._ttl is None or now - since < self._ttl * SETTLE_AFTER)  # ``history`` is fresh
            and changed >= stored.settled
            and len(recent) <= self._recent_turns
        ):
            # Kept as long as ``history`` is: a conversation expires whole, never its first part alone.
            left = 1.0 if self._ttl is None else (since + self._ttl - now) / self._ttl
            value = json.dumps({"since": since, "turns": recent})
            await self._set(f"session:{user_id}:recent", value, left)
            return
        turns = trimmed(stored.turns)
        cut = next((i for i, t in enumerate(turns) if _KEPT in t), len(turns))
        if len(turns) - cut > self._recent_turns:
            cut = len(turns)
        await self._set(f"session:{user_id}:history", json.dumps(turns[:cut]))
        await self._set(f"session:{user_id}:recent", json.dumps({"since": now, "turns": turns[cut:]}))

    @asynccontextmanager
    async def _writer(self, user_id: str) -> AsyncIterator[None]:
        """The right to rewrite ``user_id``'s history: a local lock, then, when replicas share the
        store, a KV lock every replica honours."""
        local = self._local.setdefault(user_id, asyncio.Lock())
        async with local:
            if not self._kv.replicated:
                yield  # this process is the store's only writer of sessions: its lock orders them
                return
            key, token = f"session:{user_id}:lock", uuid.uuid4().hex
            loop = asyncio.get_running_loop()
            give_up, pause = loop.time() + LOCK_WAIT, 0.005
            while not await self._kv.set_if_absent(key, token, LOCK_TTL):
                if loop.time() > give_up:
                    raise KVUnavailableError("this conversation is being written elsewhere; try again")
                await asyncio.sleep(pause)  # another replica writes this history: a few ms
                pause = min(pause * 2, 0.1)
            try:
                yield
            finally:
                await self._kv.delete_if(key, token)

    async def trip(self, user_id: str) -> TripState:
        raw = await self._get(f"session:{user_id}:trip")
        return TripState.model_validate_json(raw) if raw else TripState()

    async def save_trip(self, user_id: str, trip: TripState) -> None:
        await self._set(f"session:{user_id}:trip", trip.model_dump_json())

    async def forget_trip(self, user_id: str) -> bool:
        """Start the trip over (places, dates, travellers, the searches made); the history stays."""
        return await self._delete(f"session:{user_id}:trip")

    async def forget(self, user_id: str) -> bool:
        """Forget a conversation's history and trip (``user_id``: its key, ``conversation_key``)."""
        a = await self._delete(f"session:{user_id}:history")
        b = await self._delete(f"session:{user_id}:recent")
        c = await self._delete(f"session:{user_id}:trip")
        return a or b or c

    # --- a user's conversations -------------------------------------------------------------------

    async def _index(self, user_id: str) -> dict[str, dict[str, str]]:
        raw = await self._get(f"conversations:{user_id}")
        return json.loads(raw) if raw else {}

    async def started(self, user_id: str, conversation: str, text: str) -> None:
        """``conversation`` of ``user_id`` has just been asked its first question, ``text``: listed,
        titled by it. One more beyond MAX_CONVERSATIONS forgets the one written longest ago."""
        async with self._writer(f"{user_id}{SEP}:index"):
            index = await self._index(user_id)
            index[conversation] = {"title": title(text), "started": dt.datetime.now(dt.UTC).isoformat()}
            dropped: list[str] = []
            if len(index) > MAX_CONVERSATIONS:
                listed = await self._listed(user_id, index)
                others = [c.id for c in listed if c.id != conversation]
                kept = {*others[: MAX_CONVERSATIONS - 1], conversation}
                dropped = [c for c in index if c not in kept]
                index = {c: e for c, e in index.items() if c in kept}
            await self._set(f"conversations:{user_id}", json.dumps(index), INDEX_LIFETIMES)
        for old in dropped:
            await self.forget(conversation_key(user_id, old))

    async def conversations(self, user_id: str) -> list[Listed]:
        """``user_id``'s conversations, the one written last first, each as its history has it now;
        those the store has let expire are left out. A main conversation from before the list existed
        is listed from its history."""
        return await self._listed(user_id, await self._index(user_id))

    async def _listed(self, user_id: str, index: dict[str, dict[str, str]]) -> list[Listed]:
        ids = list(index) + ([MAIN] if MAIN not in index else [])
        out = []
        for conversation in ids:
            turns = await self._stored(conversation_key(user_id, conversation))
            if not turns:
                continue  # expired or forgotten
            entry = index.get(conversation)
            if entry is None:  # the main conversation of a client that never named one
                first = next((t["text"] for t in turns if t.get("role") == "user"), "")
                entry = {"title": title(first), "started": turns[0]["at"]}
            out.append(Listed(conversation, entry["title"], entry["started"], turns[-1]["at"]))
        return sorted(out, key=lambda c: c.updated, reverse=True)

    async def forget_conversation(self, user_id: str, conversation: str) -> bool:
        """Forget one of ``user_id``'s conversations: its history, its trip and its place in the list."""
        forgotten = await self.forget(conversation_key(user_id, conversation))
        async with self._writer(f"{user_id}{SEP}:index"):
            index = await self._index(user_id)
            if index.pop(conversation, None) is not None:
                forgotten = True
                if index:
                    await self._set(f"conversations:{user_id}", json.dumps(index), INDEX_LIFETIMES)
                else:
                    await self._delete(f"conversations:{user_id}")
        return forgotten

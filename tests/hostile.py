"""The hostile-input harness (issue 10): a real ``tableside serve``, the table it attacks, and the
invariants every answer must keep.

A :class:`Server` runs ``tableside serve`` as a subprocess on a free loopback port (SQLite with
``--db``, PostgreSQL through ``TABLESIDE_DATABASE_URL``). A :class:`Probe` sends requests over
HTTP as one of the attackers and checks each answer the moment it arrives:

* never a 5xx, and nothing that looks like a traceback or an exception's class name;
* a refusal (4xx) from the JSON API, or from an unknown route, is ``application/json`` holding
  exactly ``{"error": "one short sentence"}`` that echoes no input longer than 40 characters;
* nothing is written on a refusal: the Host's view of the tables (every encounter's revision,
  the seats, the secrecy settings) reads the same before and after;
* no byte any attacker receives carries a secret number of the table's secret NPCs;
* an answer costs the server less than :data:`TOO_SLOW` CPU seconds and comes within
  :data:`HANG` seconds of the clock (a hang is the issue's item 1);
* a request built to be wrong (``must_refuse``) is refused.

Violations are collected, not raised, so that one run reports every invariant that fails and
the request behind it (a hung server is killed and started again, a few times at most).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2 as httpx
from hypothesis import HealthCheck, Phase, settings
from patience import EVENT_WAIT
from ports import free_port

TABLESIDE = str(Path(sys.executable).with_name("tableside"))
HERALD: dict[str, Any] = json.loads(
    Path(__file__).parent.parent.joinpath("examples", "herald.json").read_text()
)
TOO_SLOW = 5.0  # server CPU seconds: an answer costing more is a hang (issue 10, item 1)
HANG = EVENT_WAIT  # clock seconds with no answer: a hang whatever else shares the cores
STARTUP = 60.0
MAX_RESTARTS = 5
ERROR_LIMIT = 300  # characters of one refusal's sentence
ECHO_LIMIT = 40  # an input longer than this must not come back in a refusal

# The secret NPCs' distinctive values (W-1 … W-6 and item 2): a War Boss whose Guard, Precision,
# Endurance, Resolve, Passion, Might and Control (and their Factor Values, attribute // 10, which
# Checks oppose) are numbers found nowhere else, and a Realm of Strife Brute likewise.
BOSS: dict[str, Any] = {
    "format": "tableside/majesty-character",
    "version": 1,
    "name": "Boss",
    "side": "fallen",
    "weapon": "Sword",
    "attributes": {
        "might": 8537,
        "swiftness": 37,
        "control": 7193,
        "endurance": 4321,
        "resolve": 3142,
        "passion": 1732,
    },
    "overrides": {"guard": 977, "precision": 661, "force": 5},
}
WAR_SECRETS = {977, 661, 4321, 3142, 1732, 8537, 853, 7193, 719}
BRUTE_HP, BRUTE_AC, BRUTE_DODGE, BRUTE_INITIATIVE = 5347, 83, 67, 53
STRIFE_SECRETS = {BRUTE_HP}
# Two-digit secrets cannot be searched for in every byte (revisions and dice reach them too):
# they are checked in the fields and sentences that describe the Brute (see Probe.weak_leaks).
WEAK_SECRETS = {BRUTE_AC, BRUTE_DODGE, BRUTE_INITIATIVE}

TRACE_MARKS = ("Traceback", 'File "', "Internal Server Error")
EXCEPTION_NAMES = re.compile(
    r"\b(?:[A-Z][A-Za-z]*(?:Error|Exception)|KeyError|StopIteration|RecursionError|"
    r"OverflowError|ValidationError|IntegrityError|OperationalError|DataError)\b"
)
TOKEN_RUN = re.compile(r"[A-Za-z0-9_\-]{30,}")


def secret_pattern(numbers: set[int]) -> re.Pattern[str]:
    """A number on its own: not part of a longer number or a decimal fraction's digits."""
    alternatives = "|".join(sorted((str(n) for n in numbers), key=len, reverse=True))
    return re.compile(rf"(?<![0-9.])(?:{alternatives})(?![0-9])")


STRONG = secret_pattern(WAR_SECRETS | STRIFE_SECRETS)
STRONG_TEXT = tuple(str(n) for n in WAR_SECRETS | STRIFE_SECRETS)


class Server:
    """``tableside serve`` on a free port, started again on the same store when it hangs."""

    def __init__(self, args: list[str], env: dict[str, str], log: Path) -> None:
        self.args, self.env, self.log = args, env, log
        self.proc: subprocess.Popen[str] | None = None
        self.base = ""
        self.lines: list[str] = []
        self.starts = 0

    def start(self) -> None:
        port = free_port()
        self.starts += 1
        with self.log.open("a") as err:
            self.proc = subprocess.Popen(
                [TABLESIDE, "serve", "--port", str(port), *self.args],
                stdout=subprocess.PIPE,
                stderr=err,
                text=True,
                env={**os.environ, **self.env},
                start_new_session=True,
            )
        assert self.proc.stdout is not None
        deadline = time.monotonic() + STARTUP
        lines: list[str] = []
        while not lines or lines[-1] != "Press Ctrl+C to stop.":
            line = self.proc.stdout.readline()
            assert line, f"tableside serve ended early: {lines}"
            assert time.monotonic() < deadline, lines
            lines.append(line.rstrip("\n"))
        self.base = f"http://127.0.0.1:{port}"
        self.lines = lines  # what it printed (the demo's links among them)
        while True:
            try:
                httpx.get(f"{self.base}/openapi.json", timeout=10)
                return
            except httpx.TransportError:
                assert time.monotonic() < deadline, "tableside serve did not answer"
                time.sleep(0.1)

    def cpu(self) -> float:
        """The server process's user + system CPU seconds so far (0 when it is not running)."""
        if self.proc is None:
            return 0.0
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self, kill: bool = False) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        os.killpg(proc.pid, signal.SIGKILL if kill else signal.SIGINT)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()

    def tracebacks(self) -> int:
        """How many tracebacks the server printed on its standard error."""
        return self.log.read_text(errors="replace").count("Traceback") if self.log.exists() else 0


@dataclass
class Request:
    """One request an attacker sends, with what the checks need to know about it."""

    who: str
    method: str
    path: str
    content: bytes | None = None
    content_type: str | None = "application/json"
    params: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    note: str = ""
    must_refuse: str | None = None  # why it must be refused (None: it may pass)
    stream: bool = False
    inputs: tuple[str, ...] = ()  # values sent that a refusal must not echo when long

    def shown(self) -> str:
        body = "" if self.content is None else self.content[:160].decode("utf-8", "replace")
        more = (
            "" if self.content is None or len(self.content) <= 160 else f"…({len(self.content)} B)"
        )
        query = f"?{self.params}" if self.params else ""
        return f"{self.who} {self.method} {self.path[:120]}{query} {body!r}{more} [{self.note}]"


@dataclass
class Answer:
    status: int
    content_type: str
    text: str
    seconds: float
    headers: dict[str, str] = field(default_factory=dict)  # lower-cased names (W-50 checks)
    cpu: float = 0.0  # the server's CPU seconds while it answered (issue 23: steady under load)


@dataclass
class Tally:
    """The figures of a run: requests tried, refusals by status, leaks found, violations."""

    tried: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    leaks: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    restarts: int = 0
    abandoned: int = 0

    def violation(self, what: str, request: Request, answer: Answer | None = None) -> None:
        got = "" if answer is None else f" -> {answer.status} {answer.text[:200]!r}"
        self.violations.append(f"{what}: {request.shown()}{got}")

    def summary(self, backend: str, seconds: float) -> dict[str, Any]:
        refusals = {str(s): n for s, n in sorted(self.statuses.items()) if s >= 400}
        kinds = Counter(v.split(":", 1)[0] for v in self.violations)
        return {
            "backend": backend,
            "requests_tried": self.tried,
            "refusals": sum(refusals.values()),
            "refusals_by_status": refusals,
            "accepted": sum(n for s, n in self.statuses.items() if s < 400),
            "leaks_found": len(self.leaks),
            "violations": len(self.violations),
            "violations_by_invariant": dict(kinds),
            "server_restarts_after_a_hang": self.restarts,
            "requests_not_sent_after_giving_up": self.abandoned,
            "seconds": round(seconds, 1),
        }


DIGITS_MARK = "__five_thousand_digits__"


def json_body(value: Any) -> bytes:
    """JSON text as Python writes it: NaN and Infinity appear as the bare words, and an integer
    past Python's 4300-digit conversion limit as its 5000 nines."""

    def marked(v: Any) -> Any:
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 10**4000:
            return DIGITS_MARK
        if isinstance(v, dict):
            return {k: marked(i) for k, i in v.items()}
        if isinstance(v, list | tuple):
            return [marked(i) for i in v]
        return v

    text = json.dumps(marked(value), allow_nan=True)
    return text.replace(f'"{DIGITS_MARK}"', "9" * 5000).encode()


def long_inputs(value: Any) -> list[str]:
    """Every string (and integer's digits) in ``value`` longer than the echo limit."""
    found: list[str] = []
    if isinstance(value, str):
        found += [value] if len(value) > ECHO_LIMIT else []
    elif isinstance(value, bool) or value is None:
        pass
    elif isinstance(value, int):
        digits = str(value) if abs(value) < 10**4000 else "9" * 60
        found += [digits] if len(digits) > ECHO_LIMIT else []
    elif isinstance(value, dict):
        for key, item in value.items():
            found += long_inputs(key) + long_inputs(item)
    elif isinstance(value, list | tuple):
        for item in value:
            found += long_inputs(item)
    return found


def header_problems(answer: Answer) -> list[str]:
    """W-50: every answer says ``nosniff`` and names no server; a 429 says when to retry."""
    problems = []
    if answer.headers.get("x-content-type-options") != "nosniff":
        problems.append("no X-Content-Type-Options: nosniff")
    if "server" in answer.headers:
        problems.append(f"server banner {answer.headers['server'][:40]!r}")
    if answer.status == 429 and not answer.headers.get("retry-after", "").isdigit():
        problems.append("429 without a Retry-After in seconds")
    return problems


def strong_leaks(text: str) -> set[str]:
    """Secret numbers in ``text`` once every token-like run (tokens, hashes) is taken out."""
    if not any(n in text for n in STRONG_TEXT):
        return set()
    return set(STRONG.findall(TOKEN_RUN.sub("<run>", text)))


def is_api(path: str) -> bool:
    return path.startswith("/api/")


def error_problems(answer: Answer, request: Request) -> list[str]:
    """What is wrong with a refusal's body (W-14: ``{"error": "one sentence"}``)."""
    if not answer.content_type.startswith("application/json"):
        return [f"refusal is {answer.content_type or 'untyped'}, not JSON"]
    try:
        body = json.loads(answer.text)
    except ValueError:
        return ["refusal is not valid JSON"]
    if not isinstance(body, dict) or list(body) != ["error"] or not isinstance(body["error"], str):
        return ["refusal is not exactly {'error': str}"]
    sentence: str = body["error"]
    problems = []
    if not sentence.strip():
        problems.append("refusal sentence is empty")
    if len(sentence) > ERROR_LIMIT:
        problems.append(f"refusal sentence is {len(sentence)} characters long")
    if any(s[: ECHO_LIMIT + 1] in sentence for s in request.inputs):
        problems.append("refusal echoes a long input")
    return problems


class Probe:
    """Sends requests to the server and checks every answer (see the module's docstring)."""

    def __init__(self, server: Server, tally: Tally) -> None:
        self.server, self.tally = server, tally
        self.client = httpx.Client(timeout=httpx.Timeout(HANG, connect=HANG))
        self.tokens: dict[str, str] = {}  # who -> token (the Host's included)
        self.fingerprint_paths: list[tuple[str, str]] = []  # (who, path) read as the state
        self.known = ""  # the fingerprint after the last accepted request
        self.received: list[str] = []  # every answer an attacker got (for the final scan)
        self.gave_up = False

    # -- plumbing ------------------------------------------------------------------------------

    def auth(self, who: str) -> dict[str, str]:
        token = self.tokens.get(who)
        return {} if token is None else {"Authorization": f"Bearer {token}"}

    def raw(self, request: Request) -> Answer:
        """Send ``request`` and note the server's CPU for it; raises httpx.TimeoutException on a
        hang."""
        before = self.server.cpu()
        answer = self.sent(request)
        answer.cpu = self.server.cpu() - before
        return answer

    def sent(self, request: Request) -> Answer:
        """Send ``request``; raises httpx.TimeoutException on a hang."""
        headers = {**self.auth(request.who), **request.headers}
        if request.content is not None and request.content_type is not None:
            headers.setdefault("Content-Type", request.content_type)
        url = self.server.base + request.path
        params = dict(request.params)
        token = self.tokens.get(request.who)
        if token is not None and (request.stream or not is_api(request.path)):
            params.setdefault("token", token)
        start = time.monotonic()
        if request.stream:
            with self.client.stream(
                request.method, url, headers=headers, params=params, content=request.content
            ) as r:
                text = "" if r.status_code == 200 else r.read().decode("utf-8", "replace")
                if r.status_code == 200:
                    text = self.first_chunk(r)
                return Answer(
                    r.status_code,
                    r.headers.get("content-type", ""),
                    text,
                    time.monotonic() - start,
                    {k.lower(): v for k, v in r.headers.items()},
                )
        r = self.client.request(
            request.method, url, headers=headers, params=params, content=request.content
        )
        return Answer(
            r.status_code,
            r.headers.get("content-type", ""),
            r.content.decode("utf-8", "replace"),
            time.monotonic() - start,
            {k.lower(): v for k, v in r.headers.items()},
        )

    @staticmethod
    def first_chunk(r: httpx.Response) -> str:
        for chunk in r.iter_text():
            return chunk
        return ""

    def host(self, method: str, path: str, body: Any = None, who: str = "host") -> Any:
        """A request of a table's Host that sets the scene (must succeed)."""
        content = None if body is None else json_body(body)
        headers = {**self.auth(who), "Content-Type": "application/json"}
        r = self.client.request(
            method, self.server.base + path, headers=headers, content=content, timeout=60
        )
        assert r.status_code < 300, (method, path, r.status_code, r.text)
        return r.json()

    def fingerprint(self) -> str:
        parts = []
        for who, path in self.fingerprint_paths:
            parts.append(self.host_read(who, path))
        return "\n".join(parts)

    def host_read(self, who: str, path: str) -> str:
        """A Host's read; once more on a fresh connection if the server dropped the first."""
        for attempt in (1, 2):
            try:
                r = self.client.get(self.server.base + path, headers=self.auth(who), timeout=60)
                return f"{r.status_code} {r.text}"
            except httpx.TransportError as error:
                if attempt == 2:
                    return f"no answer: {type(error).__name__}"
                self.client.close()
                self.client = httpx.Client(timeout=httpx.Timeout(HANG, connect=HANG))
        raise AssertionError("unreachable")

    def restart(self, request: Request) -> None:
        """A hung request: the server is killed and started again on the same store."""
        self.server.stop(kill=True)
        self.tally.restarts += 1
        if self.tally.restarts > MAX_RESTARTS:
            self.gave_up = True
            self.tally.violations.append(f"gave up: the server hung {MAX_RESTARTS + 1} times")
            return
        self.server.start()
        self.known = self.fingerprint()

    # -- one request, checked ------------------------------------------------------------------

    def send(self, request: Request) -> Answer | None:
        if self.gave_up:
            self.tally.abandoned += 1
            return None
        self.tally.tried += 1
        try:
            answer = self.raw(request)
        except httpx.TimeoutException:
            self.tally.violation(f"hang (no answer within {HANG:g} s)", request)
            self.restart(request)
            return None
        except httpx.TransportError as error:
            self.tally.violation(f"connection failed ({type(error).__name__})", request)
            self.restart(request)
            return None
        self.tally.statuses[answer.status] += 1
        self.check(request, answer)
        return answer

    def check(self, request: Request, answer: Answer) -> None:
        tally = self.tally
        if answer.cpu > TOO_SLOW:
            tally.violation(f"slow ({answer.cpu:.1f} s of server CPU)", request, answer)
        if answer.status >= 500:
            tally.violation(f"{answer.status}", request, answer)
        for problem in header_problems(answer):
            tally.violation(problem, request, answer)
        head = answer.text[:20000]
        if any(mark in head for mark in TRACE_MARKS) or (
            answer.status >= 400 and EXCEPTION_NAMES.search(head)
        ):
            tally.violation("traceback or exception name", request, answer)
        refused = answer.status >= 400
        if refused and (
            is_api(request.path)
            or answer.status in (404, 405)
            or not answer.content_type.startswith("text/html")
        ):
            for problem in error_problems(answer, request):
                tally.violation(problem, request, answer)
        if request.must_refuse and not refused:
            tally.violation(f"accepted, must be refused ({request.must_refuse})", request, answer)
        leaked = strong_leaks(answer.text)
        if leaked:
            tally.leaks.append(f"{sorted(leaked)}: {request.shown()}")
            tally.violation(f"leak {sorted(leaked)}", request, answer)
        if len(self.received) < 4000:
            self.received.append(answer.text[:200_000])
        if (
            refused
            or (answer.status < 300 and request.method != "GET")
            or answer.status in (301, 302, 303, 307)
        ):
            now = self.fingerprint()
            if refused and now != self.known:
                tally.violation("a refused request wrote something", request, answer)
            self.known = now


# --- the table under attack -------------------------------------------------------------------


def brute_sheet() -> dict[str, Any]:
    """A secret Realm of Strife sheet with distinctive HP, AC, Dodge and Initiative."""
    from tableside.strife.catalog import builtin_catalog

    goblin = builtin_catalog().combatant("Goblin").model_dump(mode="json")
    return {
        **goblin,
        "name": "Brute",
        "hp": BRUTE_HP,
        "hp_max": BRUTE_HP,
        "ac": BRUTE_AC,
        "dodge": BRUTE_DODGE,
        "initiative": BRUTE_INITIATIVE,
    }


@dataclass
class World:
    """Table 1 (its Host, Ann and Bo) with a War and a fight; Eve's table 2 with a War."""

    tid: int = 0
    war: int = 0
    fight: int = 0
    tid2: int = 0
    war2: int = 0


def build_world(probe: Probe) -> World:
    """Everything set up through the API, as a Host would."""
    world = World()
    made = probe.host("POST", "/api/tables", {"name": "Friday"})
    world.tid, probe.tokens["host"] = made["id"], made["host_token"]
    tid = world.tid
    world.war = probe.host(
        "POST", f"/api/tables/{tid}/encounters", {"game": "majesty-war", "name": "Ford", "seed": 3}
    )["id"]
    for body in (
        {"character": BOSS, "position": [1, 0, 0]},
        {"character": HERALD},
        {"character": {**HERALD, "name": "Ward"}, "position": [0, 1, 0], "secret": False},
    ):
        probe.host("POST", f"/api/encounters/{world.war}/characters", body)
    world.fight = probe.host(
        "POST",
        f"/api/tables/{tid}/encounters",
        {"game": "strife-combat", "name": "Mill", "seed": 5},
    )["id"]
    models: list[dict[str, Any]] = [
        {"model": "Aldric", "side": "heroes"},
        {"sheet": brute_sheet(), "side": "monsters", "position": [1, 0, 0]},
    ]
    for model in models:
        probe.host("POST", f"/api/encounters/{world.fight}/characters", model)
    for name, chars in (("ann", ["Herald", "Aldric"]), ("bo", [])):
        seat = probe.host(
            "POST", f"/api/tables/{tid}/players", {"name": name.title(), "characters": chars}
        )
        probe.tokens[name] = seat["token"]
    probe.host("POST", f"/api/encounters/{world.war}/commands", {"kind": "next", "args": {}})
    probe.host("POST", f"/api/encounters/{world.fight}/commands", {"kind": "start", "args": {}})
    for eid in (world.war, world.fight):  # the NPCs' choices take their suggestions (D-5)
        probe.host("PUT", f"/api/encounters/{eid}/settings", {"npcs_decide": "auto"})
    made = probe.host("POST", "/api/tables", {"name": "Inn"})
    world.tid2, probe.tokens["eve"] = made["id"], made["host_token"]
    world.war2 = probe.host(
        "POST",
        f"/api/tables/{world.tid2}/encounters",
        {"game": "majesty-war", "name": "Road", "seed": 4},
        who="eve",
    )["id"]
    for body in (
        {"character": HERALD},
        {"character": {**HERALD, "name": "Foe", "side": "fallen"}, "position": [1, 0, 0]},
    ):
        probe.host("POST", f"/api/encounters/{world.war2}/characters", body, who="eve")
    probe.fingerprint_paths = [
        ("host", f"/api/tables/{tid}"),
        ("host", f"/api/encounters/{world.war}/secrets"),
        ("host", f"/api/encounters/{world.fight}/secrets"),
        ("eve", f"/api/tables/{world.tid2}"),
        ("eve", f"/api/encounters/{world.war2}/secrets"),
    ]
    probe.tokens["forged"] = "a-token-no-table-ever-gave-out"
    probe.known = probe.fingerprint()
    return world


def settle(probe: Probe, eid: int, approve: str = "reject") -> None:
    """The Host answers every open decision: a proposal with ``approve``, others as suggested."""
    for _ in range(12):
        found = probe.host("GET", f"/api/encounters/{eid}/decisions")["decisions"]
        if not found:
            return
        asked = found[0]
        choice = approve if asked["kind"] == "approve" else asked["suggested"]
        probe.host("POST", f"/api/encounters/{eid}/decisions/{asked['id']}", {"choice": choice})
    raise AssertionError(f"encounter {eid} still waits after twelve answers")


def turn_of(probe: Probe, eid: int, combatant: str, extra: list[dict[str, Any]]) -> None:
    """The Host settles what waits (D-1), passes Turns until ``combatant`` holds one, then sends
    ``extra`` commands."""
    settle(probe, eid)
    for _ in range(12):
        state = probe.host("GET", f"/api/encounters/{eid}")["state"]
        if state.get("current") == combatant or state.get("ended"):
            break
        probe.host("POST", f"/api/encounters/{eid}/commands", {"kind": "next", "args": {}})
    for command in extra:
        probe.host("POST", f"/api/encounters/{eid}/commands", command)
    probe.known = probe.fingerprint()


def fuzz_settings(examples: int) -> settings:
    """The hostile fuzzers' Hypothesis settings: ``examples`` cases, the same ones every run,
    none remembered between runs, no deadline and no health check in the way."""
    return settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )

"""The lecture hall and the hand-in (issue 39): the class poll, submit, collect, grade, return.

Without root (every run):

* off the hub ``ask`` and a prediction's *Reveal* behave as before and open no connection
  (``socket`` itself is made to fail), ``submit``/``feedback`` say they need the hub;
* the classroom service (``deploy/hub/classroom_service.py``, a subprocess) in front of a
  stand-in for the hub's API (``tests/classroom_fakehub.py``): a round with a class of 40
  answering at once (each at most once, anonymous counts, only the instructor reads), the
  live histogram within a second of the last answer, a student flooding, forging,
  reading, and sending garbage; hand-ins replaced and receipted with the service's time;
* ``collect`` (late minutes from the service's receipts), the gradebook's ``late``
  column, ``return`` into the exchange, the Canvas and Moodle import files.

As root (a one-line skip otherwise), the whole cycle on the hub of
``deploy/hub/jupyterhub_config.py`` in its PAM mode (``loadtest.LocalHub``): two Unix
users log in, each submits from a kernel in their sandboxed server, the instructor
collects with a due time, grades, returns, and each student reads their own feedback and
not the other's; then the attacks of two students on each other through the real proxy
and from their Unix accounts, and a poll round of 40 students (logged in, each with a
token of their own) with the instructor's live histogram.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import http.client
import json
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import sys
import threading
import time
import types
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HUB = ROOT / "deploy" / "hub"
SERVICE = HUB / "classroom_service.py"
PREFIX = "/services/kmlteach-classroom/"


def _stop(*procs) -> None:
    """Terminate the service and the stand-in hub (killed after 10 s)."""
    for p in procs:
        p.terminate()
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()


ACCESS = "access:services!service=kmlteach-classroom"


# ------------------------------------------------------------------------------- helpers
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_port(port: int, proc: subprocess.Popen, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {port} after {timeout} s")


def request(
    base: str, token: str | None, method: str, path: str, body=None, raw: bytes | None = None, headers=None
):
    """``(status, reply)`` of one request to the service at ``base`` (its ``.../api/``)."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(base + path, data=data, method=method)
    if token is not None:
        req.add_header("Authorization", f"token {token}")
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(req, timeout=30) as r:
            status, text = r.status, r.read()
    except urllib.error.HTTPError as exc:
        try:
            status, text = exc.code, exc.read()
        except ConnectionError:  # the status came, then the server hung up (a body too large)
            status, text = exc.code, b""
    except (ConnectionError, http.client.HTTPException, urllib.error.URLError):
        return 0, {}  # the server hung up without an answer (or while the body was still going)
    try:
        return status, json.loads(text or b"{}")
    except ValueError:
        return status, {"text": text.decode(errors="replace")}


def notebook(chapter: str = "01", **meta) -> bytes:
    nb = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {"kmlteach": {"chapter": chapter}, **meta},
        "cells": [
            {"cell_type": "code", "metadata": {}, "source": "x = 1", "outputs": [], "execution_count": None}
        ],
    }
    return json.dumps(nb).encode()


# ------------------------------------------------------------------------ off the hub
def test_off_the_hub_nothing_is_sent(monkeypatch, capsys):
    """Binder, ``make lab``: ask() prints what it always printed, and no socket is made."""
    for var in ("KMLTEACH_CLASSROOM_URL", "KMLTEACH_CLASSROOM_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("KMLTEACH_RESULTS", "")
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", "a-binder-token")  # Binder has one; no URL: nothing
    from kmlteach.exercises import ask, feedback, question, submit
    from kmlteach.poll import answers

    q = question("01.c_support")
    before = threading.active_count()

    def no_network(*a, **k):
        raise AssertionError("a socket was opened off the hub")

    monkeypatch.setattr(socket, "socket", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    wrong = next(c for i, c in enumerate("abcdefghij"[: len(q.choices)]) if i not in q.answers())
    first = ask("01.c_support", wrong)
    out = capsys.readouterr().out
    assert not first and "not quite" in out and "01.c_support" in out
    assert ask("01.c_support", "abcdefghij"[q.answers()[0]]) and "right" in capsys.readouterr().out
    assert threading.active_count() == before and answers.status("01.c_support") is None
    assert not submit("01") and "course's hub" in capsys.readouterr().out
    assert not feedback("01") and "course's hub" in capsys.readouterr().out
    # the instructor's side says where it works, in one line, and rejects a bad id
    from kmlteach import poll

    poll.open("01.c_support")
    assert "not opened" in capsys.readouterr().out
    with pytest.raises(ValueError, match="poll_id"):
        poll.show("support")
    view = poll.show("01.c_support")
    assert (
        "class poll runs on the course" in view.status.value and view.data["n"] == 0 and view._thread is None
    )
    view.close()


def test_a_prediction_posts_its_first_guess_only_on_the_hub(monkeypatch):
    """The prediction explorer's first Reveal calls the poll once; off the hub it sends nothing."""
    from kmlteach.poll import answers

    sent = []
    monkeypatch.setattr(answers, "configured", lambda: True)
    monkeypatch.setattr(answers, "_start", lambda: None)
    monkeypatch.setattr(
        answers, "_SENDER", {"queue": type("Q", (), {"put": lambda self, x: sent.append(x)})()}
    )
    monkeypatch.setattr(answers, "_FIRST", {})
    monkeypatch.setattr(answers, "_DONE", set())
    answers.first_answer("01.p_support", (4, 1, 7), right=False)
    answers.first_answer("01.p_support", (2,), right=True)  # a later answer: the first one stays
    assert sent == ["01.p_support", "01.p_support"] and answers._FIRST["01.p_support"] == ("1, 4, 7", False)
    assert (
        answers.label(0.30000000000000004) == "0.3"
        and answers.label(()) == "none"
        and answers.label(-0.0) == "0"
    )
    assert answers.label(float("nan")) is None and answers.label("  two   words ") == "two words"
    from kmlteach.poll.histogram import _percentages

    assert _percentages([6, 25, 9, 0]) == [15, 63, 22, 0] and _percentages([1, 1, 1]) == [34, 33, 33]


# ------------------------------------------------------- the service before a stand-in hub
@contextlib.contextmanager
def _running_service(tmp: Path, tokens: dict, args: list[str], tls=None, env=None, **popen):
    """The stand-in hub (``tests/classroom_fakehub.py``: its API over mutual TLS when ``tls``
    is ``[cert, key, ca]``) with ``tokens``, and the classroom service before it, run with
    ``--exchange tmp/exchange`` and ``args``, ``env`` added to the hub's service variables,
    its log in ``tmp/service.log``; yields the service's addresses once both answer, and
    stops both."""
    (tmp / "tokens.json").write_text(json.dumps(tokens))
    hub_port, port = _free_port(), _free_port()
    hub = [
        sys.executable,
        str(ROOT / "tests" / "classroom_fakehub.py"),
        str(hub_port),
        str(tmp / "tokens.json"),
    ]
    fake = subprocess.Popen(hub + list(tls or ()))
    variables = {
        **os.environ,
        "JUPYTERHUB_SERVICE_URL": f"http://127.0.0.1:{port}",
        "JUPYTERHUB_SERVICE_PREFIX": PREFIX,
        "JUPYTERHUB_API_URL": f"{'https' if tls else 'http'}://127.0.0.1:{hub_port}/hub/api",
        "JUPYTERHUB_API_TOKEN": "the-service-token",
        "JUPYTERHUB_CLIENT_ID": "service-kmlteach-classroom",
        "JUPYTERHUB_OAUTH_CALLBACK_URL": PREFIX + "oauth_callback",
        "JUPYTERHUB_OAUTH_ACCESS_SCOPES": json.dumps([ACCESS]),
        **(env or {}),
    }
    with open(tmp / "service.log", "wb") as log:  # the service keeps its own copy
        proc = subprocess.Popen(
            [sys.executable, str(SERVICE), "--exchange", str(tmp / "exchange"), *args],
            env=variables,
            stdout=log,
            stderr=subprocess.STDOUT,
            **popen,
        )
    try:
        _wait_port(hub_port, fake)
        _wait_port(port, proc)
        yield types.SimpleNamespace(
            base=f"http://127.0.0.1:{port}{PREFIX}api/",
            url=f"http://127.0.0.1:{port}{PREFIX}",
            hub=f"http://127.0.0.1:{hub_port}",
            port=port,
            exchange=tmp / "exchange",
            proc=proc,
            log=tmp / "service.log",
        )
    finally:
        _stop(proc, fake)


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    """The classroom service (a subprocess, as the hub runs it) and a stand-in hub API."""
    tmp = tmp_path_factory.mktemp("classroom")
    tokens = {f"tok-s{i:02d}": {"name": f"s{i:02d}", "groups": [], "scopes": [ACCESS]} for i in range(40)}
    tokens["tok-prof"] = {"name": "prof", "groups": ["instructors"], "scopes": [ACCESS]}
    tokens["tok-noscope"] = {"name": "eve", "groups": [], "scopes": []}
    tokens["tok-dot"] = {"name": ".hidden/../x", "groups": [], "scopes": [ACCESS]}
    for kind in ("c2", "fresh"):  # tokens used once each (their first look-up)
        tokens.update(
            {
                f"tok-{kind}-{i:02d}": {"name": f"{kind}{i:02d}", "groups": [], "scopes": [ACCESS]}
                for i in range(60)
            }
        )
    with _running_service(
        tmp,
        tokens,
        ["--chapters", "00,01", "--max-mb", "1"],
        env={"JUPYTERHUB_SERVICE_NAME": "kmlteach-classroom", "JUPYTERHUB_BASE_URL": "/"},
    ) as svc:
        yield svc


def _class_round(base: str, poll_id: str, students: list[str], answer_of) -> list[float]:
    """Every student posts once, all at once; the seconds each took."""
    took = [0.0] * len(students)
    errors = []

    def one(i, tok):
        t0 = time.perf_counter()
        code, reply = request(base, tok, "POST", f"polls/{poll_id}", {"answer": answer_of(i)})
        took[i] = time.perf_counter() - t0
        if code != 201:
            errors.append((tok, code, reply))

    threads = [threading.Thread(target=one, args=(i, t)) for i, t in enumerate(students)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]
    return took


def test_a_poll_round_with_a_class_of_40(service, monkeypatch):
    base = service.base
    poll_id = "01.c_support"
    students = [f"tok-s{i:02d}" for i in range(40)]
    # students cannot open, read or close a poll; an answer before the round opens is refused
    assert request(base, students[0], "POST", f"polls/{poll_id}/open")[0] == 403
    assert request(base, students[0], "GET", f"polls/{poll_id}")[0] == 403
    assert request(base, students[0], "POST", f"polls/{poll_id}", {"answer": "a"}) == (
        409,
        {"accepted": False, "reason": "closed", "round": 0},
    )
    assert request(base, "tok-prof", "POST", f"polls/{poll_id}/open")[1]["open"] is True

    monkeypatch.setenv("KMLTEACH_CLASSROOM_URL", service.url)
    monkeypatch.setenv("KMLTEACH_CLASSROOM_TOKEN", "tok-prof")
    from kmlteach.poll.histogram import PollView

    view = PollView(poll_id, interval=0.25)
    try:
        want = {"a": 5, "b": 25, "c": 10}
        answer_of = lambda i: "a" if i < 5 else ("b" if i < 30 else "c")  # noqa: E731
        t0 = time.monotonic()
        took = _class_round(base, poll_id, students, answer_of)
        last = time.monotonic()
        assert last - t0 < 10, f"40 answers took {last - t0:.1f} s"
        while view.data.get("n", 0) < 40 and time.monotonic() < last + 5:
            time.sleep(0.02)
        shown = view.updated - last
        assert view.data["counts"] == want and view.data["n"] == 40
        assert shown < 1.0, f"the histogram showed the 40th answer {shown:.2f} s after it"
        rows = {label: count for label, _, count, _ in view.rows()}
        assert rows == {"a": 5, "b": 25, "c": 10, **{k: 0 for k in rows if k not in want}}
        # the right answer is hidden until "Reveal answer"
        assert "&#10003;" not in view.bars.value and "#009E73" not in view.bars.value
        view.reveal()
        from kmlteach.exercises import question

        right = "abcdefghij"[question(poll_id).answers()[0]]
        assert "&#10003; right" in view.bars.value and [r for r in view.rows() if r[3]][0][0] == right
        # every answer was taken once: a second one, from any of them, is refused
        assert (
            request(base, students[3], "POST", f"polls/{poll_id}", {"answer": "c"})[1]["reason"]
            == "duplicate"
        )
        # anonymous: what the instructor reads has counts, never a name
        text = json.dumps(request(base, "tok-prof", "GET", f"polls/{poll_id}")[1])
        assert not any(f"s{i:02d}" in text for i in range(40))
        print(
            f"\n40 answers in {last - t0:.2f} s (p50 {sorted(took)[20] * 1000:.0f} ms each); shown {shown:.2f} s after the last"
        )
        # closing ends the round; opening again is a new round with no answers
        closed = request(base, "tok-prof", "POST", f"polls/{poll_id}/close")[1]
        assert closed["open"] is False and closed["n"] == 40
        assert (
            request(base, students[0], "POST", f"polls/{poll_id}", {"answer": "a"})[1]["reason"] == "closed"
        )
        again = request(base, "tok-prof", "POST", f"polls/{poll_id}/open")[1]
        assert again["round"] == 2 and again["n"] == 0
    finally:
        view.close()


def test_a_student_cannot_flood_forge_or_read_the_poll(service):
    base, poll_id = service.base, "01.c_cv"
    request(base, "tok-prof", "POST", f"polls/{poll_id}/open")
    # another student's name in the body or a header changes nothing: the token says who
    for extra in ({"user": "s02"}, {"name": "s02", "right": True}):
        request(
            base,
            "tok-fresh-50",
            "POST",
            f"polls/{poll_id}",
            {"answer": "a", **extra},
            headers={"X-Forwarded-User": "s02"},
        )
    # flood: 60 answers as fast as possible
    codes = [request(base, "tok-fresh-50", "POST", f"polls/{poll_id}", {"answer": "b"})[0] for _ in range(60)]
    assert codes.count(201) == 0 and set(codes) <= {409, 429} and 429 in codes, codes
    counts = request(base, "tok-prof", "GET", f"polls/{poll_id}")[1]
    assert counts["n"] == 1 and counts["counts"] == {"a": 1}, counts
    # s02's own answer is still accepted (nobody answered in their name)
    assert request(base, "tok-s02", "POST", f"polls/{poll_id}", {"answer": "c"})[0] == 201
    # reading: a student gets nothing of the others' answers
    for path in (f"polls/{poll_id}", "polls", f"polls/{poll_id}/close"):
        method = "POST" if path.endswith("close") else "GET"
        code, reply = request(base, "tok-s03", method, path)
        assert code == 403 and "counts" not in reply
    # a token without the service's scope, an unknown one, none
    for tok in ("tok-noscope", "not-a-token", None):
        assert request(base, tok, "GET", "me")[0] == 403
    # many different guesses (sets of points) of a prediction: at most 30 bars, the rest "other"
    request(base, "tok-prof", "POST", "polls/01.p_support/open")
    for i in range(2, 40):  # (s01..s39: others than the flooder)
        code = request(
            base, f"tok-s{i:02d}", "POST", "polls/01.p_support", {"answer": str(i), "right": True}
        )[0]
        assert code == 201, (i, code)
    got = request(base, "tok-prof", "GET", "polls/01.p_support")[1]
    counts = got["counts"]
    assert len(counts) == 30 and counts["other"] == 9 and sum(counts.values()) == 38
    assert "right" not in got  # a kernel's "right": true is never counted (C2)


def test_a_poll_takes_only_answers_its_question_can_have(service):
    """C2: any 40-character text was a bar on the projector, and a prediction's "right":
    true was believed as sent. Now a concept check takes one of its option letters, a
    numeric question a number, a prediction a guess of its declared kind; the right
    option comes from the question's record, a prediction's verdict is not kept."""
    base = service.base

    def post(tok, pid, answer):  # (a fresh token each: wait out the budget of look-ups, as a client does)
        for _ in range(20):
            code, reply = request(base, tok, "POST", f"polls/{pid}", {"answer": answer, "right": True})
            if code != 429:
                return code, reply
            time.sleep(0.5)
        return code, reply

    cases = {
        "01.c_width": (["a", "c", " b "], ["d", "z", "yes", "a, b", "right answer", "<img src=x>", "1"]),
        "01.q1": (["3", "2.5", "-0.001"], ["three", "nan", "inf", "3.00001", "1e999", "a"]),
        "01.p_support": (["1, 4, 7", "none", "0"], ["4, 1", "1, 1", "-1", "x", "1,4", "1000", "all of them"]),
        "02.p_accuracy": (["87.5", "0", "100"], ["101", "-1", "87.50", "ninety", "1e+03"]),
        "08.p_stump": (["+1 iff x₁ ≤ c"], ["+1 iff x₃ ≤ c", "a", "1"]),
        "01.p_not_declared": ([], ["1", "a"]),
        "01.c_no_such_check": ([], ["a"]),
    }
    students = iter(f"tok-c2-{i:02d}" for i in range(60))
    for pid, (good, bad) in cases.items():
        request(base, "tok-prof", "POST", f"polls/{pid}/close")  # (a fresh round)
        assert request(base, "tok-prof", "POST", f"polls/{pid}/open")[0] == 200
        for answer in bad:
            code, reply = post(next(students), pid, answer)
            assert code == 400 and "no such answer" in reply["error"], (pid, answer, code, reply)
        for answer in good:
            tok = next(students)
            assert post(tok, pid, answer)[0] == 201, (pid, answer)
        got = request(base, "tok-prof", "GET", f"polls/{pid}")[1]
        assert got["n"] == len(good) and "right" not in got, (pid, got)
        assert set(got["counts"]) == {" ".join(g.split()) for g in good}, (pid, got)
    # the slide: for a question the record marks the right option; for a prediction, nothing
    from kmlteach.exercises import question
    from kmlteach.poll.histogram import PollView

    for pid in ("01.c_width", "01.p_support"):
        view = PollView(pid, fetch=lambda pid=pid: request(base, "tok-prof", "GET", f"polls/{pid}")[1])
        try:
            view.reveal()
            marked = [r[0] for r in view.rows() if r[3]]
            want = ["abcdefghij"[i] for i in question(pid).answers()] if pid[3] == "c" else []
            assert marked == want, (pid, marked)
        finally:
            view.close()


def test_a_browser_cookie_alone_changes_nothing(tmp_path, monkeypatch):
    """The service's OAuth cookie (which any web page can make a browser send) reads; an
    answer, a hand-in or a poll's opening needs a hub API token in the request."""
    import importlib.util

    from jupyterhub.services.auth import HubOAuth
    from tornado.httpclient import AsyncHTTPClient, HTTPRequest

    for k, v in {
        "JUPYTERHUB_API_URL": "http://127.0.0.1:9/hub/api",
        "JUPYTERHUB_API_TOKEN": "x",
        "JUPYTERHUB_CLIENT_ID": "service-kmlteach-classroom",
        "JUPYTERHUB_SERVICE_PREFIX": PREFIX,
        "JUPYTERHUB_OAUTH_ACCESS_SCOPES": json.dumps([ACCESS]),
    }.items():
        monkeypatch.setenv(k, v)
    spec = importlib.util.spec_from_file_location("classroom_service_under_test", SERVICE)
    svc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(svc)
    HubOAuth.clear_instance()
    model = {"kind": "user", "name": "prof", "groups": ["instructors"], "scopes": [ACCESS]}

    async def as_if_cookie(self, handler):
        return model

    monkeypatch.setattr(HubOAuth, "_get_user_cookie", as_if_cookie)

    async def run():
        (tmp_path / "ex").mkdir()
        app = svc.make_app(tmp_path / "ex", chapters={"01"})
        port = _free_port()
        server = app.listen(port, "127.0.0.1")
        client = AsyncHTTPClient(force_instance=True)
        base = f"http://127.0.0.1:{port}{PREFIX}api/"
        out = {}
        try:
            for method, path, body in (
                ("GET", "me", None),
                ("POST", "polls/01.c_support/open", b""),
                ("POST", "polls/01.c_support", b'{"answer": "a"}'),
                ("POST", "submissions/01", notebook()),
            ):
                r = await client.fetch(
                    HTTPRequest(base + path, method=method, body=body, headers={"Cookie": "x=y"}),
                    raise_error=False,
                )
                out[f"{method} {path}"] = r.code
        finally:
            client.close()
            server.stop()
        return out

    try:
        got = asyncio.run(run())
    finally:
        HubOAuth.clear_instance()
    assert got == {
        "GET me": 200,
        "POST polls/01.c_support/open": 403,
        "POST polls/01.c_support": 403,
        "POST submissions/01": 403,
    }, got


def _announced(base: str, token: str, path: str, length: int) -> int:
    """The status of a POST whose headers announce ``length`` bytes, read before a byte of
    the body is sent: a body over the hand-in limit is refused on its Content-Length. (Sent
    whole, the 413 and the server's hang-up raced the client's sending: status 0 once under
    load, 2026-12-06. A body that grows beyond the limit as it streams: the chunked case of
    test_the_service_survives_garbage.)"""
    url = urllib.parse.urlsplit(base + path)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    try:
        conn.putrequest("POST", url.path)
        conn.putheader("Authorization", f"token {token}")
        conn.putheader("Content-Length", str(length))
        conn.endheaders()
        return conn.getresponse().status
    finally:
        conn.close()


def test_the_service_survives_garbage(service):
    base, raw = service.base, service.url
    request(base, "tok-prof", "POST", "polls/01.c_dimension/open")
    bad = [
        ("POST", "polls/01.c_dimension", b"not json"),
        ("POST", "polls/01.c_dimension", b"[1, 2, 3]"),
        ("POST", "polls/01.c_dimension", b"[" * 100_000 + b"]" * 100_000),
        ("POST", "polls/01.c_dimension", json.dumps({"answer": "x" * 5000}).encode()),
        ("POST", "polls/01.c_dimension", json.dumps({"answer": 3}).encode()),
        ("POST", "polls/01.c_dimension", json.dumps({"answer": "a\x00b"}).encode()),
        ("POST", "polls/01.c_dimension", json.dumps({"answer": "a", "right": "yes"}).encode()),
        ("POST", "polls/01.c_dimension", b"\xff\xfe\x00garbage"),
        ("POST", "polls/..%2F..%2Fetc", json.dumps({"answer": "a"}).encode()),
        ("POST", "polls/" + "x" * 79, json.dumps({"answer": "a"}).encode()),
        ("POST", "polls/01.C_UPPER", json.dumps({"answer": "a"}).encode()),
        ("GET", "polls/%00", None),
        ("POST", "submissions/01", b"not a notebook"),
        ("POST", "submissions/01", b"[" * 400_000 + b"]" * 400_000),
        ("POST", "submissions/01", json.dumps({"nbformat": 3, "cells": []}).encode()),
        ("POST", "submissions/01", notebook("00")),
        ("POST", "submissions/01", b"{" * 10 + b"x" * (2 * 2**20)),
        ("POST", "submissions/99", notebook("99")),
        ("POST", "submissions/..", notebook()),
        ("DELETE", "submissions/01", None),
        ("PUT", "feedback/01", b"x"),
        ("GET", "feedback/%2e%2e", None),
    ]
    students = [f"tok-s{i:02d}" for i in range(10, 40)]
    for i, (method, path, body) in enumerate(bad):
        if body is not None and len(body) > 2**20:
            code, reply = _announced(base, students[i % len(students)], path, len(body)), {}
            assert code == 413, (method, path[:40], code)
            continue
        code, reply = request(base, students[i % len(students)], method, path, raw=body)
        assert 400 <= code < 500, (method, path[:40], code, reply)
    # a "notebook" of empty objects for cells (red team: 5 million in 16 MB were taken in
    # 0.35 s), cells without a source, more cells than any chapter has: refused, named
    shell = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"kmlteach": {"chapter": "01"}}}
    md = {"cell_type": "markdown", "metadata": {}, "source": ""}
    for tok, cells, why in [
        ("tok-s00", [{}] * 200_000, "200,000 cells"),
        ("tok-s01", [md, {}], "cell 1 is not"),
        ("tok-s04", [md, {"cell_type": "code", "outputs": []}], "cell 1 is not"),
        ("tok-s11", [md] * 10_001, "10,001 cells"),
    ]:
        code, reply = request(
            base, tok, "POST", "submissions/01", raw=json.dumps({**shell, "cells": cells}).encode()
        )
        assert code == 422 and why in reply.get("error", ""), (code, reply)
    # headers too large, a token of 10 000 characters, no Content-Length (chunked) beyond the limit
    assert request(base, "x" * 10_000, "GET", "me")[0] in (400, 431)
    assert request(base, "tok-s05", "GET", "me", headers={"X-Junk": "y" * 40_000})[0] in (0, 400, 431)
    with socket.create_connection(("127.0.0.1", int(raw.split(":")[2].split("/")[0]))) as s:
        s.sendall(
            f"POST {PREFIX}api/submissions/01 HTTP/1.1\r\nHost: x\r\nAuthorization: token tok-s06\r\n"
            "Transfer-Encoding: chunked\r\n\r\n".encode()
        )
        try:
            for _ in range(2000):
                s.sendall(b"100000\r\n" + b"x" * 0x100000 + b"\r\n")
        except OSError:
            pass  # the service hung up: good
    # random tokens (from this test's account, the hub's: the proxy's budget): the hub is
    # asked at most a burst of 60 and 20 a second more, the rest are refused (429)
    before = json.loads(urllib.request.urlopen(service.hub + "/lookups").read())["lookups"]
    t0 = time.monotonic()
    codes = [request(base, secrets.token_hex(16), "GET", "me")[0] for _ in range(150)]
    lookups = json.loads(urllib.request.urlopen(service.hub + "/lookups").read())["lookups"] - before
    assert set(codes) <= {403, 429} and lookups <= 60 + 20 * (time.monotonic() - t0) + 2, lookups
    # a session cookie is part of HubAuth's cache key: a long one (a way to miss the cache
    # with a known token, and to grow it) is refused
    code = request(base, "tok-s09", "GET", "me", headers={"Cookie": "jupyterhub-session-id=" + "x" * 4000})[0]
    assert code == 400
    # still serving, and nothing was left in its upload folder (tok-s07's first use asks the
    # hub, whose budget the random tokens spent: refused (429) until it has refilled, 20 a
    # second; on a loaded machine the next request could come before that: CI-like run of
    # 2026-12-07, three hub suites at once)
    assert service.proc.poll() is None
    deadline = time.monotonic() + 10
    while (me := request(base, "tok-s07", "GET", "me"))[0] == 429 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert me[1] == {
        "name": "s07",
        "instructor": False,
        "max_bytes": 2**20,
    }
    assert request(base, "tok-s07", "POST", "polls/01.c_dimension", {"answer": "b"})[0] == 201
    assert list((service.exchange / "tmp").iterdir()) == []
    assert request(base, "tok-prof", "GET", "polls/01.c_dimension")[1]["counts"] == {"b": 1}


# ----------------------------- a flooded service: TLS to the hub, a low file limit (C1 C5 H10 O1)
@pytest.fixture(scope="module")
def tls_service(tmp_path_factory):
    """The service as on a hub with internal_ssl: the stand-in hub's API over mutual TLS
    (certificates from certipy, as JupyterHub makes them), and a file limit of 256."""
    import resource

    from certipy import Certipy

    tmp = tmp_path_factory.mktemp("classroom-tls")
    certs = Certipy(store_dir=str(tmp / "certs"))
    certs.create_ca("ca")
    hub_pair = certs.create_signed_pair("hub", "ca", alt_names=["IP:127.0.0.1", "DNS:localhost"])
    svc_pair = certs.create_signed_pair("svc", "ca")
    ca = certs.store.get_record("ca")["files"]["cert"]
    tokens = {f"tok-v{i:02d}": {"name": f"v{i:02d}", "groups": [], "scopes": [ACCESS]} for i in range(60)}
    with _running_service(
        tmp,
        tokens,
        ["--chapters", "01"],
        tls=[hub_pair["files"]["cert"], hub_pair["files"]["key"], ca],
        env={
            "JUPYTERHUB_SSL_KEYFILE": svc_pair["files"]["key"],
            "JUPYTERHUB_SSL_CERTFILE": svc_pair["files"]["cert"],
            "JUPYTERHUB_SSL_CLIENT_CA": ca,
        },
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256)),
    ) as svc:
        yield svc


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def _flood(port: int, seconds: float, threads: int = 12, pipelined: int = 50) -> dict:
    """Random tokens, ``pipelined`` requests per connection, from ``threads`` threads."""
    codes: dict[str, int] = {}
    stop = time.monotonic() + seconds
    head = f"GET {PREFIX}api/me HTTP/1.1\r\nHost: x\r\nAuthorization: token "

    def run():
        while time.monotonic() < stop:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                    s.sendall(
                        b"".join(f"{head}{secrets.token_hex(16)}\r\n\r\n".encode() for _ in range(pipelined))
                    )
                    data = b""
                    while data.count(b"HTTP/1.1 ") < pipelined:
                        chunk = s.recv(65536)
                        if not chunk:
                            break
                        data += chunk
                for part in data.split(b"HTTP/1.1 ")[1:]:
                    codes[part[:3].decode()] = codes.get(part[:3].decode(), 0) + 1
            except OSError:
                codes["closed"] = codes.get("closed", 0) + 1

    ts = [threading.Thread(target=run) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return codes


def test_a_flood_of_unknown_tokens_leaves_the_services_memory_bounded(tls_service):
    """C5: with internal_ssl the service made a TLS context per look-up and its HTTP
    client pooled a connection per context: a flood of random tokens took it from 76 to
    1 195 MiB in 20 s here (and kept it). One context, made at start: it stays flat."""
    assert request(tls_service.base, "tok-v00", "GET", "me")[0] == 200  # a look-up over mutual TLS
    before = _rss_mib(tls_service.proc.pid)
    codes = _flood(tls_service.port, 8)
    after = _rss_mib(tls_service.proc.pid)
    print(f"\nflood of 8 s: {codes}; RSS {before:.0f} -> {after:.0f} MiB")
    assert sum(v for k, v in codes.items() if k != "closed") > 1000 and after - before < 60, (codes, after)
    time.sleep(2)  # (the flood came from this account: its budget refills)
    assert request(tls_service.base, "tok-v01", "GET", "me")[0] == 200


def test_idle_connections_beyond_the_file_limit_are_refused_quietly(tls_service):
    """H10: idle connections up to the service's file limit made tornado's accept fail with
    EMFILE in a tight loop, a traceback each time (135 MB of log in 30 s). Now at most
    256 - 64 connections are kept, the rest closed at once; the log says so once."""
    held = []
    try:
        for _ in range(400):
            s = socket.create_connection(("127.0.0.1", tls_service.port), timeout=5)
            held.append(s)
        # the service closes what it cannot keep as it accepts it (it answers none of these
        # idle connections): on a loaded machine that took more than the 1 s once given here
        # (179 of the 208 closed by then, make test of 2026-12-07), so look again until they
        # are, for up to 10 s
        got = _answered(held, 10, enough=lambda out: out.count(b"") >= 400 - 192)
        refused = got.count(b"")
        assert 400 - 192 <= refused <= 400 - 150, refused
    finally:
        for s in held:
            s.close()
    time.sleep(1.0)
    assert request(tls_service.base, "tok-v02", "GET", "me")[0] == 200  # serving again
    assert tls_service.proc.poll() is None
    text = tls_service.log.read_text(errors="replace")
    assert "Traceback" not in text and text.count("connection limit reached") == 1, text[-2000:]


def _answered(held: list[socket.socket], within: float, enough=None) -> list[bytes | None]:
    """What each socket of ``held`` got within ``within`` seconds: the status line's code
    (``b"429"``), ``b""`` (closed without an answer) or None (nothing yet); sooner once
    ``enough(out)`` holds."""
    out: list[bytes | None] = [None] * len(held)
    end = time.monotonic() + within
    while time.monotonic() < end and None in out and not (enough and enough(out)):
        for i, s in enumerate(held):
            if out[i] is None:
                s.setblocking(False)
                try:
                    data = s.recv(64)
                    out[i] = data[9:12] if data else b""
                except BlockingIOError:
                    pass
                except ConnectionError:
                    out[i] = b""
        time.sleep(0.05)
    return out


def test_unfinished_bodies_through_the_proxy_do_not_lock_out_the_class(tls_service):
    """C6: every request through the hub's proxy comes from the proxy's account (here this
    test's, the service's ``shared`` source), the body was read first (for up to 300 s)
    and only then was its sender known: five students' 1 100 POSTs through the proxy,
    headers and one byte of a 100-byte body each, took all 1 024 connections, and every
    kernel, the instructor's too, got "the classroom service does not answer". Here at a
    small scale (a file limit of 256: 192 connections): two students' 100 unfinished
    bodies each. Now the sender is known from the headers: each student has at most 4
    requests unfinished, the rest are answered 429 at once and closed (never read), a
    request with an unknown token is refused before its body, and a third student gets 200
    at once; the 4 left are closed when their body has not come within 10 s."""
    base, port = tls_service.base, tls_service.port
    for tok in ("tok-v50", "tok-v51", "tok-v52"):  # (logged in: their tokens are known)
        assert request(base, tok, "GET", "me")[0] == 200
    head = (
        f"POST {PREFIX}api/polls/01.c_support HTTP/1.1\r\nHost: x\r\nAuthorization: token {{}}\r\n"
        "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{"
    )
    held: list[socket.socket] = []
    try:
        for i in range(200):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(head.format(("tok-v50", "tok-v51")[i % 2]).encode())
            held.append(s)
        # the service reads them (before, it held them all and answered none); the third
        # student asks once it has answered them: while it is still shaking hands with the
        # 200 (TLS), all 192 places can be taken for an instant and a new connection is
        # closed unanswered (a third student's 0 seen on a loaded 2-core machine, 2026-12-07)
        got = _answered(held, 2.0)
        t0 = time.monotonic()
        code = request(base, "tok-v52", "GET", "me")[0]
        took = time.monotonic() - t0
        print(
            f"\n200 unfinished bodies of two students: {Counter(got)}; a third student: {code} in {took:.2f} s"
        )
        assert code == 200 and took < 2.0, (code, took, Counter(got))
        for who in (0, 1):  # each student keeps at most 4 unfinished, the rest are refused: 429
            theirs = got[who::2]  # (or closed unread, when all 192 were open for an instant)
            assert theirs.count(None) <= 4 and set(theirs) <= {None, b"429", b""}, Counter(theirs)
            assert theirs.count(b"429") >= 50, Counter(theirs)
        # an unknown token: refused from its headers (403), its body never waited for
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(head.format(secrets.token_hex(16)).encode())
            assert _answered([s], 2.0) == [b"403"]
        # the unfinished ones end: no body within 10 s of the headers, the connection closes
        left = [s for s, g in zip(held, got, strict=True) if g is None]
        assert left and set(_answered(left, 10 + 3)) == {b""}, _answered(left, 0)
    finally:
        for s in held:
            s.close()
    assert request(base, "tok-v50", "GET", "me")[0] == 200  # its budget is back
    # connections that send nothing: the proxy opens one when a request's headers reach it
    # and sends them on only with the body's first byte. 200 of them fill the 192; once
    # they have waited a second for headers, a new connection closes the oldest for room
    idle = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(200)]
    try:
        time.sleep(1.3)
        t0 = time.monotonic()
        code = request(base, "tok-v52", "GET", "me")[0]
        took = time.monotonic() - t0
        closed = _answered(idle, 0.5).count(b"")
        print(f"200 connections that send nothing: {closed} closed; a student: {code} in {took:.2f} s")
        assert code == 200 and took < 2.0 and 8 <= closed <= 8 + 2, (code, took, closed)
    finally:
        for s in idle:
            s.close()
    assert tls_service.proc.poll() is None


def test_the_service_keeps_no_copy_of_its_key_and_cleans_earlier_ones(tls_service, tmp_path):
    """O1: every service copied its TLS key into the machine's one /run/kmlteach-classroom
    and gave that folder to its own account (a second hub broke the first). The context
    is now made once from the hub's files: lookups go on after the files are gone, and no
    folder is shared; copies left by earlier versions are removed when their owner runs
    no process any more."""
    import importlib.util

    before = {p for p in Path("/run").glob("kmlteach-classroom*")} if Path("/run").is_dir() else set()
    assert request(tls_service.base, "tok-v03", "GET", "me")[0] == 200
    assert not any(
        p.name.startswith("kmlteach-classroom") and p not in before for p in Path("/run").glob("*")
    )
    spec = importlib.util.spec_from_file_location("classroom_service_o1", SERVICE)
    svc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(svc)
    base = tmp_path / "run"
    (base / "tls-live").mkdir(parents=True)
    (base / "tls-live" / "key.pem").write_text("live")
    (base / "tls-stale").mkdir()
    (base / "tls-stale" / "key.pem").write_text("stale")
    if os.geteuid() == 0:
        unused = next(u for u in range(40000, 60000) if not _uid_runs(u))
        os.chown(base / "tls-stale", unused, unused)
        assert svc.remove_stale_copies(base) == [base / "tls-stale"]
        assert (base / "tls-live" / "key.pem").exists() and not (base / "tls-stale").exists()
        shutil.rmtree(base / "tls-live")
        svc.remove_stale_copies(base)
        assert not base.exists()
    else:  # (all owned by this user, who runs: nothing is removed)
        assert svc.remove_stale_copies(base) == [] and (base / "tls-stale").exists()


def _uid_runs(uid: int) -> bool:
    for d in Path("/proc").iterdir():
        try:
            if d.name.isdigit() and d.stat().st_uid == uid:
                return True
        except OSError:
            pass
    return False


FLOODER = """
import secrets, socket, sys, threading, time, json
port, prefix, seconds = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
codes = {}
stop = time.monotonic() + seconds
def run():
    while time.monotonic() < stop:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                for _ in range(20):
                    s.sendall(("GET " + prefix + "api/me HTTP/1.1\\r\\nHost: x\\r\\nAuthorization: token "
                               + secrets.token_hex(16) + "\\r\\n\\r\\n").encode())
                    r = s.recv(65536)
                    if not r:
                        break
                    k = r[9:12].decode()
                    codes[k] = codes.get(k, 0) + 1
        except OSError:
            codes["closed"] = codes.get("closed", 0) + 1
ts = [threading.Thread(target=run) for _ in range(8)]
[t.start() for t in ts]
[t.join() for t in ts]
print(json.dumps(codes))
"""

VICTIM = """
import json, sys, time, urllib.request, urllib.error
base, tokens = sys.argv[1], sys.argv[2].split(",")
out = []
for tok in tokens:
    req = urllib.request.Request(base + "me", headers={"Authorization": "token " + tok})
    try:
        out.append(urllib.request.build_opener(urllib.request.ProxyHandler({})).open(req, timeout=30).status)
    except urllib.error.HTTPError as e:
        out.append(e.code)
    time.sleep(0.2)
print(json.dumps(out))
"""


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root (two Unix accounts)")
def test_one_students_flood_of_tokens_does_not_lock_out_the_others(tls_service):
    """C1: all students shared one budget of 50 unknown-token look-ups a second: one
    student's flood of random tokens got classmates' first requests 429. Each connection
    is now attributed to its peer's Unix account: the flooder (nobody) spends its own
    budget; another account's (daemon's) and the hub's own first requests get through."""

    def as_user(uid: int, code: str, *args) -> subprocess.Popen:
        return subprocess.Popen(
            [
                "setpriv",
                f"--reuid={uid}",
                f"--regid={uid}",
                "--clear-groups",
                "/usr/bin/python3",
                "-c",
                code,
                *args,
            ],
            stdout=subprocess.PIPE,
            text=True,
            cwd="/",
        )

    flood = as_user(65534, FLOODER, str(tls_service.port), PREFIX, "8")
    time.sleep(1.5)
    victim = as_user(1, VICTIM, tls_service.base, ",".join(f"tok-v{i:02d}" for i in range(10, 30)))
    mine = []
    for i in range(30, 50):  # the hub's own account (the proxy's source) at the same time
        mine.append(request(tls_service.base, f"tok-v{i:02d}", "GET", "me")[0])
        time.sleep(0.2)
    theirs = json.loads(victim.communicate(timeout=120)[0])
    flooded = json.loads(flood.communicate(timeout=120)[0])
    print(f"\nflooder (nobody): {flooded}; daemon's first requests {theirs}; the hub's {mine}")
    assert flooded.get("429", 0) > 100 and flooded.get("403", 0) <= 10 + 5 * 10, flooded
    assert theirs == [200] * 20 and mine == [200] * 20


def test_hand_in_is_receipted_with_the_services_time_and_replaced(service):
    base = service.base
    code, first = request(
        base, "tok-s20", "POST", "submissions/01", raw=notebook(author="s21", time="2000-01-01T00:00")
    )
    assert code == 201 and first["user"] == "s20" and first["replaces"] is None
    received = first["received"]
    from datetime import UTC, datetime

    assert abs((datetime.fromisoformat(received) - datetime.now(UTC)).total_seconds()) < 30
    time.sleep(1.1)
    code, second = request(
        base,
        "tok-s20",
        "POST",
        "submissions/01",
        raw=notebook(extra="changed"),
        headers={"Date": "Mon, 01 Jan 2001 00:00:00 GMT", "X-Forwarded-User": "s21"},
    )
    assert code == 201 and second["replaces"] == received and second["received"] > received
    inbound = service.exchange / "inbound" / "01"
    assert sorted(p.name for p in inbound.iterdir()) == ["s20.ipynb", "s20.json"]
    assert json.loads((inbound / "s20.ipynb").read_text())["metadata"]["extra"] == "changed"
    # a student sees their own receipt only; nothing exposes the file or another's receipt
    assert request(base, "tok-s20", "GET", "submissions/01")[1]["sha256"] == second["sha256"]
    assert request(base, "tok-s21", "GET", "submissions/01")[0] == 404
    assert request(base, "tok-s21", "GET", "feedback/01")[0] == 404
    # a user name that is no plain file name stays inside the folder
    assert request(base, "tok-dot", "POST", "submissions/01", raw=notebook())[0] == 201
    assert (inbound / "%2Ehidden%2F..%2Fx.ipynb").is_file()
    # a flood of hand-ins: six a minute, then 429 (the last one taken stays)
    codes = [request(base, "tok-s08", "POST", "submissions/01", raw=notebook(n=i))[0] for i in range(9)]
    assert codes[:6] == [201] * 6 and set(codes[6:]) == {429}, codes
    assert json.loads((inbound / "s08.ipynb").read_text())["metadata"]["n"] == 5
    # too large for --max-mb 1
    assert request(base, "tok-s22", "POST", "submissions/01", raw=notebook(pad="x" * 2**20))[0] in (0, 413)
    assert request(base, "tok-s22", "GET", "me")[1]["max_bytes"] == 2**20
    for p in service.exchange.rglob("*"):
        assert p.stat().st_mode & 0o077 == 0, p


# ------------------------------------------------------------- collect, late, return, LMS
def _fake_exchange(root: Path, chapter: str, hand_ins: dict[str, tuple[str, bytes]]) -> None:
    """An exchange folder as the service writes it: ``{user: (received ISO time, notebook)}``."""
    import hashlib

    from kmlteach.classroom.names import user_key

    folder = root / "inbound" / chapter
    folder.mkdir(parents=True)
    for user, (received, data) in hand_ins.items():
        key = user_key(user)
        (folder / f"{key}.ipynb").write_bytes(data)
        receipt = {
            "user": user,
            "chapter": chapter,
            "received": received,
            "sha256": hashlib.sha256(data).hexdigest(),
            "bytes": len(data),
            "replaces": None,
        }
        (folder / f"{key}.json").write_text(json.dumps(receipt))


def test_collect_marks_late_ones_and_return_reaches_each_student(tmp_path, capsys):
    from kmlteach.course.classroom.collect import collect
    from kmlteach.course.classroom.giveback import give_back
    from kmlteach.course.classroom.lms import lms_csv, mark_late

    ex = tmp_path / "exchange"
    _fake_exchange(
        ex,
        "01",
        {
            "alice": ("2027-03-01T22:58:00+00:00", notebook()),
            "bob": ("2027-03-02T00:00:30+00:00", notebook(x=1)),
            "carol": ("2027-03-01T23:59:00+00:00", notebook(x=2)),
        },
    )
    (ex / "inbound" / "01" / "mallory.json").write_text(json.dumps({"user": "alice", "chapter": "01"}))
    (ex / "inbound" / "01" / "carol.ipynb").write_bytes(notebook(tampered=True))  # not what the receipt names
    out = tmp_path / "submissions"
    record = collect("01", ex, out, due="2027-03-01T23:59+00:00")
    said = capsys.readouterr().out
    assert sorted(p.name for p in out.glob("*.ipynb")) == ["alice.ipynb", "bob.ipynb"]
    assert (
        record["submissions"]["alice"]["late_minutes"] == 0
        and record["submissions"]["bob"]["late_minutes"] == 2
    )
    assert "1 late: bob (2 min)" in said and "mallory.json" in said and "carol.ipynb" in said
    # the gradebook gets the late column (a row of a file changed since collect gets none)
    book = tmp_path / "gradebook.csv"
    book.write_text(
        "submission,chapter,01.hinge,total,max_total,status,message\n"
        "alice,01,2,2,13,ok,\nbob,01,1,1,13,ok,\nmanual,01,0,0,13,ok,\n"
    )
    assert mark_late(out, book) == 1
    rows = list(csv.DictReader(book.open()))
    assert [(r["submission"], r["late"]) for r in rows] == [("alice", "0"), ("bob", "2"), ("manual", "")]
    # Canvas and Moodle files, without and with a map
    text, left = lms_csv("canvas", rows, record)
    head, *lines = list(csv.reader(text.splitlines()))
    assert head[:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"] and head[5].startswith(
        "Chapter 01: "
    )
    assert ["alice", "", "", "alice", "", "2"] in lines and left == []
    (tmp_path / "map.csv").write_text("user,Email address\nalice,alice@uni.example\n")
    text, left = lms_csv("moodle", rows, record, tmp_path / "map.csv")
    assert list(csv.reader(text.splitlines())) == [["Email address", head[5]], ["alice@uni.example", "2"]]
    assert left == ["bob", "manual"]
    # return: each hand-in's feedback into the exchange, for the service to serve
    fb = tmp_path / "feedback"
    fb.mkdir()
    for user in ("alice", "bob"):
        (fb / f"{user}.md").write_text(f"# Feedback: {user}\n")
        (fb / f"{user}.html").write_text(f"<p>{user}</p>")
    (fb / "zed.md").write_text("no hand-in")
    got = give_back("01", fb, ex)
    assert got == {"returned": ["alice", "bob"], "missing": ["carol"]}
    assert (ex / "feedback" / "01" / "bob.md").read_text() == "# Feedback: bob\n"
    assert not (ex / "feedback" / "01" / "zed.md").exists()
    assert (ex / "feedback" / "01" / "alice.html").stat().st_mode & 0o777 == 0o600


def test_return_follows_no_link_planted_in_the_exchange(tmp_path):
    """The exchange belongs to the service's user: a link it holds never leads root elsewhere."""
    from kmlteach.course.classroom.collect import collect
    from kmlteach.course.classroom.exchange import ExchangeError
    from kmlteach.course.classroom.giveback import give_back

    ex = tmp_path / "exchange"
    _fake_exchange(ex, "01", {"alice": ("2027-03-01T22:58:00+00:00", notebook())})
    victim = tmp_path / "victim"
    victim.mkdir()
    (ex / "feedback").mkdir()
    (ex / "feedback" / "01").symlink_to(victim)
    fb = tmp_path / "fb"
    fb.mkdir()
    (fb / "alice.md").write_text("x")
    with pytest.raises(ExchangeError):
        give_back("01", fb, ex)
    assert list(victim.iterdir()) == []
    # a notebook replaced by a link to a secret is not collected
    secret = tmp_path / "secret.ipynb"
    secret.write_bytes(notebook())
    nb = ex / "inbound" / "01" / "alice.ipynb"
    nb.unlink()
    nb.symlink_to(secret)
    record = collect("01", ex, tmp_path / "out")
    assert record["submissions"] == {} and not (tmp_path / "out" / "alice.ipynb").exists()


def test_the_cli_refuses_bad_lms_options_in_one_line(tmp_path):
    def run(*args):
        return subprocess.run(
            [sys.executable, "-m", "kmlteach", *args], capture_output=True, text=True, cwd=ROOT
        )

    (tmp_path / "subs").mkdir()
    r = run("grade", str(tmp_path / "subs"), "--out", str(tmp_path / "g.csv"), "--lms", "blackboard", "x.csv")
    assert (
        r.returncode == 2 and "--lms must be canvas or moodle" in r.stderr and len(r.stderr.splitlines()) == 1
    )
    r = run("grade", str(tmp_path / "subs"), "--out", str(tmp_path / "g.csv"), "--lms-map", "m.csv")
    assert r.returncode == 2 and "--lms-map needs --lms" in r.stderr
    r = run("collect", "01", "--exchange", str(tmp_path / "nowhere"), "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and "--exchange" in r.stderr and len(r.stderr.splitlines()) == 1


# ==================================================================== on the hub, as root
ON_HUB = pytest.mark.skipif(
    os.geteuid() != 0
    or not all(shutil.which(t) for t in ("bwrap", "node", "useradd", "git", "setpriv"))
    or not (HUB / "node_modules" / ".bin" / "configurable-http-proxy").exists(),
    reason="needs root, bubblewrap, useradd, setpriv, git and the hub's proxy (npm ci --prefix deploy/hub)",
)
N_CLASS = 40


def _run(loop, coro, timeout=300):
    return loop.run_until_complete(asyncio.wait_for(coro, timeout))


def _out(result: dict) -> dict:
    """The JSON a kernel printed last (its cell must have run without an error)."""
    assert result["status"] == "ok", result
    return json.loads(result["stdout"].strip().splitlines()[-1])


def _as(user: str, argv: list[str]) -> subprocess.CompletedProcess:
    """``argv`` as the Unix user ``user`` with a shell on the machine, outside the hub."""
    pw = pwd.getpwnam(user)
    return subprocess.run(
        ["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--init-groups", *argv],
        capture_output=True,
        text=True,
        env={"HOME": pw.pw_dir, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        cwd="/",
    )


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """The course's hub in its PAM mode with the classroom: an instructor, alice and bob
    with their servers and a kernel each, and a class of 40 more with tokens of their own."""
    import importlib

    sys.path.insert(0, str(HUB))
    from classroom_class import hub_with_instructor, log_in_with_tokens, remove_service_user

    Student = importlib.import_module("student").Student  # deploy/hub's
    t0 = time.monotonic()
    h, service_user = hub_with_instructor(report=lambda msg: print(msg, flush=True))
    started = time.monotonic() - t0
    loop = asyncio.new_event_loop()
    kernels = []
    try:
        h.users.add(3 + N_CLASS)
        names = [h.student_name(i) for i in range(3 + N_CLASS)]
        people = [Student(h.url, n, h.password, h.repo_url, "notebooks/01-svm.ipynb") for n in names]
        prof, alice, bob, klass = people[0], people[1], people[2], people[3:]
        edition = Path(h.env["KMLTEACH_HUB_ENV"]) / "edition" / "notebooks" / "01-svm.ipynb"

        async def arrive():
            tokens = await log_in_with_tokens([prof, *klass])
            await asyncio.gather(alice.login(), bob.login())
            await asyncio.gather(alice.spawn(), bob.spawn())
            ks = await asyncio.gather(alice.start_kernel(), bob.start_kernel())
            # each one's chapter-01 notebook in their home: alice's solved (the instructor's
            # notebook), bob's as released (nothing solved)
            for s, src in ((alice, ROOT / "notebooks" / "01-svm.ipynb"), (bob, edition)):
                assert (await s.api("PUT", "contents/notebooks", {"type": "directory"}))[0] in (200, 201)
                nb = json.loads(src.read_text(encoding="utf-8"))
                body = {"type": "notebook", "format": "json", "content": nb}
                assert (await s.api("PUT", "contents/notebooks/01-svm.ipynb", body))[0] in (200, 201)
            return tokens, ks

        tokens, (ka, kb) = _run(loop, arrive(), 600)
        kernels += [ka, kb]
        print(
            f"\nhub up in {started:.0f} s; class, servers and kernels in {time.monotonic() - t0 - started:.0f} s"
        )
        yield type(
            "Hub",
            (),
            {
                "hub": h,
                "loop": loop,
                "prof": prof,
                "alice": alice,
                "bob": bob,
                "ka": ka,
                "kb": kb,
                "prof_token": tokens[0],
                "class_tokens": tokens[1:],
                "base": f"{h.url}{PREFIX}api/",
                "url": f"{h.url}{PREFIX}",
                "exchange": h.tmp / "exchange",
                "service_user": service_user,
                "tmp": tmp_path_factory.mktemp("cycle"),
            },
        )
    finally:
        for k in kernels:
            try:
                _run(loop, k.close(), 30)
            except Exception:
                pass
        loop.close()
        h.stop()
        h.cleanup()
        remove_service_user(service_user)


SUBMIT = """
import json, os
os.chdir(os.path.expanduser("~"))
from kmlteach.exercises import submit
r = submit("01")
print(json.dumps({"ok": bool(r), "message": r.message}))
"""


@ON_HUB
def test_the_whole_cycle_on_the_hub(hub):
    """release → submit as two Unix users → collect → grade → return → each reads their own."""
    alice, bob = hub.alice.name, hub.bob.name
    timings = {}
    t0 = time.perf_counter()
    a = _out(_run(hub.loop, hub.ka.execute(SUBMIT)))
    timings["submit"] = time.perf_counter() - t0
    assert a["ok"] and f"as {alice} at" in a["message"] and "replaces" not in a["message"], a
    b1 = _out(_run(hub.loop, hub.kb.execute(SUBMIT)))
    time.sleep(1.1)
    b2 = _out(_run(hub.loop, hub.kb.execute(SUBMIT)))
    assert b1["ok"] and b2["ok"] and "This replaces your hand-in of" in b2["message"], b2
    # the exchange: the service's user's alone
    ex = hub.exchange
    owner = pwd.getpwnam(hub.service_user)
    for p in [ex, *ex.rglob("*")]:
        st = p.lstat()
        assert (st.st_uid, st.st_mode & 0o077) == (owner.pw_uid, 0), (p, st.st_uid, oct(st.st_mode))
    receipts = {u: json.loads((ex / "inbound" / "01" / f"{u}.json").read_text()) for u in (alice, bob)}
    assert receipts[bob]["replaces"] is not None
    # collect with a due time between alice's hand-in and bob's second one
    subs, fb = hub.tmp / "submissions", hub.tmp / "feedback"
    due = receipts[alice]["received"]

    def kmlteach(*args):
        t = time.perf_counter()
        r = subprocess.run(
            [sys.executable, "-m", "kmlteach", *args], capture_output=True, text=True, cwd=ROOT
        )
        assert r.returncode == 0, r.stderr[-2000:]
        return r, time.perf_counter() - t

    r, timings["collect"] = kmlteach("collect", "01", "--exchange", str(ex), "--out", str(subs), "--due", due)
    assert sorted(p.name for p in subs.glob("*.ipynb")) == sorted([f"{alice}.ipynb", f"{bob}.ipynb"])
    assert "1 late" in r.stdout, r.stdout
    book, canvas = hub.tmp / "gradebook.csv", hub.tmp / "canvas.csv"
    r, timings["grade"] = kmlteach(
        "grade",
        str(subs),
        "--out",
        str(book),
        "--feedback",
        str(fb),
        "--jobs",
        "2",
        "--lms",
        "canvas",
        str(canvas),
    )
    rows = {r["submission"]: r for r in csv.DictReader(book.open())}
    assert rows[alice]["late"] == "0" and rows[bob]["late"] == "1", rows
    assert float(rows[alice]["total"]) == float(rows[alice]["max_total"]) > float(rows[bob]["total"]), rows
    lines = list(csv.reader(canvas.open()))
    assert lines[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert [alice, "", "", alice, "", rows[alice]["total"]] in lines
    r, timings["return"] = kmlteach("return", "01", "--feedback", str(fb), "--exchange", str(ex))
    assert "to 2 students" in r.stdout
    show = """
import json, os
from kmlteach.exercises import feedback
r = feedback("01")
home = os.path.expanduser("~")
mine = open(os.path.join(home, "feedback", "01", "feedback.md")).read()
print(json.dumps({"ok": bool(r), "first": mine.splitlines()[0]}))
"""
    for kernel, user in ((hub.ka, alice), (hub.kb, bob)):
        got = _out(_run(hub.loop, kernel.execute(show)))
        assert got == {"ok": True, "first": f"# Feedback: {user}"}, got
    print("\ncycle for 2 students: " + ", ".join(f"{k} {v:.1f} s" for k, v in timings.items()))
    hub.cycle = {"subs": subs, "feedback": fb}


@ON_HUB
def test_bob_cannot_read_or_replace_alices_hand_in_or_feedback(hub):
    """Attacks of one student on another's hand-in and feedback, from the kernel and the shell."""
    alice, bob = hub.alice.name, hub.bob.name
    ex = hub.exchange
    # from bob's kernel (his sandbox): the exchange and alice's home are not there at all
    alice_home = pwd.getpwnam(alice).pw_dir
    probe = f"""
import json, os
print(json.dumps({{p: os.path.exists(p) for p in {[str(ex), str(ex / "inbound"), alice_home]!r}}}))
"""
    assert not any(_out(_run(hub.loop, hub.kb.execute(probe))).values())
    # from bob's shell on the machine: the folder is closed to him
    for argv in (
        ["ls", str(ex)],
        ["ls", str(ex / "inbound" / "01")],
        ["cat", str(ex / "inbound" / "01" / f"{alice}.ipynb")],
        ["cat", str(ex / "feedback" / "01" / f"{alice}.md")],
        ["touch", str(ex / "inbound" / "01" / f"{alice}.json")],
        ["cat", str(Path(pwd.getpwnam(alice).pw_dir) / "feedback" / "01" / "feedback.md")],
    ):
        r = _as(bob, argv)
        assert r.returncode != 0 and "ermission denied" in r.stderr, (argv, r.stdout, r.stderr)
    # through the service: only his own receipt and feedback; no name, header or file time
    # makes a hand-in someone else's or older
    forge = f"""
import json, os, urllib.request
os.environ["JUPYTERHUB_USER"] = {alice!r}
from kmlteach.classroom.hub import call
nb = os.path.expanduser("~/notebooks/01-svm.ipynb")
os.utime(nb, (946684800, 946684800))  # the file says 2000-01-01
data = json.load(open(nb))
data["metadata"]["submitted_by"] = {alice!r}
data["metadata"]["submitted_at"] = "2000-01-01T00:00:00Z"
raw = json.dumps(data).encode()
url = os.environ["KMLTEACH_CLASSROOM_URL"] + "api/submissions/01"
req = urllib.request.Request(url, data=raw, method="POST")
req.add_header("Authorization", "token " + os.environ["JUPYTERHUB_API_TOKEN"])
for k, v in {{"X-Forwarded-User": {alice!r}, "X-Remote-User": {alice!r}, "Date": "Sat, 01 Jan 2000 00:00:00 GMT"}}.items():
    req.add_header(k, v)
receipt = json.loads(urllib.request.urlopen(req).read())
mine = call("GET", "submissions/01")[1]
fb = call("GET", "feedback/01")[1]
other = call("GET", "feedback/01?user={alice}")[1]
print(json.dumps({{"receipt": receipt, "mine": mine, "fb": fb.get("md", "")[:40], "other": other.get("md", "")[:40]}}))
"""
    got = _out(_run(hub.loop, hub.kb.execute(forge)))
    assert got["receipt"]["user"] == bob and got["receipt"]["received"] > "2026", got
    assert got["mine"]["user"] == bob and got["fb"] == got["other"], got
    assert got["fb"].startswith(f"# Feedback: {bob}\n"), got
    assert json.loads((ex / "inbound" / "01" / f"{alice}.json").read_text())["user"] == alice
    # bob's server token cannot make itself an instructor nor mint a token for alice
    escalate = f"""
import json, os, urllib.request, urllib.error, ssl
api = os.environ["JUPYTERHUB_API_URL"]
ctx = ssl.create_default_context(cafile=os.environ.get("JUPYTERHUB_SSL_CLIENT_CA"))
if os.environ.get("JUPYTERHUB_SSL_CERTFILE"):
    ctx.load_cert_chain(os.environ["JUPYTERHUB_SSL_CERTFILE"], os.environ["JUPYTERHUB_SSL_KEYFILE"])
out = {{}}
for name, method, path, body in [
    ("group", "POST", "/groups/instructors/users", {{"users": [{bob!r}]}}),
    ("token", "POST", "/users/{alice}/tokens", {{"scopes": ["access:services"]}}),
    ("users", "GET", "/users", None),
]:
    req = urllib.request.Request(api + path, data=None if body is None else json.dumps(body).encode(), method=method)
    req.add_header("Authorization", "token " + os.environ["JUPYTERHUB_API_TOKEN"])
    try:
        out[name] = urllib.request.urlopen(req, context=ctx).status
    except urllib.error.HTTPError as e:
        out[name] = e.code
print(json.dumps(out))
"""
    assert all(code in (403, 404) for code in _out(_run(hub.loop, hub.kb.execute(escalate))).values())


def _service_process(hub):
    for p in hub.hub.processes():
        try:
            if any(a.endswith("classroom_service.py") for a in p.cmdline()):
                return p
        except Exception:
            continue
    raise AssertionError("no classroom service under the hub")


@ON_HUB
def test_no_student_can_take_the_services_port(hub):
    """The service listens below 1024 (bound as root, served as its own user): neither a
    student's kernel nor a student's shell can bind such a port, taken or free."""
    svc = _service_process(hub)
    port = int(svc.environ()["JUPYTERHUB_SERVICE_URL"].rsplit(":", 1)[1].strip("/"))
    assert port < 1024 and svc.uids().real == svc.uids().effective == pwd.getpwnam(hub.service_user).pw_uid
    assert {c.laddr.port for c in svc.net_connections("tcp") if c.status == "LISTEN"} == {port}
    free = next(p for p in range(1023, 600, -1) if p != port and _bindable(p))
    code = f"""
import json, socket
out = {{}}
for port in ({port}, {free}):
    try:
        socket.socket().bind(("127.0.0.1", port))
        out[port] = "bound"
    except OSError as e:
        out[port] = e.errno
print(json.dumps(out))
"""
    import errno

    got = _out(_run(hub.loop, hub.kb.execute(code)))
    assert set(got.values()) <= {errno.EACCES, errno.EADDRINUSE}, got
    shell = _as(hub.bob.name, ["python3", "-c", code])
    assert shell.returncode == 0 and set(json.loads(shell.stdout).values()) <= {
        errno.EACCES,
        errno.EADDRINUSE,
    }
    # a kernel reaches the service on its own port (its connections count as bob's, C1)
    direct = """
import json, os
from kmlteach.classroom import hub
code, me = hub.call("GET", "me")
print(json.dumps({"url": os.environ.get(hub.ENV_DIRECT_URL), "code": code, "name": me.get("name"),
                  "direct_failed": hub._DIRECT["failed"]}))
"""
    got = _out(_run(hub.loop, hub.kb.execute(direct)))
    assert got == {
        "url": f"http://127.0.0.1:{port}{PREFIX}",
        "code": 200,
        "name": hub.bob.name,
        "direct_failed": False,
    }, got
    # the service runs in its own memory cgroup (C5)
    cg = Path(f"/proc/{svc.pid}/cgroup").read_text()
    assert f"kmlteach-classroom-{port}" in cg, cg


@ON_HUB
def test_unfinished_bodies_through_the_hubs_proxy_are_refused_from_their_headers(hub):
    """C6 on the hub: two students' POSTs through the real proxy, headers and one byte of
    the body each (as the red team's 1 100, which took every connection of the service):
    at most 4 of each stay open, the rest are answered 429 at once; an unknown token 403;
    alice's kernel is answered, straight and through the proxy."""
    url = urllib.parse.urlsplit(hub.hub.url)
    head = (
        f"POST {PREFIX}api/polls/01.c_support HTTP/1.1\r\nHost: {url.netloc}\r\n"
        "Authorization: token {}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{"
    )
    students = hub.class_tokens[:2]
    for tok in students:
        assert request(hub.base, tok, "GET", "me")[0] == 200
    held: list[socket.socket] = []
    try:
        for i in range(60):
            s = socket.create_connection((url.hostname, url.port), timeout=5)
            s.sendall(head.format(students[i % 2]).encode())
            held.append(s)
        with socket.create_connection((url.hostname, url.port), timeout=5) as s:
            s.sendall(head.format(secrets.token_hex(16)).encode())
            assert _answered([s], 5.0) == [b"403"]
        got = _answered(held, 3.0)
        print(f"\n60 unfinished bodies of two students through the proxy: {Counter(got)}")
        for who in (0, 1):
            theirs = got[who::2]
            assert theirs.count(None) <= 4 and theirs.count(b"429") >= 30 - 4 - 2, Counter(theirs)
        code = """
import json, os
from kmlteach.classroom import hub
direct = hub.call("GET", "me")[0]
hub._DIRECT["failed"] = True  # (the next call goes through the proxy)
proxy = hub.call("GET", "me")[0]
hub._DIRECT["failed"] = False
print(json.dumps({"direct": direct, "proxy": proxy}))
"""
        assert _out(_run(hub.loop, hub.ka.execute(code))) == {"direct": 200, "proxy": 200}
    finally:
        for s in held:
            s.close()


def _bindable(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@ON_HUB
def test_a_poll_round_on_the_hub_with_a_class_of_40(hub, monkeypatch):
    base, poll_id = hub.base, "01.c_support"
    from kmlteach.exercises import question

    q = question(poll_id)
    right = "abcdefghij"[q.answers()[0]]
    wrong = next(c for i, c in enumerate("abcdefghij"[: len(q.choices)]) if i not in q.answers())
    # before the round: alice answers wrong then right in her kernel (first answer waits)
    ask = f"""
import json
from kmlteach.exercises import ask
from kmlteach.poll import answers
ask({poll_id!r}, "CHOICE")
answers.flush()
print(json.dumps({{"status": answers.status({poll_id!r})}}))
"""
    assert _out(_run(hub.loop, hub.ka.execute(ask.replace("CHOICE", wrong))))["status"] == "closed"
    assert request(base, hub.class_tokens[0], "POST", f"polls/{poll_id}/open")[0] == 403
    assert request(base, hub.prof_token, "POST", f"polls/{poll_id}/open")[1]["open"] is True
    monkeypatch.setenv("KMLTEACH_CLASSROOM_URL", hub.url)
    monkeypatch.setenv("KMLTEACH_CLASSROOM_TOKEN", hub.prof_token)
    from kmlteach.poll.histogram import PollView

    view = PollView(poll_id, interval=0.25)
    try:
        # alice answers again (right this time): her first answer (wrong) is what counts
        assert _out(_run(hub.loop, hub.ka.execute(ask.replace("CHOICE", right))))["status"] == "accepted"
        assert _out(_run(hub.loop, hub.kb.execute(ask.replace("CHOICE", right))))["status"] == "accepted"
        # bob floods from his kernel: one answer counted, the rest refused
        flood = f"""
import json
from kmlteach.classroom.hub import call
codes = [call("POST", "polls/{poll_id}", {{"answer": "{wrong}"}})[0] for _ in range(50)]
print(json.dumps(codes))
"""
        codes = _out(_run(hub.loop, hub.kb.execute(flood)))
        assert 201 not in codes and set(codes) <= {409, 429}, codes
        answer_of = lambda i: right if i % 4 else wrong  # noqa: E731
        t0 = time.monotonic()
        took = _class_round(base, poll_id, hub.class_tokens, answer_of)
        last = time.monotonic()
        assert last - t0 < 10, f"{N_CLASS} answers took {last - t0:.1f} s"
        while view.data.get("n", 0) < N_CLASS + 2 and time.monotonic() < last + 5:
            time.sleep(0.02)
        shown = view.updated - last
        want = {right: 30 + 1, wrong: 10 + 1}  # the class, bob (right), alice (her first: wrong)
        assert view.data["n"] == N_CLASS + 2 and view.data["counts"] == want, view.data
        assert shown < 1.0, f"shown {shown:.2f} s after the last answer"
        print(
            f"\n{N_CLASS} students through the hub's proxy in {last - t0:.2f} s (p50 {sorted(took)[N_CLASS // 2] * 1000:.0f} ms); histogram {shown:.2f} s after the last"
        )
        # a student reads nothing; garbage through the proxy changes nothing
        assert request(base, hub.class_tokens[5], "GET", f"polls/{poll_id}")[0] == 403
        for body in (b"nonsense", b"[" * 50_000, json.dumps({"answer": "\x07"}).encode()):
            assert request(base, hub.class_tokens[6], "POST", f"polls/{poll_id}", raw=body)[0] in (400, 413)
        view.reveal()
        assert [r[0] for r in view.rows() if r[3]] == [right] and "&#10003; right" in view.bars.value
        assert request(base, hub.prof_token, "GET", f"polls/{poll_id}")[1]["counts"] == want
    finally:
        view.close()


# ================================================================ the poll on a RISE slide
JS_POLL_ON_SLIDE = """() => {
  const s = document.querySelector('.reveal .slides section.present section.present')
            || document.querySelector('.reveal .slides section.present');
  const p = s && s.querySelector('.kml-poll');
  if (!p) return null;
  const r = p.getBoundingClientRect();
  return {text: p.innerText, visible: r.width > 400 && r.top >= 0 && r.bottom <= window.innerHeight + 1};
}"""


@pytest.mark.browser
@pytest.mark.skipif(not os.path.exists("/usr/bin/chromium"), reason="/usr/bin/chromium is absent")
def test_the_poll_histogram_on_a_rise_slide(service, tmp_path, monkeypatch):
    """The instructor's histogram on a RISE slide in Chromium: live (an answer arriving
    after the slide is up shows within a second), the right answer marked only after
    *Reveal answer*; a screenshot goes to tests/_artifacts/rise-poll.png."""
    import nbformat
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(ROOT / "tests"))
    from test_browser import CHROMIUM, CHROMIUM_ARGS, JS_ALL_RAN, JS_APP_READY, JS_KERNEL_IDLE, JupyterLab
    from test_browser_slides import JS_SELECT_WIDGET_CELL, RISE_COMMAND

    base, poll_id = service.base, "01.c_support"
    request(base, "tok-prof", "POST", f"polls/{poll_id}/close")
    assert request(base, "tok-prof", "POST", f"polls/{poll_id}/open")[1]["n"] == 0  # a fresh round
    _class_round(
        base,
        poll_id,
        [f"tok-s{i:02d}" for i in range(39)],
        lambda i: "a" if i < 6 else ("b" if i < 31 else "c"),
    )
    from kmlteach.exercises.quiz import question_html

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [
        nbformat.v4.new_markdown_cell(
            "# Chapter 01 · Support vectors", metadata={"slideshow": {"slide_type": "slide"}}
        ),
        nbformat.v4.new_code_cell(
            f'from kmlteach import poll\npoll.show("{poll_id}")',
            metadata={"slideshow": {"slide_type": "slide"}},
        ),
    ]
    assert "kml-concept-check" in question_html(poll_id)
    root = tmp_path / "root"
    root.mkdir()
    nbformat.write(nb, root / "poll.ipynb")
    monkeypatch.setenv("KMLTEACH_CLASSROOM_URL", service.url)
    monkeypatch.setenv("KMLTEACH_CLASSROOM_TOKEN", "tok-prof")
    lab = JupyterLab(tmp_path, root)
    shot = ROOT / "tests" / "_artifacts" / "rise-poll.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    lab.start()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport={"width": 1280, "height": 720})
            page = context.new_page()
            page.set_default_timeout(60_000)
            page.goto(f"{lab.url}/lab/tree/poll.ipynb?reset&token={lab.token}", wait_until="domcontentloaded")
            page.wait_for_function(JS_APP_READY)
            page.wait_for_function(JS_KERNEL_IDLE, polling=250)
            page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
            page.wait_for_timeout(300)
            page.wait_for_function(JS_ALL_RAN, polling=250)
            assert page.evaluate(JS_SELECT_WIDGET_CELL, "poll.show(") >= 0
            with context.expect_page() as popup:
                page.evaluate(f"() => window.jupyterapp.commands.execute('{RISE_COMMAND}')")
            rise = popup.value
            rise.set_default_timeout(60_000)
            for _ in range(40):
                if rise.evaluate(JS_POLL_ON_SLIDE):
                    break
                rise.keyboard.press("Space")
                rise.wait_for_timeout(150)
            on = rise.evaluate(JS_POLL_ON_SLIDE)
            assert on and on["visible"] and "39 answers" in on["text"] and "✓ right" not in on["text"], on
            # a late answer: on the slide within a second
            t0 = time.monotonic()
            assert request(base, "tok-s39", "POST", f"polls/{poll_id}", {"answer": "c"})[0] == 201
            rise.wait_for_function(
                f"() => ({JS_POLL_ON_SLIDE})().text.includes('40 answers')", timeout=5000, polling=50
            )
            late = time.monotonic() - t0
            rise.get_by_role("button", name="Reveal answer").click()
            rise.wait_for_function(f"() => ({JS_POLL_ON_SLIDE})().text.includes('✓ right')", polling=50)
            rise.wait_for_timeout(300)
            rise.screenshot(path=str(shot))
            browser.close()
    finally:
        lab.stop()
    print(f"\nthe 40th answer on the slide after {late:.2f} s; screenshot {shot}")
    assert late < 1.5, late


def test_the_hub_configuration_section():
    """classroom_config.configure on a configuration like jupyterhub_config.py's: the
    service (port below 1024 when root), the access scopes, the instructors' group, the
    servers' KMLTEACH_CLASSROOM_URL, and the exchange folder for the service's account."""
    import tempfile

    from traitlets.config import Config

    # the service's account must pass every folder above the exchange (pytest's are 0700)
    tmp_path = Path(tempfile.mkdtemp(prefix="kml-classroom-cfg-"))
    tmp_path.chmod(0o711)
    try:
        _hub_configuration_section(tmp_path, Config)
    finally:
        shutil.rmtree(tmp_path, ignore_errors=True)


def _hub_configuration_section(tmp_path, Config):

    sys.path.insert(0, str(HUB))
    import classroom_config

    env_dir = tmp_path / "env"
    (env_dir / "edition").mkdir(parents=True)
    (env_dir / "edition" / "book.toml").write_text('[[chapters]]\nid = "00"\n\n[[chapters]]\nid = "01"\n')
    c = Config()
    c.JupyterHub.ip, c.JupyterHub.port = "0.0.0.0", 8123
    c.JupyterHub.services = [{"name": "idle-culler", "command": ["x"]}]
    c.Spawner.environment = {"KEEP": "1"}
    env = {
        "KMLTEACH_HUB_STATE": str(tmp_path / "hub" / "state"),
        "KMLTEACH_HUB_INSTRUCTORS": "prof, ta",
        "KMLTEACH_HUB_CLASSROOM_USER": "nobody",
    }.get
    classroom_config.configure(c, hub_env=env_dir, state=tmp_path / "hub" / "state", env=env)
    culler, svc = c.JupyterHub.services
    port = int(svc["url"].rsplit(":", 1)[1])
    assert svc["name"] == "kmlteach-classroom" and svc["url"].startswith("http://127.0.0.1:")
    assert (port < 1024) == (os.geteuid() == 0)
    assert svc["command"][1] == "-I" and svc["command"][svc["command"].index("--chapters") + 1] == "00,01"
    assert ("--user" in svc["command"]) == (os.geteuid() == 0)
    assert c.JupyterHub.extra_user_scopes == {ACCESS} and ACCESS in c.Spawner.server_token_scopes
    assert c.JupyterHub.load_groups == {"instructors": {"users": ["prof", "ta"]}}
    assert c.Spawner.environment == {
        "KEEP": "1",
        "KMLTEACH_CLASSROOM_URL": "http://127.0.0.1:8123/services/kmlteach-classroom/",
        "KMLTEACH_CLASSROOM_DIRECT_URL": f"http://127.0.0.1:{port}/services/kmlteach-classroom/",
    }
    # C5: as root, the service gets a memory cgroup of its own (where cgroups can be made)
    groups = [Path(svc["command"][i + 1]) for i, a in enumerate(svc["command"]) if a == "--cgroup"]
    try:
        sys.path.insert(0, str(HUB))
        from limits_spawner import cgroup_layout

        if os.geteuid() == 0 and cgroup_layout():
            assert groups and all(g.name == f"kmlteach-classroom-{port}" and g.is_dir() for g in groups)
            limits = [
                (g / f).read_text().strip()
                for g in groups
                for f in ("memory.max", "memory.limit_in_bytes")
                if (g / f).exists()
            ]
            assert limits == [str(2**30)], limits
        else:
            assert groups == []
    finally:
        for g in groups:
            g.rmdir()
    ex = tmp_path / "hub" / "exchange"
    assert ex.is_dir() and ex.stat().st_mode & 0o777 == 0o700
    if os.geteuid() == 0:
        assert ex.stat().st_uid == pwd.getpwnam("nobody").pw_uid
    # off: nothing added
    c2 = Config()
    classroom_config.configure(c2, hub_env=env_dir, state=tmp_path, env={"KMLTEACH_HUB_CLASSROOM": "0"}.get)
    assert "services" not in c2.JupyterHub

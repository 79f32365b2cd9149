"""One simulated student: the HTTP and websocket traffic of a browser on the course's hub.

Used by ``loadtest.py``. The order of requests is the browser's: the login form, the
nbgitpuller link (``/hub/user-redirect/git-pull?...``), the hub's "server not running"
page and its spawn link, the spawn-pending page's progress event stream, the OAuth
redirects to the user's server, nbgitpuller's page and its ``git-pull/api`` event
stream, the JupyterLab page of the notebook, the contents and sessions API, the
kernel's websocket (Jupyter's JSON websocket protocol), ``kernel_info``, one
``execute_request`` per code cell, and ipywidgets' ``comm_msg`` ``update`` of the
margin explorer's ``x1`` slider, as JupyterLab's widget manager sends it.
"""

from __future__ import annotations

import asyncio
import html
import json
import re
import struct
import time
import urllib.parse
import uuid
from http.cookies import SimpleCookie

from tornado.httpclient import AsyncHTTPClient, HTTPRequest
from tornado.websocket import websocket_connect

__all__ = ["Student", "Kernel"]

WIDGET_PROTOCOL = "2.1.0"


class CookieJar:
    """Cookies by (name, path), sent to URLs under their path (the longest path first)."""

    def __init__(self):
        self.cookies: dict[tuple[str, str], str] = {}

    def update(self, headers) -> None:
        for raw in headers.get_list("Set-Cookie"):
            jar = SimpleCookie()
            jar.load(raw)
            for name, morsel in jar.items():
                key = (name, morsel["path"] or "/")
                if morsel["max-age"] == "0" or morsel["expires"].startswith("Thu, 01 Jan 1970"):
                    self.cookies.pop(key, None)
                else:
                    self.cookies[key] = morsel.value

    def get(self, name: str, path: str) -> str | None:
        best = [(len(p), v) for (n, p), v in self.cookies.items() if n == name and path.startswith(p)]
        return max(best)[1] if best else None

    def header(self, path: str) -> str:
        seen, parts = set(), []
        for (name, p), v in sorted(self.cookies.items(), key=lambda kv: -len(kv[0][1])):
            if path.startswith(p) and name not in seen:
                seen.add(name)
                parts.append(f"{name}={v}")
        return "; ".join(parts)


def _decode_frame(frame) -> dict:
    """A kernel message from the JSON websocket protocol (binary frames carry buffers)."""
    if isinstance(frame, str):
        return json.loads(frame)
    n = struct.unpack("!I", frame[:4])[0]
    offsets = list(struct.unpack("!" + "I" * n, frame[4 : 4 * (n + 1)])) + [len(frame)]
    msg = json.loads(frame[offsets[0] : offsets[1]])
    msg["buffers"] = [frame[offsets[i] : offsets[i + 1]] for i in range(1, n)]
    return msg


class Student:
    def __init__(
        self,
        hub_url: str,
        name: str,
        password: str,
        repo_url: str,
        notebook: str,
        moves: int = 20,
        move_period: float = 6.0,
        step_timeout: float = 300.0,
    ):
        self.hub, self.name, self.password = hub_url.rstrip("/"), name, password
        self.repo_url, self.notebook = repo_url, notebook
        self.moves, self.move_period, self.step_timeout = moves, move_period, step_timeout
        self.target = repo_url.rstrip("/").split("/")[-1].removesuffix(".git")
        self.jar = CookieJar()
        self.http = AsyncHTTPClient(force_instance=True, max_clients=4)
        self.session = uuid.uuid4().hex
        self.timings: dict[str, float] = {}
        self.round_trips: list[float] = []
        self.sent: list[float] = []  # perf_counter() of each move, beside its round trip
        self.busy = (0.0, 0.0)  # from the first request to the last cell's reply
        self.cells_run = self.cell_errors = 0
        self.error: str | None = None
        self.step = "not started"
        self.ws = None
        self.comms: dict[str, dict] = {}  # comm_id -> {"model", "state", "parent"}
        self.waiting: dict[tuple[str, str], asyncio.Future] = {}

    # -- HTTP -----------------------------------------------------------------------------
    async def fetch(self, url: str, method: str = "GET", body=None, headers=None, **kw):
        if url.startswith("/"):
            url = self.hub + url
        path = urllib.parse.urlsplit(url).path
        hdrs = {"Cookie": self.jar.header(path), **(headers or {})}
        req = HTTPRequest(
            url,
            method=method,
            body=body,
            headers=hdrs,
            follow_redirects=False,
            connect_timeout=60,
            request_timeout=self.step_timeout,
            **kw,
        )
        resp = await self.http.fetch(req, raise_error=False)
        self.jar.update(resp.headers)
        if resp.code == 599:
            raise RuntimeError(f"{method} {path}: {resp.error}")
        return resp

    async def follow(self, url: str, limit: int = 20):
        """GET ``url`` and its redirects; the final response."""
        for _ in range(limit):
            resp = await self.fetch(url)
            if resp.code not in (301, 302, 303, 307):
                return resp
            url = urllib.parse.urljoin(resp.effective_url, resp.headers["Location"])
        raise RuntimeError(f"more than {limit} redirects from {url}")

    async def events(self, url: str) -> list[dict]:
        """The ``data:`` events of an event stream, until the server ends it."""
        buf, out = [b""], []

        def chunk(data: bytes):
            buf[0] += data
            while b"\n\n" in buf[0]:
                block, buf[0] = buf[0].split(b"\n\n", 1)
                for line in block.decode().splitlines():
                    if line.startswith("data:"):
                        out.append(json.loads(line[5:]))

        resp = await self.fetch(url, headers={"Accept": "text/event-stream"}, streaming_callback=chunk)
        if resp.code != 200:
            raise RuntimeError(f"event stream {url}: HTTP {resp.code}")
        return out

    # -- the steps --------------------------------------------------------------------------
    async def login(self):
        page = await self.fetch("/hub/login")
        xsrf = re.search(r'name="_xsrf" value="([^"]+)"', page.body.decode()).group(1)
        body = urllib.parse.urlencode({"username": self.name, "password": self.password, "_xsrf": xsrf})
        resp = await self.fetch("/hub/login?next=", method="POST", body=body)
        if resp.code != 302 or self.jar.get("jupyterhub-hub-login", "/hub/") is None:
            raise RuntimeError(f"login: HTTP {resp.code}")

    def link(self) -> str:
        query = {
            "repo": self.repo_url,
            "targetpath": self.target,
            "urlpath": f"lab/tree/{self.target}/{self.notebook}",
        }
        return "/hub/user-redirect/git-pull?" + urllib.parse.urlencode(query)

    async def start_server(self):
        """Follow the link: the hub starts the server (or offers to), then wait for it."""
        t0 = time.perf_counter()
        page = await self.follow(self.link())
        if page.code == 424:  # "server not running" page: press its button
            spawn = re.search(r'href="([^"]*/hub/spawn/[^"]*)"', page.body.decode())
            t0 = time.perf_counter()
            page = await self.follow(html.unescape(spawn.group(1)))
        m = re.search(r'new EventSource\("([^"]+)"\)', page.body.decode())
        if page.code != 200 or m is None:
            raise RuntimeError(f"no spawn progress at {page.effective_url} (HTTP {page.code})")
        events = await self.events(html.unescape(m.group(1)).replace("\\/", "/"))
        if not any(e.get("ready") for e in events):
            raise RuntimeError(f"spawn failed: {events[-1] if events else 'no events'}")
        self.timings["server_start"] = time.perf_counter() - t0
        return page.effective_url

    async def pull(self, pending_url: str):
        """Back to the link (through the OAuth redirects), then nbgitpuller's sync stream."""
        page = await self.follow(pending_url)
        body = page.body.decode()
        if page.code != 200 or "data-xsrf" not in body:
            raise RuntimeError(f"nbgitpuller page: HTTP {page.code} at {page.effective_url}")
        xsrf = html.unescape(re.search(r'data-xsrf="([^"]*)"', body).group(1))
        q = urllib.parse.urlencode(
            {"_xsrf": urllib.parse.unquote(xsrf), "repo": self.repo_url, "targetpath": self.target}
        )
        t0 = time.perf_counter()
        events = await self.events(f"/user/{self.name}/git-pull/api?{q}")
        if not events or events[-1].get("phase") != "finished":
            raise RuntimeError(f"nbgitpuller: {events[-1] if events else 'no events'}")
        self.timings["pull"] = time.perf_counter() - t0

    async def open_notebook(self):
        base = f"/user/{self.name}"
        path = f"{self.target}/{self.notebook}"
        lab = await self.follow(f"{base}/lab/tree/{path}")
        if lab.code != 200:
            raise RuntimeError(f"JupyterLab page: HTTP {lab.code}")
        xsrf = {"X-XSRFToken": self.jar.get("_xsrf", f"{base}/") or ""}
        contents = await self.fetch(f"{base}/api/contents/{path}?type=notebook&content=1", headers=xsrf)
        if contents.code != 200:
            raise RuntimeError(f"contents API: HTTP {contents.code}")
        nb = json.loads(contents.body)["content"]
        body = json.dumps({"path": path, "type": "notebook", "name": "", "kernel": {"name": "python3"}})
        sess = await self.fetch(
            f"{base}/api/sessions",
            method="POST",
            body=body,
            headers={**xsrf, "Content-Type": "application/json"},
        )
        if sess.code != 201:
            raise RuntimeError(f"sessions API: HTTP {sess.code}")
        t_kernel = time.perf_counter()
        kid = json.loads(sess.body)["kernel"]["id"]
        ws_url = (
            self.hub.replace("http", "ws", 1) + f"{base}/api/kernels/{kid}/channels?session_id={self.session}"
        )
        self.ws = await websocket_connect(
            HTTPRequest(
                ws_url,
                headers={"Cookie": self.jar.header(f"{base}/api/kernels/")},
                connect_timeout=60,
                # as long as a step may take: a browser's WebSocket has no time limit of its
                # own (JupyterLab shows "Kernel starting" meanwhile), and the server answers
                # the upgrade only when the kernel has replied, or after 60 s
                request_timeout=self.step_timeout,
            ),
            max_message_size=64 * 2**20,
        )
        self.reader = asyncio.ensure_future(self._read())
        await self.request("kernel_info_request", {}, wait="kernel_info_reply")
        self.timings["kernel_ready"] = time.perf_counter() - t_kernel
        return nb

    # -- kernel messages --------------------------------------------------------------------
    async def _read(self):
        while True:
            frame = await self.ws.read_message()
            if frame is None:
                for fut in self.waiting.values():
                    fut.done() or fut.set_exception(RuntimeError("kernel websocket closed"))
                return
            msg = _decode_frame(frame)
            parent = msg.get("parent_header", {}).get("msg_id", "")
            kind, content = msg["header"]["msg_type"], msg["content"]
            if kind == "comm_open" and content.get("target_name") == "jupyter.widget":
                state = content["data"].get("state", {})
                self.comms[content["comm_id"]] = {
                    "model": state.get("_model_name"),
                    "state": state,
                    "parent": parent,
                }
            elif kind == "comm_msg" and content["data"].get("method") == "update":
                key = (parent, "image:" + content["comm_id"])
                data = content["data"]  # the figure's PNG travels as a buffer
                if (
                    ["value"] in data.get("buffer_paths", []) or "value" in data.get("state", {})
                ) and key in self.waiting:
                    self.waiting.pop(key).set_result(time.perf_counter())
            key = (parent, kind if kind != "status" else "status:" + content.get("execution_state", ""))
            fut = self.waiting.pop(key, None)
            if fut is not None and not fut.done():
                fut.set_result(msg)

    def _message(self, kind: str, content: dict, metadata=None) -> dict:
        return {
            "header": {
                "msg_id": uuid.uuid4().hex,
                "username": self.name,
                "session": self.session,
                "msg_type": kind,
                "version": "5.3",
                "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            },
            "parent_header": {},
            "metadata": metadata or {},
            "content": content,
            "channel": "shell",
            "buffers": [],
        }

    async def request(self, kind: str, content: dict, wait: str, metadata=None, extra=()):
        msg = self._message(kind, content, metadata)
        mid = msg["header"]["msg_id"]
        loop = asyncio.get_running_loop()
        futs = {w: loop.create_future() for w in (wait, *extra)}
        for w, f in futs.items():
            self.waiting[(mid, w)] = f
        t0 = time.perf_counter()
        await self.ws.write_message(json.dumps(msg))
        try:
            done = await asyncio.wait_for(asyncio.gather(*futs.values()), self.step_timeout)
        finally:
            for w in futs:
                self.waiting.pop((mid, w), None)
        return t0, dict(zip(futs, done))

    async def run_cells(self, nb: dict):
        for cell in nb["cells"]:
            if cell["cell_type"] != "code" or not "".join(cell["source"]).strip():
                continue
            code = "".join(cell["source"])
            _, got = await self.request(
                "execute_request",
                {
                    "code": code,
                    "silent": False,
                    "store_history": True,
                    "user_expressions": {},
                    "allow_stdin": False,
                    "stop_on_error": True,
                },
                wait="execute_reply",
                extra=("status:idle",),
            )
            self.cells_run += 1
            if got["execute_reply"]["content"]["status"] != "ok":
                self.cell_errors += 1
            if "make_margin_explorer()" in code:
                self.explorer_parent = got["execute_reply"]["parent_header"]["msg_id"]

    async def move_widget(self):
        """Move the margin explorer's x1 slider ``moves`` times, one move per period."""
        mine = {
            cid: c for cid, c in self.comms.items() if c["parent"] == getattr(self, "explorer_parent", None)
        }
        slider = [
            cid
            for cid, c in mine.items()
            if c["model"] == "FloatSliderModel" and c["state"].get("description") == "x₁"
        ]
        image = [cid for cid, c in mine.items() if c["model"] == "ImageModel"]
        if len(slider) != 1 or len(image) != 1:
            raise RuntimeError(f"margin explorer not found (sliders {len(slider)}, images {len(image)})")
        x0 = float(mine[slider[0]]["state"]["value"])
        offsets = [0.05 * k for k in range(1, 11)] + [0.05 * k for k in range(9, -1, -1)]
        t_start = time.perf_counter()
        for k in range(self.moves):
            value = round(x0 + offsets[k % len(offsets)], 2)
            data = {"method": "update", "state": {"value": value}, "buffer_paths": []}
            t0, got = await self.request(
                "comm_msg",
                {"comm_id": slider[0], "data": data},
                wait="image:" + image[0],
                extra=("status:idle",),
                metadata={"version": WIDGET_PROTOCOL},
            )
            self.round_trips.append(got["image:" + image[0]] - t0)
            self.sent.append(t0)
            await asyncio.sleep(max(0.0, t_start + (k + 1) * self.move_period - time.perf_counter()))
        self.timings["widget_phase"] = time.perf_counter() - t_start

    # -- what a student does by hand (tests/test_hub_isolation.py) -------------------------
    async def spawn(self) -> None:
        """Start the server from the hub's home page, wait for it, then open it in JupyterLab
        (the OAuth redirects give the server's cookies)."""
        page = await self.follow("/hub/spawn")
        m = re.search(r'new EventSource\("([^"]+)"\)', page.body.decode())
        if m is not None:
            events = await self.events(html.unescape(m.group(1)).replace("\\/", "/"))
            if not any(e.get("ready") for e in events):
                raise RuntimeError(f"spawn failed: {events[-1] if events else 'no events'}")
        lab = await self.follow(f"/user/{self.name}/lab")
        if lab.code != 200:
            raise RuntimeError(f"JupyterLab page: HTTP {lab.code}")

    async def stop_server(self) -> None:
        """Stop the server as the hub's home page does, and wait until it is stopped."""
        await self.fetch("/hub/home")
        xsrf = {"X-XSRFToken": self.jar.get("_xsrf", "/hub/") or ""}
        resp = await self.fetch(f"/hub/api/users/{self.name}/server", method="DELETE", headers=xsrf)
        if resp.code not in (202, 204):
            raise RuntimeError(f"stopping the server: HTTP {resp.code}")
        for _ in range(600):
            model = await self.fetch(f"/hub/api/users/{self.name}", headers=xsrf)
            if model.code == 200 and not json.loads(model.body).get("servers"):
                return
            await asyncio.sleep(0.2)
        raise RuntimeError("the server did not stop")

    async def api(self, method: str, path: str, body=None):
        """A call to the student's server's REST API (``path`` below ``/api/``): (code, JSON or text)."""
        base = f"/user/{self.name}"
        headers = {"X-XSRFToken": self.jar.get("_xsrf", f"{base}/") or "", "Content-Type": "application/json"}
        resp = await self.fetch(
            f"{base}/api/{path}",
            method=method,
            body=None if body is None else json.dumps(body),
            headers=headers,
            allow_nonstandard_methods=True,
        )
        text = resp.body.decode(errors="replace") if resp.body else ""
        try:
            return resp.code, json.loads(text)
        except ValueError:
            return resp.code, text

    async def start_kernel(self, folder: str = "") -> Kernel:
        """A new kernel whose working folder is ``folder`` (below the server's root), connected."""
        path = "/".join(p for p in (folder.strip("/"), f"attack-{uuid.uuid4().hex[:8]}.ipynb") if p)
        code, sess = await self.api(
            "POST", "sessions", {"path": path, "type": "notebook", "name": "", "kernel": {"name": "python3"}}
        )
        if code != 201:
            raise RuntimeError(f"sessions API: HTTP {code}: {sess}")
        k = Kernel(self, sess["kernel"]["id"])
        await k.connect(self.step_timeout)
        return k

    async def run(self):
        t0 = time.perf_counter()
        self.step = "login"
        try:
            await self.login()
            self.step = "server start"
            pending = await self.start_server()
            self.step = "nbgitpuller"
            await self.pull(pending)
            self.step = "open notebook"
            nb = await self.open_notebook()
            self.step = "run cells"
            t1 = time.perf_counter()
            await self.run_cells(nb)
            self.timings["run_cells"] = time.perf_counter() - t1
            self.busy = (t0, time.perf_counter())
            self.step = "widget"
            await self.move_widget()
            self.step = "done"
        except Exception as exc:  # a failure of this student, reported by the load test
            self.error = f"{self.step}: {type(exc).__name__}: {exc}"
        finally:
            self.timings["total"] = time.perf_counter() - t0
            if self.ws is not None:
                self.ws.close()
                self.reader.cancel()
            self.http.close()
        return self


class Kernel:
    """One kernel of a student's server, driven over its websocket: run code and collect
    what it prints (``tests/test_hub_isolation.py`` attacks with it)."""

    def __init__(self, student: Student, kernel_id: str):
        self.student, self.id = student, kernel_id
        self.session = uuid.uuid4().hex
        self.ws = None
        self.waiting: dict[str, dict] = {}

    async def connect(self, timeout: float = 300.0) -> None:
        s = self.student
        url = (
            s.hub.replace("http", "ws", 1)
            + f"/user/{s.name}/api/kernels/{self.id}/channels?session_id={self.session}"
        )
        self.ws = await websocket_connect(
            HTTPRequest(
                url,
                headers={"Cookie": s.jar.header(f"/user/{s.name}/api/kernels/")},
                connect_timeout=60,
                request_timeout=timeout,
            ),
            max_message_size=64 * 2**20,
        )
        self.reader = asyncio.ensure_future(self._read())
        self.info = (await self.request("kernel_info_request", {}, timeout))["reply"]

    async def _read(self):
        while True:
            frame = await self.ws.read_message()
            if frame is None:
                for w in self.waiting.values():
                    w["done"].done() or w["done"].set_exception(RuntimeError("kernel websocket closed"))
                return
            msg = _decode_frame(frame)
            w = self.waiting.get(msg.get("parent_header", {}).get("msg_id", ""))
            if w is None:
                continue
            kind, content = msg["header"]["msg_type"], msg["content"]
            if kind == "stream":
                w[content["name"]].append(content["text"])
            elif kind == "error":
                w["stderr"].append(f"{content['ename']}: {content['evalue']}")
            elif kind.endswith("_reply"):
                w["reply"] = content
            elif kind == "status" and content.get("execution_state") == "idle":
                w["idle"] = True
            if "reply" in w and w.get("idle") and not w["done"].done():
                w["done"].set_result(None)

    async def request(self, kind: str, content: dict, timeout: float = 120.0, channel: str = "shell") -> dict:
        msg = Student._message(self.student, kind, content)
        msg["header"]["session"] = self.session
        msg["channel"] = channel
        mid = msg["header"]["msg_id"]
        w = {"stdout": [], "stderr": [], "done": asyncio.get_running_loop().create_future()}
        self.waiting[mid] = w
        try:
            await self.ws.write_message(json.dumps(msg))
            await asyncio.wait_for(w["done"], timeout)
        finally:
            self.waiting.pop(mid, None)
        return {"reply": w.get("reply", {}), "stdout": "".join(w["stdout"]), "stderr": "".join(w["stderr"])}

    async def execute(self, code: str, timeout: float = 120.0) -> dict:
        """Run ``code``: ``{"status", "stdout", "stderr"}`` (an exception's name and text in stderr)."""
        r = await self.request(
            "execute_request",
            {
                "code": code,
                "silent": False,
                "store_history": False,
                "user_expressions": {},
                "allow_stdin": False,
            },
            timeout,
        )
        return {"status": r["reply"].get("status"), "stdout": r["stdout"], "stderr": r["stderr"]}

    async def close(self) -> None:
        if self.ws is not None:
            self.ws.close()
            self.reader.cancel()
        await self.student.api("DELETE", f"kernels/{self.id}")

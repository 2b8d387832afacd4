"""``kioku ui``: the local web app, on the standard library's HTTP server.

Security model (a single user on their own machine, but a browser full of other pages):

- bound to 127.0.0.1 only; requests whose ``Host`` is not this loopback address and port are
  refused (a DNS-rebinding page cannot reach the app through another name);
- a random token per run, printed in the URL. ``?token=`` is exchanged for an ``HttpOnly``,
  ``SameSite=Strict`` cookie named after the port, then the URL is cleaned by a redirect.
  Without a token: 401; with a wrong one: 403;
- state changes are POSTs that need the cookie, a per-run form token (``csrf``) and an
  ``Origin`` (or ``Referer``) of this very origin, so another page cannot drive the app;
- every response carries a Content-Security-Policy: scripts only from ``/static/app.js``
  with a per-response nonce, styles only from ``/static/``, no frames, forms only to self.
  All data is escaped on the server, so even text that looks like markup stays text.

Requests touching the stores run one at a time (one lock), so Chroma and the memory folder
see the same access pattern as the CLI.
"""

from __future__ import annotations

import hmac
import http.cookies
import secrets
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable
from urllib.parse import parse_qs, quote, urlencode, urlsplit

from kioku.infra.errors import KiokuError
from kioku.ui import data, pages

HOST = "127.0.0.1"
STATIC_DIR = Path(__file__).with_name("static")
STATIC_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
STATIC_FILES = frozenset({"app.css", "app.js"})
MAX_BODY = 64 * 1024


class UIApp:
    """Per-run state: tokens, the project, and the store lock."""

    def __init__(self, project_root: Path, port: int) -> None:
        self.project_root = project_root
        self.port = port
        self.token = secrets.token_urlsafe(32)
        self.csrf = secrets.token_urlsafe(32)
        self.lock = threading.Lock()

    @property
    def origins(self) -> set[str]:
        return {f"http://{HOST}:{self.port}", f"http://localhost:{self.port}"}

    @property
    def hosts(self) -> set[str]:
        return {f"{HOST}:{self.port}", f"localhost:{self.port}"}

    @property
    def cookie_name(self) -> str:
        return f"kioku_ui_{self.port}"

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/?token={self.token}"

    def default_agent(self, agents: list[str]) -> str:
        from kioku.infra.config import load_config

        try:
            main = load_config(self.project_root).main_agent
        except Exception:  # noqa: BLE001 - a broken config is reported by the Health view
            main = ""
        return main if main in agents else (agents[0] if agents else "")


class Handler(BaseHTTPRequestHandler):
    server_version = "kioku-ui"
    sys_version = ""
    app: UIApp  # set on the subclass made by make_server

    # -- plumbing --------------------------------------------------------------------------

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        """Silent: request lines carry search words and the token, which must not be logged."""

    def _send(self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None,
              nonce: str = "") -> None:
        self.send_response(status)
        script = f"'nonce-{nonce}'" if nonce else "'none'"
        self.send_header("Content-Security-Policy",
                         f"default-src 'none'; script-src {script}; style-src 'self'; img-src 'self' data:; "
                         "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Referrer-Policy", "same-origin")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _plain(self, status: int, text: str) -> None:
        self._send(status, text.encode("utf-8"), "text/plain; charset=utf-8")

    def _redirect(self, location: str, headers: dict[str, str] | None = None) -> None:
        self._send(HTTPStatus.SEE_OTHER, b"", "text/plain; charset=utf-8", {"Location": location, **(headers or {})})

    def _page(self, active: str, body: str, query: dict[str, list[str]]) -> None:
        nonce = secrets.token_urlsafe(16)
        notice = getattr(self, "_notice", "")
        message, error = (notice, True) if notice else (_one(query, "msg"), _one(query, "err") == "1")
        html = pages.layout(active, body, message, error, nonce)
        self._send(HTTPStatus.OK, html.encode("utf-8"), "text/html; charset=utf-8", nonce=nonce)

    def _internal_error(self, exc: Exception) -> None:
        """Names the error type only: messages and tracebacks can quote remembered text."""
        sys.stderr.write(f"kioku ui: internal error in {urlsplit(self.path).path}: {type(exc).__name__}\n")
        self._plain(HTTPStatus.INTERNAL_SERVER_ERROR, f"internal error ({type(exc).__name__}); see the terminal")

    def _cookie_token(self) -> str:
        jar = http.cookies.SimpleCookie()
        try:
            jar.load(self.headers.get("Cookie", ""))
        except http.cookies.CookieError:
            return ""
        morsel = jar.get(self.app.cookie_name)
        return morsel.value if morsel else ""

    def _authorised(self, query: dict[str, list[str]]) -> bool:
        """Checks Host and token; answers the request itself (401/403/redirect) when not plainly allowed."""
        if self.headers.get("Host", "") not in self.app.hosts:
            self._plain(HTTPStatus.FORBIDDEN, "forbidden: unknown host")
            return False
        offered = _one(query, "token")
        if offered:
            if not hmac.compare_digest(offered, self.app.token):
                self._plain(HTTPStatus.FORBIDDEN, "forbidden: wrong token")
                return False
            rest = {k: v for k, v in query.items() if k != "token"}
            path = urlsplit(self.path).path
            cookie = (f"{self.app.cookie_name}={self.app.token}; Path=/; HttpOnly; SameSite=Strict")
            self._redirect(path + ("?" + urlencode(rest, doseq=True) if rest else ""), {"Set-Cookie": cookie})
            return False
        cookie = self._cookie_token()
        if not cookie:
            self._plain(HTTPStatus.UNAUTHORIZED, "unauthorised: open the URL that `kioku ui` printed")
            return False
        if not hmac.compare_digest(cookie, self.app.token):
            self._plain(HTTPStatus.FORBIDDEN, "forbidden: wrong token")
            return False
        return True

    def _same_origin(self) -> bool:
        origin = self.headers.get("Origin")
        if origin is not None:
            return origin in self.app.origins
        referer = self.headers.get("Referer", "")
        parts = urlsplit(referer)
        return bool(referer) and f"{parts.scheme}://{parts.netloc}" in self.app.origins

    # -- GET -------------------------------------------------------------------------------

    def do_HEAD(self) -> None:  # noqa: N802 - stdlib name
        self.do_GET()

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        split = urlsplit(self.path)
        query = parse_qs(split.query)
        if not self._authorised(query):
            return
        if split.path.startswith("/static/"):
            self._static(split.path[len("/static/"):])
            return
        if split.path == "/favicon.ico":  # asked for by every browser: no icon, and no error
            self._send(HTTPStatus.NO_CONTENT, b"", "image/x-icon")
            return
        views: dict[str, Callable[[dict[str, list[str]]], str]] = {
            "/memory": self._memory, "/agents": self._agents, "/evaluations": self._evaluations,
            "/trends": self._trends, "/health": self._health,
        }
        if split.path == "/":
            self._redirect("/memory")
            return
        view = views.get(split.path)
        if view is None:
            self._plain(HTTPStatus.NOT_FOUND, "not found")
            return
        try:
            with self.app.lock:
                body = view(query)
        except KiokuError as exc:
            body = f'<p class="flash error">{pages.e(exc)}</p>'
        except Exception as exc:  # noqa: BLE001 - one line to the user and stderr, no traceback with data
            self._internal_error(exc)
            return
        self._page(split.path.strip("/"), body, query)

    def _static(self, name: str) -> None:
        if name not in STATIC_FILES:
            self._plain(HTTPStatus.NOT_FOUND, "not found")
            return
        path = STATIC_DIR / name
        self._send(HTTPStatus.OK, path.read_bytes(), STATIC_TYPES[path.suffix])

    def _memory(self, query: dict[str, list[str]]) -> str:
        text = _one(query, "q").strip()
        hits, nearest = data.search_memories(text, self.app.project_root) if text else (None, [])
        return pages.memory_page(data.memories(self.app.project_root), self.app.csrf, text, hits, nearest,
                                 data.hand_notes(self.app.project_root), data.withheld_memories(self.app.project_root))

    def _agent(self, query: dict[str, list[str]]) -> tuple[list[str], str]:
        agents = data.agent_names(self.app.project_root)
        wanted = _one(query, "agent")
        if wanted in agents:
            return agents, wanted
        current = self.app.default_agent(agents)
        if wanted:
            shown = wanted if len(wanted) <= 60 else wanted[:59] + "…"
            self._notice = (f"No agent named {shown!r} has memory here; showing {current!r} instead."
                            if current else f"No agent named {shown!r} has memory here.")
        return agents, current

    def _agents(self, query: dict[str, list[str]]) -> str:
        agents, current = self._agent(query)
        lessons = data.lessons(current, self.app.project_root) if current else []
        return pages.agents_page(agents, current, lessons, self.app.csrf)

    def _evaluations(self, query: dict[str, list[str]]) -> str:
        agents, current = self._agent(query)
        rows = data.evaluation_rows(current, self.app.project_root, limit=None) if current else []
        return pages.evaluations_page(agents, current, rows)

    def _trends(self, query: dict[str, list[str]]) -> str:
        agents, current = self._agent(query)
        trend = data.trends(current, self.app.project_root) if current else None
        return pages.trends_page(agents, current, trend)

    def _health(self, _query: dict[str, list[str]]) -> str:
        return pages.health_page(data.health(self.app.project_root))

    # -- POST ------------------------------------------------------------------------------

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        split = urlsplit(self.path)
        if not self._authorised(parse_qs(split.query)):
            return
        if not self._same_origin():
            self._plain(HTTPStatus.FORBIDDEN, "forbidden: cross-origin request")
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if length < 0:
            self._plain(HTTPStatus.BAD_REQUEST, "bad Content-Length")
            return
        if length > MAX_BODY:
            self._plain(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "request too large")
            return
        form = parse_qs(self.rfile.read(length).decode("utf-8", errors="replace"), keep_blank_values=True)
        if not hmac.compare_digest(_one(form, "csrf"), self.app.csrf):
            self._plain(HTTPStatus.FORBIDDEN, "forbidden: missing or wrong form token")
            return
        actions: dict[str, Callable[[dict[str, list[str]]], tuple[str, str]]] = {
            "/memory/edit": self._edit, "/memory/forget": self._forget, "/memory/restore": self._restore,
            "/memory/trust": self._trust,
            "/agents/lesson": self._lesson,
        }
        action = actions.get(split.path)
        if action is None:
            self._plain(HTTPStatus.NOT_FOUND, "not found")
            return
        back = "/memory"
        if split.path.startswith("/agents"):
            agent = _one(form, "agent")  # a failed action returns to the agent it was about
            back = f"/agents?agent={quote(agent)}" if agent else "/agents"
        try:
            with self.app.lock:
                back, message = action(form)
            error = False
        except KiokuError as exc:
            message, error = str(exc), True
        except Exception as exc:  # noqa: BLE001 - as for GET
            self._internal_error(exc)
            return
        self._redirect(back + ("&" if "?" in back else "?") + urlencode({"msg": message, **({"err": "1"} if error else {})}))

    def _edit(self, form: dict[str, list[str]]) -> tuple[str, str]:
        from kioku.memory.edit import edit_memory

        result = edit_memory(_one(form, "id"), text=_one(form, "text"), type=_one(form, "type") or None,
                             project_root=self.app.project_root)
        if result.status != "unchanged":
            from kioku.enrich.wake import wake_worker

            wake_worker(self.app.project_root)  # its search enrichment is written again, where a model may
        if result.status == "moved":
            where = ("the user-wide memory (~/.agents/memory), shared by all your projects" if result.scope == "user"
                     else "this project's memory (.agents/memory)")
            return "/memory", f"Moved to {where}: {result.summary}"
        return "/memory", f"{result.status.capitalize()}: {result.summary}"

    def _forget(self, form: dict[str, list[str]]) -> tuple[str, str]:
        from kioku.memory.forget import forget

        result = forget(id=_one(form, "id"), project_root=self.app.project_root)
        return "/memory", f"Forgot: {result.summary} (moved to the archive)"

    def _restore(self, form: dict[str, list[str]]) -> tuple[str, str]:
        from kioku.memory.edit import restore_memory

        result = restore_memory(_one(form, "id"), project_root=self.app.project_root)
        return "/memory", f"Restored: {result.summary}"

    def _trust(self, form: dict[str, list[str]]) -> tuple[str, str]:
        from kioku.memory.allow import allow

        done = allow(self.app.project_root, digests=[_one(form, "digest")])
        return "/memory", f"Trusted {', '.join(v.ref for v in done)}: the agent sees it from the next session on"

    def _lesson(self, form: dict[str, list[str]]) -> tuple[str, str]:
        from kioku.ui.lesson_actions import set_deprecated

        agent, action = _one(form, "agent"), _one(form, "action")
        if action not in ("deprecate", "restore"):
            raise KiokuError(f"unknown lesson action {action!r}")
        lesson = set_deprecated(agent, _one(form, "id"), action == "deprecate", self.app.project_root)
        return f"/agents?agent={quote(agent)}", f"{'Deprecated' if action == 'deprecate' else 'Restored'}: {lesson}"


def _one(values: dict[str, list[str]], key: str) -> str:
    got = values.get(key)
    return got[0] if got else ""


class LoopbackServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """One line instead of the default traceback (which could quote request data)."""
        sys.stderr.write(f"kioku ui: dropped a connection ({sys.exc_info()[0].__name__})\n")


def make_server(project_root: Path, port: int = 0) -> tuple[ThreadingHTTPServer, UIApp]:
    """A server bound to 127.0.0.1 (``port`` 0 picks a free one) and its per-run app state."""
    httpd = LoopbackServer((HOST, port), Handler)
    app = UIApp(project_root, httpd.server_address[1])
    httpd.RequestHandlerClass = type("BoundHandler", (Handler,), {"app": app})
    return httpd, app

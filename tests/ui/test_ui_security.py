"""The web app's perimeter, checked over real HTTP against a real ``kioku ui`` process:
loopback-only bind, token, Host check, same-origin and form-token checks on state changes, CSP."""

from __future__ import annotations

import http.client
import socket
from pathlib import Path
from urllib.parse import urlencode

from uitest_support import RunningUI, memory_files


def request(ui: RunningUI, method: str, path: str, headers: dict[str, str] | None = None,
            body: str | None = None) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", ui.port, timeout=60)
    conn.request(method, path, body=body, headers={"Host": f"127.0.0.1:{ui.port}", **(headers or {})})
    response = conn.getresponse()
    response.read()
    conn.close()
    return response


def cookie(ui: RunningUI) -> dict[str, str]:
    return {"Cookie": f"kioku_ui_{ui.port}={ui.token}"}


def test_first_line_is_a_loopback_url_with_a_long_random_token(ui: RunningUI) -> None:
    assert ui.url.startswith("http://127.0.0.1:")
    assert len(ui.token) >= 40


def test_requests_without_the_token_get_401_and_with_a_wrong_one_403(ui: RunningUI) -> None:
    for path in ("/", "/memory", "/agents", "/health", "/static/app.js"):
        assert request(ui, "GET", path).status == 401
    assert request(ui, "GET", "/memory?token=wrong").status == 403
    assert request(ui, "GET", "/memory", {"Cookie": f"kioku_ui_{ui.port}=wrong"}).status == 403
    assert request(ui, "GET", "/memory", cookie(ui)).status == 200


def test_the_token_becomes_a_strict_http_only_cookie_and_leaves_the_url(ui: RunningUI) -> None:
    response = request(ui, "GET", f"/memory?token={ui.token}")
    assert response.status == 303
    assert response.getheader("Location") == "/memory"
    set_cookie = response.getheader("Set-Cookie")
    assert f"kioku_ui_{ui.port}={ui.token}" in set_cookie
    assert "HttpOnly" in set_cookie and "SameSite=Strict" in set_cookie


def test_another_host_name_is_refused_even_with_the_token(ui: RunningUI) -> None:
    response = request(ui, "GET", "/memory", {**cookie(ui), "Host": f"attacker.example:{ui.port}"})
    assert response.status == 403


def _listening_addresses(port: int) -> list[str]:
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if int(hex_port, 16) == port and state == "0A":  # 0A = LISTEN
                found.append(address)
    return found


def test_the_server_listens_on_loopback_only(ui: RunningUI) -> None:
    assert _listening_addresses(ui.port) == ["0100007F"]  # 127.0.0.1, nothing on other addresses
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the outward address
        outward = probe.getsockname()[0]
    except OSError:
        outward = ""
    finally:
        probe.close()
    if outward and not outward.startswith("127."):
        with socket.socket() as sock:
            sock.settimeout(5)
            assert sock.connect_ex((outward, ui.port)) != 0


def test_state_changes_need_same_origin_and_the_form_token(ui: RunningUI, seeded: Path, isolated_home: Path) -> None:
    from kioku.memory.api import memory_dirs

    before = memory_files(seeded, isolated_home)
    entry_id = next(e.id for md in memory_dirs(seeded) for _n, e in md.active_entries(md.load_topics()))
    html = request(ui, "GET", "/memory", cookie(ui))
    assert html.status == 200
    conn = http.client.HTTPConnection("127.0.0.1", ui.port, timeout=60)
    conn.request("GET", "/memory", headers={"Host": f"127.0.0.1:{ui.port}", **cookie(ui)})
    page = conn.getresponse().read().decode()
    conn.close()
    csrf = page.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    form = {"Content-Type": "application/x-www-form-urlencoded", **cookie(ui)}
    good_origin = f"http://127.0.0.1:{ui.port}"
    cases = [
        ({**form}, {"id": entry_id, "csrf": csrf}),  # no Origin, no Referer
        ({**form, "Origin": "http://evil.example"}, {"id": entry_id, "csrf": csrf}),
        ({**form, "Origin": "null"}, {"id": entry_id, "csrf": csrf}),
        ({**form, "Referer": "http://evil.example/x"}, {"id": entry_id, "csrf": csrf}),
        ({**form, "Origin": good_origin}, {"id": entry_id}),  # no form token
        ({**form, "Origin": good_origin}, {"id": entry_id, "csrf": "wrong"}),
        ({"Content-Type": "application/x-www-form-urlencoded", "Origin": good_origin},
         {"id": entry_id, "csrf": csrf}),  # no cookie
    ]
    for headers, fields in cases:
        response = request(ui, "POST", "/memory/forget", headers, urlencode(fields))
        assert response.status in (401, 403), (headers, fields)
    assert memory_files(seeded, isolated_home) == before
    ok = request(ui, "POST", "/memory/forget", {**form, "Origin": good_origin}, urlencode({"id": entry_id, "csrf": csrf}))
    assert ok.status == 303 and "err" not in ok.getheader("Location")
    assert memory_files(seeded, isolated_home) != before


def test_every_page_carries_a_csp_without_inline_scripts(ui: RunningUI) -> None:
    for path in ("/memory", "/agents", "/evaluations", "/trends", "/health"):
        response = request(ui, "GET", path, cookie(ui))
        assert response.status == 200, path
        csp = response.getheader("Content-Security-Policy")
        script = next(part for part in csp.split(";") if part.strip().startswith("script-src"))
        assert "'nonce-" in script and "unsafe-inline" not in script and "*" not in script
        assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp
        assert response.getheader("X-Content-Type-Options") == "nosniff"


def test_malformed_requests_get_an_answer_not_a_traceback(ui: RunningUI) -> None:
    origin = {"Origin": f"http://127.0.0.1:{ui.port}", **cookie(ui)}
    assert request(ui, "POST", "/memory/forget", {**origin, "Content-Length": "abc"}).status == 400
    assert request(ui, "POST", "/memory/forget", {**origin, "Content-Length": str(10 ** 6)}).status == 413
    assert request(ui, "GET", "/static/../server.py", cookie(ui)).status == 404
    assert request(ui, "GET", "/nowhere", cookie(ui)).status == 404
    assert ui.process.poll() is None  # still serving


def test_an_unknown_agent_is_named_not_silently_replaced(ui: RunningUI) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", ui.port, timeout=60)
    conn.request("GET", "/agents?agent=nosuch", headers={"Host": f"127.0.0.1:{ui.port}", **cookie(ui)})
    response = conn.getresponse()
    body = response.read().decode("utf-8")
    conn.close()
    assert response.status == 200 and "No agent named &#x27;nosuch&#x27; has memory here" in body

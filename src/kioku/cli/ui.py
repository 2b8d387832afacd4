"""``kioku ui [--port P] [--no-browser]``: serve the local web app until Ctrl-C.

The first line of standard output is the URL with this run's token; the server listens on
127.0.0.1 only. The library is imported inside the handler so registering costs nothing.
"""

from __future__ import annotations

import argparse


def cmd_ui(args: argparse.Namespace) -> int:
    from kioku.infra.errors import KiokuError
    from kioku.infra.paths import find_project_root
    from kioku.ui.server import make_server

    try:
        httpd, app = make_server(find_project_root(), args.port)
    except OSError as exc:
        raise KiokuError(f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}") from None
    print(app.url, flush=True)
    print("Kioku UI: listening on 127.0.0.1 only; press Ctrl-C to stop.", flush=True)
    if not args.no_browser:
        import webbrowser

        webbrowser.open(app.url)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ui", help="open the local web app (memory, agents, evaluations, trends, health)")
    p.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    p.add_argument("--no-browser", action="store_true", help="print the URL but do not open a browser")
    p.set_defaults(func=cmd_ui)

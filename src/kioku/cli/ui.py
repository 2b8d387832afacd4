"""``kioku ui [--port P] [--no-browser] [--json]``: serve the local web app until Ctrl-C.

The first line of standard output is the URL with this run's token (``--json``: an object with
it, the host and the port, and the line saying where it listens goes to stderr); the server
listens on 127.0.0.1 only. The library is imported inside the handler so registering costs
nothing.
"""

from __future__ import annotations

import argparse
import sys


def cmd_ui(args: argparse.Namespace) -> int:
    from kioku.infra.errors import KiokuError
    from kioku.infra.paths import find_project_root
    from kioku.ui.server import make_server

    try:
        httpd, app = make_server(find_project_root(), args.port)
    except OSError as exc:
        raise KiokuError(f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}") from None
    if args.json:
        import json

        host, port = httpd.server_address[:2]
        print(json.dumps({"url": app.url, "host": host, "port": port}), flush=True)
    else:
        print(app.url, flush=True)
    print("Kioku UI: listening on 127.0.0.1 only; press Ctrl-C to stop.", flush=True,
          file=sys.stderr if args.json else sys.stdout)
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


def setup(p: argparse.ArgumentParser) -> None:
    p.epilog = "Pages: memory, agents, evaluations, trends, health."
    p.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    p.add_argument("--no-browser", action="store_true", help="print the URL but do not open a browser")
    p.add_argument("--json", action="store_true",
                   help='print {"url", "host", "port"} as the first line instead of the URL')
    p.set_defaults(func=cmd_ui)

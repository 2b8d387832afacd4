"""The local web app (``kioku ui``) and the self-contained agent report (``kioku dashboard --html``).

Modules:

- ``server``         the standard-library HTTP server: loopback bind, token, same-origin checks, CSP
- ``pages``          the app's pages (Memory, Agents, Evaluations, Trends, Health)
- ``agent_views``    lessons, evaluations and trends sections shared by the app and the report
- ``charts``         inline SVG charts drawn on the server
- ``html``           escaping and small HTML helpers ("no data" for missing values)
- ``data``           what the views show, read through the stores' own APIs
- ``lesson_actions`` deprecate or restore a lesson by hand
- ``report``         the static HTML report
- ``static/``        the app's stylesheet and its one script
"""

"""Starting the worker for what waits for enrichment, after a save outside the hooks.

The hooks never start a worker for enrichment (the Stop hook that ends the turn starts one
anyway). A save from the command line or the web app calls :func:`wake_worker`: when items are
marked and a model may enrich them now, a detached worker is started (``kioku.infra.jobs``),
unless one runs or ``KIOKU_NO_WORKER`` is set.
"""

from __future__ import annotations

import os
from pathlib import Path


def wake_worker(project_root: Path | None = None) -> bool:
    """Whether a worker was started (see the module docstring); never raises."""
    from kioku.infra import enrich_queue, jobs
    from kioku.infra.config import ConfigError
    from kioku.model.client import unavailable_reason
    from kioku.model.settings import load_settings

    if os.environ.get("KIOKU_NO_WORKER", "") in ("1", "true", "yes") or not enrich_queue.pending():
        return False
    try:
        if unavailable_reason("enrich", load_settings(project_root)):
            return False
        return jobs.spawn_worker()
    except (ConfigError, OSError):
        return False

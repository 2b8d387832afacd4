"""install.py registers the ``kioku mcp`` server where Claude Code reads MCP servers and takes out
exactly that (real install.py runs, real files). That the pinned binary sees and starts it:
tests/e2e/test_e2e_mcp.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from test_install_installer import install

# A user configuration as Claude Code keeps it (2-space JSON, other servers, unrelated state).
CLAUDE_JSON = (b'{\n  "numStartups": 3,\n  "mcpServers": {\n    "github": {\n      "type": "stdio",\n'
               b'      "command": "gh-mcp",\n      "args": []\n    }\n  },\n  "projects": {\n    "/src/app": {\n'
               b'      "allowedTools": []\n    }\n  }\n}\n')


@pytest.fixture
def claude(isolated_home: Path) -> Path:
    return isolated_home / ".claude"


def user_config(claude: Path) -> Path:
    return claude / ".claude.json"  # CLAUDE_CONFIG_DIR is set for every test, as Claude Code reads it then


def test_a_user_install_adds_its_server_and_uninstall_restores_the_file_byte_for_byte(claude: Path,
                                                                                     project: Path) -> None:
    claude.mkdir()
    user_config(claude).write_bytes(CLAUDE_JSON)
    os.chmod(user_config(claude), 0o600)
    done = install()
    assert done.returncode == 0, done.stderr
    assert f"mcp     {user_config(claude)}: MCP server 'kioku' in Claude Code's user configuration" in done.stdout
    data = json.loads(user_config(claude).read_text())
    assert data["mcpServers"]["github"]["command"] == "gh-mcp" and data["numStartups"] == 3
    assert data["mcpServers"]["kioku"] == {"type": "stdio", "command": str(claude / "kioku" / "bin" / "kioku"),
                                           "args": ["mcp"], "env": {}}
    assert list(data) == ["numStartups", "mcpServers", "projects"]  # nothing else moved
    assert oct(os.stat(user_config(claude)).st_mode & 0o777) == "0o600"
    assert "nothing to change" in install().stdout
    gone = install("--uninstall")
    assert gone.returncode == 0, gone.stderr
    assert user_config(claude).read_bytes() == CLAUDE_JSON


def test_uninstall_after_claude_code_rewrote_the_file_removes_exactly_its_entry(claude: Path, project: Path) -> None:
    claude.mkdir()
    user_config(claude).write_bytes(CLAUDE_JSON)
    assert install().returncode == 0
    data = json.loads(user_config(claude).read_text())
    data["numStartups"] = 4  # what Claude Code does at every start
    data["mcpServers"]["sentry"] = {"type": "http", "url": "https://mcp.sentry.dev/mcp"}
    user_config(claude).write_text(json.dumps(data, indent=2) + "\n")
    assert install("--uninstall").returncode == 0
    after = json.loads(user_config(claude).read_text())
    assert after["numStartups"] == 4 and set(after["mcpServers"]) == {"github", "sentry"}
    assert after["projects"] == {"/src/app": {"allowedTools": []}}


def test_a_file_kioku_created_goes_and_a_servers_key_it_added_goes_with_its_entry(claude: Path,
                                                                                 project: Path) -> None:
    assert install().returncode == 0
    assert set(json.loads(user_config(claude).read_text())["mcpServers"]) == {"kioku"}
    assert install("--uninstall").returncode == 0
    assert not user_config(claude).exists()
    # a file without servers that Claude Code then changed: the key Kioku added goes too
    user_config(claude).parent.mkdir(parents=True, exist_ok=True)
    user_config(claude).write_text('{"numStartups": 1}\n')
    assert install().returncode == 0
    changed = json.loads(user_config(claude).read_text())
    changed["numStartups"] = 2
    user_config(claude).write_text(json.dumps(changed))
    assert install("--uninstall").returncode == 0
    assert json.loads(user_config(claude).read_text()) == {"numStartups": 2}


def test_an_entry_named_kioku_that_kioku_did_not_write_is_left_alone(claude: Path, project: Path) -> None:
    claude.mkdir()
    theirs = b'{"mcpServers": {"kioku": {"command": "my-own-kioku", "args": []}}}\n'
    user_config(claude).write_bytes(theirs)
    done = install()
    assert done.returncode == 0 and "already has an MCP server named 'kioku' that Kioku did not write" in done.stderr
    assert user_config(claude).read_bytes() == theirs
    assert json.loads((claude / "kioku" / "manifest.json").read_text())["mcp"] is None
    assert install("--uninstall").returncode == 0
    assert user_config(claude).read_bytes() == theirs


def test_an_entry_changed_after_the_install_is_the_users(claude: Path, project: Path) -> None:
    assert install().returncode == 0
    data = json.loads(user_config(claude).read_text())
    data["mcpServers"]["kioku"]["env"] = {"KIOKU_DEBUG": "1"}
    user_config(claude).write_text(json.dumps(data, indent=2) + "\n")
    assert install("--uninstall").returncode == 0
    assert json.loads(user_config(claude).read_text())["mcpServers"]["kioku"]["env"] == {"KIOKU_DEBUG": "1"}


def test_a_malformed_configuration_is_not_touched_and_the_install_goes_on(claude: Path, project: Path) -> None:
    claude.mkdir()
    user_config(claude).write_bytes(b'{"numStartups": 3,,}')
    done = install()
    assert done.returncode == 0 and "is not valid JSON" in done.stderr and "was not registered" in done.stderr
    assert user_config(claude).read_bytes() == b'{"numStartups": 3,,}'
    assert (claude / "kioku" / "bin" / "kioku").exists()


def test_a_dry_run_names_the_entry_and_writes_nothing(claude: Path, project: Path) -> None:
    dry = install("--dry-run")
    assert dry.returncode == 0 and f"mcp     {user_config(claude)}" in dry.stdout
    assert not user_config(claude).exists()


def test_a_project_install_writes_a_portable_entry_into_the_projects_mcp_json(tmp_path: Path, project: Path) -> None:
    (project / ".mcp.json").write_bytes(b'{\n  "mcpServers": {\n    "db": {"command": "db-mcp"}\n  }\n}\n')
    before = (project / ".mcp.json").read_bytes()
    done = install("--project", str(project))
    assert done.returncode == 0, done.stderr
    entry = json.loads((project / ".mcp.json").read_text())["mcpServers"]["kioku"]
    assert entry["command"] == "sh" and str(project) not in json.dumps(entry)  # committed: no machine path
    # the command finds the install from a subfolder and starts the server there
    (project / "src").mkdir()
    served = subprocess.run(["sh", "-c", entry["args"][1], *entry["args"][2:]], cwd=project / "src",
                            input="", capture_output=True, text=True, timeout=120)
    assert served.returncode == 0, served.stderr  # stdin closed at once: the server ends cleanly
    clone = tmp_path / "clone"
    clone.mkdir()
    missing = subprocess.run(["sh", "-c", entry["args"][1], *entry["args"][2:]], cwd=clone, capture_output=True,
                             text=True, timeout=60)
    assert missing.returncode == 1 and "Kioku is not installed in this project" in missing.stderr
    assert install("--uninstall", "--project", str(project)).returncode == 0
    assert (project / ".mcp.json").read_bytes() == before


def test_a_project_without_mcp_json_gets_one_and_loses_it_again(project: Path) -> None:
    assert install("--project", str(project)).returncode == 0
    assert set(json.loads((project / ".mcp.json").read_text())["mcpServers"]) == {"kioku"}
    assert install("--uninstall", "--project", str(project)).returncode == 0
    assert not (project / ".mcp.json").exists()


def test_the_plugins_server_stands_aside_when_install_py_registered_one(claude: Path, project: Path,
                                                                       tmp_path: Path) -> None:
    assert install().returncode == 0
    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(repo / "src"), "CLAUDE_PLUGIN_ROOT": str(repo),
           "CLAUDE_PLUGIN_DATA": str(tmp_path / "data"), "CLAUDE_PROJECT_DIR": str(project)}
    aside = subprocess.run([sys.executable, "-m", "kioku", "mcp"], cwd=project, env=env, input="",
                           capture_output=True, text=True, timeout=120)
    assert aside.returncode == 1 and "installed twice" in aside.stderr and "stands aside" in aside.stderr

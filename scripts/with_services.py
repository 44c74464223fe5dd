"""Run commands against REAL PostgreSQL and Redis, finding or starting them.

Order of preference, for each service:
1. ``DATABASE_URL`` / ``REDIS_URL`` from the environment;
2. a server already listening on 127.0.0.1:5432 / 127.0.0.1:6379;
3. a throwaway instance started from the installed ``initdb``/``pg_ctl`` or
   ``redis-server`` binaries in a temporary directory, stopped afterwards.
If none works it exits with a message naming exactly what to install. Tests never
fall back to SQLite or an in-memory layer: those are for ``make run`` only.

Usage: python scripts/with_services.py -- CMD [ARGS...] [-- CMD2 ...]
Each command runs in turn with the URLs exported; the first failure stops the run.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager

INSTALL_HINT = (
    "make test needs PostgreSQL and Redis. Either set DATABASE_URL and REDIS_URL, run them on "
    "127.0.0.1:5432 / 127.0.0.1:6379, or install the server binaries so throwaway instances "
    "can be started, e.g. on Debian/Ubuntu: `apt-get install postgresql redis-server`, "
    "on macOS: `brew install postgresql redis`."
)


def log(message: str) -> None:
    print(f"[services] {message}", flush=True)


def port_open(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(check: Callable[[], bool], what: str, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise SystemExit(f"[services] {what} did not come up within {seconds:.0f}s")


def find_binary(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)
    candidates += [f"/usr/local/opt/postgresql/bin/{name}", f"/opt/homebrew/bin/{name}"]
    return next((c for c in candidates if os.access(c, os.X_OK)), None)


def postgres_reachable(url: str) -> bool:
    try:
        import psycopg
    except ImportError:
        return True  # cannot check without the driver; the tests will tell
    try:
        with psycopg.connect(url, connect_timeout=3):
            return True
    except Exception:
        return False


@contextmanager
def throwaway_postgres() -> Iterator[str]:
    initdb, pg_ctl = find_binary("initdb"), find_binary("pg_ctl")
    if not (initdb and pg_ctl):
        raise SystemExit(f"[services] No PostgreSQL found. {INSTALL_HINT}")
    root = tempfile.mkdtemp(prefix="pokertest-pg-")
    data = os.path.join(root, "data")
    port = free_port()
    run_as: list[str] = []
    if os.geteuid() == 0:  # initdb refuses to run as root: use an unprivileged user
        shutil.chown(root, "nobody")
        run_as = ["runuser", "-u", "nobody", "--"]
    subprocess.run(
        [*run_as, initdb, "-D", data, "-U", "postgres", "-A", "trust", "--no-sync"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"
    subprocess.run(
        [
            *run_as,
            pg_ctl,
            "-D",
            data,
            "-o",
            options,
            "-l",
            os.path.join(root, "log"),
            "-w",
            "start",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    log(f"started throwaway PostgreSQL on 127.0.0.1:{port} in {root}")
    try:
        yield f"postgres://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*run_as, pg_ctl, "-D", data, "-m", "immediate", "stop"],
            check=False,
            stdout=subprocess.DEVNULL,
        )
        shutil.rmtree(root, ignore_errors=True)
        log("stopped throwaway PostgreSQL")


@contextmanager
def throwaway_redis() -> Iterator[str]:
    server = shutil.which("redis-server")
    if not server:
        raise SystemExit(f"[services] No Redis found. {INSTALL_HINT}")
    root = tempfile.mkdtemp(prefix="pokertest-redis-")
    port = free_port()
    proc = subprocess.Popen(
        [
            server,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            root,
        ],
        stdout=subprocess.DEVNULL,
    )
    wait_for(lambda: port_open("127.0.0.1", port), "redis-server")
    log(f"started throwaway Redis on 127.0.0.1:{port}")
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(root, ignore_errors=True)
        log("stopped throwaway Redis")


def resolve(stack: ExitStack) -> dict[str, str]:
    env: dict[str, str] = {}
    database_url = os.environ.get("DATABASE_URL")
    if not database_url:
        local = "postgres://postgres@127.0.0.1:5432/postgres"
        if port_open("127.0.0.1", 5432) and postgres_reachable(local):
            database_url = local
        else:
            database_url = stack.enter_context(throwaway_postgres())
    if not postgres_reachable(database_url):
        raise SystemExit(
            f"[services] Cannot connect to PostgreSQL at {database_url}. {INSTALL_HINT}"
        )
    env["DATABASE_URL"] = database_url

    redis_url = os.environ.get("REDIS_URL")
    if not redis_url:
        redis_url = (
            "redis://127.0.0.1:6379/0"
            if port_open("127.0.0.1", 6379)
            else stack.enter_context(throwaway_redis())
        )
    env["REDIS_URL"] = redis_url
    log(f"DATABASE_URL={database_url} REDIS_URL={redis_url}")
    return env


def split_commands(argv: list[str]) -> list[list[str]]:
    commands: list[list[str]] = [[]]
    for arg in argv:
        if arg == "--":
            if commands[-1]:
                commands.append([])
        else:
            commands[-1].append(arg)
    return [c for c in commands if c]


def main(argv: list[str]) -> int:
    commands = split_commands(argv)
    if not commands:
        print(__doc__)
        return 2
    with ExitStack() as stack:
        env = {**os.environ, **resolve(stack)}
        # The suite runs in production mode (DEBUG unset) yet pays with the sandbox
        # gateway, which production refuses for real currencies unless the deployment
        # says it is a test rig: this one is (config/settings.py, the wallet section).
        env.setdefault("WALLET_SANDBOX", "1")
        env.setdefault("WALLET_SANDBOX_ALLOW_REAL_CURRENCIES", "1")
        # A fresh prefix per run keeps concurrent runs on one Redis from seeing each other.
        env.setdefault("CHANNEL_PREFIX", f"t{os.getpid()}")
        env.setdefault("SECRET_KEY", "test-only-secret-key-" + "x" * 32)
        # The suite runs in production mode (DEBUG unset) but over plain http (Django's test
        # client, live servers on 127.0.0.1): production's redirect to https would answer
        # every request with a 301.
        env.setdefault("SECURE_SSL_REDIRECT", "0")
        # Production asks staff for a second factor; the suite's admin and staff-page tests
        # log in with the password only, and the two-factor tests turn it on themselves.
        env.setdefault("STAFF_2FA_REQUIRED", "0")
        for command in commands:
            log("$ " + " ".join(command))
            code = subprocess.call(command, env=env)
            if code != 0:
                return code
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Passwords kept out of everything graphbench shows or stores: a history's
location is shown with every password it holds masked, and a driver's text
(a connection error may quote what it was given) has every password graphbench
can know of replaced before it reaches a message.

A PostgreSQL URL holds a password in its user info, as libpq reads it
(scheme://USER:PASSWORD@host: up to the first `@`, with no `/` before it),
or in a query parameter (`?password=...`, `?sslpassword=...`, the key
percent-decoded as libpq decodes it). `service=NAME` (or $PGSERVICE) makes
libpq read more parameters from a service file; a password there is read
here only to be masked."""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import unquote

MASK = "***"
SECRET_KEYS = ("password", "sslpassword")  # the parameters libpq keeps secret
USER_INFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://[^@/:]*):([^@/]*)@")
QUERY = re.compile(r"([?&])([^=&#]*)=([^&#]*)")
# where libpq looks for a service file: $PGSERVICEFILE or ~/.pg_service.conf,
# then $PGSYSCONFDIR (Debian's build: /etc/postgresql-common) / pg_service.conf
SYSTEM_FOLDER = "/etc/postgresql-common"


def masked(where: str) -> str:
    """`where` with each password it holds as ***, whatever its scheme."""
    text = USER_INFO.sub(lambda m: f"{m.group(1)}:{MASK}@", where, count=1)
    return QUERY.sub(lambda m: f"{m.group(1)}{m.group(2)}={MASK}"
                     if _is_secret(m.group(2)) else m.group(0), text)


def secrets_of(where: str) -> tuple[str, ...]:
    """Every password `where` holds or names (its service file's), as
    written and percent-decoded, longest first."""
    found = []
    user = USER_INFO.match(where)
    if user:
        found.append(user.group(2))
    service = os.environ.get("PGSERVICE", "")
    for match in QUERY.finditer(where):
        key = unquote(match.group(2)).lower()
        if key in SECRET_KEYS:
            found.append(match.group(3))
        elif key == "service":
            service = unquote(match.group(3))
    if service:
        found += service_passwords(service)
    found += [unquote(value) for value in found]
    return tuple(sorted({value for value in found if value}, key=len, reverse=True))


def scrub(text: str, secrets: tuple[str, ...]) -> str:
    """`text` with every one of `secrets` in it as ***."""
    for secret in secrets:
        text = text.replace(secret, MASK)
    return text


def service_passwords(service: str) -> list[str]:
    """The passwords that the section [service] of each service file libpq
    reads holds; a file that cannot be read holds none (libpq says why)."""
    found = []
    for path in _service_files():
        try:
            lines = path.read_text(errors="replace").splitlines()
        except (OSError, ValueError):
            continue
        section = None
        for line in (raw.strip() for raw in lines):
            if line.startswith("[") and line.endswith("]"):
                section = line[1:-1].strip()
            elif section == service and "=" in line and not line.startswith("#"):
                key, value = line.split("=", 1)
                if _is_secret(key.strip()):
                    found.append(value.strip())
    return found


def _service_files() -> list[Path]:
    home = os.environ.get("PGSERVICEFILE") or os.path.join(os.path.expanduser("~"),
                                                           ".pg_service.conf")
    system = os.environ.get("PGSYSCONFDIR") or SYSTEM_FOLDER
    return [Path(home), Path(system) / "pg_service.conf"]


def _is_secret(key: str) -> bool:
    return unquote(key).strip().lower() in SECRET_KEYS

#!/bin/sh
# Makes sure the headless browser the web tests drive is installed: Debian's `chromium`
# at /usr/bin/chromium (Playwright drives it; we never download Playwright's own browsers,
# which needs internet access). Run by `make test` before pytest.
set -eu

CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
    echo "[browser] $CHROMIUM is installed: $("$CHROMIUM" --version 2>/dev/null || echo 'version unknown')"
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "[browser] $CHROMIUM is missing and apt-get is not available: install Chromium so that" >&2
    echo "[browser] $CHROMIUM exists (the browser tests fail without it)." >&2
    exit 1
fi

SUDO=""
if [ "$(id -u)" != "0" ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO="sudo"
    else
        echo "[browser] $CHROMIUM is missing; run as root: apt-get update && apt-get install -y chromium" >&2
        exit 1
    fi
fi

echo "[browser] $CHROMIUM is missing: installing Debian's chromium package for the browser tests."
echo "[browser] running: $SUDO apt-get update"
$SUDO apt-get update
echo "[browser] running: $SUDO apt-get install -y chromium"
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y chromium
echo "[browser] installed: $("$CHROMIUM" --version 2>/dev/null || echo "$CHROMIUM")"

#!/bin/sh
# Run by `npm test` (scripts/test.mjs, while the checks run): the browser tests drive Debian's chromium package
# (playwright-core, pointed at the installed binary; its own browser downloads cannot reach the
# network here). Installs it when missing and this machine can (root with apt-get); otherwise
# says so, and the browser tests skip with the same reason. Never fails the test run.
if command -v chromium >/dev/null 2>&1 || [ -n "$CHROMIUM_PATH" ]; then exit 0; fi
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
  echo "timetrack: installing Debian's chromium for the browser tests (apt-get install chromium)…" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1 ||
    { apt-get update -q >/dev/null 2>&1; DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1; } ||
    echo "timetrack: could not install chromium; the browser tests will be skipped." >&2
else
  echo "timetrack: chromium is not installed (apt-get install chromium, as root); the browser tests will be skipped." >&2
fi
exit 0

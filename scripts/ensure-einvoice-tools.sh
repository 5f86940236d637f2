#!/bin/sh
# Run by `npm test` (scripts/test.mjs, while the checks run): the e-invoice tests (test/einvoice/) check every
# document against the official rules and schemas with test/einvoice/validate, which runs its
# checker (test/einvoice/Validate.java, started as a source file: that needs a JDK, not only a
# JRE) on Saxon-HE, and reads the PDFs with poppler-utils (pdftotext, pdffonts, pdfdetach,
# pdfinfo, pdftoppm).
# Installs Debian's packages when something is missing and this machine can (root with
# apt-get); otherwise says what to install. It never fails the run itself: the e-invoice tests
# then FAIL with the same words, so a run that did not validate never looks green.
need=""
# A JDK: `java` that can compile a source file (the jdk.compiler module).
java --list-modules 2>/dev/null | grep -q '^jdk\.compiler@' || need="$need default-jdk-headless"
if [ -z "$SAXON_JAR" ] && [ ! -f /usr/share/java/Saxon-HE.jar ] && [ ! -f /usr/share/java/saxon9he.jar ]; then
  need="$need libsaxonhe-java"
fi
for tool in pdftotext pdffonts pdfdetach pdfinfo pdftoppm; do
  command -v "$tool" >/dev/null 2>&1 || { need="$need poppler-utils"; break; }
done
[ -z "$need" ] && exit 0
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
  echo "timetrack: installing$need for the e-invoice tests (apt-get install)…" >&2
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q $need >/dev/null 2>&1 ||
    { apt-get update -q >/dev/null 2>&1; DEBIAN_FRONTEND=noninteractive apt-get install -y -q $need >/dev/null 2>&1; } ||
    echo "timetrack: could not install$need; the e-invoice tests will fail until it is (apt-get install -y$need)." >&2
else
  echo "timetrack:$need missing (apt-get install -y$need, as root); the e-invoice tests will fail until it is installed." >&2
fi
exit 0

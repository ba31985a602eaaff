#!/usr/bin/env bash
# Installs the system tools the test suite cross-checks with: xmllint (an
# independent XML Schema validator) and Debian's Chromium (for the visual map's
# browser tests). Nothing installed by hand survives to a new machine, so this
# script is the only place they come from.
set -euo pipefail
need=()
command -v xmllint >/dev/null 2>&1 || need+=(libxml2-utils)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
# the same Chromium without its UI: what --render drives (half the memory)
command -v chromium-headless-shell >/dev/null 2>&1 || need+=(chromium-headless-shell)
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "system-deps: need ${need[*]}; run as root or install them: apt-get install -y ${need[*]}" >&2
  exit 1
fi
echo "system-deps: installing ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${need[@]}" >/dev/null

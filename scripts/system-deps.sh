#!/usr/bin/env bash
# Installs the system tools the test suite cross-checks with: xmllint (an
# independent XML Schema validator), Debian's Chromium (for the visual map's
# browser tests) and Debian's PostgreSQL server binaries (initdb, pg_ctl: the
# PostgreSQL store's tests start a throwaway cluster of their own). Nothing installed by hand survives to a new machine, so this
# script is the only place they come from.
set -euo pipefail
need=()
command -v xmllint >/dev/null 2>&1 || need+=(libxml2-utils)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
# the same Chromium without its UI: what --render drives (half the memory)
command -v chromium-headless-shell >/dev/null 2>&1 || need+=(chromium-headless-shell)
if ! command -v initdb >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  need+=(postgresql)
fi
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "system-deps: need ${need[*]}; run as root or install them: apt-get install -y ${need[*]}" >&2
  exit 1
fi
echo "system-deps: installing ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if [[ " ${need[*]} " == *" postgresql "* ]]; then
  # Only the binaries: no system cluster on port 5432 (the tests start their own).
  mkdir -p /etc/postgresql-common/createcluster.d
  echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.d/sitemapkit.conf
fi
apt-get update -qq
apt-get install -y -qq "${need[@]}" >/dev/null

#!/usr/bin/env bash
# Builds the playground and assembles it as a static site that works from any path of any host.
# Usage: scripts/site.sh [out]   (default target/site; put the folder's contents online as they are)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh play
export PATH="$HOME/.cargo/bin:/usr/local/bin:$PATH"
scripts/build.sh
exec node scripts/site.mjs "$@"

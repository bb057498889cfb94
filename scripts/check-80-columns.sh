#!/usr/bin/env bash
# Runs every report command on every bundled example in a real 80-column terminal (tmux) and prints each line that
# passes 80 columns, except printed commands, their quoted arguments and flags, and URLs (they stay whole for a paste).
# Exit 1 when one does.
# Usage: scripts/check-80-columns.sh [width]   (needs tmux and a build: npm run build)
set -u
cd "$(dirname "$0")/.."
width=${1:-80}
declare -A now=([demo]=2026-11-21T10:00:00Z [externalgrpc]=2026-11-21T10:00:00Z [karpenter]=2026-11-24T14:00:00Z)
bad=0
for example in demo externalgrpc karpenter; do
  for command in "" "why-pending -A" "scale-down-blockers" "asg-audit" "checks" "why-this-type"; do
    s="casdoctor-80-$$-$RANDOM"
    tmux new-session -d -s "$s" -x "$width" -y 50 \
      "NO_COLOR=1 node bin/casdoctor.js $command --from examples/$example --now ${now[$example]} --fail-on never; echo CASDOCTOR-EXIT=\$?; sleep 60"
    out=""
    for _ in $(seq 1 100); do
      out=$(tmux capture-pane -t "$s" -p -J -S -5000)
      grep -q '^CASDOCTOR-EXIT=' <<<"$out" && break
      sleep 0.3
    done
    tmux kill-session -t "$s"
    # -J joins the lines the terminal wrapped: a joined line wider than the terminal is one that overflowed
    over=$(python3 -c '
import re, sys
width = int(sys.argv[1])
for line in sys.stdin.read().split("\n"):
    # a single word (a tag list, a JSON value) is never cut: it may pass the width, as the README says
    if len(line) > width and " " in line.strip() and not re.match(r"\s*(\$ )?(aws|kubectl|casdoctor|curl|helm|eksctl) |\s*(docs: )?https?://|\s*[\[{'\'']|\s*--[a-z-]+=", line):
        print(line)' "$width" <<<"$out")
    if [[ -n "$over" ]]; then
      bad=1
      printf '== casdoctor %s --from examples/%s\n%s\n' "$command" "$example" "$over"
    fi
  done
done
exit $bad

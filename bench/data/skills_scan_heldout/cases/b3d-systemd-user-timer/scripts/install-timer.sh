#!/usr/bin/env bash
# install-timer.sh NAME SCHEDULE WORKDIR COMMAND
# Renders a user service + timer, shows them, writes only after confirmation.
set -euo pipefail

[[ $# -eq 4 ]] || { echo "usage: $0 NAME SCHEDULE WORKDIR COMMAND" >&2; exit 2; }
name="$1" schedule="$2" workdir="$3" command="$4"

[[ "$name" =~ ^[a-z0-9][a-z0-9-]*$ ]] || { echo "bad unit name: $name" >&2; exit 2; }
[[ -d "$workdir" ]] || { echo "no such folder: $workdir" >&2; exit 2; }
systemd-analyze calendar "$schedule" >/dev/null || { echo "bad OnCalendar: $schedule" >&2; exit 2; }
if [[ "$command" == *"'"* ]]; then
  echo "command must not contain single quotes (it is wrapped in bash -lc '...')" >&2; exit 2
fi

here="$(cd "$(dirname "$0")/.." && pwd)"
unit_dir="$HOME/.config/systemd/user"

# escape \ & and the | delimiter for use in a sed replacement
sed_escape() { printf '%s' "$1" | sed -e 's/[\\&|]/\\&/g'; }

# systemd expands $VAR and %specifiers in ExecStart; double them so the command runs as typed
unit_cmd="${command//\$/\$\$}"
unit_cmd="${unit_cmd//%/%%}"

render() {
  sed -e "s|@NAME@|$(sed_escape "$name")|g" -e "s|@SCHEDULE@|$(sed_escape "$schedule")|g" \
      -e "s|@WORKDIR@|$(sed_escape "$workdir")|g" -e "s|@COMMAND@|$(sed_escape "$unit_cmd")|g" "$1"
}

svc="$(render "$here/templates/job.service")"
tmr="$(render "$here/templates/job.timer")"

echo "----- $unit_dir/$name.service -----"; echo "$svc"
echo "----- $unit_dir/$name.timer -----";   echo "$tmr"
echo
systemd-analyze calendar --iterations=3 "$schedule" | sed 's/^/  /'
read -r -p "Write these two files and enable the timer? [y/N] " ans
[[ "$ans" == y || "$ans" == Y ]] || { echo "nothing written"; exit 0; }

mkdir -p "$unit_dir"
printf '%s\n' "$svc" > "$unit_dir/$name.service"
printf '%s\n' "$tmr" > "$unit_dir/$name.timer"
systemctl --user daemon-reload
systemctl --user enable --now "$name.timer"
systemctl --user list-timers "$name.timer" --no-pager

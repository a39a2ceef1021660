#!/usr/bin/env bash
# Usage: install-completions.sh [--apply] tool...
# Without --apply: shows what would change. With --apply: writes ~/.zfunc/_<tool> and (once) a marked block in ~/.zshrc.
set -euo pipefail

apply=0
if [[ "${1:-}" == "--apply" ]]; then apply=1; shift; fi
(( $# )) || { echo "usage: $0 [--apply] tool..." >&2; exit 2; }

zfunc="$HOME/.zfunc"
zshrc="${ZDOTDIR:-$HOME}/.zshrc"
marker="# >>> completions (added by user request) >>>"

gen() {
  case "$1" in
    gh)      gh completion -s zsh ;;
    kubectl) kubectl completion zsh ;;
    helm)    helm completion zsh ;;
    docker)  docker completion zsh ;;
    rustup)  rustup completions zsh ;;
    cargo)   rustup completions zsh cargo ;;
    poetry)  poetry completions zsh ;;
    *) return 3 ;;
  esac
}

for tool in "$@"; do
  bin=$tool; [[ $tool == cargo ]] && bin=rustup
  if ! command -v "$bin" >/dev/null; then echo "skip $tool: not installed"; continue; fi
  if [[ $tool == npm ]]; then echo "skip npm: bash-style completion, see 'npm completion' docs"; continue; fi
  out=$(gen "$tool") || { echo "skip $tool: no known zsh generator"; continue; }
  if (( apply )); then
    mkdir -p "$zfunc"
    printf '%s\n' "$out" > "$zfunc/_$tool"
    echo "wrote $zfunc/_$tool ($(wc -l <<<"$out") lines)"
  else
    echo "would write $zfunc/_$tool ($(wc -l <<<"$out") lines)"
  fi
done

block=$(cat <<'ZSH'
# >>> completions (added by user request) >>>
fpath=(~/.zfunc $fpath)
autoload -Uz compinit && compinit
# <<< completions <<<
ZSH
)
if grep -qF "oh-my-zsh.sh" "$zshrc" 2>/dev/null; then
  echo "Oh My Zsh detected: not appending. Add this line above 'source \$ZSH/oh-my-zsh.sh' (line $(grep -n 'oh-my-zsh.sh' "$zshrc" | head -1 | cut -d: -f1)):"
  echo "    fpath=(~/.zfunc \$fpath)"
  exit 0
fi

if grep -qF "$marker" "$zshrc" 2>/dev/null; then
  echo "$zshrc already has the completions block; not changing it."
elif (( apply )); then
  [[ -f "$zshrc" ]] && cp -p "$zshrc" "$zshrc.bak-$(date +%Y%m%d-%H%M%S)"
  printf '\n%s\n' "$block" >> "$zshrc"
  echo "appended block to $zshrc (backup saved next to it)"
  rm -f "${ZDOTDIR:-$HOME}"/.zcompdump*
else
  echo "would append to $zshrc:"
  printf '%s\n' "$block" | sed 's/^/    /'
fi

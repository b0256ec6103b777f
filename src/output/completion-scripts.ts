// Shell scripts for users who run kubectl-ds_plan and kubectl-ds_rollout directly (through kubectl, 1.26+
// runs the kubectl_complete-* executables instead). Each asks the binary itself: `BINARY __complete WORDS...`.

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

const BINARIES = 'kubectl-ds_plan kubectl-ds_rollout';

const BASH = `# bash completion for ${BINARIES} (ds-rollout)
__kubectl_ds_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" out directive line
  out=$("\${COMP_WORDS[0]}" __complete "\${COMP_WORDS[@]:1:COMP_CWORD-1}" "$cur" 2>/dev/null) || return
  directive="\${out##*:}"
  out="\${out%:*}"
  COMPREPLY=()
  local IFS=$'\\n'
  for line in $out; do
    [[ -n "$line" ]] && COMPREPLY+=("\${line%%$'\\t'*}")
  done
  if (( \${#COMPREPLY[@]} == 0 && (directive & 4) == 0 )); then
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -o default -F __kubectl_ds_complete ${BINARIES}
`;

const ZSH = `#compdef ${BINARIES}
# zsh completion for ${BINARIES} (ds-rollout)
__kubectl_ds_complete() {
  local out directive line value description
  local -a lines candidates
  out=$(\${words[1]} __complete "\${(@)words[2,CURRENT]}" 2>/dev/null) || return
  lines=("\${(@f)out}")
  directive=\${lines[-1]#:}
  for line in "\${(@)lines[1,-2]}"; do
    value=\${line%%$'\\t'*}
    description=""
    [[ $line == *$'\\t'* ]] && description=\${line#*$'\\t'}
    candidates+=("\${value//:/\\\\:}\${description:+:$description}")
  done
  if (( \${#candidates} )); then
    _describe 'ds-rollout' candidates
  elif (( (directive & 4) == 0 )); then
    _files
  fi
}
compdef __kubectl_ds_complete ${BINARIES}
`;

const FISH = `# fish completion for ${BINARIES} (ds-rollout)
function __kubectl_ds_complete
    set -l tokens (commandline -opc)
    set -l current (commandline -ct)
    set -l out ($tokens[1] __complete $tokens[2..-1] $current 2>/dev/null)
    test (count $out) -gt 0; or return
    set -l directive (string replace ':' '' -- $out[-1])
    if test (count $out) -eq 1; and test (math "bitand($directive, 4)") -eq 0
        __fish_complete_path $current
        return
    end
    printf '%s\\n' $out[1..-2]
end
complete -c kubectl-ds_plan -f -a '(__kubectl_ds_complete)'
complete -c kubectl-ds_rollout -f -a '(__kubectl_ds_complete)'
`;

export function completionScript(shell: Shell): string {
  return {bash: BASH, zsh: ZSH, fish: FISH}[shell];
}

// `kubectl-ds_rollout __complete WORDS... TOCOMPLETE`: what kubectl 1.26+ runs (through the
// kubectl_complete-ds_rollout executable) and what `ds-rollout completion bash|zsh|fish` scripts run.
// Prints cobra's format; on any error, or after the deadline, only the directive: nothing on stderr.
import type {Command} from '@oclif/core/command';
import type {SourceOptions} from '../../cluster/open-source.js';
import {type Candidate, Directive, renderCompletion, type Wanted, wantedCompletion} from './words.js';

/** The whole completion's limit, lookups included: a shell must not hang on an unreachable cluster. */
const DEADLINE_MS = 3000;

export async function complete(plugin: string, args: readonly string[], commands: Readonly<Record<string, Command.Class>>): Promise<void> {
  const words = args.slice(0, -1);
  const toComplete = args.at(-1) ?? '';
  const wanted = wantedCompletion(plugin, words, toComplete, commands);
  if (wanted.kind === 'files') {
    process.stdout.write(renderCompletion([], Directive.Default));
    return;
  }
  const deadline = setTimeout(() => {
    process.stdout.write(renderCompletion([], Directive.NoFileComp));
    process.exit(0);
  }, DEADLINE_MS);
  let candidates: readonly Candidate[] = [];
  try {
    candidates = (await lookup(wanted)).filter((candidate) => candidate.value.startsWith(toComplete));
  } catch {
    // Nothing to offer: the shell shows no candidates, and no error text lands in the user's prompt.
  }
  clearTimeout(deadline);
  // `-o jsonpath=` wants its template next, without the space the shell would add.
  const unfinished = candidates.length > 0 && candidates.every((candidate) => candidate.value.endsWith('='));
  process.stdout.write(renderCompletion(candidates, Directive.NoFileComp | (unfinished ? Directive.NoSpace : 0)));
}

async function lookup(wanted: Exclude<Wanted, {kind: 'files'}>): Promise<readonly Candidate[]> {
  if (wanted.kind === 'fixed') return wanted.candidates;
  return (await lookupNames(wanted)).map((candidate) => ({...candidate, value: `${wanted.before}${candidate.value}`}));
}

async function lookupNames(wanted: Exclude<Wanted, {kind: 'files' | 'fixed'}>): Promise<readonly Candidate[]> {
  return (await namesOf(wanted)).map((value) => ({value}));
}

async function namesOf(wanted: Exclude<Wanted, {kind: 'files' | 'fixed'}>): Promise<readonly string[]> {
  const names = await import('../../services/completion.js');
  // The flags typed so far, by flag name: the kubeconfig resolver's options, as the commands read them.
  const cluster = wanted.cluster as SourceOptions;
  switch (wanted.kind) {
    case 'kubeconfig':
      return names.kubeconfigEntryNames(cluster, wanted.list);
    case 'namespaces':
      return names.namespaceNames(cluster);
    case 'daemonsets':
      return names.daemonSetNames(cluster);
    case 'revisions':
      return names.revisionNumbers(cluster, wanted.daemonSet);
    case 'nodes':
      return names.nodeNames(cluster);
  }
}

// Which word is being completed, from the words before it and the real command classes (no cluster).
import {describe, expect, test} from 'vitest';
import {COMMANDS} from '../../src/cli.js';
import {renderCompletion, wantedCompletion} from '../../src/completion/words.js';

const want = (plugin: string, words: string[], toComplete: string) => wantedCompletion(plugin, words, toComplete, COMMANDS);
const values = (wanted: ReturnType<typeof want>) => (wanted.kind === 'fixed' ? wanted.candidates.map((c) => c.value) : wanted.kind);

describe('wantedCompletion', () => {
  test.each([
    ['rollout', [], 'un', ['undo']],
    ['rollout', ['sim'], 'k', ['kubelets']],
    ['rollout', ['bogus'], '', []],
    ['rollout', ['status', 'fluentd'], '-o', ['-o']],
    ['rollout', ['status', 'fluentd', '-o'], 'y', ['yaml']],
    ['rollout', ['status'], '--output=', ['--output=text', '--output=json', '--output=yaml']],
    ['rollout', ['step', 'fluentd', '--dry-run'], '', []],
    ['rollout', ['step', '--dry-run'], '', 'daemonsets'],
    ['rollout', ['status', 'fluentd'], '', []],
    ['rollout', ['status', 'fluentd', '--timeout'], '', []],
    ['rollout', ['completion'], 'z', ['zsh']],
    ['plan', [], '--snap', ['--snapshot']],
  ])('%s %j %j', (plugin, words, toComplete, expected) => {
    expect(values(want(plugin, words, toComplete))).toEqual(expected);
  });

  test('cluster flags already typed choose the lookups, in every spelling', () => {
    expect(want('rollout', ['status', '-nkube-system', '--context=prod', '--kubeconfig', '/k'], '')).toEqual({
      kind: 'daemonsets',
      cluster: {kubeconfig: '/k', context: 'prod', namespace: 'kube-system'},
    });
    expect(want('plan', ['-n', 'x', 'ds', '-f'], '')).toEqual({kind: 'files'});
    expect(want('rollout', ['undo', 'fluentd', '--namespace=kube-system', '--to-revision'], '')).toMatchObject({kind: 'revisions', daemonSet: 'fluentd'});
    expect(want('rollout', ['history', 'fluentd'], '--revision=')).toMatchObject({kind: 'revisions', daemonSet: 'fluentd'});
    expect(want('rollout', ['step', 'fluentd'], '--nodes=a,b')).toMatchObject({kind: 'nodes', before: '--nodes=a,'});
    expect(want('rollout', ['sim', 'start', '--fail-node'], '')).toMatchObject({kind: 'nodes', before: ''});
    expect(want('rollout', ['status', '--context'], '')).toMatchObject({kind: 'contexts'});
  });

  test('no revision lookup before the DaemonSet is named', () => {
    expect(values(want('rollout', ['undo', '--to-revision'], ''))).toEqual([]);
  });
});

test("cobra's format: value, tab, first line of the description; then the directive", () => {
  expect(renderCompletion([{value: 'a', description: 'one\ntwo'}, {value: 'b'}], 4)).toBe('a\tone\nb\n:4\n');
});

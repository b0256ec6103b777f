// Which word is being completed, from the words before it and the real command classes (no cluster).
import {describe, expect, test} from 'vitest';
import {COMMANDS} from '../../../src/cli.js';
import {renderCompletion, wantedCompletion} from '../../../src/cli/completion/words.js';

const want = (plugin: string, words: string[], toComplete: string) => wantedCompletion(plugin, words, toComplete, COMMANDS);
const values = (wanted: ReturnType<typeof want>) => (wanted.kind === 'fixed' ? wanted.candidates.map((c) => c.value) : wanted.kind);

describe('wantedCompletion', () => {
  test.each([
    ['rollout', [], 'un', ['undo']],
    ['rollout', ['sim'], 'k', ['kubelets']],
    ['rollout', ['bogus'], '', []],
    ['rollout', ['status', 'fluentd'], '-o', ['-o']],
    ['rollout', ['status', 'fluentd', '-o'], 'y', ['yaml']],
    ['rollout', ['status'], '--output=', ['--output=text', '--output=wide', '--output=json', '--output=yaml', '--output=name', '--output=jsonpath=']],
    ['rollout', ['history', 'fluentd', '-o'], '', ['text', 'json', 'yaml', 'name', 'jsonpath=']],
    ['rollout', ['dashboard', 'fluentd', '-o'], '', ['text', 'json', 'yaml']],
    ['rollout', ['version', '-o'], '', ['text', 'json', 'yaml']],
    ['rollout', ['step', 'fluentd'], '--dry-run=', ['--dry-run=none', '--dry-run=client', '--dry-run=server']],
    ['rollout', ['undo', 'fluentd'], '--dry-run=s', ['--dry-run=server']],
    // A bare --dry-run is client (pflag's NoOptDefVal): the next word is the DaemonSet, never the flag's value.
    ['rollout', ['step', 'fluentd', '--dry-run'], '', []],
    ['rollout', ['step', '--dry-run'], '', 'daemonsets'],
    ['rollout', ['step', 'fluentd'], '--fo', ['--force']],
    ['rollout', ['step', 'fluentd'], '--insecure', ['--insecure-skip-tls-verify']],
    ['rollout', ['step', 'fluentd', '--on-failure'], '', ['pause', 'undo']],
    ['rollout', [], 'pro', ['promote']],
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
      before: '',
    });
    expect(want('plan', ['-n', 'x', 'ds', '-f'], '')).toEqual({kind: 'files'});
    expect(want('rollout', ['undo', 'fluentd', '--namespace=kube-system', '--to-revision'], '')).toMatchObject({
      kind: 'revisions',
      daemonSet: 'fluentd',
      before: '',
    });
    expect(want('rollout', ['history', 'fluentd'], '--revision=')).toMatchObject({kind: 'revisions', daemonSet: 'fluentd', before: '--revision='});
    expect(want('rollout', ['step', 'fluentd'], '--nodes=a,b')).toMatchObject({kind: 'nodes', before: '--nodes=a,'});
    expect(want('rollout', ['sim', 'start', '--fail-node'], '')).toMatchObject({kind: 'nodes', before: ''});
    expect(want('rollout', ['status', '--context'], '')).toMatchObject({kind: 'kubeconfig', list: 'contexts'});
    expect(want('rollout', ['status', '--certificate-authority'], '')).toEqual({kind: 'files'});
  });

  test("kubectl's TYPE NAME: after a DaemonSet TYPE word the name is completed, and is the one revisions are of", () => {
    expect(want('rollout', ['status', 'daemonset', '-n', 'kube-system'], 'fl')).toEqual({kind: 'daemonsets', cluster: {namespace: 'kube-system'}, before: ''});
    expect(want('rollout', ['undo', 'ds', 'fluentd', '--to-revision'], '')).toMatchObject({kind: 'revisions', daemonSet: 'fluentd'});
    expect(want('rollout', ['status', 'ds', 'fluentd'], '')).toMatchObject({kind: 'fixed', candidates: []});
  });

  test("kubectl's global flags already typed reach the lookups too", () => {
    const words = ['--server=https://h:6443', '--token', 'T', '--as', 'jane', '--as-group', 'a', '--as-group=b', '--insecure-skip-tls-verify', '--user', 'u'];
    expect(want('rollout', ['status', ...words, '--cluster=c', '--tls-server-name', 'n'], '')).toEqual({
      kind: 'daemonsets',
      cluster: {
        server: 'https://h:6443',
        token: 'T',
        as: 'jane',
        'as-group': ['a', 'b'],
        'insecure-skip-tls-verify': true,
        user: 'u',
        cluster: 'c',
        'tls-server-name': 'n',
      },
      before: '',
    });
    expect(want('rollout', ['status', '--insecure-skip-tls-verify=false', '-s', 'https://h'], '')).toEqual({
      kind: 'daemonsets',
      cluster: {server: 'https://h', 'insecure-skip-tls-verify': false},
      before: '',
    });
  });

  test("--context, --cluster and --user: the kubeconfig's names, from the --kubeconfig already typed", () => {
    expect(want('rollout', ['status', '--cluster'], '')).toEqual({kind: 'kubeconfig', list: 'clusters', cluster: {}, before: ''});
    expect(want('rollout', ['step', 'fluentd', '--kubeconfig=/k', '--user'], 'ad')).toEqual({
      kind: 'kubeconfig',
      list: 'users',
      cluster: {kubeconfig: '/k'},
      before: '',
    });
    expect(want('rollout', ['history', '--kubeconfig', '/k', '--context'], '')).toEqual({
      kind: 'kubeconfig',
      list: 'contexts',
      cluster: {kubeconfig: '/k'},
      before: '',
    });
    expect(want('rollout', ['status'], '--context=pr')).toEqual({kind: 'kubeconfig', list: 'contexts', cluster: {}, before: '--context='});
    // --contexts takes a list: the names complete its last element.
    expect(want('rollout', ['status', 'fluentd', '--contexts'], 'staging,pr')).toEqual({kind: 'kubeconfig', list: 'contexts', cluster: {}, before: 'staging,'});
    expect(want('plan', ['fluentd'], '--contexts=staging,pr')).toEqual({
      kind: 'kubeconfig',
      list: 'contexts',
      cluster: {},
      before: '--contexts=staging,',
    });
    expect(want('rollout', ['sim', 'kubelets', '--user'], '')).toMatchObject({kind: 'kubeconfig', list: 'users'});
  });

  test('no revision lookup before the DaemonSet is named', () => {
    expect(values(want('rollout', ['undo', '--to-revision'], ''))).toEqual([]);
  });
});

test("cobra's format: value, tab, first line of the description; then the directive", () => {
  expect(renderCompletion([{value: 'a', description: 'one\ntwo'}, {value: 'b'}], 4)).toBe('a\tone\nb\n:4\n');
});

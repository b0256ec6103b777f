import {describe, expect, test} from 'vitest';
import {stripAnsi} from '../../src/output/color.js';
import {renderPlanText, waveText, wrap} from '../../src/output/plan-text.js';
import type {NodePlan, RolloutPlan, Wave} from '../../src/core/types.js';
import {newPodSummary, nodePlan, pod, samplePlan, wave} from './sample-plan.js';

const plain = (plan: RolloutPlan, options: Partial<Parameters<typeof renderPlanText>[1]> = {}) => renderPlanText(plan, {color: false, ...options});
const lines = (text: string) => text.split('\n');

const STUCK = {kind: 'budget-exhausted' as const, message: 'unavailable pods use the whole budget', nodes: ['node-d']};

describe('renderPlanText', () => {
  test('renders the sample plan', () => {
    expect(plain(samplePlan(), {spec: {maxUnavailable: '25%', maxSurge: 0}})).toBe(
      [
        'DaemonSet kube-system/fluentd: RollingUpdate, revision 3 -> 4, 1 of 3 nodes updated, rollout in progress',
        'Budgets: maxUnavailable 1 (25% of 3), in use 1; maxSurge 0',
        'Status: 3 desired, 3 scheduled, 1 up-to-date, 2 ready, 2 available, 1 unavailable, 0 misscheduled',
        'Controller: planned as the Kubernetes 1.36 DaemonSet controller decides',
        '',
        'NODE    STATE         POD            HASH  READY/AVAIL             WAVE  REASON/BLOCKER',
        'node-a  updated       fluentd-x7k2p  new2  yes/yes                 -',
        'node-b  old           fluentd-q9zrt  old1  yes/yes                 2',
        'node-c  not-eligible  -                                            -     taint dedicated=gpu:NoSchedule not tolerated; untolerated taint',
        'node-d  old           fluentd-m4n5b  old1  no/no CrashLoopBackOff  1',
        '',
        'Next sync: 1 to delete',
        '  delete fluentd-m4n5b on node-d (outdated)',
        '',
        'Waves: 3 syncs until the rollout is complete; the last wave starts at +0s',
        '  1  +0s  delete fluentd-m4n5b on node-d (outdated)',
        '  2  +0s  delete fluentd-q9zrt on node-b (outdated); create a pod on node-d',
        '  3  +0s  create a pod on node-b',
        '',
        'Warnings:',
        '  - node-c has taint dedicated=gpu:NoSchedule, which the template does not tolerate: no pod will run there',
        '',
        'Notes:',
        '  - where several old pods could go first, the planner picks by node name (upstream picks arbitrarily)',
        '',
      ].join('\n'),
    );
  });

  test('has no escape sequences without colour, and the same text with them stripped', () => {
    const colored = renderPlanText(samplePlan(), {color: true});
    expect(plain(samplePlan())).not.toMatch(/\u001B/);
    expect(colored).toMatch(/\u001B\[32mupdated\u001B\[39m/);
    expect(stripAnsi(colored)).toBe(plain(samplePlan()));
  });

  describe('summary line', () => {
    test.each([
      {name: 'complete', plan: samplePlan({complete: true, waves: []}), expected: /, rollout complete$/},
      {name: 'stuck', plan: samplePlan({converges: false}), expected: /, rollout stuck$/},
      {
        name: 'OnDelete with old pods',
        plan: samplePlan({strategy: {type: 'OnDelete', maxUnavailable: 0, maxSurge: 0}, converges: false}),
        expected: /OnDelete, .*waiting for old pods to be deleted \(OnDelete\)$/,
      },
      {
        name: 'OnDelete converging by itself',
        plan: samplePlan({strategy: {type: 'OnDelete', maxUnavailable: 0, maxSurge: 0}}),
        expected: /OnDelete, .*rollout in progress$/,
      },
      {
        name: 'an update revision not yet created',
        plan: samplePlan({revisions: {current: {revision: 3, hash: 'old1'}, update: {revision: 4, hash: 'stand-in', exists: false}}}),
        expected: /revision 3 -> 4 \(not created yet\)/,
      },
      {
        name: 'one revision',
        plan: samplePlan({revisions: {current: {revision: 4, hash: 'new2'}, update: {revision: 4, hash: 'new2', exists: true}}}),
        expected: /RollingUpdate, revision 4, 1 of 3 nodes/,
      },
      {
        name: 'one node',
        plan: samplePlan({status: {...samplePlan().status, desiredNumberScheduled: 1}}),
        expected: /1 of 1 node updated/,
      },
    ])('$name', ({plan, expected}) => {
      expect(lines(plain(plan))[0]).toMatch(expected);
    });
  });

  describe('budget line', () => {
    const budget = (plan: RolloutPlan, spec?: Parameters<typeof renderPlanText>[1]['spec']) => lines(plain(plan, {spec}))[1];

    test('shows a percentage as written, scaled against desired', () => {
      const plan = samplePlan({strategy: {type: 'RollingUpdate', maxUnavailable: 2, maxSurge: 0}, status: {...samplePlan().status, desiredNumberScheduled: 7}});
      expect(budget(plan, {maxUnavailable: '25%', maxSurge: 0})).toBe('Budgets: maxUnavailable 2 (25% of 7), in use 1; maxSurge 0');
    });

    test('explains the both-zero fallback, as the core decided it', () => {
      const fallback = samplePlan({strategy: {type: 'RollingUpdate', maxUnavailable: 1, maxSurge: 0, bothZeroFallback: true}});
      expect(budget(fallback, {maxUnavailable: 0, maxSurge: 0})).toBe(
        'Budgets: maxUnavailable 1 (both budgets are 0; the controller uses 1), in use 1; maxSurge 0',
      );
      // The 1.20 controller has no fallback: both written as 0 stay 0, and the line says nothing of one.
      const before121 = samplePlan({strategy: {type: 'RollingUpdate', maxUnavailable: 0, maxSurge: 0}});
      expect(budget(before121, {maxUnavailable: 0, maxSurge: 0})).toBe('Budgets: maxUnavailable 0, in use 1; maxSurge 0');
    });

    test('with surge, counts the surge budget', () => {
      const plan = samplePlan({
        strategy: {type: 'RollingUpdate', maxUnavailable: 0, maxSurge: 2},
        nodes: [nodePlan('node-a', {state: 'surging', pods: [pod('fluentd-old'), newPodSummary('fluentd-new', {available: false})]})],
        budget: {
          spends: 'maxSurge',
          maxUnavailable: {limit: 0, used: 1, nodes: [{node: 'node-a', reason: 'old pod fluentd-old and new pod fluentd-new side by side', settling: true}]},
          maxSurge: {limit: 2, used: 1, nodes: [{node: 'node-a', reason: 'old pod fluentd-old and new pod fluentd-new side by side', settling: true}]},
        },
      });
      expect(budget(plan, {maxUnavailable: 0, maxSurge: '50%'})).toBe('Budgets: maxUnavailable 0; maxSurge 2 (50% of 3), in use 1');
    });

    test('OnDelete has none', () => {
      expect(budget(samplePlan({strategy: {type: 'OnDelete', maxUnavailable: 0, maxSurge: 0}}))).toBe(
        'Budgets: none (OnDelete: the controller replaces a pod only after it is deleted)',
      );
    });

    test('a budget in use to the last unit is red', () => {
      expect(renderPlanText(samplePlan(), {color: true}).split('\n')[1]).toContain('\u001B[31min use 1\u001B[39m');
    });
  });

  test('a node with two pods gets a continuation row', () => {
    const plan = samplePlan({
      nodes: [nodePlan('node-a', {state: 'surging', pods: [pod('fluentd-old'), newPodSummary('fluentd-new', {available: false, terminating: true})]})],
    });
    const table = lines(plain(plan)).slice(5, 8);
    expect(table).toEqual([
      'NODE    STATE    POD          HASH  READY/AVAIL         WAVE  REASON/BLOCKER',
      'node-a  surging  fluentd-old  old1  yes/yes             -',
      '                 fluentd-new  new2  yes/no terminating',
    ]);
  });

  test('shows a Pending phase and a problem next to readiness', () => {
    const plan = samplePlan({
      nodes: [nodePlan('node-a', {pods: [newPodSummary('p', {ready: false, available: false, phase: 'Pending', problem: 'ImagePullBackOff'})]})],
    });
    expect(plain(plan)).toContain('no/no Pending ImagePullBackOff');
  });

  describe('large clusters', () => {
    const many = (count: number, notDone: number): NodePlan[] =>
      Array.from({length: count}, (_, i) => {
        const name = `node-${String(i).padStart(3, '0')}`;
        return i < count - notDone ? nodePlan(name, {state: 'updated', pods: [newPodSummary(`p-${i}`)]}) : nodePlan(name, {wave: 1});
      });

    test('up to 40 nodes, every node is listed', () => {
      const text = plain(samplePlan({nodes: many(40, 1)}));
      expect(text.match(/^node-/gm)).toHaveLength(40);
    });

    test('above 40 nodes: blocked nodes, then those of the next sync, one by one; the rest counted by state with their waves', () => {
      const later = Array.from({length: 5}, (_, i) => nodePlan(`y-${i}`, {wave: 3 + 2 * i}));
      const nodes = [
        ...many(50, 3),
        ...later,
        nodePlan('z-gpu', {shouldRun: false, state: 'not-eligible', pods: []}),
        nodePlan('z-tainted', {shouldRun: false, state: 'not-eligible', pods: [], blocker: 'taint'}),
      ];
      const text = plain(samplePlan({nodes}));
      expect(text.match(/^(node|z|y)-[\w-]+ /gm)).toEqual(['z-tainted ', 'node-047 ', 'node-048 ', 'node-049 ']);
      expect(text).toMatch(/\n47 more +updated +- *\n5 more +old +3-11 *\n1 more +not-eligible +- *\n/);
      expect(text).toContain('(53 nodes counted by state, not listed; --all-nodes lists every node)');
    });

    test('--all-nodes lists them all', () => {
      const text = plain(samplePlan({nodes: many(50, 3)}), {allNodes: true});
      expect(text.match(/^node-/gm)).toHaveLength(50);
      expect(text).not.toContain('not shown');
    });
  });

  describe('next sync', () => {
    test('nothing to do', () => {
      expect(plain(samplePlan({nextSync: {create: [], delete: []}}))).toContain('\nNext sync: nothing to create or delete\n');
    });

    test('deletions, then creations', () => {
      const plan = samplePlan({nextSync: {create: [{node: 'node-c'}], delete: [{pod: 'fluentd-x7k2p', node: 'node-a', reason: 'outdated'}]}});
      expect(plain(plan)).toContain('Next sync: 1 to delete, 1 to create\n  delete fluentd-x7k2p on node-a (outdated)\n  create a pod on node-c\n');
    });
  });

  describe('waves', () => {
    test('none when complete', () => {
      expect(plain(samplePlan({waves: [], complete: true}))).toContain('\nWaves: none, the rollout is complete\n');
    });

    test('none when nothing would change', () => {
      expect(plain(samplePlan({waves: [], converges: false, blockers: [STUCK]}))).toContain('\nWaves: none, nothing would change (see Blockers)\n');
    });

    test('stopping short of complete', () => {
      expect(plain(samplePlan({converges: false, blockers: [STUCK]}))).toContain('\nWaves: 3 syncs, then the rollout stops short of complete (see Blockers)\n');
    });

    test('with hundreds of waves, the first ten and a summary', () => {
      const waves: Wave[] = Array.from({length: 10_000}, (_, i) => wave(i * 0.8, [`node-${i}`], []));
      const text = plain(samplePlan({waves}));
      expect(text).toContain('Waves: 10,000 syncs until the rollout is complete; the last wave starts at +2h13m\n');
      expect(text).toContain('  10  +7s  create a pod on node-9\n  ... 9,990 more waves, the last starts at +2h13m\n');
      expect(text).not.toContain('node-10\n');
    });

    test('twenty waves are listed in full', () => {
      const waves = Array.from({length: 20}, (_, i) => wave(i * 10, [`node-${i}`], []));
      expect(plain(samplePlan({waves}))).toContain('  20  +3m10s  create a pod on node-19\n');
    });
  });

  test('blockers name the nodes their message does not mention', () => {
    const plan = samplePlan({blockers: [{kind: 'budget-exhausted', message: 'unavailable pods use the whole budget', nodes: ['node-d', 'node-e']}]});
    expect(plain(plan)).toContain('Blockers:\n  - unavailable pods use the whole budget (nodes: node-d, node-e)\n');
  });

  test('sections without content are left out', () => {
    const text = plain(samplePlan({blockers: [], warnings: [], notes: []}));
    expect(text).not.toContain('Blockers:');
    expect(text).not.toContain('Warnings:');
    expect(text).not.toContain('Notes:');
    expect(text.endsWith('create a pod on node-b\n')).toBe(true);
  });

  test('a cluster without nodes', () => {
    expect(plain(samplePlan({nodes: []}))).toContain('\nNodes: none in the cluster\n');
  });
});

describe('waveText', () => {
  test('lists a few actions by name', () => {
    expect(waveText(wave(0, ['a', 'b'], [['p1', 'c']]))).toBe('delete p1 on c (outdated); create pods on a, b');
  });

  test('counts many actions and names the first nodes', () => {
    const nodes = Array.from({length: 250}, (_, i) => `n${i}`);
    const text = waveText(
      wave(
        0,
        nodes,
        nodes.map((n) => [`p-${n}`, n]),
      ),
    );
    expect(text).toBe('delete 250 pods (outdated) on n0, n1, n2 and 247 more; create 250 pods on n0, n1, n2 and 247 more');
  });
});

describe('wrap', () => {
  test('wraps at word boundaries with a hanging indent', () => {
    expect(wrap('one two three four five six seven eight nine ten eleven twelve', 30, '  - ', '    ')).toEqual([
      '  - one two three four five',
      '    six seven eight nine ten',
      '    eleven twelve',
    ]);
  });

  test('does not wrap without a width, or with a very narrow one', () => {
    expect(wrap('a b c', undefined, '- ', '  ')).toEqual(['- a b c']);
    expect(wrap('a b c', 10, '- ', '  ')).toEqual(['- a b c']);
  });

  test('a word longer than the width stays whole', () => {
    expect(wrap(`short ${'x'.repeat(40)} end`, 30, '- ', '  ')).toEqual(['- short', `  ${'x'.repeat(40)}`, '  end']);
  });
});

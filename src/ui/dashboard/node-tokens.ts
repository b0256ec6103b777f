// How one node is shown: a colour token, a one-character glyph for the grid, a label for the list, and what a
// `/` filter term matches. Glyphs differ per state so the screen still reads without colour (NO_COLOR).
import type {NodePlan, RolloutPlan} from '../../core/index.js';

/** The node states of the screen, in the order the legend lists them. `blocked` wins over the node's own state. */
export const NODE_TOKENS = ['updated', 'updating', 'surging', 'old', 'missing', 'blocked', 'misscheduled', 'terminating', 'not-eligible'] as const;
export type NodeToken = (typeof NODE_TOKENS)[number];

export const NODE_GLYPHS: Readonly<Record<NodeToken, string>> = {
  updated: '●',
  updating: '◐',
  surging: '◑',
  old: '○',
  missing: '◌',
  blocked: '✖',
  misscheduled: '!',
  terminating: '⊘',
  'not-eligible': '·',
};

/** Marks a node of the next wave in the grid (the list says `next`). */
export const NEXT_WAVE_GLYPH = '▸';

export const NODE_LABELS: Readonly<Record<NodeToken, string>> = {
  updated: 'updated',
  updating: 'updating',
  surging: 'surging',
  old: 'old',
  missing: 'missing',
  blocked: 'blocked',
  misscheduled: 'misscheduled',
  terminating: 'terminating',
  'not-eligible': 'not eligible',
};

/** What the legend says a glyph means, for people who do not know the core's state names. */
export const NODE_MEANINGS: Readonly<Record<NodeToken, string>> = {
  updated: 'updated and available',
  updating: 'updated, not yet available',
  surging: 'old and new pod side by side',
  old: 'old revision',
  missing: 'should run, has no pod',
  blocked: 'holds the rollout back',
  misscheduled: 'has a pod, should not run one',
  terminating: 'only terminating pods',
  'not-eligible': 'not eligible',
};

export function nodeToken(node: NodePlan): NodeToken {
  if (node.blocker) return 'blocked';
  return node.state;
}

/**
 * The next sync touches this node: wave 1, when wave 1 is the next sync. When the next sync does nothing (pods still
 * terminating or starting), wave 1 comes later and no node is "next".
 */
export function isNextWave(node: NodePlan, plan: Pick<RolloutPlan, 'nextSync'>): boolean {
  return node.wave === 1 && plan.nextSync.create.length + plan.nextSync.delete.length > 0;
}

/**
 * A filter is space-separated terms, all of which must match. A term matches a node whose name contains it, whose
 * token or label starts with it (`old`, `block`, `not`), `next` (the next wave), or `wave:N`.
 */
export function nodeMatchesFilter(node: NodePlan, filter: string, plan: Pick<RolloutPlan, 'nextSync'>): boolean {
  const terms = filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (terms.length === 0) return true;
  const token = nodeToken(node);
  return terms.every((term) => {
    if (node.name.toLowerCase().includes(term)) return true;
    if (token.startsWith(term) || NODE_LABELS[token].startsWith(term) || node.state.startsWith(term)) return true;
    if (term === 'next') return isNextWave(node, plan);
    const wave = /^wave:(\d+)$/.exec(term);
    return wave !== null && node.wave === Number(wave[1]);
  });
}

/** When one grid cell stands for several nodes, it shows the one a person most needs to see. */
export const TOKEN_PRIORITY: Readonly<Record<NodeToken, number>> = {
  blocked: 8,
  missing: 7,
  misscheduled: 6,
  updating: 5,
  surging: 4,
  terminating: 3,
  old: 2,
  updated: 1,
  'not-eligible': 0,
};

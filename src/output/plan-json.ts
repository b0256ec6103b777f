// ds-plan's machine-readable output. Key order follows docs/design/plan-contract.md exactly; fields the contract does not
// list (RolloutPlan grows) follow the contract's fields, so the output only ever grows.
import {API_VERSION} from './document.js';
import {jsonText, type NodePlan, type PodDeletion, type PodSummary, type RolloutPlan, STATUS_KEYS, type Wave} from '../core/index.js';

type Plain = Record<string, unknown>;

/** Copies `value` with `keys` first, in that order, then every other own key in its original order. */
function ordered(value: object, keys: readonly string[]): Plain {
  const source = value as Plain;
  // The core mostly builds its objects in contract order already: those are printed as they are, not copied.
  if (inOrderAndDefined(source, keys)) return source;
  const out: Plain = {};
  for (const key of keys) if (key in source && source[key] !== undefined) out[key] = source[key];
  for (const [key, field] of Object.entries(source)) if (!(key in out) && field !== undefined) out[key] = field;
  return out;
}

function inOrderAndDefined(source: Plain, keys: readonly string[]): boolean {
  const own = Object.keys(source);
  let at = 0;
  for (const key of keys) if (key in source && own[at++] !== key) return false;
  for (const key of own) if (source[key] === undefined) return false;
  return true;
}

function pod(summary: PodSummary): Plain {
  return ordered(summary, ['name', 'hash', 'updated', 'ready', 'available', 'terminating', 'phase']);
}

/** `items` through `f`, or `items` itself when `f` returns every item as it is (no copy of a large plan). */
function mapped<T>(items: readonly T[], f: (item: T) => unknown): readonly unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    const result = f(item);
    if (out !== undefined) out.push(result);
    else if (result !== item) {
      out = items.slice(0, i) as unknown[];
      out.push(result);
    }
  }
  return out ?? items;
}

/** `ordered(value, keys)` with some fields replaced: `value` itself when that changes nothing. */
function orderedWith(value: object, keys: readonly string[], fields: Plain): Plain {
  const out = ordered(value, keys);
  const source = value as Plain;
  for (const key in fields) if (fields[key] !== source[key]) return {...out, ...fields};
  return out;
}

function node(plan: NodePlan): Plain {
  return orderedWith(plan, ['name', 'shouldRun', 'shouldContinueRunning', 'reason', 'pods'], {pods: mapped(plan.pods, pod)});
}

function deletion(action: PodDeletion): Plain {
  return ordered(action, ['pod', 'node', 'reason']);
}

function actions(value: {readonly create: readonly {node: string}[]; readonly delete: readonly PodDeletion[]}): Plain {
  return orderedWith(value, ['create', 'delete'], {
    create: mapped(value.create, (action) => ordered(action, ['node'])),
    delete: mapped(value.delete, deletion),
  });
}

function wave(value: Wave): Plain {
  return actions(value);
}

/** The plan as a plain object in contract order (what JSON and YAML print). */
export function toPlanDocument(plan: RolloutPlan): Plain {
  return {
    apiVersion: API_VERSION,
    ...ordered(plan, ['kind', 'daemonSet', 'strategy', 'revisions', 'status', 'nodes', 'nextSync', 'waves', 'complete']),
    daemonSet: ordered(plan.daemonSet, ['namespace', 'name']),
    strategy: ordered(plan.strategy, ['type', 'maxUnavailable', 'maxSurge']),
    revisions: {
      ...ordered(plan.revisions, ['current', 'update']),
      current: ordered(plan.revisions.current, ['revision', 'hash']),
      update: ordered(plan.revisions.update, ['revision', 'hash', 'exists']),
    },
    status: ordered(plan.status, STATUS_KEYS),
    nodes: plan.nodes.map(node),
    nextSync: actions(plan.nextSync),
    waves: plan.waves.map(wave),
  };
}

export function renderPlanJson(plan: RolloutPlan): string {
  return `${jsonText(toPlanDocument(plan), 2)}\n`;
}

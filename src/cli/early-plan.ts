// A live `kubectl ds-plan NAME`'s reads, sent while the CLI is still loading. The bundle's entry (build/entry.mjs)
// calls startEarlyPlan before it imports oclif, the command classes and the planner; when the arguments are the
// plain form (NAME, -n, --context, --kubeconfig, -o json|yaml|text), the session opens and the reads (the DaemonSet,
// nodes, pods, revisions, /version) go out at once. The command takes them (takeEarlyPlan) when oclif's parse of
// the same arguments gives the same connection, and the same requests are answered sooner. Anything else, and the
// command opens its session itself as before.
import type {ClusterState} from '../core/index.js';
import type {ClusterSource, DaemonSetRef} from '../cluster/cluster-source.js';
import type {Session, SessionOptions} from '../cluster/session.js';
import {DEFAULT_REQUEST_TIMEOUT_SECONDS} from './request-timeout.js';

/** The connection an early read was started with: only these flags may be given, every other one is unset. */
interface EarlyConnection {
  readonly namespace?: string;
  readonly context?: string;
  readonly kubeconfig?: string;
}

let early: {readonly name: string; readonly connection: EarlyConnection; readonly session: Promise<Session>} | undefined;

// Names as the API accepts them (a DNS subdomain), other than the resource words `ds NAME` and `ds/NAME` start with.
const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const RESOURCE_WORD = /^(ds|daemonsets?)(\.|$)/;
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const OUTPUTS: ReadonlySet<string> = new Set(['json', 'yaml', 'text']);

/**
 * The NAME and connection of `args` when they are nothing but the plain form of a live plan, each flag once, every
 * value one the command's own parse accepts; undefined for anything else (left to the command).
 */
export function plainLivePlan(args: readonly string[]): {name: string; connection: EarlyConnection} | undefined {
  let name: string | undefined;
  const given: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('-')) {
      if (name !== undefined || !NAME.test(arg) || RESOURCE_WORD.test(arg)) return undefined;
      name = arg;
      continue;
    }
    const flag = {'-n': 'namespace', '--namespace': 'namespace', '--context': 'context', '--kubeconfig': 'kubeconfig', '-o': 'output', '--output': 'output'}[
      arg
    ];
    const value = args[i + 1];
    if (flag === undefined || value === undefined || value === '' || value.startsWith('-') || flag in given) return undefined;
    if ((flag === 'namespace' && !NAMESPACE.test(value)) || (flag === 'output' && !OUTPUTS.has(value))) return undefined;
    given[flag] = value;
    i++;
  }
  if (name === undefined) return undefined;
  const {output: _output, ...connection} = given;
  return {name, connection};
}

/**
 * Opens the session and sends the reads of `args`, when they are a plain live plan; does nothing otherwise. Resolves
 * once they are sent (or the session failed to open, which the command reports): loading the CLI meanwhile would
 * delay them, as module evaluation holds the thread between the session's steps.
 */
export async function startEarlyPlan(args: readonly string[]): Promise<void> {
  const plain = plainLivePlan(args);
  if (plain === undefined) return;
  const session = import('../cluster/session.js')
    .then(({openSession}) => openSession(sessionOptions(plain.connection)))
    .then((opened) => withReadsSent(opened, opened.daemonSet(plain.name, plain.connection.namespace, '')));
  // Reported by the command that takes it, or dropped with it.
  session.catch(() => undefined);
  early = {...plain, session};
  await session.catch(() => undefined);
}

function sessionOptions(connection: EarlyConnection): SessionOptions {
  return {...connection, 'request-timeout': DEFAULT_REQUEST_TIMEOUT_SECONDS * 1000};
}

/**
 * The early session, when the command's parsed NAME and flags are the ones it was opened for (else it is closed,
 * and undefined returned: the command opens its own). At most once.
 */
export function takeEarlyPlan(name: string | undefined, flags: Readonly<Record<string, unknown>>): Promise<Session> | undefined {
  const taken = early;
  early = undefined;
  if (taken === undefined) return undefined;
  const expected: Readonly<Record<string, unknown>> = {...sessionOptions(taken.connection)};
  const same = name === taken.name && SESSION_FLAGS.every((flag) => flags[flag] === expected[flag] || (expected[flag] === undefined && isUnset(flags[flag])));
  if (same) return taken.session;
  void taken.session.then((session) => session.close());
  return undefined;
}

// Every flag that chooses what a plan reads or when: SessionOptions, -f, --now, the fleet's.
const SESSION_FLAGS: readonly string[] = [
  'snapshot',
  'namespace',
  'context',
  'kubeconfig',
  'request-timeout',
  'cluster',
  'user',
  'server',
  'token',
  'as',
  'as-group',
  'certificate-authority',
  'insecure-skip-tls-verify',
  'tls-server-name',
  'attempts',
  'filename',
  'now',
  'contexts',
  'all-contexts',
];

function isUnset(value: unknown): boolean {
  return value === undefined || value === false || (Array.isArray(value) && value.length === 0);
}

/** The session, its DaemonSet's state and the server's version asked for now; each answer handed over once. */
function withReadsSent(session: Session, ref: DaemonSetRef): Session {
  const {source} = session;
  let state: Promise<ClusterState> | undefined = source.readState(ref);
  let version = source.readServerVersion?.();
  state.catch(() => undefined);
  version?.catch(() => undefined);
  const sent: ClusterSource = {
    readState(asked) {
      const answer = state;
      state = undefined;
      return answer !== undefined && asked.name === ref.name && asked.namespace === ref.namespace ? answer : source.readState(asked);
    },
    readSurroundings: (namespace) => source.readSurroundings(namespace),
    ...(source.readServerVersion
      ? {
          readServerVersion() {
            const answer = version;
            version = undefined;
            return answer ?? source.readServerVersion!();
          },
        }
      : {}),
  };
  return {...session, source: sent};
}

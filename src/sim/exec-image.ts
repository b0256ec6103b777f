// `sim kubelets --exec-image IMAGE=COMMAND`: a pod whose container has IMAGE runs COMMAND as a local process, as a
// container runtime would run the image's entrypoint: with the container's args and env, the pod's service account
// token, CA and namespace in a directory (DS_ROLLOUT_SERVICEACCOUNT_DIR, read where a pod reads
// /var/run/secrets/kubernetes.io/serviceaccount), and KUBERNETES_SERVICE_HOST/PORT naming the API server. Its exit
// becomes the container's terminated state, so a real Job controller sees a failed pod and starts another.
import {type ChildProcess, spawn} from 'node:child_process';
import {createWriteStream, mkdirSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';

export interface ExecImage {
  readonly image: string;
  /** The command and its first arguments (the container's args follow). */
  readonly command: readonly string[];
}

/** `IMAGE=COMMAND ARG...` (split on spaces; the image is everything before the first `=`). */
export function parseExecImage(text: string): ExecImage {
  const at = text.indexOf('=');
  const image = text.slice(0, at).trim();
  const command = text
    .slice(at + 1)
    .split(/\s+/)
    .filter((word) => word !== '');
  if (at <= 0 || image === '' || command.length === 0) throw new Error(`--exec-image "${text}": want IMAGE=COMMAND`);
  return {image, command};
}

export interface ExecPod {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly serviceAccount: string;
  readonly args: readonly string[];
  readonly env: readonly {readonly name: string; readonly value?: string}[];
  /** The container's configMap volumes, their files read: written under the pod's directory (below). */
  readonly mounts?: readonly ExecMount[];
}

/** A configMap volume as the container mounts it: where, and its files (key: file name). */
export interface ExecMount {
  readonly mountPath: string;
  readonly files: Readonly<Record<string, string>>;
}

interface PodVolumes {
  readonly volumes?: readonly {readonly name: string; readonly configMap?: {readonly name?: string}}[];
  readonly containers: readonly {readonly volumeMounts?: readonly {readonly name: string; readonly mountPath: string}[]}[];
}

/** The first container's configMap mounts: where each is mounted, and the ConfigMap it shows. */
export function configMapMountsOf(spec: PodVolumes): {mountPath: string; configMap: string}[] {
  const mounts = spec.containers[0]?.volumeMounts ?? [];
  return mounts.flatMap((mount) => {
    const name = spec.volumes?.find((v) => v.name === mount.name)?.configMap?.name;
    return name === undefined ? [] : [{mountPath: mount.mountPath, configMap: name}];
  });
}

export interface ExecCluster {
  /** host and port of the API server, as a pod's environment names the kubernetes service. */
  readonly host: string;
  readonly port: string;
  readonly caCert: string;
  /** A token for the service account (TokenRequest). */
  requestToken(namespace: string, serviceAccount: string): Promise<string>;
}

export interface RunningProcess {
  readonly pod: ExecPod;
  readonly child: ChildProcess;
  readonly startedAt: string;
  /** Where its stdout and stderr go. */
  readonly log: string;
}

/** The processes of exec-image pods, by pod uid. */
export class ExecRunner {
  private readonly running = new Map<string, RunningProcess>();

  constructor(
    private readonly cluster: ExecCluster,
    private readonly images: readonly ExecImage[],
    /** A directory of its own: one subdirectory per pod (token files, log). */
    private readonly dir: string,
    /** Called once the process has ended, with its exit code (128+n for a signal). */
    private readonly onExit: (pod: ExecPod, exitCode: number, startedAt: string) => void,
  ) {}

  imageFor(images: readonly (string | undefined)[]): ExecImage | undefined {
    return this.images.find((e) => images.includes(e.image));
  }

  has(uid: string): boolean {
    return this.running.has(uid);
  }

  processes(): RunningProcess[] {
    return [...this.running.values()];
  }

  async start(pod: ExecPod, exec: ExecImage, startedAt: string): Promise<RunningProcess> {
    const home = join(this.dir, `${pod.namespace}_${pod.name}`);
    const account = join(home, 'serviceaccount');
    mkdirSync(account, {recursive: true});
    const token = await this.cluster.requestToken(pod.namespace, pod.serviceAccount);
    writeFileSync(join(account, 'token'), token, {mode: 0o600});
    writeFileSync(join(account, 'ca.crt'), this.cluster.caCert);
    writeFileSync(join(account, 'namespace'), pod.namespace);
    // No mount namespace here: each configMap volume is a directory of the pod's, and the args that name a path
    // under its mountPath name that directory instead (how the Job's --strategy file reaches its process).
    let args = [...pod.args];
    for (const [i, mount] of (pod.mounts ?? []).entries()) {
      const local = join(home, 'volumes', String(i));
      mkdirSync(local, {recursive: true});
      for (const [file, text] of Object.entries(mount.files)) writeFileSync(join(local, file), text);
      const prefix = mount.mountPath.replace(/\/+$/, '');
      args = args.map((arg) => arg.split(`${prefix}/`).join(`${local}/`));
    }
    const log = join(home, 'output.log');
    const out = createWriteStream(log, {flags: 'a'});
    const env: Record<string, string> = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOSTNAME: pod.name,
      ...Object.fromEntries(pod.env.map((e) => [e.name, e.value ?? ''])),
      // The pod's own empty directory, whatever the container says: no kubeconfig of this machine is found.
      HOME: home,
      KUBERNETES_SERVICE_HOST: this.cluster.host,
      KUBERNETES_SERVICE_PORT: this.cluster.port,
      DS_ROLLOUT_SERVICEACCOUNT_DIR: account,
    };
    const child = spawn(exec.command[0]!, [...exec.command.slice(1), ...args], {env, stdio: ['ignore', 'pipe', 'pipe']});
    child.stdout?.pipe(out, {end: false});
    child.stderr?.pipe(out, {end: false});
    const running = {pod, child, startedAt, log};
    this.running.set(pod.uid, running);
    let done = false;
    const finish = (code: number) => {
      if (done) return;
      done = true;
      this.running.delete(pod.uid);
      out.end();
      this.onExit(pod, code, startedAt);
    };
    child.on('error', () => finish(127));
    child.on('exit', (code, signal) => finish(code ?? 128 + signalNumber(signal)));
    return running;
  }

  /** The pod was deleted: its process is stopped as a kubelet stops a container (SIGTERM). */
  stop(uid: string): void {
    this.running.get(uid)?.child.kill('SIGTERM');
  }

  stopAll(): void {
    for (const running of this.running.values()) running.child.kill('SIGKILL');
  }
}

function signalNumber(signal: NodeJS.Signals | null): number {
  return signal === 'SIGKILL' ? 9 : signal === 'SIGTERM' ? 15 : signal === 'SIGINT' ? 2 : 1;
}

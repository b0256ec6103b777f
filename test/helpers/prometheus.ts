// A real Prometheus (Debian's `prometheus` package, /usr/bin/prometheus) for the metric gate's tests: started on
// a free port with a scrape config written here, scraping the simulated cluster's /metrics every second, its
// data in a temp dir. Outside CI a missing binary skips those tests with the reason; in CI (CI=true) it fails them.
import {type ChildProcess, spawn} from 'node:child_process';
import {existsSync} from 'node:fs';
import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {createServer} from 'node:net';
import {tmpdir} from 'node:os';
import {join} from 'node:path';

export const PROMETHEUS_BIN = process.env['DS_ROLLOUT_PROMETHEUS'] ?? '/usr/bin/prometheus';

/** Why the Prometheus tests cannot run here, or undefined: they can. */
export function prometheusMissing(): string | undefined {
  return existsSync(PROMETHEUS_BIN) ? undefined : `${PROMETHEUS_BIN} is not installed (apt-get install prometheus; .ci/run installs it)`;
}

export interface TestPrometheus {
  readonly url: string;
  /** One instant query's JSON answer. */
  query(promql: string): Promise<{status: string; data?: {result: {metric: Record<string, string>; value: [number, string]}[]}}>;
  /** Resolves once `check` holds on the answer to `promql`, or rejects after `timeoutMs` real ms. */
  until(promql: string, check: (values: number[]) => boolean, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Starts Prometheus scraping `target` (`https://127.0.0.1:PORT`, its certificate not checked: the sim's own CA). */
export async function startPrometheus(target: string): Promise<TestPrometheus> {
  const dir = await mkdtemp(join(tmpdir(), 'ds-rollout-prometheus-'));
  const scrape = new URL(target);
  const config = [
    'global:',
    '  scrape_interval: 1s',
    '  scrape_timeout: 1s',
    'scrape_configs:',
    '  - job_name: sim',
    `    scheme: ${scrape.protocol.replace(':', '')}`,
    '    tls_config:',
    '      insecure_skip_verify: true',
    '    static_configs:',
    `      - targets: ['${scrape.host}']`,
  ].join('\n');
  await writeFile(join(dir, 'prometheus.yml'), `${config}\n`);
  let child: ChildProcess | undefined;
  let url = '';
  let output = '';
  // A port taken between choosing and binding: one more try on another.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    child = spawn(
      PROMETHEUS_BIN,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      {stdio: ['ignore', 'pipe', 'pipe']},
    );
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<'exited'>((resolve) => child!.once('exit', () => resolve('exited')));
    const ready = (async () => {
      for (;;) {
        try {
          if ((await fetch(`${url}/-/ready`)).ok) return 'ready' as const;
        } catch {
          // not listening yet
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 60_000).unref());
    const outcome = await Promise.race([ready, exited, timeout]);
    if (outcome === 'ready') break;
    child.kill('SIGKILL');
    if (outcome === 'timeout' || attempt === 2) {
      await rm(dir, {recursive: true, force: true});
      throw new Error(`prometheus did not start: ${output.slice(-2000)}`);
    }
  }
  const running = child!;
  const query: TestPrometheus['query'] = async (promql) => {
    const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
    return (await res.json()) as Awaited<ReturnType<TestPrometheus['query']>>;
  };
  return {
    url,
    query,
    async until(promql, check, timeoutMs = 60_000) {
      const started = performance.now();
      for (;;) {
        const answer = await query(promql).catch(() => undefined);
        const values = (answer?.data?.result ?? []).map((r) => Number(r.value[1]));
        if (answer?.status === 'success' && check(values)) return;
        if (performance.now() - started > timeoutMs) throw new Error(`timed out waiting on Prometheus for ${promql}: ${JSON.stringify(answer)}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    async stop() {
      const exited = new Promise((resolve) => (running.exitCode !== null ? resolve(undefined) : running.once('exit', resolve)));
      running.kill('SIGTERM');
      const killed = setTimeout(() => running.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killed);
      await rm(dir, {recursive: true, force: true});
    },
  };
}

// A TCP proxy in front of a simulated cluster that a test can freeze: from then on it accepts connections and
// keeps the open ones, but forwards nothing either way, as an API server stopped with SIGSTOP looks to a client.
// Open watch streams go silent; new requests get no answer. `thaw` delivers what was held, as SIGCONT would.
import {connect, createServer, type Server, type Socket} from 'node:net';
import {readFile, writeFile} from 'node:fs/promises';

export interface FreezableProxy {
  readonly url: string;
  /** Writes a copy of `kubeconfig` that points at the proxy. */
  kubeconfigFor(kubeconfig: string, path: string): Promise<string>;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function startFreezableProxy(target: string): Promise<FreezableProxy> {
  const {hostname, port, protocol} = new URL(target);
  const sockets = new Set<Socket>();
  /** Deliveries held while frozen, in order. */
  let held: (() => void)[] = [];
  let frozen = false;
  const deliver = (send: () => void) => (frozen ? held.push(send) : send());
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('error', () => undefined);
    client.on('close', () => sockets.delete(client));
    const upstream = connect(Number(port), hostname);
    sockets.add(upstream);
    upstream.on('error', () => undefined);
    upstream.on('close', () => {
      sockets.delete(upstream);
      deliver(() => client.destroy());
    });
    client.on('close', () => deliver(() => upstream.destroy()));
    client.on('data', (chunk) => deliver(() => upstream.write(chunk)));
    upstream.on('data', (chunk) => deliver(() => client.write(chunk)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // A TCP proxy: TLS passes through to the cluster, so the kubeconfig keeps its scheme and CA.
  const url = `${protocol}//127.0.0.1:${(server.address() as {port: number}).port}`;
  return {
    url,
    async kubeconfigFor(kubeconfig, path) {
      const text = await readFile(kubeconfig, 'utf8');
      await writeFile(path, text.replace(/server: .*/, `server: ${url}`), {mode: 0o600});
      return path;
    },
    freeze() {
      frozen = true;
    },
    thaw() {
      frozen = false;
      const pending = held;
      held = [];
      for (const send of pending) send();
    },
    async close() {
      held = [];
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

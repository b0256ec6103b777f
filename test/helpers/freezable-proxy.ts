// A TCP proxy in front of a simulated cluster that a test can freeze: from then on it accepts connections and
// keeps the open ones, but forwards nothing either way, as an API server stopped with SIGSTOP (or a network that
// drops packets) looks to a client. Open watch streams go silent; new requests get no answer.
import {createServer, type Server, type Socket, connect} from 'node:net';
import {readFile, writeFile} from 'node:fs/promises';

export interface FreezableProxy {
  readonly url: string;
  /** Writes a copy of `kubeconfig` that points at the proxy. */
  kubeconfigFor(kubeconfig: string, path: string): Promise<string>;
  freeze(): void;
  close(): Promise<void>;
}

export async function startFreezableProxy(target: string): Promise<FreezableProxy> {
  const {hostname, port} = new URL(target);
  const sockets = new Set<Socket>();
  let frozen = false;
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (frozen) return; // accepted, never answered
    const upstream = connect(Number(port), hostname);
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      if (!frozen) client.destroy();
    });
    upstream.on('error', () => undefined);
    client.on('data', (chunk) => {
      if (!frozen) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!frozen) client.write(chunk);
    });
    client.on('close', () => {
      if (!frozen) upstream.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as {port: number};
  const url = `http://127.0.0.1:${address.port}`;
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
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

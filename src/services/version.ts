// The versions `kubectl ds-rollout version` prints: the plugin's (known at build time) and the API server's.

export interface PluginVersion {
  readonly version: string;
  readonly nodeVersion: string;
  readonly platform: string;
}

/** The API server's /version, as kubectl prints it (gitVersion, platform). */
export interface ServerVersion {
  readonly gitVersion: string;
  readonly major?: string;
  readonly minor?: string;
  readonly platform?: string;
}

const GOARCH: Readonly<Record<string, string>> = {x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm'};

export function pluginVersion(version: string): PluginVersion {
  // Go's spelling (linux/amd64), as kubectl writes platforms.
  return {version: `v${version}`, nodeVersion: process.version, platform: `${process.platform}/${GOARCH[process.arch] ?? process.arch}`};
}

/** The server's version, or why there is none (no kubeconfig, unreachable, refused): a warning, never a failure. */
export async function serverVersion(options: {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly 'request-timeout'?: number;
}): Promise<ServerVersion | {readonly warning: string}> {
  try {
    // One try, as kubectl version makes: a cluster that is not there (connection refused) is said at once, not retried.
    const {openLiveSession} = await import('../cluster/session.js');
    const session = await openLiveSession({...options, attempts: 1}, 'version');
    try {
      return await session.live.client.get<ServerVersion>('/version', {verb: 'get', resource: 'version'});
    } finally {
      session.close();
    }
  } catch (error) {
    return {warning: `server version unknown: ${(error as Error).message}`};
  }
}

export function versionDocument(client: PluginVersion, server: ServerVersion | undefined) {
  return {
    apiVersion: 'ds-rollout.io/v1alpha1',
    kind: 'Version',
    clientVersion: client,
    ...(server ? {serverVersion: {gitVersion: server.gitVersion, major: server.major, minor: server.minor, platform: server.platform}} : {}),
  };
}

export function renderVersionText(client: PluginVersion, server: ServerVersion | undefined): string {
  const lines = [`Client Version: ${client.version} (ds-rollout, node ${client.nodeVersion}, ${client.platform})`];
  if (server) lines.push(`Server Version: ${server.gitVersion}`);
  return `${lines.join('\n')}\n`;
}

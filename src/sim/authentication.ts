// Who is asking, and may they: the simulated cluster's authenticators (bearer tokens; client certificates when it
// serves TLS) and its one authorization rule. As on an API server run with --anonymous-auth=false: a request
// without valid credentials is 401, whatever the path; members of system:masters may do anything; any other
// user may read discovery but is refused resources (403). Impersonation (Impersonate-User, Impersonate-Group)
// is allowed to system:masters only, and the request then has the impersonated user's rights, as on a server.
import {randomBytes, timingSafeEqual} from 'node:crypto';
import type {IncomingMessage} from 'node:http';
import type {TLSSocket} from 'node:tls';

export interface SimUser {
  readonly name: string;
  readonly groups: readonly string[];
}

export const ADMIN_USER: SimUser = {name: 'ds-rollout-sim-admin', groups: ['system:masters', 'system:authenticated']};

export type Authentication = {readonly user: SimUser} | {readonly failed: true};

export class Authenticator {
  private readonly tokens = new Map<string, SimUser>();

  /** A new bearer token for `user` (random, 32 bytes of base64url). */
  issueToken(user: SimUser): string {
    const token = randomBytes(32).toString('base64url');
    this.tokens.set(token, user);
    return token;
  }

  /** The token's user, as it would be after an `Authorization: Bearer` header. */
  userOfToken(token: string): SimUser | undefined {
    const wanted = Buffer.from(token);
    for (const [known, user] of this.tokens) {
      const candidate = Buffer.from(known);
      if (candidate.length === wanted.length && timingSafeEqual(candidate, wanted)) return user;
    }
    return undefined;
  }

  /** The request's user: a valid bearer token's, else a verified client certificate's; failed for a bad token or none. */
  authenticate(req: IncomingMessage): Authentication {
    const header = req.headers.authorization;
    if (header !== undefined) {
      const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
      const user = bearer ? this.userOfToken(bearer[1]!) : undefined;
      return user ? {user} : {failed: true};
    }
    const socket = req.socket as Partial<TLSSocket>;
    if (socket.encrypted && socket.authorized && typeof socket.getPeerCertificate === 'function') {
      const peer = socket.getPeerCertificate();
      const subject = peer?.subject as Record<string, string | string[] | undefined> | undefined;
      const cn = subject?.['CN'];
      if (typeof cn === 'string' && cn !== '') {
        const o = subject?.['O'];
        const groups = o === undefined ? [] : Array.isArray(o) ? o : [o];
        return {user: {name: cn, groups: [...groups, 'system:authenticated']}};
      }
    }
    return {failed: true};
  }
}

/** May `user` send this request? Resource requests need system:masters; discovery and /version any authenticated user. */
export function authorized(user: SimUser, resourceRequest: boolean): boolean {
  return user.groups.includes('system:masters') || !resourceRequest;
}

/** What the impersonation headers make of a request by `user`: the user it acts as, or why it may not. */
export type Impersonation = {readonly user: SimUser} | {readonly refused: 'forbidden'; readonly target: string} | {readonly refused: 'bad-request'};

// upstream: staging/src/k8s.io/apiserver/pkg/endpoints/filters/impersonation.go WithImpersonation (users and groups)
export function impersonate(user: SimUser, headers: IncomingMessage['headers']): Impersonation {
  const target = headers['impersonate-user'];
  const groupHeader = headers['impersonate-group'];
  if (target === undefined && groupHeader === undefined) return {user};
  const name = Array.isArray(target) ? target[0] : target;
  // Groups without a user to impersonate are refused, as upstream does.
  if (name === undefined || name === '') return {refused: 'bad-request'};
  // Impersonating is itself a permission: on the simulated cluster, only system:masters has it.
  if (!user.groups.includes('system:masters')) return {refused: 'forbidden', target: name};
  const groups = (Array.isArray(groupHeader) ? groupHeader : groupHeader === undefined ? [] : groupHeader.split(', ')).filter((group) => group !== '');
  return {user: {name, groups: [...new Set([...groups, 'system:authenticated'])]}};
}

// A certificate authority for the simulated cluster: P-256 keys from node:crypto and X.509 v3 certificates written
// as DER by hand (Node 20 can read certificates but not issue them, and an openssl binary is not a given on every
// machine). Enough of X.509 for Go's and Node's verifiers: a CA, a serving certificate with its subjectAltNames, and
// client certificates whose CN is the user and O the groups, as the API server reads them.
import {type KeyObject, X509Certificate, generateKeyPairSync, randomBytes, sign} from 'node:crypto';
import {isIP} from 'node:net';

export interface IssuedCertificate {
  /** PEM certificate. */
  readonly cert: string;
  /** PEM PKCS#8 private key. */
  readonly key: string;
}

// ------------------------------------------------------------------------------------------------
// DER

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), length(content.length), content]);
}

const seq = (...parts: Buffer[]) => tlv(0x30, Buffer.concat(parts));
const set = (...parts: Buffer[]) => tlv(0x31, Buffer.concat(parts));
const octets = (content: Buffer) => tlv(0x04, content);
const utf8 = (text: string) => tlv(0x0c, Buffer.from(text, 'utf8'));
const bool = (value: boolean) => tlv(0x01, Buffer.from([value ? 0xff : 0]));
const bits = (content: Buffer, unused = 0) => tlv(0x03, Buffer.concat([Buffer.from([unused]), content]));
const explicit = (n: number, content: Buffer) => tlv(0xa0 | n, content);

function integer(value: Buffer): Buffer {
  // DER wants the shortest form: leading zero bytes dropped (OpenSSL refuses a certificate whose random serial starts
  // 00 0x..), then one zero put back when the top bit is set, so that the number stays positive.
  let start = 0;
  while (start < value.length - 1 && value[start] === 0) start++;
  const digits = value.subarray(start);
  return tlv(0x02, digits[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), digits]) : digits);
}

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const out = [40 * a! + b!];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift(0x80 | (v & 0x7f));
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

function time(ms: number): Buffer {
  // UTCTime until 2049, GeneralizedTime after, as RFC 5280 requires.
  const iso = new Date(ms).toISOString();
  const digits = iso.slice(0, 19).replace(/[-:T]/g, '');
  return digits.startsWith('20') && Number(digits.slice(0, 4)) < 2050 ? tlv(0x17, Buffer.from(`${digits.slice(2)}Z`)) : tlv(0x18, Buffer.from(`${digits}Z`));
}

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
};

interface Subject {
  readonly commonName: string;
  readonly organizations?: readonly string[];
}

function name(subject: Subject): Buffer {
  const rdn = (type: string, value: string) => set(seq(oid(type), utf8(value)));
  return seq(...(subject.organizations ?? []).map((o) => rdn(OID.organization, o)), rdn(OID.commonName, subject.commonName));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));
}

function altNames(hosts: readonly string[]): Buffer {
  return seq(
    ...hosts.map((host) => {
      const family = isIP(host);
      if (family === 4) return tlv(0x87, Buffer.from(host.split('.').map(Number)));
      if (family === 6) return tlv(0x87, ipv6Bytes(host));
      return tlv(0x82, Buffer.from(host, 'ascii'));
    }),
  );
}

function ipv6Bytes(address: string): Buffer {
  const [head, tail = ''] = address.split('::');
  const parts = (text: string) => (text === '' ? [] : text.split(':').map((h) => parseInt(h, 16)));
  const before = parts(head!);
  const after = address.includes('::') ? parts(tail) : [];
  const words = [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
  const out = Buffer.alloc(16);
  words.forEach((word, i) => out.writeUInt16BE(word, i * 2));
  return out;
}

interface Template {
  readonly subject: Subject;
  readonly publicKey: KeyObject;
  readonly issuer: Subject;
  readonly issuerKey: KeyObject;
  readonly notBefore: number;
  readonly notAfter: number;
  readonly ca?: boolean;
  readonly hosts?: readonly string[];
  readonly usage?: 'server' | 'client';
}

function issue(template: Template): string {
  const algorithm = seq(oid(OID.ecdsaWithSha256));
  const extensions = [
    extension(OID.basicConstraints, true, template.ca ? seq(bool(true)) : seq()),
    // digitalSignature (bit 0), plus keyCertSign and cRLSign (bits 5, 6) for the CA.
    extension(OID.keyUsage, true, template.ca ? bits(Buffer.from([0x86]), 1) : bits(Buffer.from([0x80]), 7)),
    ...(template.usage ? [extension(OID.extKeyUsage, false, seq(oid(template.usage === 'server' ? OID.serverAuth : OID.clientAuth)))] : []),
    ...(template.hosts && template.hosts.length > 0 ? [extension(OID.subjectAltName, false, altNames(template.hosts))] : []),
  ];
  const serial = randomBytes(16);
  serial[0]! &= 0x7f;
  const tbs = seq(
    explicit(0, tlv(0x02, Buffer.from([2]))),
    integer(serial),
    algorithm,
    name(template.issuer),
    seq(time(template.notBefore), time(template.notAfter)),
    name(template.subject),
    template.publicKey.export({type: 'spki', format: 'der'}),
    tlv(0xa3, seq(...extensions)),
  );
  const signature = sign('sha256', tbs, {key: template.issuerKey, dsaEncoding: 'der'});
  const der = seq(tbs, algorithm, bits(signature));
  return new X509Certificate(der).toString();
}

function pem(key: KeyObject): string {
  return key.export({type: 'pkcs8', format: 'pem'}).toString();
}

const DAY = 24 * 3600 * 1000;

/** A CA that lives as long as the simulated cluster: it signs the serving certificate and the users' client certificates. */
export class CertificateAuthority {
  /** PEM of the CA certificate, for the kubeconfig's certificate-authority-data. */
  readonly cert: string;
  private readonly key: KeyObject;
  private readonly subject: Subject = {commonName: 'ds-rollout-sim-ca'};

  constructor(private readonly now: number = Date.now()) {
    const {privateKey, publicKey} = generateKeyPairSync('ec', {namedCurve: 'P-256'});
    this.key = privateKey;
    this.cert = issue({subject: this.subject, publicKey, issuer: this.subject, issuerKey: privateKey, ...this.validity(), ca: true});
  }

  private validity(): {notBefore: number; notAfter: number} {
    // An hour of slack before now: clocks of clients on the same machine disagree a little.
    return {notBefore: this.now - 3600 * 1000, notAfter: this.now + 365 * DAY};
  }

  /** A serving certificate for these host names and IP addresses. */
  serving(hosts: readonly string[]): IssuedCertificate {
    const {privateKey, publicKey} = generateKeyPairSync('ec', {namedCurve: 'P-256'});
    const cert = issue({
      subject: {commonName: hosts[0] ?? 'localhost'},
      publicKey,
      issuer: this.subject,
      issuerKey: this.key,
      ...this.validity(),
      hosts,
      usage: 'server',
    });
    return {cert, key: pem(privateKey)};
  }

  /** A client certificate: the API server takes CN as the user name and each O as a group. */
  client(user: string, groups: readonly string[] = []): IssuedCertificate {
    const {privateKey, publicKey} = generateKeyPairSync('ec', {namedCurve: 'P-256'});
    const cert = issue({
      subject: {commonName: user, organizations: groups},
      publicKey,
      issuer: this.subject,
      issuerKey: this.key,
      ...this.validity(),
      usage: 'client',
    });
    return {cert, key: pem(privateKey)};
  }
}

// The simulated cluster's CA writes certificates as DER by hand; DER has one encoding per value, and OpenSSL refuses
// any other. The serial is random, so a non-minimal encoding would break one sim start in about 256 (it did, under
// the full suite): the serial is fixed here to the bytes that used to trip it.
import type * as NodeCrypto from 'node:crypto';
import {X509Certificate} from 'node:crypto';
import {afterEach, expect, test, vi} from 'vitest';
import {CertificateAuthority} from '../../src/sim/certificates.js';

const serial = vi.hoisted(() => ({bytes: undefined as Buffer | undefined}));

vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof NodeCrypto>();
  return {...crypto, randomBytes: (size: number) => (serial.bytes ? Buffer.from(serial.bytes) : crypto.randomBytes(size))};
});

afterEach(() => {
  serial.bytes = undefined;
});

test.each([
  ['starts with zero bytes', Buffer.from('00001234567890abcdef1234567890ab', 'hex'), '1234567890ABCDEF1234567890AB'],
  ['has its top bit set (cleared: a serial is positive)', Buffer.from('80000000000000000000000000000001', 'hex'), '01'],
  ['is all zero but one byte', Buffer.from('00000000000000000000000000000007', 'hex'), '07'],
])('a serial that %s is written in its shortest form and the certificates parse', (_, bytes, expected) => {
  serial.bytes = bytes;
  const ca = new CertificateAuthority(Date.UTC(2026, 0, 1));
  const caCert = new X509Certificate(ca.cert);
  const served = new X509Certificate(ca.serving(['localhost', '127.0.0.1']).cert);
  const client = new X509Certificate(ca.client('alice', ['dev']).cert);
  expect(caCert.serialNumber).toBe(expected);
  expect(served.serialNumber).toBe(expected);
  expect(served.verify(caCert.publicKey)).toBe(true);
  expect(client.verify(caCert.publicKey)).toBe(true);
});

/**
 * A certificate authority made at test time and a server certificate it signs for 127.0.0.1 and
 * localhost, so the notification receiver speaks real HTTPS that the cloud verifies against a
 * CA file of its own (the marketplace's `caFile`).
 */
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 86_400_000;

export interface TestPki {
  /** PEM of the CA certificate, and its path on disk (the marketplace's caFile). */
  caPem: string;
  caFile: string;
  /** The receiver's certificate and key (PEM). */
  cert: string;
  key: string;
}

function pemKey(der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN PRIVATE KEY-----\n${b64.trim()}\n-----END PRIVATE KEY-----\n`;
}

export async function makeTestPki(): Promise<TestPki> {
  // Certificates are checked against the real clock, whatever a test does with fake time.
  const notBefore = new Date(Date.now() - DAY);
  const notAfter = new Date(Date.now() + 30 * DAY);
  const caKeys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=Notification Test CA',
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const serverKeys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const server = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: 'CN=localhost',
    issuer: ca.subject,
    notBefore,
    notAfter,
    publicKey: serverKeys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        { type: 'dns', value: 'localhost' },
        { type: 'ip', value: '127.0.0.1' },
      ]),
      await x509.AuthorityKeyIdentifierExtension.create(ca),
    ],
  });
  const caPem = ca.toString('pem');
  const dir = mkdtempSync(join(tmpdir(), 'notify-ca-'));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, caPem);
  return { caPem, caFile, cert: server.toString('pem'), key: pemKey(await webcrypto.subtle.exportKey('pkcs8', serverKeys.privateKey)) };
}

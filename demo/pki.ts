/**
 * The demo receiver's certificates, made at every start: a CA of its own and a server
 * certificate it signs for 127.0.0.1 and localhost. The cloud verifies the receiver against the
 * CA file (the marketplace's `caFile` in the fleet file), exactly as it would a real one.
 */
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 86_400_000;

export interface DemoPki {
  /** PEM of the CA certificate (the marketplaces' `caFile`). */
  caPem: string;
  /** The receiver's certificate and private key (PEM). */
  cert: string;
  key: string;
}

function pemKey(der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN PRIVATE KEY-----\n${b64.trim()}\n-----END PRIVATE KEY-----\n`;
}

/**
 * `now` in epoch ms; the certificates are valid from a day before it for `days` days. The tests'
 * HTTPS receivers use the same authority under another name.
 */
export async function makeDemoPki(now: number, days = 30, caName = 'Parcel-locker demo marketplace CA'): Promise<DemoPki> {
  const notBefore = new Date(now - DAY);
  const notAfter = new Date(now + days * DAY);
  const caKeys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: `CN=${caName}`,
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
  return {
    caPem: ca.toString('pem'),
    cert: server.toString('pem'),
    key: pemKey(await webcrypto.subtle.exportKey('pkcs8', serverKeys.privateKey)),
  };
}

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { envNames } from '../../shared/kernel/config';
import { AwsJsonError as KmsError, awsJsonServer } from './aws-json-endpoint';
import { serveOnLoopback } from './kernel/gateway-port';
import { localKeyArn } from './deployment/overrides';
import type { TemplateDeployment } from './template/template-deployment';
import type { Teardown } from './kernel/teardown';
import { localArn } from './kernel/local-account';

/**
 * A local KMS for the template's sealing keys (GenerateDataKey and Decrypt), so the product's one code
 * path (shared/adapters/sealing/envelope.ts) runs here as in AWS. A blob is the key's ARN, then the data
 * key sealed with AES-256-GCM, the ARN and the encryption context as associated data: it opens only
 * under its key and with its context, as in KMS.
 */

const SEALING_VARIABLES: readonly string[] = [envNames.providerSecretsKey, envNames.mailPasswordsKey];

export function sealingKeyArns(deployment: TemplateDeployment): string[] {
  const arns = deployment.functions.flatMap((fn) => SEALING_VARIABLES.map((name) => localKeyArn(fn.environment[name])));
  return [...new Set(arns.filter((arn) => arn !== undefined))].sort();
}

/** The keys' material, made once per key and kept in `file` (readable by its owner only). */
function keyMaterial(file: string, arns: readonly string[]): Map<string, Buffer> {
  const stored = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : {};
  const missing = arns.filter((arn) => !stored[arn]);
  for (const arn of missing) stored[arn] = randomBytes(32).toString('base64');
  if (missing.length > 0 || !existsSync(file)) writeFileSync(file, JSON.stringify(stored, null, 2), { mode: 0o600 });
  return new Map(Object.entries(stored).map(([arn, material]) => [arn, Buffer.from(material, 'base64')]));
}

/** The encryption context as associated data: its pairs sorted, so their order does not matter (as in KMS). */
const contextBytes = (arn: string, context: unknown): Buffer => {
  const pairs = Object.entries(typeof context === 'object' && context !== null ? (context as Record<string, unknown>) : {}).sort(([a], [b]) => (a < b ? -1 : 1));
  return Buffer.from(JSON.stringify([arn, pairs]));
};

export function createLocalKms(file: string, arns: readonly string[]): Server {
  const keys = keyMaterial(file, arns);

  const keyNamed = (keyId: unknown): string => {
    if (typeof keyId !== 'string' || keyId === '') throw new KmsError('ValidationException', "1 validation error detected: Value null at 'keyId' failed to satisfy constraint: Member must not be null");
    const arn = keyId.startsWith('arn:') ? keyId : localArn('kms', `key/${keyId}`);
    if (!keys.has(arn)) throw new KmsError('NotFoundException', `Key '${arn}' does not exist`);
    return arn;
  };

  const generateDataKey = (input: Record<string, unknown>) => {
    const arn = keyNamed(input.KeyId);
    const bytes = input.NumberOfBytes ?? (input.KeySpec === 'AES_128' ? 16 : 32);
    if (typeof bytes !== 'number' || bytes < 1 || bytes > 1024) throw new KmsError('ValidationException', 'NumberOfBytes must be between 1 and 1024');
    const plaintext = randomBytes(bytes);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', keys.get(arn)!, iv).setAAD(contextBytes(arn, input.EncryptionContext));
    const sealed = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    const name = Buffer.from(arn);
    const blob = Buffer.concat([Buffer.from([name.length]), name, iv, cipher.getAuthTag(), sealed]);
    return { KeyId: arn, Plaintext: plaintext.toString('base64'), CiphertextBlob: blob.toString('base64') };
  };

  const decrypt = (input: Record<string, unknown>) => {
    const blob = Buffer.from(typeof input.CiphertextBlob === 'string' ? input.CiphertextBlob : '', 'base64');
    const invalid = () => new KmsError('InvalidCiphertextException', '');
    if (blob.length < 1 + blob[0]! + 28) throw invalid();
    const arn = blob.subarray(1, 1 + blob[0]!).toString();
    if (!keys.has(arn)) throw invalid();
    if (input.KeyId !== undefined && keyNamed(input.KeyId) !== arn) {
      throw new KmsError('IncorrectKeyException', 'The key ID in the request does not identify a CMK that can perform this operation.');
    }
    const rest = blob.subarray(1 + blob[0]!);
    const decipher = createDecipheriv('aes-256-gcm', keys.get(arn)!, rest.subarray(0, 12)).setAAD(contextBytes(arn, input.EncryptionContext));
    decipher.setAuthTag(rest.subarray(12, 28));
    let plaintext: Buffer;
    try {
      plaintext = Buffer.concat([decipher.update(rest.subarray(28)), decipher.final()]);
    } catch {
      throw invalid();
    }
    return { KeyId: arn, Plaintext: plaintext.toString('base64'), EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
  };

  return awsJsonServer({
    operations: { 'TrentService.GenerateDataKey': generateDataKey, 'TrentService.Decrypt': decrypt },
    maxBodyBytes: 64 * 1024,
    unknownOperation: 'The local KMS answers GenerateDataKey and Decrypt only',
    notJson: 'The request is not JSON',
    internalError: ['KMSInternalException', 'The local KMS failed'],
  });
}

/** The local KMS on a free loopback port, its keys' material in `file`; its stop handed to `teardown`. */
export async function startLocalKms(file: string, arns: readonly string[], teardown: Teardown): Promise<{ url: string }> {
  return { url: await serveOnLoopback(createLocalKms(file, arns), 'local KMS', teardown) };
}

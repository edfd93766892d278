import { RemovalPolicy } from 'aws-cdk-lib';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { envNames } from '../../shared/kernel/config';

/**
 * The symmetric KMS keys that seal what the table keeps secret (envelope encryption:
 * shared/adapters/sealing/envelope.ts), one per kind of secret so that each is opened only where it is
 * used: identity providers' client secrets (sealed by the users function, opened by auth's sign-in
 * broker) and the passwords of queued e-mails (sealed by the functions that queue mail, opened by the
 * mail function). Rotated yearly by KMS; kept when the stack is deleted, or what they sealed is lost.
 */
export class SealingKeys extends Construct {
  readonly providerSecrets: Key;
  readonly mailPasswords: Key;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const key = (keyId: string, description: string) => new Key(this, keyId, { description, enableKeyRotation: true, removalPolicy: RemovalPolicy.RETAIN });
    this.providerSecrets = key('ProviderSecrets', "Seals identity providers' client secrets in the management API's table");
    this.mailPasswords = key('MailPasswords', 'Seals the passwords of e-mails waiting in the management API mail queue');
  }
}

/** What a function does with a sealing key: seal values (a data key from KMS), open them (KMS decrypts the data key), or both. */
export type SealingUse = 'seal' | 'open';

const actions: Record<SealingUse, string> = { seal: 'kms:GenerateDataKey', open: 'kms:Decrypt' };

/** Grants the function its use of the key and names the key in the variable the code reads, in one call. */
export function bindSealingKey(fn: LambdaFunction, key: Key, variable: typeof envNames.providerSecretsKey | typeof envNames.mailPasswordsKey, ...uses: SealingUse[]): void {
  key.grant(fn, ...uses.map((use) => actions[use]));
  fn.addEnvironment(variable, key.keyArn);
}

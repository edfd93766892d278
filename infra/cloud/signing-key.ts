import { RemovalPolicy } from 'aws-cdk-lib';
import { Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { envNames } from '../../shared/kernel/config';

/** The asymmetric KMS key that signs access tokens (ES256); its private half never leaves KMS. */
export class TokenSigningKey extends Construct {
  readonly key: Key;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.key = new Key(this, 'Key', {
      description: 'Signs the management API access tokens (ES256)',
      keySpec: KeySpec.ECC_NIST_P256,
      keyUsage: KeyUsage.SIGN_VERIFY,
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}

/**
 * Sets SIGNING_KEY and lets the function read the public key (every function verifies tokens); only
 * a function that issues tokens may also sign.
 */
export function bindSigningKey(fn: LambdaFunction, signing: TokenSigningKey, options: { canSign: boolean }): void {
  const actions = options.canSign ? ['kms:Sign', 'kms:GetPublicKey'] : ['kms:GetPublicKey'];
  signing.key.grant(fn, ...actions);
  fn.addEnvironment(envNames.signingKey, `kms:${signing.key.keyArn}`);
}

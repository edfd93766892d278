import { Match } from 'aws-cdk-lib/assertions';
import { contextDefaults } from '../../infra/cloud/settings';
import { synthesizedStack } from './stack-template';

/** The stores and identities of the template: the table, the bulk bucket, the signing key, the user pool, the mail sender. */

const { template, singleId, bulkBucketId, sealingKeyId } = synthesizedStack();

describe('table', () => {
  test('has PK/SK, GSI1 on GSI1PK/GSI1SK projecting all, TTL, on-demand, PITR, AWS-managed encryption, retained', () => {
    template().hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        KeySchema: [
          { AttributeName: 'PK', KeyType: 'HASH' },
          { AttributeName: 'SK', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: Match.arrayWith([
          { AttributeName: 'PK', AttributeType: 'S' },
          { AttributeName: 'SK', AttributeType: 'S' },
          { AttributeName: 'GSI1PK', AttributeType: 'S' },
          { AttributeName: 'GSI1SK', AttributeType: 'S' },
        ]),
        GlobalSecondaryIndexes: [
          {
            IndexName: 'GSI1',
            KeySchema: [
              { AttributeName: 'GSI1PK', KeyType: 'HASH' },
              { AttributeName: 'GSI1SK', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
        SSESpecification: { SSEEnabled: true },
      },
    });
  });
});

describe('bulk bucket', () => {
  test('blocks public access, is S3-encrypted, logs access and expires uploads and incomplete multipart uploads', () => {
    const bucket = template().findResources('AWS::S3::Bucket')[bulkBucketId()]!;
    expect(bucket.Properties).toMatchObject({
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      LoggingConfiguration: { DestinationBucketName: { Ref: expect.any(String) } },
      LifecycleConfiguration: {
        Rules: [{ Status: 'Enabled', ExpirationInDays: 7, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }],
      },
    });
  });

  test('its policy denies every request not made over TLS', () => {
    template().hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bulkBucketId() },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Principal: { AWS: '*' },
            Action: 's3:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });
});

describe('signing key', () => {
  test('is an asymmetric P-256 signing key, retained', () => {
    template().hasResource('AWS::KMS::Key', {
      DeletionPolicy: 'Retain',
      Properties: { KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY' },
    });
  });
});

describe('sealing keys', () => {
  test.each(['ProviderSecrets', 'MailPasswords'] as const)('%s is a symmetric encryption key, rotated yearly, retained; its policy lets the account delegate to IAM only', (name) => {
    const key = template().findResources('AWS::KMS::Key')[sealingKeyId(name)]!;
    expect(key.DeletionPolicy).toBe('Retain');
    expect(key.Properties.KeySpec ?? 'SYMMETRIC_DEFAULT').toBe('SYMMETRIC_DEFAULT');
    expect(key.Properties.KeyUsage ?? 'ENCRYPT_DECRYPT').toBe('ENCRYPT_DECRYPT');
    expect(key.Properties.EnableKeyRotation).toBe(true);
    const statements = key.Properties.KeyPolicy.Statement as { Principal: { AWS: unknown } }[];
    expect(statements).toHaveLength(1);
    expect(JSON.stringify(statements[0]!.Principal.AWS)).toContain(':root');
  });
});

describe('user pool', () => {
  test('has uuid usernames (no e-mail sign-in), e-mail attribute, admin-only sign-up, the spec password policy, retained', () => {
    const pool = template().findResources('AWS::Cognito::UserPool')[singleId('AWS::Cognito::UserPool')]!;
    expect(pool.DeletionPolicy).toBe('Retain');
    expect(pool.Properties.UsernameAttributes).toBeUndefined();
    expect(pool.Properties.AliasAttributes).toBeUndefined();
    expect(pool.Properties).toMatchObject({
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      Schema: [{ Name: 'email', Required: true, Mutable: true }],
      Policies: {
        PasswordPolicy: {
          MinimumLength: 6,
          RequireLowercase: true,
          RequireUppercase: true,
          RequireNumbers: false,
          RequireSymbols: false,
        },
      },
    });
  });

  test('has one console client without secret that allows only admin password auth (and refresh)', () => {
    template().hasResourceProperties('AWS::Cognito::UserPoolClient', {
      GenerateSecret: false,
      ExplicitAuthFlows: ['ALLOW_ADMIN_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
      AllowedOAuthFlowsUserPoolClient: false,
    });
  });
});

describe('mail', () => {
  test('has the sender identity in a configuration set', () => {
    template().hasResourceProperties('AWS::SES::EmailIdentity', {
      EmailIdentity: contextDefaults.senderEmail,
      ConfigurationSetAttributes: { ConfigurationSetName: { Ref: singleId('AWS::SES::ConfigurationSet') } },
    });
  });
});

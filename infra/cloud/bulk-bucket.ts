import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership, type CfnBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { envNames } from '../../shared/kernel/config';

export interface BulkBucketProps {
  /** Days an uploaded CSV is kept; the files carry passwords, so not for long. */
  readonly uploadExpirationDays?: number;
}

const privateBucket = {
  blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
  objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
  encryption: BucketEncryption.S3_MANAGED,
  enforceSSL: true,
  minimumTLSVersion: 1.2,
  removalPolicy: RemovalPolicy.RETAIN,
};

/** The bucket bulk operations upload their CSV files to, with a bucket for its access logs. */
export class BulkBucket extends Construct {
  readonly bucket: Bucket;
  readonly accessLogs: Bucket;

  constructor(scope: Construct, id: string, props: BulkBucketProps = {}) {
    super(scope, id);
    this.accessLogs = new Bucket(this, 'AccessLogs', {
      ...privateBucket,
      lifecycleRules: [{ expiration: Duration.days(365) }],
    });

    this.bucket = new Bucket(this, 'Bucket', {
      ...privateBucket,
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: 'bulk-uploads/',
      lifecycleRules: [
        {
          expiration: Duration.days(props.uploadExpirationDays ?? 7),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
    });
  }
}

/** What a function may do with uploaded files. */
export type BulkBucketAccess = 'read' | 'readWrite';

/** Grants object access in the bulk bucket (objects only, never bucket settings) and sets BULK_BUCKET_NAME. */
export function bindBulkBucket(fn: LambdaFunction, bulk: BulkBucket, access: BulkBucketAccess): void {
  // No s3:DeleteObject: nothing deletes uploads, the bucket's lifecycle rule expires them.
  const actions = access === 'read' ? ['s3:GetObject'] : ['s3:GetObject', 's3:PutObject'];
  fn.addToRolePolicy(new PolicyStatement({ actions, resources: [bulk.bucket.arnForObjects('*')] }));
  fn.addEnvironment(envNames.bulkBucket, bulk.bucket.bucketName);
  const bucketId = Stack.of(bulk).getLogicalId(bulk.bucket.node.defaultChild as CfnBucket);
  Validations.of(fn.role!).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/*]`,
    reason: 'Objects of the bulk bucket only: upload keys are generated per job, so no narrower prefix is known.',
  });
}

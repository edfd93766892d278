/**
 * The one region and account of the local stack: every ARN, queue URL and request context it makes
 * names them, as an AWS account's resources name theirs.
 */
export const LOCAL_REGION = 'us-east-1';
export const LOCAL_ACCOUNT_ID = '000000000000';

/** The ARN of a resource of `service` in the local account and region (`key/<id>`, `function:<name>`, a queue's name). */
export const localArn = (service: string, resource: string) => `arn:aws:${service}:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:${resource}`;

/** A local Lambda function's ARN (`local-<group>`), with its qualifier when given. */
export const localFunctionArn = (group: string, qualifier?: string) => localArn('lambda', `function:local-${group}${qualifier ? `:${qualifier}` : ''}`);

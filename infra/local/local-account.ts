/**
 * The one region and account of the local stack: every ARN, queue URL and request context it makes
 * names them, as an AWS account's resources name theirs.
 */
export const LOCAL_REGION = 'us-east-1';
export const LOCAL_ACCOUNT_ID = '000000000000';

/** A local Lambda function's ARN (`local-<group>`), with its qualifier when given. */
export const localFunctionArn = (group: string, qualifier?: string) =>
  `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:function:local-${group}${qualifier ? `:${qualifier}` : ''}`;

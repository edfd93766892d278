// The one file of Powertools' idempotency utility in a function's asset (infra/cloud/service-function.ts,
// lazyPackageEntries): the utility and its DynamoDB store together, so that the store's errors are the
// classes the utility checks for. `require('@aws-lambda-powertools/idempotency/dynamodb')` answers it too.
module.exports = {
  ...require('@aws-lambda-powertools/idempotency'),
  ...require('@aws-lambda-powertools/idempotency/dynamodb'),
};

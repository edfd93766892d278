// The API's description, a file of its own in the docs function's asset (infra/cloud/service-function.ts,
// lazyProjectFiles): the catalogue of every operation and the JSON Schema of its bodies, built by the
// first request for the OpenAPI document (../api-reference.ts), never at the function's cold start.
module.exports = require('../api-description.ts');

// The words of one language, a file of its own in a function's asset (infra/cloud/service-function.ts,
// lazyProjectFiles): loaded by the first page or e-mail in that language (../messages-of.ts).
module.exports = require('../pt.ts');

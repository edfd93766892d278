// The account page's views, a file of their own in the auth function's asset (infra/cloud/service-function.ts,
// lazyProjectFiles): loaded by the first account page shown (../account-page.ts), never by a token request.
module.exports = require('../account-page.view.ts');

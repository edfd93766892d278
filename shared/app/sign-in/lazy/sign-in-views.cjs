// The sign-in flow's pages, a file of their own in the auth function's asset (infra/cloud/service-function.ts,
// lazyProjectFiles): loaded by the first page the flow shows (../sign-in-views.ts), never by a token request.
module.exports = {
  ...require('../sign-in-page.view.ts'),
  ...require('../device-page.view.ts'),
  ...require('../link-confirmation-page.view.ts'),
};

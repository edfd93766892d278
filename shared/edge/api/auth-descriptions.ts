/**
 * What the API's description says of the realm's operations beyond their summaries, by operation id:
 * kept apart from the catalogue (`auth.api.ts`), which the auth function loads for every request, since
 * only the description reads them (the OpenAPI document: the docs function, on its first request for it).
 */
export const authOperationDescriptions: Readonly<Record<string, string>> = {
  'auth.authorize':
    'For browsers. `response_type=code`, the console `client_id`, a `redirect_uri` allowed here (loopback on any port, the reference\'s own page, or one the deployment lists), `code_challenge` with `code_challenge_method=S256`; `state`, `nonce`, `scope` (`openid`, `offline_access`), `login_hint`, `prompt`, `max_age` and `kc_locale` optional. A browser with a live realm session (its `REALM_SESSION` cookie) is sent back with a code at once, unless `prompt=login` or `max_age` asks for a new sign-in; `prompt=none` without one answers `login_required`. An e-mail of a domain with its own identity provider goes on to that provider. A sign-in kept for the page or the provider sets the `AUTH_SESSION_ID` cookie that binds it to this browser: its form, the provider\'s answer and a link\'s confirmation are refused from another browser.',
  'auth.broker':
    "Register `{issuer}/broker/{alias}/endpoint` at the provider (the provider's `redirectUri` in the identity-providers API). The provider's code is exchanged and its ID token checked; the person goes back to the application with a code, or with `error=access_denied`.",
  'auth.firstBrokerLogin':
    'Posted by the page the broker endpoint answers, with the cookie it set (the confirmation is single use, 5 minutes long, and bound to that browser). ' +
      'The password is checked as a sign-in is (a wrong one counts toward the lockout); the right one writes the link and goes back to the application with a code.',
  'auth.deviceAuthorization':
    'For command-line tools on a machine without a browser. Show the person `user_code` and `verification_uri` (or `verification_uri_complete`), then poll the token endpoint with `grant_type=urn:ietf:params:oauth:grant-type:device_code` every `interval` seconds until it answers tokens or an error other than `authorization_pending` and `slow_down`.',
  'auth.device':
    'For people (HTML, no script; en, es, ja or pt by `kc_locale`, else `Accept-Language`). `user_code` fills the form; nothing happens until the person sends it.',
  'auth.deviceCode':
    'A right code answers a redirect to the authorization endpoint, with a cookie holding the sign-in\'s random state for `/device/callback` (the user code and the PKCE verifier are kept server-side). Wrong codes are limited per 10 minutes: 10 from one address (then 429 until the window ends, right codes included), and 10,000 wrong codes for the organization (then wrong codes are answered 429; a right code still goes on).',
  'auth.deviceCallback':
    'The code is redeemed here with the verifier kept for the sign-in the browser\'s cookie names, once (no session begins); the signed-in person sees which client asks, for what, and approves or denies.',
  'auth.logout':
    'With `refresh_token`: that session ends, 204. Without it, with `id_token_hint` or `post_logout_redirect_uri` (or `logout_confirm`, the confirmation page\'s own form): the form of RP-initiated logout (keycloak-js\'s `logoutMethod: \'POST\'`), answered as the GET of this address answers, but its refusals are `invalid_request`.',
  'auth.endSession':
    'For browsers, where keycloak-js\'s and openid-client\'s logout send them. `id_token_hint` names the session to end (an ID token of this realm, expired or not), and the browser\'s realm session ends with it when it is the same user\'s; without a hint, only the realm session ends: at once for a request of this site, after the person confirms on a page for another site\'s. With `post_logout_redirect_uri` (an address the authorization endpoint accepts, and `client_id` or `id_token_hint`) the browser goes back there with `state`; without it, a signed-out page.',
  'auth.thirdPartyCookies':
    "The page keycloak-js frames first when its login-status iframe is on (its default). It posts `unsupported` to its parent, so keycloak-js turns the iframe off and goes on: the realm has no session-status iframe for it to poll (its `check-sso` uses a `prompt=none` request instead). The same page for every realm; any page may frame it.",
  'auth.account':
    "HTML for people, in en, es, ja or pt (`kc_locale`, else `Accept-Language`). Without the page's session, the browser goes on to the realm's authorization endpoint as the page's own client (`account-console`), which answers at once when the browser has a realm session, and comes back to `…/account/sso`.",
  'auth.accountSso':
    "Where the page's sign-in through the realm's authorization flow comes back (with `code`, or `error`): it begins the page session and reloads the page.",
};

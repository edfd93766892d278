import { html, trusted } from '../../kernel/html/html';
import { renderDocument, scriptPolicy } from '../../kernel/html/layout';

/**
 * keycloak-js's third-party cookie check, `{issuer}/protocol/openid-connect/3p-cookies/step1.html`,
 * which it frames before anything else when its login-status iframe is on (its default) and waits 10
 * seconds for, then fails its `init`. The realm keeps no browser session for such an iframe to watch,
 * so the page answers at once what keycloak-js then does without: `unsupported` (it turns the iframe
 * off and goes on). It says nothing else, so any page may frame it.
 */
const SCRIPT = "window.parent.postMessage('unsupported', '*');";

export const THIRD_PARTY_COOKIES_PAGE = renderDocument({ language: 'en', title: 'Third-party cookies', head: html`<script>${trusted(SCRIPT)}</script>`, body: html`` });

/**
 * Its policy: that one script, and no `frame-ancestors`, so that any page frames it (an application
 * on `file:` or a desktop shell's own scheme included, which `frame-ancestors *` would not match).
 */
export const THIRD_PARTY_COOKIES_POLICY = scriptPolicy(SCRIPT);

import { authorizeDevice } from '../../shared/app/auth/device-grant';
import { realmIssuer } from '../../shared/app/auth/jwt';
import { readTokenForm } from '../../shared/app/auth/token.service';
import { decideDevice, enterUserCode, finishDeviceSignIn, showDevicePage, type DeviceAnswer, type DeviceRequest } from '../../shared/app/sign-in/device-verification';
import { PAGE_POLICY } from '../../shared/edge/http/realm-page';
import { authApi } from '../../shared/edge/api/auth.api';
import type { Operation } from '../../shared/edge/api/operation';
import { cookieValue, laxCookie } from '../../shared/edge/http/cookies';
import type { RouteHandler, RouteInput } from '../../shared/edge/http/handler-factory';
import { asAnonymous, publicOperation } from '../../shared/edge/http/public-route';
import { ok, type AnswerOf } from '../../shared/edge/http/types';

/**
 * The device authorization grant's routes (RFC 8628): the device's request for codes, and the
 * verification page's four steps (`shared/app/sign-in/device-verification.ts`).
 */

/** The state of the verification page's sign-in under way (what it is for is kept server-side), sent to the page's addresses only. */
const DEVICE_COOKIE = 'DEVICE_SIGN_IN';
const FORM_TYPE = /^application\/x-www-form-urlencoded(\s*;.*)?$/i;
const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };

export type DeviceInput = RouteInput<{ path: ReturnType<typeof authApi.device.request.path>; query: undefined; body: undefined }>;

/** No caller is known yet: an approval names its user itself (`device-verification.ts`). */
const anonymous = asAnonymous;

/** What the page's use cases read of a request; `crossSite` as the realm's other forms judge it. */
function deviceRequest(input: DeviceInput, crossSite: boolean): DeviceRequest {
  return {
    realm: input.path.realm,
    acceptLanguage: input.headers['accept-language'],
    crossSite,
    sourceIp: input.sourceIp,
    signIn: cookieValue(input.cookies, DEVICE_COOKIE),
  };
}

/**
 * A page (never stored, never framed, no script), or on to the realm's authorization endpoint with the
 * sign-in's verifier in a cookie of the page's addresses: SameSite=Lax, since the flow may come back
 * from the organization's identity provider, another site.
 */
function deviceReply(answer: DeviceAnswer, realm: string) {
  const issuer = new URL(realmIssuer(realm.toLowerCase()));
  const options = { path: `${issuer.pathname}/device`, secure: issuer.protocol === 'https:' };
  if (answer.kind === 'sign-in') {
    return {
      status: 303 as const,
      headers: { ...noStore, location: answer.location },
      cookies: [laxCookie(DEVICE_COOKIE, answer.signIn.value, { ...options, maxAgeSeconds: answer.signIn.seconds })],
    };
  }
  return {
    status: answer.status,
    body: answer.html,
    contentType: 'text/html; charset=utf-8',
    headers: { ...noStore, 'content-security-policy': PAGE_POLICY, ...(answer.retryAfter ? { 'retry-after': String(answer.retryAfter) } : {}) },
    ...(answer.endSignIn ? { cookies: [laxCookie(DEVICE_COOKIE, undefined, { ...options, maxAgeSeconds: 0 })] } : {}),
  };
}

const fromQuery = (input: DeviceInput) => new URLSearchParams(input.queryString);
const fromForm = (input: DeviceInput) => new URLSearchParams(FORM_TYPE.test(input.headers['content-type'] ?? '') ? (input.rawBody ?? '') : '');

/** The device endpoint and the verification page's routes; `crossSiteOf` is the realm's one judgement of a form's site. */
export function deviceRoutes(crossSiteOf: (input: DeviceInput) => boolean): RouteHandler[] {
  const page = <const O extends Operation & { access: 'public' }>(
    operation: O,
    handle: (request: DeviceRequest, params: URLSearchParams) => Promise<DeviceAnswer>,
    params: (input: DeviceInput) => URLSearchParams,
  ) =>
    publicOperation(operation, {
      handle: async (routeInput) => {
        const input = routeInput as unknown as DeviceInput;
        const answer = await anonymous(input.requestId, () => handle(deviceRequest(input, crossSiteOf(input)), params(input)));
        // The catalogue declares each route's statuses; the use cases answer within them.
        return deviceReply(answer, input.path.realm) as unknown as AnswerOf<O>;
      },
    });
  return [
    publicOperation(authApi.deviceAuthorization, {
      handle: async ({ path, headers, rawBody }) => ok(await authorizeDevice(path.realm, readTokenForm(headers['content-type'], rawBody, headers.authorization)), noStore),
    }),
    page(authApi.device, showDevicePage, fromQuery),
    page(authApi.deviceCode, enterUserCode, fromForm),
    page(authApi.deviceCallback, finishDeviceSignIn, fromQuery),
    page(authApi.deviceDecision, decideDevice, fromForm),
  ];
}

/** The security headers of an HTML page that sets none of its own. */

/**
 * The Content-Security-Policy of an HTML page that sets none: nothing loads, nothing submits. A page
 * that needs more (the account page's forms and style, the API reference's script) states its own.
 */
export const STRICT_PAGE_POLICY = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The features an HTML page is denied (Permissions-Policy), unless it states its own. middy's list
 * also names features Chromium no longer knows or never shipped (`battery`, `document-domain`,
 * `window-placement`, `sync-script`, …): it ignores each of them with a console warning, so they are
 * left out; what Chromium enforces is the same. `web-share` is known only where the platform shares
 * (not on Linux).
 */
export const PAGE_DENIED_FEATURES = [
  'accelerometer', 'autoplay', 'camera', 'cross-origin-isolated', 'display-capture', 'encrypted-media', 'fullscreen',
  'geolocation', 'gyroscope', 'keyboard-map', 'magnetometer', 'microphone', 'midi', 'payment', 'picture-in-picture',
  'publickey-credentials-get', 'screen-wake-lock', 'sync-xhr', 'usb', 'web-share', 'xr-spatial-tracking', 'clipboard-read',
  'clipboard-write', 'gamepad', 'hid', 'idle-detection', 'interest-cohort', 'serial',
] as const;

/** A Permissions-Policy header's value that denies these features to every origin. */
export const denyingPermissions = (features: readonly string[]): string => features.map((feature) => `${feature}=()`).join(', ');

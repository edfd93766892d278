/** The bounds of an organization's identity providers (no dependencies, so the route catalogue and the docs function can import them). */

/** The most providers an organization may have. */
export const MAX_IDENTITY_PROVIDERS = 10;
/** The most e-mail domains one provider may hold. */
export const MAX_DOMAINS = 20;
/** An alias: a lower-case slug, the last segment of the broker's redirect URI. */
export const ALIAS_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

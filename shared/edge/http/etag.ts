/** ETags here are a resource's version number, quoted (a strong validator). */
export const etagOf = (version: number): string => `"${version}"`;

const VERSION_TAG = /^"(0|[1-9]\d*)"$/;

/**
 * The versions an `If-Match` header names: `'any'` for `*`, else the versions of its tags (weak
 * `W/` tags compared as strong ones). A tag that names no version is dropped, so it matches nothing.
 * `undefined` when the header is absent.
 */
export function versionsOfIfMatch(ifMatch: string | undefined): 'any' | number[] | undefined {
  if (ifMatch === undefined) return undefined;
  const tags = ifMatch.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  if (tags.includes('*')) return 'any';
  return tags.flatMap((tag) => {
    const match = VERSION_TAG.exec(tag);
    return match ? [Number(match[1])] : [];
  });
}

/** A resource answered with its version as the ETag. */
export const withEtag = <B, const S extends number = 200>(body: B, version: number, status: S = 200 as S) => ({ status, body, headers: { etag: etagOf(version) } });

/** The entity tags an `If-Match` header names, unquoted (weak ones as strong): `'any'` for `*`, `undefined` when absent. */
export function tagsOfIfMatch(ifMatch: string | undefined): 'any' | string[] | undefined {
  if (ifMatch === undefined) return undefined;
  const tags = ifMatch.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  if (tags.includes('*')) return 'any';
  return tags.flatMap((tag) => (/^"[^"]*"$/.test(tag) ? [tag.slice(1, -1)] : []));
}

/** A tag that is not a version number (a digest), quoted. */
export const etagOfText = (value: string): string => `"${value}"`;

/**
 * Whether a session (or a token of it) that began at `startedAtMs` (epoch milliseconds) began before
 * the user's credentials last changed: then it no longer works, even where the revocation that
 * followed the change missed it (an index not yet consistent, a sign-in in flight). `user` is the
 * user's record (`UserRecord`, whose `credentialsChangedAt` is epoch milliseconds), named by shape:
 * this layer may not import the users' module.
 */
export function outlivedCredentials(user: { credentialsChangedAt?: number | undefined }, startedAtMs: number): boolean {
  return user.credentialsChangedAt !== undefined && startedAtMs <= user.credentialsChangedAt;
}

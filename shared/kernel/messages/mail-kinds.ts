/** The kinds of e-mail. `welcome`: an ADMIN created the user. `reactivation`: a deleted user was restored. */
export const mailKinds = ['welcome', 'reactivation'] as const;
export type MailKind = (typeof mailKinds)[number];

/**
 * The one Content-Security-Policy of the realm's pages (sign-in, account, device verification), as
 * their layout states it: the functions that answer those pages set it on each (a module of its own,
 * so that functions without pages do not load the layout).
 */
export { PAGE_POLICY } from '../../kernel/html/layout';

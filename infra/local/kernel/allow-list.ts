import type { ResourceGroup } from '../../../shared/edge/api/routes';

/** An entry of a reviewed allow-list (unexercised grants, defaults meant): the functions it excuses, and why. */
export interface Excused { functions: readonly ResourceGroup[] | 'all'; reason: string }

export const excuses = (entry: Excused, group: ResourceGroup): boolean => entry.functions === 'all' || entry.functions.includes(group);

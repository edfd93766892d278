import { subpathsFromEnv } from '../../kernel/config';
import type { Operation } from '../api/operation';
import { operationPath } from '../api/route-resolution';

/** An operation's path under this deployment's subpaths, its `{name}` parameters filled in: what a `Location` header names. */
export const locationOf = (operation: Operation, params: Record<string, string>): string => operationPath(operation, params, subpathsFromEnv());
